"""(m) Archiving: Redis stays flat while thousands of finished games move to the archive.

``python -m bench --only m`` (or ``python -m bench.archiving``). One real ``floe run`` (its own
durable Redis, workers, gevent API and its default archive, ``archive.sqlite3`` in its data
directory), with ``FLOE_ARCHIVE_AFTER_S`` at ``after_s`` and the sweeper every
``sweep_s``. ``clients`` threads each create short all-bot games (two ``random`` bots,
Arktia with ``turn_limit`` 2) through the API, one at a time, and wait for each to end
(``GET /v1/games/{id}`` every ``poll_s``). They play on until ``games`` have ended and the
last figures are taken, so both points are measured under the same load. Per-creator quotas
and rate limits are off: every client is 127.0.0.1.

Measured, in the same run:

- Redis ``used_memory`` after the first ``early`` games ended, and after ``games``; each also
  *settled*: once every game that had ended at that moment has moved to the archive (none
  left in ``floe:ended`` up to then; games ending meanwhile stay, as they would at any
  moment). The target: the late settled figure within 1.5 x the early one's.
- a sweep's reads (``bench.sweeping.sweep_reads`` plus the mover's read of ``floe:ended``)
  at both points, best of ``repeats``, from this process on the same Redis: flat as
  finished games grow.
- the archive's size: the SQLite file (with its WAL) per game and per event, and the
  compressed exports alone.
- games per second over the whole run.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import redis

from bench.report import Report, Result
from bench.sweeping import best_ms, sweep_reads
from service.bootstrap import build
from service.settings import Settings
from service.store.events import ENDED_GAMES
from tests.support.floe_run import FloeRun, call, floe_run

GROUP = "(m) archiving"
RESULTS = Path(__file__).resolve().parent / "results"
BOTS = [{"name": "b1", "bot": "random"}, {"name": "b2", "bot": "random"}]

Log = Callable[[str], None]


@dataclass(frozen=True)
class Config:
    """Every size of (m); ``quick()`` is ``--quick``'s."""

    games: int = 10_000
    early: int = 500
    clients: int = 16
    after_s: float = 1.0
    sweep_s: float = 0.5
    poll_s: float = 0.02
    repeats: int = 25

    @classmethod
    def quick(cls) -> Config:
        return cls(games=2_000, early=250)

    def env(self) -> dict[str, str]:
        return {
            "FLOE_ARCHIVE_AFTER_S": str(self.after_s),
            "FLOE_SWEEP_SECONDS": str(self.sweep_s),
            "FLOE_BOT_GAMES_PER_CREATOR": "0",
            "FLOE_LIVE_GAMES_PER_CREATOR": "0",
            "FLOE_STORED_BYTES_PER_CREATOR": "0",
            "FLOE_RATE_LIMIT_PER_ADDRESS": "0",
            "FLOE_RATE_LIMIT_PER_TOKEN": "0",
        }


