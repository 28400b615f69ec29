"""(d) The worker path: dice and bot moves per second per worker, and roll-to-outcome latency.

Dice: each Iceberg roll is a POST that leaves the game awaiting a draw; a ``floe worker``
process derives the die from the seed and appends the ``random`` event; the POST (with
``?wait=10``) answers once the outcome is readable. So one measured POST is the whole path a
client sees: API, Redis, the job queue, the worker, its append, and the blocked read that
returns it. Games are created with ``idle_turn_limit: 0`` and nobody flips a tile, so no die
ever matches and the seats simply alternate rolling for as long as the benchmark runs.

Draws alone: with the workers stopped (SIGSTOP), ``backlog`` people's Iceberg games are
created, each waiting for its deal; then the workers go on (SIGCONT) and the time until every
game is dealt is what the workers take for that many draws, the API out of the loop.

Bot moves: ``clients`` Arktia games whose two seats are both ``random`` bots play themselves
on the workers, nobody posting; a game that ends is replaced by a new one, so as many are
in play throughout. Counted: the seats' events appended in the window, read back from the
store afterwards.

The job queues live where ``floe run`` puts them: in a Redis of their own, in memory
(``queue_redis``; ``--dice-queue store`` puts them in the event store's Redis instead, as
a deployment with only ``REDIS_URL`` has them). The workers are started here, as ``floe
run`` starts its general workers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.report import Report, Result, percentile
from bench.stack import BenchError, Client, Stack, machine_busy, own_queue_redis
from service.store.events import RedisEventStore, meta_key

WAIT = 10
#: The issue's targets: per worker, and the one-client median (lower is better).
RATE_TARGET = 500.0
LATENCY_TARGET_MS = 5.0
_TICKS = os.sysconf("SC_CLK_TCK")


@contextmanager
def queue_redis(where: str) -> Iterator[str | None]:
    """The job queues' Redis as ``floe run`` starts it (``where`` "memory"), its URL set as
    ``FLOE_QUEUE_URL`` for every process started meanwhile; "store": none (the store's)."""
    if where == "store":
        yield None
        return
    if where != "memory":
        raise ValueError(f"--dice-queue is memory or store, not {where!r}")
    with own_queue_redis() as server:
        yield server.url


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


def _cpu(pids: list[int]) -> float:
    """CPU seconds used so far by ``pids`` (utime + stime, from /proc)."""
    total = 0.0
    for pid in pids:
        try:
            raw = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rfind(")") + 2 :].split()
        total += (int(fields[11]) + int(fields[12])) / _TICKS
    return total


class Roller:
    """One client on its own two-player Iceberg game, rolling turn after turn."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.latencies: list[float] = []
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
        if status != 201:  # the worker did not answer within WAIT: fail, do not hide it
            raise BenchError("a roll waited more than 10 s for its die")
        self.latencies.append(time.perf_counter() - started)
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


def drain_backlog(
    stack: Stack, processes: list[subprocess.Popen[bytes]], count: int
) -> tuple[float, float]:
    """Deal ``count`` games queued while the workers were stopped: seconds from letting the
    workers go on to the last deal, and the workers' CPU seconds meanwhile."""
    client = stack.client()
    store = stack.redis.client()
    players = [{"name": "a"}, {"name": "b"}]
    games: list[str] = []
    for process in processes:
        os.kill(process.pid, signal.SIGSTOP)
    try:
        for _ in range(count):
            status, body = client.json("POST", "/v1/games", {"game": "iceberg", "players": players})
            if status != 201 or body["status"] != "awaiting_random":
                raise BenchError(f"creating an Iceberg game answered {status}: {body}")
            games.append(str(body["id"]))
    finally:
        cpu = _cpu([p.pid for p in processes])
        started = time.perf_counter()
        for process in processes:
            os.kill(process.pid, signal.SIGCONT)
    try:
        deadline = time.monotonic() + 120
        while True:  # a benchmark's controller: it polls, 10 ms apart
            pipe = store.pipeline(transaction=False)
            for game_id in games:
                pipe.hget(meta_key(game_id), "status")
            if all(status == b"active" for status in pipe.execute()):
                break
            if time.monotonic() > deadline:
                raise BenchError(f"{count} deals were not all made within 120 s")
            time.sleep(0.01)
        return time.perf_counter() - started, _cpu([p.pid for p in processes]) - cpu
    finally:
        client.close()
        store.close()


