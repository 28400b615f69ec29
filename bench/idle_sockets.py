"""Health beside idle live sockets: ``GET /v1/health`` with no socket open, then with
``--sockets`` (200) welcomed spectator sockets on one game, in interleaved rounds.

``python -m bench.idle_sockets`` (about a minute). One ``floe run``-shaped stack
(``bench.stack.Stack``: gunicorn with gevent workers, a private Redis); one client asks for
health one request after another on a kept-alive connection, ``--requests`` times a phase.
An idle socket costs its worker three greenlets and no Redis connection (its waits ring on
the process's one subscription): health should not notice them. The machine is shared, so
each round measures both phases back to back and the report gives the ratio of their p50s
and p99s (idle sockets ÷ none), round by round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simple_websocket import Client

from bench import policy
from bench.report import git_state, load_average, machine
from bench.stack import HOST, Stack, create_game

#: How long a socket may take to be welcomed (a busy machine opens 200 slowly).
WELCOME_SECONDS = 30.0


def health_latencies(stack: Stack, requests: int) -> list[float]:
    """Seconds each of ``requests`` health requests took, one after another."""
    client = stack.client()
    try:
        client.request("GET", "/v1/health")  # the connection made before timing
        took = []
        for _ in range(requests):
            start = time.perf_counter()
            status, _ = client.request("GET", "/v1/health")
            took.append(time.perf_counter() - start)
            if status != 200:
                raise RuntimeError(f"health answered {status}")
        return took
    finally:
        client.close()


def open_idle(stack: Stack, game_id: str, count: int) -> list[Client]:
    """``count`` spectator sockets on ``game_id``, each welcomed (then left idle)."""
    url = f"ws://{HOST}:{stack.port}/v1/games/{game_id}/socket"
    sockets: list[Client] = []
    for _ in range(count):
        socket = Client.connect(url)
        sockets.append(socket)
        socket.send(json.dumps({"type": "hello"}))
    for socket in sockets:
        welcome = json.loads(socket.receive(timeout=WELCOME_SECONDS))
        if welcome.get("type") != "welcome":
            raise RuntimeError(f"a socket was not welcomed: {welcome}")
    return sockets


def percentile(values: Sequence[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def summary(values: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": 1000 * percentile(values, 50), "p99_ms": 1000 * percentile(values, 99)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    rounds: list[dict[str, Any]] = []
    # Every socket comes from 127.0.0.1: no per-address cap of connections (each worker's)
    # may refuse them; the stack already lifts the cap of long requests.
    os.environ["FLOE_CONNECTIONS_PER_ADDRESS"] = "0"
    with Stack() as stack:
        client = stack.client()
        try:
            game_id, _ = create_game(client, 2, policy.OPTIONS)
        finally:
            client.close()
        health_latencies(stack, args.requests)  # warm-up, not kept
        for number in range(args.rounds):
            none = summary(health_latencies(stack, args.requests))
            sockets = open_idle(stack, game_id, args.sockets)
            try:
                idle = summary(health_latencies(stack, args.requests))
            finally:
                for socket in sockets:
                    socket.close()
            rounds.append(
                {
                    "round": number,
                    "none": none,
                    "idle": idle,
                    "p50_ratio": idle["p50_ms"] / none["p50_ms"],
                    "p99_ratio": idle["p99_ms"] / none["p99_ms"],
                }
            )
    return {
        "bench": "idle_sockets",
        "sockets": args.sockets,
        "requests": args.requests,
        "rounds": rounds,
        "median_p50_ratio": statistics.median(r["p50_ratio"] for r in rounds),
        "median_p99_ratio": statistics.median(r["p99_ratio"] for r in rounds),
        "load_average": load_average(),
        "machine": machine(),
        "git": git_state(str(Path(__file__).resolve().parents[1])),
    }


def table(report: dict[str, Any]) -> str:
    lines = [
        f"health, {report['requests']} requests a phase, none then {report['sockets']} idle "
        "welcomed sockets",
        "round  none p50 / p99 (ms)   idle p50 / p99 (ms)   ratio p50 / p99",
    ]
    for r in report["rounds"]:
        none, idle = r["none"], r["idle"]
        lines.append(
            f"{r['round']:>5}  {none['p50_ms']:6.2f} / {none['p99_ms']:6.2f}       "
            f"{idle['p50_ms']:6.2f} / {idle['p99_ms']:6.2f}       "
            f"{r['p50_ratio']:.2f} / {r['p99_ratio']:.2f}"
        )
    lines.append(
        f"median ratio (idle sockets / none): p50 {report['median_p50_ratio']:.2f}, "
        f"p99 {report['median_p99_ratio']:.2f}"
    )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.idle_sockets",
        description="Health latency with and without idle live sockets, interleaved rounds.",
    )
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--requests", type=int, default=500, help="health requests a phase")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", type=Path, default=Path("bench/results/idle_sockets.json"))
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    report = run(args)
    print(table(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
