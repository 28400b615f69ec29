"""(a) HTTP throughput: 16 clients posting moves, against 16 clients doing one bare XADD.

Both loads run against the same server with the same concurrency and the same client code
(one keep-alive ``http.client`` connection per thread, one HTTP request per measured op),
so their ratio says how much of the stack's ceiling the actions route leaves on the table.

What is measured, exactly:

- ``actions``: each client owns a 2-player Arktia game (``turn_limit`` 10000) and replays a
  precomputed legal script (see ``bench.policy``), alternating seats as the script says.
  The measured op is one ``POST /v1/games/{id}/actions``; nothing else is sent.
- ``bare``: each client sends ``POST /bench/xadd`` with a body of the same shape and the same
  ``Authorization`` header; the route does one XADD and answers ``{"ok": true}``.
- ``actions+legal GET`` (optional): as ``actions``, but before every POST the client also
  sends ``GET legal-actions`` for the seat, as a naive bot would. The GET is not in the
  latency samples but does count against the throughput, which is POSTs per second.

Creating games is never measured; a client whose script runs out or whose game ends creates
a new game (counted in ``games_created`` so it can be seen to be rare). Each load gets
``rounds`` windows on fresh connections, alternating which load goes first; CPU seconds of
gunicorn, Redis, the client and the whole machine are sampled around every window. A window
in which one gunicorn worker did more than 75% of the work is run again (see ``LOPSIDED``).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from bench import policy
from bench.report import Report, Result, latency_summary
from bench.stack import BenchError, Client, Stack, create_game

#: A window where one gunicorn worker did more than this share of the work: the 16 keep-alive
#: connections, opened at once, landed unevenly, so the window measured one worker's GIL
#: rather than the server. Such a window is run again (at most twice), and counted.
LOPSIDED = 0.75


@dataclass
class LoadResult:
    """What one load observed inside its measurement window(s); rounds pool by ``merge``."""

    name: str
    clients: int
    seconds: float
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    games_created: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    rounds: list[dict[str, float]] = field(default_factory=list)

    @property
    def ok(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.ok / self.seconds if self.seconds > 0 else 0.0

    def merge(self, other: LoadResult) -> None:
        """Pool another window of the same load into this one."""
        self.seconds += other.seconds
        self.latencies.extend(other.latencies)
        self.errors += other.errors
        self.games_created += other.games_created
        for status, count in other.statuses.items():
            self.statuses[status] = self.statuses.get(status, 0) + count
        for key, value in other.cpu.items():
            self.cpu[key] = self.cpu.get(key, 0.0) + value
        summary = latency_summary(other.latencies)
        self.rounds.append(
            {"rate_per_s": other.rate, "p50_ms": summary["p50_ms"], **other.cpu_json()}
        )

    def cpu_json(self) -> dict[str, float]:
        """CPU per op (ms) by process, cores busy, and the busiest worker's share of the load.

        ``cores_busy_machine`` above ``cores_busy_ours`` means something else was running.
        """
        if not self.cpu or not self.ok or self.seconds <= 0:
            return {}
        workers = [v for k, v in self.cpu.items() if k.startswith("worker:")]
        api = self.cpu.get("api_master", 0.0) + sum(workers)
        ours = api + self.cpu.get("redis", 0.0) + self.cpu.get("client", 0.0)
        out = {
            "cpu_ms_per_op_api": api / self.ok * 1000,
            "cpu_ms_per_op_redis": self.cpu.get("redis", 0.0) / self.ok * 1000,
            "cpu_ms_per_op_client": self.cpu.get("client", 0.0) / self.ok * 1000,
            "cores_busy_ours": ours / self.seconds,
            "cores_busy_machine": self.cpu.get("machine", 0.0) / self.seconds,
        }
        if sum(workers) > 0:
            out["busiest_worker_share"] = max(workers) / sum(workers)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "clients": self.clients,
            "seconds": self.seconds,
            "ok": self.ok,
            "rate_per_s": self.rate,
            "rounds": self.rounds,
            "errors": self.errors,
            "games_created": self.games_created,
            "statuses": {str(k): v for k, v in self.statuses.items()},
            **latency_summary(self.latencies),
            **self.cpu_json(),
        }


class Worker:
    """One client's loop body: unmeasured preparation, then exactly one measured request."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.games_created = 0

    def prepare(self) -> None:
        """Unmeasured work before the next op (creating a game, an optional GET)."""

    def op(self) -> tuple[int, bytes]:
        raise NotImplementedError

    def after(self, status: int, body: bytes) -> bool:
        """Digest the answer (unmeasured); True when it is the expected success."""
        raise NotImplementedError


