"""All-bot games of every kind, size and strength, played by a running service to the end.

Run it against ``make run`` (``python -m bench.ai.live --url http://127.0.0.1:8000``): it
creates one game per (game, options, players, strength) with every seat a bot, waits until
each is over (no client plays: the workers do), exports each log and audits it with
``floe replay verify``'s own function. Exit status 0 only when every game ended and verified
``ok``. It is a smoke test of a deployment, so it polls (once a second) rather than streams.
It creates dozens of bot games from one address at once: start the service with
``FLOE_BOT_GAMES_PER_CREATOR=0`` (``make run`` reads it), or it meets the bot-game quota.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
from collections.abc import Sequence
from typing import Any

from replay.verify import verify_lines

STRENGTHS = ("random", "greedy", "mcts")
KINDS: list[tuple[str, dict[str, Any], tuple[int, ...]]] = [
    ("arktia", {}, (2, 3, 4)),
    ("iceberg", {}, (2, 3, 4)),
    ("ice-breakers", {}, (2, 3, 4)),
    ("ice-breakers", {"intro": True}, (2, 3, 4)),
]


def _fetch(url: str, body: Any = None) -> str:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        text: str = response.read().decode()
    return text


def _call(url: str, body: Any = None) -> Any:
    return json.loads(_fetch(url, body))


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ai.live", description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds for all games")
    args = parser.parse_args(argv)
    games: dict[str, str] = {}
    for game, options, sizes in KINDS:
        for players in sizes:
            for strength in STRENGTHS:
                seats = [{"name": f"{strength}{i}", "bot": strength} for i in range(players)]
                body = {"game": game, "players": seats, "options": options}
                created = _call(f"{args.url}/v1/games", body)
                label = f"{game}{' intro' if options else ''} {players}p {strength}"
                games[created["id"]] = label
    print(f"created {len(games)} all-bot games", flush=True)
    started = time.monotonic()
    pending = dict(games)
    failures = 0
    while pending and time.monotonic() - started < args.timeout:
        for game_id, label in list(pending.items()):
            view = _call(f"{args.url}/v1/games/{game_id}")
            if view["status"] != "over":
                continue
            export = _fetch(f"{args.url}/v1/games/{game_id}/export")
            verdict = verify_lines(export.splitlines())
            events = len(export.splitlines())
            elapsed = time.monotonic() - started
            print(
                f"{elapsed:7.0f} s  {label:28} {events:5d} events  verify {verdict.status}  "
                f"outcome {json.dumps(view['outcome'])}",
                flush=True,
            )
            failures += verdict.status != "ok"
            del pending[game_id]
        if pending:
            time.sleep(1.0)
    for label in pending.values():
        print(f"NOT OVER after {args.timeout:.0f} s: {label}")
    print(f"{len(games) - len(pending)} of {len(games)} over, {failures} failed verification")
    return 0 if not pending and not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
