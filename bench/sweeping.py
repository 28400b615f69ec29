"""(l) Sweeping: what one sweep reads costs as finished games pile up (issue 26).

``python -m bench --only l`` (or ``python -m bench.sweeping``). A private redis-server
(``bench.in_process``: the tests' ``RedisServer`` in memory, a free port on 127.0.0.1) holds
``--live`` bot games made through the service's own create (each waits on a worker for its
bot's move) and finished games written straight through the store
(``RedisEventStore.create``, then one append with status ``over``, as the service ends a
game: fast, and each leaves the live index). Finished games are added in steps
(``--finished``, cumulative: 0, 5,000, 20,000), and at each step, in the same run, the best
of ``--repeats`` timings (the least disturbed by whatever else the machine runs) of:

- **a sweep's reads**: ``Automation.repair_live_index`` (its fixed slice of ``floe:games``),
  ``waiting_timers`` and ``waiting_jobs``, what ``Sweeper.sweep`` reads from the event store;
- **every game's record** (``list_ids`` + ``records`` over all of ``floe:games``): what a
  sweep read before the live index, for contrast.

The ratio of the sweep's time at the largest step to the smallest should be near 1: a
sweep's cost follows the live games, not the games ever played.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.in_process import counting_floe, ephemeral_redis
from bench.report import Report, Result
from domain.engine.log import GENESIS_HASH, seal
from domain.engine.status import GameStatus
from domain.engine.types import Event
from service.bootstrap import Floe
from service.games.access import Viewer
from service.games.commands import CreateGame, NewPlayer
from service.store.events import LIVE_GAMES, EventStore

GROUP = "(l) sweeping"
RESULTS = Path(__file__).resolve().parent / "results"
AT = "2026-11-22T12:00:00Z"

Log = Callable[[str], None]


@dataclass(frozen=True)
class Config:
    """Every size of (l); ``quick()`` is ``--quick``'s."""

    live: int = 200
    #: Finished games in the store at each step (cumulative, ascending).
    finished: tuple[int, ...] = (0, 5000, 20000)
    repeats: int = 15

    @classmethod
    def quick(cls) -> Config:
        return cls(finished=(0, 2000, 8000), repeats=9)


def add_finished(store: EventStore, start: int, count: int) -> None:
    """``count`` finished games, each created then ended by one append (status ``over``)."""
    for n in range(start, start + count):
        game_id = f"done-{n:08d}"
        [first] = seal(
            game_id,
            [Event("game_created", "system", {"game": "arktia"})],
            first_version=1,
            prev_hash=GENESIS_HASH,
            at=AT,
            command_id=None,
        )
        meta = {"game": "arktia", "created_at": AT, "seats": "[]", "tokens": "[]"}
        store.create(first, seed_hex="00" * 32, meta=meta, created_ms=n)
        [ended] = seal(
            game_id,
            [Event("game_over", "system", {})],
            first_version=2,
            prev_hash=first.hash,
            at=AT,
            command_id=None,
        )
        store.append([ended], status=GameStatus.OVER)


def sweep_reads(floe: Floe) -> int:
    """What one sweep reads from the event store; how many jobs it found waiting."""
    automation = floe.automation
    automation.repair_live_index()
    list(automation.waiting_timers())
    return len(set(automation.waiting_jobs()))


def every_record(floe: Floe) -> int:
    """Every game's record, 500 a round trip: what a sweep read before the live index."""
    store, offset, read = floe.store, 0, 0
    while ids := store.list_ids(offset=offset, limit=500):
        read += len(store.records(ids))
        offset += 500
    return read


def best_ms(action: Callable[[], int], repeats: int) -> tuple[float, int]:
    """The best of ``repeats`` timings of ``action`` (ms), and what it answered."""
    times, answer = [], 0
    for _ in range(repeats):
        began = time.perf_counter()
        answer = action()
        times.append((time.perf_counter() - began) * 1000)
    return min(times), answer


def measure(config: Config, log: Log) -> list[dict[str, Any]]:
    """Each step's figures, in one run on one Redis."""
    steps: list[dict[str, Any]] = []
    with ephemeral_redis("floe-bench-sweep-") as server:
        client = server.client()
        floe = counting_floe(client)
        log(f"(l) {config.live} live bot games, through the service's create")
        for _ in range(config.live):
            players = (NewPlayer("bot", "random"), NewPlayer("ann"))
            floe.commands.create(CreateGame("arktia", players), Viewer())
        made = 0
        for finished in config.finished:
            log(f"(l) {finished} finished games: writing {finished - made} more")
            add_finished(floe.store, made, finished - made)
            made = finished
            sweep_reads(floe)  # warm: the live games' states folded once, as a worker's
            sweep_ms, waiting = best_ms(lambda: sweep_reads(floe), config.repeats)
            all_ms, read = best_ms(lambda: every_record(floe), config.repeats)
            steps.append(
                {
                    "finished": finished,
                    "live_index": int(client.scard(LIVE_GAMES)),
                    "waiting_jobs": waiting,
                    "sweep_ms": sweep_ms,
                    "every_record_ms": all_ms,
                    "records": read,
                }
            )
            log(f"(l)   sweep {sweep_ms:.2f} ms; every record {all_ms:.1f} ms ({read})")
        client.close()
    return steps


def run(report: Report, *, config: Config, log: Log) -> None:
    """(l)'s figures into ``report``: a sweep's reads and every record's, per step."""
    steps = measure(config, log)
    for step in steps:
        note = f"{config.live} live, {step['waiting_jobs']} waiting, index {step['live_index']}"
        label = f"{step['finished']} finished"
        report.add(Result(GROUP, f"a sweep's reads, {label}", step["sweep_ms"], "ms", note=note))
        report.add(Result(GROUP, f"every record (before), {label}", step["every_record_ms"], "ms"))
    ratio = steps[-1]["sweep_ms"] / steps[0]["sweep_ms"]
    report.add(
        Result(
            GROUP,
            f"sweep ratio, {steps[-1]['finished']} finished / {steps[0]['finished']}",
            ratio,
            "x",
            target=1.5,
            goal="<=",
        )
    )
    report.details["sweeping"] = {"config": asdict(config), "steps": steps, "ratio": ratio}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sweeping", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="0, 2,000 and 8,000 finished")
    parser.add_argument("--live", type=int, default=None, help="live bot games (200)")
    parser.add_argument(
        "--finished",
        type=lambda text: tuple(int(part) for part in text.split(",")),
        default=None,
        help="finished games at each step, ascending (0,5000,20000)",
    )
    parser.add_argument("--repeats", type=int, default=None, help="timings per step (15)")
    parser.add_argument("--output", type=Path, default=RESULTS / "sweeping.json")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    config = Config.quick() if args.quick else Config()
    config = Config(
        args.live or config.live, args.finished or config.finished, args.repeats or config.repeats
    )
    report = Report()
    run(report, config=config, log=lambda message: print(message, file=sys.stderr))
    report.write(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