class ActionPoster(Worker):
    """Replays a legal script on its own game: each op is one POST of the next action."""

    def __init__(
        self, client: Client, script: Sequence[policy.Step], name: str, *, legal_get: bool
    ) -> None:
        super().__init__(client)
        self.script = script
        self.name = name
        self.legal_get = legal_get
        self.game_id = ""
        self.tokens: list[str] = []
        self.index = 0
        self.version = 0
        self.sent = 0
        self.body = b""
        self.token = ""

    def _new_game(self) -> None:
        self.game_id, self.tokens = create_game(self.client, 2, policy.OPTIONS)
        self.games_created += 1
        self.index = 0
        self.version = 1

    def prepare(self) -> None:
        if not self.game_id or self.index >= len(self.script):
            self._new_game()
        step = self.script[self.index]
        self.token = self.tokens[step.seat]
        if self.legal_get:
            status, raw = self.client.request(
                "GET", f"/v1/games/{self.game_id}/legal-actions", token=self.token
            )
            if status != 200 or step.action not in json.loads(raw)["actions"]:
                raise BenchError(f"scripted action not legal on {self.game_id}: {step.action}")
        self.sent += 1
        self.body = json.dumps(
            {
                "action": step.action,
                "expected_version": self.version,
                "command_id": f"{self.name}-{self.sent}",
            }
        ).encode()

    def op(self) -> tuple[int, bytes]:
        return self.client.request(
            "POST", f"/v1/games/{self.game_id}/actions", self.body, self.token
        )

    def after(self, status: int, body: bytes) -> bool:
        if status != 201:
            self.game_id = ""  # resynchronise on a fresh game
            return False
        answer = json.loads(body)
        self.version = int(answer["version"])
        self.index += 1
        if any(event["type"] == "game_over" for event in answer["events"]):
            self.game_id = ""
        return True


class BareXadd(Worker):
    """The ceiling: one ``POST /bench/xadd`` per op, same body shape and headers as a move."""

    def __init__(self, client: Client, name: str, sample: policy.Step) -> None:
        super().__init__(client)
        self.name = name
        self.sample = sample
        self.sent = 0
        self.body = b""

    def prepare(self) -> None:
        self.sent += 1
        self.body = json.dumps(
            {
                "action": self.sample.action,
                "expected_version": self.sent,
                "command_id": f"{self.name}-{self.sent}",
            }
        ).encode()

    def op(self) -> tuple[int, bytes]:
        return self.client.request("POST", "/bench/xadd", self.body, "bench.0.not-checked")

    def after(self, status: int, body: bytes) -> bool:
        return status == 200


def run_load(
    name: str,
    workers: Sequence[Worker],
    duration: float,
    warmup: float,
    cpu: Callable[[], dict[str, float]] | None = None,
) -> LoadResult:
    """Run every worker in its own thread; measure ops started in the window after warm-up.

    ``cpu`` (optional) is sampled at both ends of the window to attribute CPU per op.
    """
    result = LoadResult(name=name, clients=len(workers), seconds=duration)
    lock = threading.Lock()
    barrier = threading.Barrier(len(workers) + 1)
    window: list[float] = []
    failures: list[BaseException] = []

    def loop(worker: Worker) -> None:
        latencies: list[float] = []
        errors = 0
        statuses: dict[int, int] = {}
        try:
            worker.prepare()  # the first game is created before the clock starts
            created_before = worker.games_created
            barrier.wait()
            measure_from, end = window
            while True:
                started = time.perf_counter()
                if started >= end:
                    break
                status, body = worker.op()
                elapsed = time.perf_counter() - started
                good = worker.after(status, body)
                if started >= measure_from:
                    statuses[status] = statuses.get(status, 0) + 1
                    if good:
                        latencies.append(elapsed)
                    else:
                        errors += 1
                worker.prepare()
        except BaseException as error:  # reported by the main thread
            failures.append(error)
            barrier.abort()
            return
        finally:
            worker.client.close()
        with lock:
            result.latencies.extend(latencies)
            result.errors += errors
            result.games_created += worker.games_created - created_before
            for status, count in statuses.items():
                result.statuses[status] = result.statuses.get(status, 0) + count

    threads = [threading.Thread(target=loop, args=(w,), daemon=True) for w in workers]
    for thread in threads:
        thread.start()
    now = time.perf_counter()
    window.extend([now + warmup, now + warmup + duration])
    with contextlib.suppress(threading.BrokenBarrierError):
        barrier.wait()
    if cpu is not None and not failures:
        time.sleep(max(0.0, window[0] - time.perf_counter()))
        before = cpu()
        time.sleep(max(0.0, window[1] - time.perf_counter()))
        after = cpu()
        result.cpu = {k: after[k] - before[k] for k in after}
    for thread in threads:
        thread.join()
    if failures:
        raise BenchError(f"{name}: a client failed: {failures[0]!r}") from failures[0]
    return result


def make_scripts(clients: int, length: int) -> list[list[policy.Step]]:
    """One deterministic script per client (``random.Random(i)`` inside the policy)."""
    return [policy.script(seed, length) for seed in range(clients)]