class BotGames:
    """``count`` all-``random`` Arktia games in play on the workers, replaced as they end."""

    def __init__(self, stack: Stack, count: int) -> None:
        self.client = stack.client()
        self.store = stack.redis.client()
        self.count = count
        self.games: list[str] = []

    def _create(self) -> str:
        players = [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}]
        status, body = self.client.json("POST", "/v1/games", {"game": "arktia", "players": players})
        if status != 201:
            raise BenchError(f"creating a bot game answered {status}: {body}")
        game_id = str(body["id"])
        self.games.append(game_id)
        return game_id

    def versions(self) -> dict[str, int]:
        pipe = self.store.pipeline(transaction=False)
        for game_id in self.games:
            pipe.hget(meta_key(game_id), "version")
        return {g: int(v or 0) for g, v in zip(self.games, pipe.execute(), strict=True)}

    def play(self, seconds: float) -> tuple[dict[str, int], dict[str, int], float]:
        """Keep ``count`` games in play for ``seconds``; versions at the start and the end
        of the window, and its length."""
        live = {self._create() for _ in range(self.count)}
        start = self.versions()
        started = time.perf_counter()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:  # a benchmark's controller: it polls, 20 ms apart
            pipe = self.store.pipeline(transaction=False)
            ordered = sorted(live)
            for game_id in ordered:
                pipe.hget(meta_key(game_id), "status")
            for game_id, status in zip(ordered, pipe.execute(), strict=True):
                if status == b"over":
                    live.discard(game_id)
                    live.add(self._create())
            time.sleep(0.02)
        end = self.versions()
        return start, end, time.perf_counter() - started

    def moves(self, start: dict[str, int], end: dict[str, int]) -> int:
        """The seats' events appended between the two readings (not the system's)."""
        store = RedisEventStore(self.store)
        made = 0
        for game_id, last in end.items():
            first = start.get(game_id, 1)
            events = store.read(game_id, after=first, upto=last) if last > first else []
            made += sum(1 for e in events if isinstance(e.actor, int))
        return made

    def close(self) -> None:
        self.client.close()
        self.store.close()


def run(
    stack: Stack,
    report: Report,
    *,
    clients: int,
    duration: float,
    samples: int,
    workers: int,
    queue: str | None = None,
    backlog: int = 2000,
    log: Callable[[str], None],
) -> None:
    where = "its own Redis, in memory" if queue else "the event store's Redis"
    log(f"(d) starting {workers} floe worker process(es); job queues in {where}")
    processes = _start_workers(stack, workers)
    pids = [p.pid for p in processes]
    try:
        log(f"(d) {samples} rolls, one at a time: latency from POST to readable outcome")
        [single] = _run_clients(stack, 1, lambda r: len(r.latencies) >= samples)
        log(f"(d) {clients} clients rolling for {duration:.0f}s: dice per second")
        deadline = time.monotonic() + duration
        cpu, busy = _cpu(pids), machine_busy()
        started = time.perf_counter()
        rollers = _run_clients(stack, clients, lambda r: time.monotonic() >= deadline)
        elapsed = time.perf_counter() - started
        dice_cpu, dice_busy = _cpu(pids) - cpu, machine_busy() - busy
        log(f"(d) {backlog} deals queued while the workers are stopped, then drained")
        drained_s, drained_cpu = drain_backlog(stack, processes, backlog)
        log(f"(d) {clients} all-random-bot Arktia games for {duration:.0f}s: bot moves per second")
        bots = BotGames(stack, clients)
        try:
            cpu, busy = _cpu(pids), machine_busy()
            start, end, bot_elapsed = bots.play(duration)
            bot_cpu, bot_busy = _cpu(pids) - cpu, machine_busy() - busy
            moves = bots.moves(start, end)
            games = len(bots.games)
        finally:
            bots.close()
    finally:
        _stop(processes)
    dice = sum(len(r.latencies) for r in rollers)
    loaded = [x for r in rollers for x in r.latencies]
    group = "(d) worker path"
    per_worker = f"per worker, {workers} worker{'s' if workers > 1 else ''}"
    report.add(
        Result(
            group,
            f"dice per second {per_worker}, {clients} clients",
            dice / elapsed / workers,
            "dice/s",
            target=RATE_TARGET,
        )
    )
    report.add(
        Result(
            group,
            f"draws per second {per_worker}, a backlog of {backlog:,} deals",
            backlog / drained_s / workers,
            "draws/s",
            target=RATE_TARGET,
        )
    )
    report.add(
        Result(
            group,
            f"random-bot moves per second {per_worker}, {clients} games",
            moves / bot_elapsed / workers,
            "moves/s",
            target=RATE_TARGET,
        )
    )
    for pct in (50, 99):
        report.add(
            Result(
                group,
                f"roll -> outcome p{pct}, one client",
                1000 * percentile(single.latencies, pct),
                "ms",
                target=LATENCY_TARGET_MS if pct == 50 else None,
                goal="<=",
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
                "queue": "memory" if queue else "store",
                "dice": {
                    "elapsed_s": elapsed,
                    "dice": dice,
                    "worker_cpu_s": dice_cpu,
                    "machine_busy_s": dice_busy,
                },
                "single_samples": len(single.latencies),
                "backlog": {"deals": backlog, "elapsed_s": drained_s, "worker_cpu_s": drained_cpu},
                "bots": {
                    "elapsed_s": bot_elapsed,
                    "moves": moves,
                    "games": games,
                    "worker_cpu_s": bot_cpu,
                    "machine_busy_s": bot_busy,
                },
            }
        )
    )