class Players:
    """``clients`` threads playing bot games until ``games`` have ended; counts and errors."""

    def __init__(self, port: int, config: Config) -> None:
        self._port = port
        self._config = config
        self._lock = threading.Lock()
        self.stop = threading.Event()
        self.ended = 0
        self.events = 0
        self.errors: list[str] = []
        self.reached = {config.early: threading.Event(), config.games: threading.Event()}

    def play(self) -> None:
        threads = [threading.Thread(target=self._client) for _ in range(self._config.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _take(self) -> bool:
        """Whether another game is to be played (until told to stop, or too many errors)."""
        with self._lock:
            return not self.stop.is_set() and len(self.errors) < 20

    def _client(self) -> None:
        body = {"game": "arktia", "players": BOTS, "options": {"turn_limit": 2}}
        while self._take():
            status, created, _ = call(self._port, "POST", "/v1/games", body)
            if status != 201:
                self._failed(f"create: {status} {created}")
                continue
            version = self._until_over(created["id"])
            if version is None:
                continue
            with self._lock:
                self.ended += 1
                self.events += version
                for mark, reached in self.reached.items():
                    if self.ended >= mark:
                        reached.set()

    def _until_over(self, game_id: str) -> int | None:
        while True:
            status, view, _ = call(self._port, "GET", f"/v1/games/{game_id}")
            if status != 200:
                self._failed(f"read: {status} {view}")
                return None
            if view["status"] == "over":
                return int(view["version"])
            time.sleep(self._config.poll_s)  # a client's poll, not synchronisation

    def _failed(self, why: str) -> None:
        with self._lock:
            self.errors.append(why)
            if len(self.errors) >= 20:  # stop: something is wrong, say what
                self.reached[self._config.games].set()


def settled(client: redis.Redis, timeout: float = 300.0) -> float:
    """Seconds until every game that had ended by now has left Redis (none left in
    ``floe:ended`` up to now)."""
    began, now_ms = time.monotonic(), int(time.time() * 1000)
    while client.zcount(ENDED_GAMES, "-inf", now_ms) and time.monotonic() - began < timeout:
        time.sleep(0.1)  # the movers' pace, polled
    return time.monotonic() - began


def archive_size(data_dir: Path) -> dict[str, int]:
    """The archive's files and what they hold: games, events, compressed export bytes."""
    path = data_dir / "archive.sqlite3"
    files = sum(p.stat().st_size for p in data_dir.glob("archive.sqlite3*"))
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        games, events, exports = db.execute(
            "SELECT count(*), coalesce(sum(version), 0), coalesce(sum(length(export_zst)), 0)"
            " FROM archived_games"
        ).fetchone()
    return {"file_bytes": files, "games": games, "events": events, "export_bytes": exports}


def point(run: FloeRun, floe_sweep: Callable[[], int], repeats: int) -> dict[str, Any]:
    """Redis's memory now and once settled, and a sweep's reads (settled)."""
    client = run.redis()
    now = int(client.info("memory")["used_memory"])
    waited = settled(client)
    after = int(client.info("memory")["used_memory"])
    sweep_ms, _ = best_ms(floe_sweep, repeats)
    return {
        "used_memory": now,
        "used_memory_settled": after,
        "settle_s": waited,
        "keys": int(client.dbsize()),
        "sweep_ms": sweep_ms,
    }


def measure(config: Config, log: Log) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="floe-bench-archive-") as tmp:
        data_dir = Path(tmp)
        with floe_run(data_dir, config.env()) as run:
            settings = Settings(redis_url=f"unix://{data_dir / 'redis' / 'redis.sock'}")
            floe = build(settings)

            def sweep() -> int:
                floe.store.ended_before(int(time.time() * 1000), 200)
                return sweep_reads(floe)

            players = Players(run.port, config)
            began = time.monotonic()
            playing = threading.Thread(target=players.play)
            playing.start()
            log(f"(m) {config.clients} clients playing {config.games} bot games")
            players.reached[config.early].wait()
            early = point(run, sweep, config.repeats)
            log(f"(m)   after {config.early}: {early}")
            players.reached[config.games].wait()
            ended = players.ended
            elapsed = time.monotonic() - began
            end = point(run, sweep, config.repeats)
            log(f"(m)   after {ended}: {end}")
            players.stop.set()
            playing.join()
            size = archive_size(data_dir)
            floe.redis.close()
        return {
            "config": asdict(config),
            "ended": ended,
            "events": players.events,
            "errors": players.errors[:20],
            "elapsed_s": elapsed,
            "early": early,
            "end": end,
            "archive": size,
        }


def run(report: Report, *, config: Config, log: Log) -> None:
    """(m)'s figures into ``report``."""
    found = measure(config, log)
    early, end, size = found["early"], found["end"], found["archive"]
    games = max(1, size["games"])
    events = max(1, size["events"])
    ratio = end["used_memory_settled"] / early["used_memory_settled"]
    note = f"{found['ended']} games ended, {len(found['errors'])} errors"
    report.add(Result(GROUP, "games ended a second", found["ended"] / found["elapsed_s"], "/s"))
    for name, at in ((f"after {config.early}", early), (f"after {found['ended']}", end)):
        report.add(Result(GROUP, f"Redis used_memory {name}", at["used_memory"] / 2**20, "MiB"))
        report.add(Result(GROUP, f"  settled {name}", at["used_memory_settled"] / 2**20, "MiB"))
        report.add(Result(GROUP, f"  a sweep's reads {name}", at["sweep_ms"], "ms"))
    report.add(
        Result(GROUP, "used_memory end / early (settled)", ratio, "x", target=1.5, goal="<=",
               note=note)
    )  # fmt: skip
    report.add(
        Result(GROUP, "sweep end / early", end["sweep_ms"] / early["sweep_ms"], "x", target=1.5,
               goal="<=")
    )  # fmt: skip
    report.add(Result(GROUP, "archive bytes a game", size["file_bytes"] / games, "B"))
    report.add(Result(GROUP, "archive bytes an event", size["file_bytes"] / events, "B"))
    report.add(Result(GROUP, "compressed export a game", size["export_bytes"] / games, "B"))
    report.details["archiving"] = {**found, "ratio": ratio}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.archiving", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2,000 games, early mark 250")
    parser.add_argument("--games", type=int, default=None, help="games to play (10000)")
    parser.add_argument("--early", type=int, default=None, help="the early mark (500)")
    parser.add_argument("--clients", type=int, default=None, help="concurrent clients (16)")
    parser.add_argument("--output", type=Path, default=RESULTS / "archiving.json")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    config = Config.quick() if args.quick else Config()
    config = Config(
        games=args.games or config.games,
        early=args.early or config.early,
        clients=args.clients or config.clients,
    )
    report = Report()
    run(report, config=config, log=lambda message: print(message, file=sys.stderr, flush=True))
    report.write(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