def run(
    stack: Stack,
    report: Report,
    *,
    scripts: Sequence[Sequence[policy.Step]],
    duration: float,
    rounds: int,
    warmup: float,
    fsync_policies: Sequence[str],
    legal_get: bool,
    log: Callable[[str], None],
) -> None:
    """All (a) loads; adds results and details to ``report``.

    Per fsync policy, ``actions`` and ``bare_xadd`` each get ``duration`` seconds split into
    ``rounds`` windows, alternating which goes first, every window on fresh connections
    (so a lopsided spread of connections over gunicorn's workers, or a burst of other load
    on the machine, hits both sides alike rather than one). Windows are then pooled.
    """
    clients = len(scripts)
    window = duration / rounds
    details: dict[str, Any] = {
        "clients": clients,
        "duration_s": duration,
        "rounds": rounds,
        "warmup_s": warmup,
    }
    factories: dict[str, Callable[[int, str], Worker]] = {
        "actions": lambda i, tag: ActionPoster(
            stack.client(), scripts[i], f"{tag}a{i}", legal_get=False
        ),
        "bare_xadd": lambda i, tag: BareXadd(stack.client(), f"{tag}x{i}", scripts[i][-1]),
        "actions_with_legal_get": lambda i, tag: ActionPoster(
            stack.client(), scripts[i], f"{tag}g{i}", legal_get=True
        ),
    }

    rerun: dict[str, int] = {}

    def load(name: str, tag: str) -> LoadResult:
        """One window; re-run (up to twice) when the connections landed on one worker."""
        for attempt in range(3):
            workers = [factories[name](i, f"{tag}r{attempt}") for i in range(clients)]
            result = run_load(name, workers, window, warmup, stack.cpu_seconds)
            if result.cpu_json().get("busiest_worker_share", 0.0) <= LOPSIDED:
                break
            rerun[name] = rerun.get(name, 0) + 1
            log(f"(a) {name}: one worker took >{LOPSIDED:.0%} of the window; running it again")
        return result

    for fsync in fsync_policies:
        rerun.clear()
        stack.set_appendfsync(fsync)
        log(f"(a) appendfsync {fsync}: actions vs bare, {clients} clients, {rounds}x{window:g}s")
        pooled = {
            name: LoadResult(name=name, clients=clients, seconds=0.0)
            for name in ("actions", "bare_xadd")
        }
        ratios: list[float] = []
        for index in range(rounds):
            order = ["actions", "bare_xadd"] if index % 2 == 0 else ["bare_xadd", "actions"]
            this = {name: load(name, f"{fsync[0]}{index}") for name in order}
            for name, result in this.items():
                pooled[name].merge(result)
            bare_rate = this["bare_xadd"].rate
            ratios.append(this["actions"].rate / bare_rate if bare_rate else 0.0)
        loads: dict[str, LoadResult] = dict(pooled)
        if legal_get and fsync == fsync_policies[0]:
            log(f"(a) appendfsync {fsync}: actions with a legal-actions GET first, {window:g}s")
            extra = LoadResult(name="actions_with_legal_get", clients=clients, seconds=0.0)
            extra.merge(load("actions_with_legal_get", f"{fsync[0]}g"))
            loads["actions_with_legal_get"] = extra
        details[f"appendfsync_{fsync}"] = {
            **{name: result.to_json() for name, result in loads.items()},
            "round_ratios": ratios,
            "lopsided_windows_rerun": dict(rerun),
        }
        _report(report, fsync, loads, ratios, sum(rerun.values()))
    report.details["throughput"] = details


def _report(
    report: Report,
    fsync: str,
    loads: dict[str, LoadResult],
    ratios: Sequence[float],
    reruns: int,
) -> None:
    group = f"(a) http, fsync {fsync}"
    actions, bare = loads["actions"], loads["bare_xadd"]
    for label, load in loads.items():
        summary = latency_summary(load.latencies)
        unit = "moves/s" if label.startswith("actions") else "req/s"
        note = f"errors {load.errors}" if load.errors else ""
        report.add(Result(group, f"{label} rate", load.rate, unit, note=note))
        report.add(Result(group, f"{label} p50", summary["p50_ms"], "ms"))
        report.add(Result(group, f"{label} p99", summary["p99_ms"], "ms"))
        cpu = load.cpu_json()
        if "cpu_ms_per_op_api" in cpu:
            report.add(Result(group, f"{label} gunicorn CPU/op", cpu["cpu_ms_per_op_api"], "ms"))
    ratio = actions.rate / bare.rate if bare.rate else 0.0
    notes = []
    if ratios:
        notes.append(f"rounds {min(ratios):.2f}..{max(ratios):.2f}, median {median(ratios):.2f}")
    lopsided = sum(
        1
        for load in (actions, bare)
        for window in load.rounds
        if window.get("busiest_worker_share", 0.0) > LOPSIDED
    )
    if reruns:
        notes.append(f"{reruns} window(s) re-run: >{LOPSIDED:.0%} of the load on one worker")
    if lopsided:
        notes.append(f"{lopsided} kept window(s) still lopsided")
    report.add(
        Result(group, "ratio moves/s / bare/s", ratio, "x", target=0.5, note="; ".join(notes))
    )
