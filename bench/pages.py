"""What the web pages ask of the server, timed against a long game on a real ``floe run``.

The pages are static files; what costs is the API calls they make. This starts ``floe run``
(its own Redis, workers and gunicorn), lets bots play games until one has at least
``--events`` events, then times each request a page makes, one at a time on one keep-alive
connection, as the page would:

- the game page: the page itself, ``GET /v1/games/{id}``, ``/events?after=N&limit=250`` (it
  reads the log in pages of 250), ``board.svg`` (now);
- the replay page: ``state?version=N``, ``board.svg?version=N`` and ``events?after=N-1&limit=1``
  at random N;
- the upload page: ``POST /v1/replays`` with the game's export (20 boards from a random N).

The long game: four seats of Ice Breakers, each posting random legal actions through the API;
it is still in play when timed, as a watched game would be.

Then the game ends (a seat resigns) and the replay page's three requests are timed twice
more: on the finished game still in Redis, and once a mover (in this process, on the same
Redis and the run's own archive, ``archive.sqlite3`` in its data directory) has moved it to
the archive. The API's processes then read it from the archive once and from their cache
after (``service.archive.reads``); the ratio archived / in Redis is the figure to read.
``floe run``'s own movers are held off (``FLOE_ARCHIVE_AFTER_S`` of an hour) so the game
stays in Redis until the bench moves it.

Times are measured by the client on loopback, so they hold the server's time and a little
more. ``python -m bench.pages [--events 1000] [--samples 200]``; results go to BENCHMARKS.md
by hand (measured, not asserted by any test).
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.bootstrap import build
from service.settings import Settings
from tests.support.floe_run import floe_run

#: Four seats of Ice Breakers played through the API by ``long_game``: its games run to a
#: thousand events and more when every choice is random.
LONG_GAME = {"game": "ice-breakers", "players": [{"name": f"seat {i}"} for i in range(4)]}
ORGANIZER = "organizer-token-for-bench-pages"
ENV = {
    "FLOE_BOT_GAMES_PER_CREATOR": "0",
    "FLOE_LIVE_GAMES_PER_CREATOR": "0",
    "FLOE_STORED_BYTES_PER_CREATOR": "0",
    "FLOE_JOB_WORKERS": "2",
    "FLOE_ORGANIZER_TOKEN": ORGANIZER,
    "FLOE_ARCHIVE_AFTER_S": "3600",
}
#: The replay page's requests, timed live, over in Redis and archived.
REPLAY = (
    ("GET state?version=N", "state"),
    ("GET board.svg?version=N", "board"),
    ("GET events?after=N-1&limit=1", "event"),
)


class Client:
    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str = "",
        token: str | None = None,
    ) -> tuple[int, bytes, float]:
        headers = {"Content-Type": content_type} if content_type else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        started = time.perf_counter()
        self.connection.request(method, path, body, headers)
        response = self.connection.getresponse()
        raw = response.read()
        return response.status, raw, time.perf_counter() - started

    def json(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        kind = "application/json" if data else ""
        status, raw, _ = self.request(method, path, data, kind, token)
        assert 200 <= status < 300, (path, status, raw[:200])
        return json.loads(raw)


def long_game(client: Client, events: int, rng: random.Random) -> tuple[str, list[str]]:
    """A game played through the API to ``events`` events (or the longest of a few, should
    they all end sooner): each seat to act posts a random legal action, rather one that does
    something than ``end_turn`` or ``pass`` (longer turns, so more events), with ``?wait=``
    for the draws it causes."""
    best: tuple[int, str, list[str]] = (0, "", [])
    for _ in range(5):
        created = client.json("POST", "/v1/games?wait=10", LONG_GAME)
        game_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
        version = created["version"]
        while version < events:
            view = client.json("GET", f"/v1/games/{game_id}")
            if view["status"] == "over":
                break
            token = tokens[view["to_act"][0]]
            legal = client.json("GET", f"/v1/games/{game_id}/legal-actions", token=token)
            busy = [a for a in legal["actions"] if a["type"] not in ("end_turn", "pass")]
            body = {
                "action": rng.choice(busy if busy and rng.random() < 0.9 else legal["actions"]),
                "expected_version": legal["version"],
                "command_id": f"bench-{legal['version']}",
            }
            path = f"/v1/games/{game_id}/actions?wait=10"
            version = client.json("POST", path, body, token=token)["version"]
        if version > best[0]:
            best = (version, game_id, tokens)
        if version >= events:
            break
    return best[1], best[2]


def p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[98]


def run(events: int, samples: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)

    def log(line: str) -> None:
        print(line, file=sys.stderr)

    with (
        tempfile.TemporaryDirectory(prefix="floe-bench-pages-") as data,
        floe_run(Path(data), ENV) as floe,
    ):
        client = Client(floe.port)
        started = time.perf_counter()
        game_id, tokens = long_game(client, events, rng)
        last = client.json("GET", f"/v1/games/{game_id}")["version"]
        log(f"played {game_id} to {last} events in {time.perf_counter() - started:.0f} s")
        _, export, _ = client.request("GET", f"/v1/games/{game_id}/export", token=ORGANIZER)
        base = f"/v1/games/{game_id}"
        requests: list[tuple[str, Callable[[], tuple[str, str, bytes | None, str]]]] = [
            ("GET /games/{id} (the page)", lambda: ("GET", f"/games/{game_id}", None, "")),
            ("GET /v1/games/{id}", lambda: ("GET", base, None, "")),
            ("GET board.svg", lambda: ("GET", f"{base}/board.svg", None, "")),
        ]

        def at_random(what: str) -> Callable[[], tuple[str, str, bytes | None, str]]:
            def make() -> tuple[str, str, bytes | None, str]:
                n = rng.randint(1, last)
                paths = {
                    "state": f"{base}/state?version={n}",
                    "board": f"{base}/board.svg?version={n}",
                    "event": f"{base}/events?after={n - 1}&limit=1",
                    "events": f"{base}/events?after={n - 1}&limit=250",
                }
                return "GET", paths[what], None, ""

            return make

        requests += [
            ("GET events?after=N&limit=250", at_random("events")),
            ("GET state?version=N", at_random("state")),
            ("GET board.svg?version=N", at_random("board")),
            ("GET events?after=N-1&limit=1", at_random("event")),
            (
                "POST /v1/replays (the export, 20 boards)",
                lambda: (
                    "POST",
                    f"/v1/replays?from={rng.randint(1, last)}&count=20",
                    export,
                    "application/x-ndjson",
                ),
            ),
        ]
        results = timed(client, requests, samples)
        replay = [(name, at_random(what)) for name, what in REPLAY]
        ended = end(client, game_id, tokens)
        log(f"{game_id} ended at v{ended}: the replay page again, over in Redis")
        over = timed(client, replay, samples)
        move(Path(data), game_id)
        log(f"{game_id} moved to the archive: the replay page again")
        archived = timed(client, replay, samples)
        for before, after in zip(over, archived, strict=True):
            results.append({**before, "request": f"{before['request']} (over, in Redis)"})
            ratio = after["p50_ms"] / before["p50_ms"] if before["p50_ms"] else float("nan")
            results.append({**after, "request": f"{after['request']} (archived, p50 x{ratio:.2f})"})
        results.insert(0, {"game": game_id, "events": last, "export_bytes": len(export)})
        return results


Request = tuple[str, Callable[[], tuple[str, str, bytes | None, str]]]


def timed(client: Client, requests: list[Request], samples: int) -> list[dict[str, Any]]:
    """Each request ``samples`` times (after 5 that warm the caches): p50, p99, size."""
    results = []
    for name, make in requests:
        times = []
        size = 0
        count = samples if "replays" not in name else max(20, samples // 10)
        for _ in range(count + 5):
            method, path, body, kind = make()
            status, raw, seconds = client.request(method, path, body, kind)
            assert status == 200, (path, status, raw[:200])
            times.append(seconds)
            size = max(size, len(raw))
        times = times[5:]  # the first few warm the caches
        results.append(
            {
                "request": name,
                "n": len(times),
                "p50_ms": round(1000 * statistics.median(times), 1),
                "p99_ms": round(1000 * p99(times), 1),
                "max_bytes": size,
            }
        )
    return results


def end(client: Client, game_id: str, tokens: list[str]) -> int:
    """End the game, unless it ended on its own: its first seat resigns (in Ice Breakers,
    the crew's failure)."""
    view = client.json("GET", f"/v1/games/{game_id}")
    version = int(view["version"])
    if view["status"] == "over":
        return version
    body = {"action": {"type": "resign"}, "expected_version": version, "command_id": "bench-end"}
    path = f"/v1/games/{game_id}/actions"
    answered = client.json("POST", path, body, token=tokens[0])
    return int(answered["version"])


def move(data_dir: Path, game_id: str) -> None:
    """Move the finished game to ``floe run``'s archive, as its workers' mover would."""
    settings = Settings(
        redis_url=f"unix://{data_dir / 'redis' / 'redis.sock'}",
        archive_url=f"sqlite:///{data_dir.resolve() / 'archive.sqlite3'}",
        archive_after_s=0,
    )
    floe = build(settings)
    assert floe.mover is not None
    why = floe.mover.move(game_id)
    assert why is None, why
    floe.redis.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pages", description=__doc__)
    parser.add_argument("--events", type=int, default=1000, help="at least this long a game")
    parser.add_argument("--samples", type=int, default=200, help="requests timed per kind")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    results = run(args.events, args.samples, args.seed)
    game, rows = results[0], results[1:]
    print(f"game {game['game']}: {game['events']} events, export {game['export_bytes']} bytes")
    print(f"{'request':45} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'bytes':>9}")
    for row in rows:
        print(
            f"{row['request']:45} {row['n']:>5} {row['p50_ms']:>8} {row['p99_ms']:>8}"
            f" {row['max_bytes']:>9}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
