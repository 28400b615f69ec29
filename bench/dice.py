"""(d) Dice through the worker path: rolls per second, and roll-to-outcome latency.

Each Iceberg roll is a POST that leaves the game awaiting a draw; an RQ job on a ``floe
worker`` process derives the die from the seed and appends the ``random`` event; the POST
(with ``?wait=10``) answers once the outcome is readable. So one measured POST is the whole
path a client sees: API, Redis, queue, worker, append, and the blocked read that returns it.

Games are created with ``idle_turn_limit: 0`` and nobody flips a tile, so no die ever
matches and the seats simply alternate rolling for as long as the benchmark runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from bench.report import Report, Result, percentile
from bench.stack import BenchError, Client, Stack

WAIT = 10


def _start_workers(stack: Stack, count: int) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "REDIS_URL": stack.redis.url, "FLOE_SWEEP_SECONDS": "5"}
    return [
        subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


class Roller:
    """One client on its own two-player Iceberg game, rolling turn after turn."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.latencies: list[float] = []
        self.misses = 0
        status, body = client.json(
            "POST",
            f"/v1/games?wait={WAIT}",
            {
                "game": "iceberg",
                "players": [{"name": "a"}, {"name": "b"}],
                "options": {"idle_turn_limit": 0},
            },
        )
        if status != 201 or body["status"] != "active":
            raise BenchError(f"creating an Iceberg game answered {status}: {body}")
        self.game = body["id"]
        self.tokens = [seat["token"] for seat in body["seats"]]
        self.version = int(body["version"])
        for seat, square in ((0, [3, 3]), (1, [6, 6])):
            self._post(seat, {"type": "place_start", "square": square})
        self.seat = 0

    def _post(self, seat: int, action: dict[str, Any]) -> tuple[int, Any]:
        payload = {
            "action": action,
            "expected_version": self.version,
            "command_id": f"{seat}-{self.version}",
        }
        status, body = self.client.json(
            "POST", f"/v1/games/{self.game}/actions?wait={WAIT}", payload, self.tokens[seat]
        )
        if status not in (201, 202):
            raise BenchError(f"posting {action['type']} answered {status}: {body}")
        self.version = int(body["version"])
        return status, body

    def roll(self) -> None:
        started = time.perf_counter()
        status, _ = self._post(self.seat, {"type": "roll"})
        if status == 201:
            self.latencies.append(time.perf_counter() - started)
        else:
            self.misses += 1  # the worker did not answer within WAIT: count, do not hide
            raise BenchError("a roll waited more than 10 s for its die")
        self.seat = 1 - self.seat


def _run_clients(stack: Stack, clients: int, until: Callable[[Roller], bool]) -> list[Roller]:
    rollers = [Roller(stack.client()) for _ in range(clients)]
    errors: list[BaseException] = []

    def loop(roller: Roller) -> None:
        try:
            while not until(roller):
                roller.roll()
        except BaseException as error:  # surfaced below
            errors.append(error)

    threads = [threading.Thread(target=loop, args=(r,)) for r in rollers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for roller in rollers:
        roller.client.close()
    if errors:
        raise errors[0]
    return rollers


def run(
    stack: Stack,
    report: Report,
    *,
    clients: int,
    duration: float,
    samples: int,
    workers: int,
    log: Callable[[str], None],
) -> None:
    log(f"(d) starting {workers} floe worker process(es)")
    processes = _start_workers(stack, workers)
    try:
        log(f"(d) {samples} rolls, one at a time: latency from POST to readable outcome")
        [single] = _run_clients(stack, 1, lambda r: len(r.latencies) >= samples)
        log(f"(d) {clients} clients rolling for {duration:.0f}s: dice per second")
        deadline = time.monotonic() + duration
        started = time.perf_counter()
        rollers = _run_clients(stack, clients, lambda r: time.monotonic() >= deadline)
        elapsed = time.perf_counter() - started
    finally:
        _stop(processes)
    dice = sum(len(r.latencies) for r in rollers)
    loaded = [x for r in rollers for x in r.latencies]
    group = "(d) dice via workers"
    report.add(Result(group, "dice per second, 16 clients", dice / elapsed, "dice/s"))
    for pct in (50, 99):
        report.add(
            Result(
                group,
                f"roll -> outcome p{pct}, alone",
                1000 * percentile(single.latencies, pct),
                "ms",
            )
        )
    for pct in (50, 99):
        report.add(
            Result(
                group,
                f"roll -> outcome p{pct}, {clients} clients",
                1000 * percentile(loaded, pct),
                "ms",
            )
        )
    report.details["dice"] = json.loads(
        json.dumps(
            {
                "workers": workers,
                "clients": clients,
                "elapsed_s": elapsed,
                "dice": dice,
                "single_samples": len(single.latencies),
            }
        )
    )
