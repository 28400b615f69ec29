"""(a) HTTP throughput: 16 clients posting moves, against a bare XADD and boardgame.io.

Every load has the same concurrency and one op in flight per client, so their ratios say
how much of the stack's ceiling the actions route leaves on the table, and how Floe's move
path compares with a known peer's:

- ``actions``: each client owns a 2-player Arktia game (``turn_limit`` 10000) and replays a
  precomputed legal script (see ``bench.policy``), alternating seats as the script says.
  The measured op is one ``POST /v1/games/{id}/actions``; nothing else is sent. One
  keep-alive ``http.client`` connection per client thread.
- ``bare_xadd``: each client sends ``POST /bench/xadd`` with a body of the same shape and the
  same ``Authorization`` header; the route does one XADD and answers ``{"ok": true}``.
- ``bgio_memory`` / ``bgio_flatfile``: boardgame.io 0.50.2 (``bench.peer``, ``bench/peer/``)
  on its in-memory or its FlatFile store: 16 matches played by its real client over
  socket.io, one move in flight per match (the next once the server's broadcast of the last
  arrived). A fresh Node server and driver per window. Skipped, saying so, without Node.
- ``actions_with_legal_get`` (under the first fsync policy, and pinned): as ``actions``, but
  before every POST the client also sends ``GET legal-actions`` for the seat, as a naive bot
  would. The GET is not in the latency samples but does count against the throughput, which
  is POSTs per second.
- ``bare_socket`` / ``socket`` / ``socket_bot`` (``bench.sockets``, driven from Node like the
  peer): the bare socket route (one XADD per message, the socket path's ceiling), Floe's
  ``GET /v1/games/{id}/socket`` (the next move once the mover is ``accepted`` and the other
  seat has the event), and a bot's loop on it (the next move also waits for the
  ``legal_actions`` pushed to its seat; under the first fsync policy, and pinned). Skipped,
  saying so, without Node; Floe's two "not measured", saying why, where its route does not
  upgrade.

Per fsync policy every load gets ``rounds`` windows, the order rotated by one each round (so
drift of the machine hits all alike), every window on fresh connections. CPU seconds of the
server side (gunicorn and Redis, or the Node server), of the load side and of the whole
machine are sampled around every window. A Floe window in which one gunicorn worker did more
than 75% of the work is run again (see ``LOPSIDED``). Each load's rate is pooled over its
windows and reported with the spread of the per-window rates; each ratio (``RATIOS``, the
targets among them) is of pooled rates of the same run, with the spread of per-round ratios.

Pinned variant (``--pinned``, on by default with 2 cores or more; "fairer on 2 cores"): the
same rounds under ``appendfsync always`` with the server side pinned to one core and the
load side to another (``bench.pinning``): gunicorn's master and workers and redis-server on
the first, the bench's client threads on the second; the Node server on the first, the Node
driver on the second. Unpinned, a multi-process server may take both cores while a
one-process Node server can use one, and every load generator competes with its server.

Creating games (matches) is never measured; a Floe client whose script runs out or whose
game ends creates a new game (counted in ``games_created`` so it can be seen to be rare).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

from bench import peer, pinning, policy, sockets
from bench.loads import LoadResult
from bench.report import Report, Result, latency_summary
from bench.stack import BenchError, Client, Stack, create_game

#: A window where one gunicorn worker did more than this share of the work: the 16 keep-alive
#: connections, opened at once, landed unevenly, so the window measured one worker's GIL
#: rather than the server. Such a window is run again (at most twice), and counted.
LOPSIDED = 0.75


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


#: The loads of (a), in round 0's order; later rounds rotate it. The legal-GET loop runs under
#: the first fsync policy (and pinned) only, and so do the boardgame.io loads (where Node is
#: found): they do not use Redis, so another policy would only measure them again.
FLOE_LOADS = ("actions", "bare_xadd")
#: The socket loads run beside them (Floe's where its route upgrades); the bot's loop on
#: the socket runs where the legal-GET loop does.
SOCKET_LOADS = ("bare_socket", "socket")
SOCKET_BOT = "socket_bot"
PEER_LOADS = {"bgio_memory": "memory", "bgio_flatfile": "flatfile"}
LEGAL_GET = "actions_with_legal_get"
#: The pinned variant runs under this policy (Floe's default, the durable one) when asked for.
PINNED_FSYNC = "always"


@dataclass(frozen=True)
class Ratio:
    """A reported ratio of two loads' rates in the same run, and its target if it has one."""

    name: str
    top: str
    bottom: str
    target: float | None = None
    #: The target holds under this fsync policy only (elsewhere the ratio is for information).
    target_fsync: str | None = None
    note: str = ""


RATIOS = (
    # The move path against a route doing one bare XADD: what the actions route costs.
    Ratio("ratio moves/s / bare/s", "actions", "bare_xadd", 0.9),
    # Durable Floe against boardgame.io keeping everything in memory.
    Ratio(
        "ratio moves/s / bgio memory moves/s",
        "actions",
        "bgio_memory",
        1.0,
        target_fsync="always",
        note="bgio broadcasts before it writes its store",
    ),
    Ratio(
        "ratio moves/s / bgio flatfile moves/s",
        "actions",
        "bgio_flatfile",
        note="FlatFile never fsyncs",
    ),
    # A naive bot loop (GET legal-actions, then POST) against POSTs alone.
    Ratio("ratio legal-get loop / moves/s", LEGAL_GET, "actions", 0.75),
    # The socket path (issue 29): against the peer, against its own ceiling, a bot on it.
    Ratio(
        "ratio socket moves/s / bgio memory moves/s",
        "socket",
        "bgio_memory",
        1.0,
        target_fsync="always",
        note="bgio broadcasts before it writes its store",
    ),
    Ratio("ratio socket moves/s / bare socket/s", "socket", "bare_socket", 0.9),
    Ratio(
        "ratio socket bot loop / socket moves/s",
        SOCKET_BOT,
        "socket",
        0.9,
        note="legal actions pushed, no polling",
    ),
    Ratio("ratio socket moves/s / http moves/s", "socket", "actions"),
    Ratio("ratio bare socket/s / bare http/s", "bare_socket", "bare_xadd"),
)


@dataclass
class Phase:
    """Interleaved rounds of loads under one fsync policy, pinned or not: one report group.

    ``pin`` is ``(server CPUs, load CPUs)``: gunicorn, its workers and Redis (or the Node
    server) on the first, the bench's client threads (or the Node driver) on the second.
    """

    group: str
    key: str
    fsync: str
    loads: list[str]
    rounds: int
    pin: tuple[set[int], set[int]] | None = None


def rotated(loads: Sequence[str], index: int) -> list[str]:
    """Round ``index``'s order: rotated by one per round, so every load takes every position
    in turn and a drift of the machine (another job starting, a disk filling) hits all alike."""
    k = index % len(loads)
    return [*loads[k:], *loads[:k]]


@contextlib.contextmanager
def _server_on(stack: Stack, cpus: set[int] | None) -> Iterator[None]:
    """Pin gunicorn (master and workers) and its redis-server to ``cpus``; unpin after."""
    if cpus is None:
        yield
        return
    before = os.sched_getaffinity(0)  # the mask they were started with
    for pid in stack.server_pids():
        pinning.pin_process(pid, cpus)
    try:
        yield
    finally:
        for pid in stack.server_pids():
            pinning.pin_process(pid, before)


class Runner:
    """Runs windows of any (a) load: Floe's through ``run_load``, the peer's through Node."""

    def __init__(
        self,
        stack: Stack,
        scripts: Sequence[Sequence[policy.Step]],
        *,
        window: float,
        warmup: float,
        node: peer.Node | None,
        log: Callable[[str], None],
    ) -> None:
        self.stack = stack
        self.scripts = scripts
        self.clients = len(scripts)
        self.window = window
        self.warmup = warmup
        self.node = node
        self.log = log
        self.rerun: dict[str, int] = {}

    def worker(self, name: str, i: int, tag: str) -> Worker:
        client, script = self.stack.client(), self.scripts[i]
        if name == "bare_xadd":
            return BareXadd(client, f"{tag}x{i}", script[-1])
        legal_get = name == LEGAL_GET
        return ActionPoster(
            client, script, f"{tag}{'g' if legal_get else 'a'}{i}", legal_get=legal_get
        )

    def once(self, name: str, tag: str, pin: tuple[set[int], set[int]] | None) -> LoadResult:
        """One window of a Floe load: HTTP client threads here, or the Node socket driver."""
        if name in sockets.LOADS:
            assert self.node is not None
            return sockets.window(
                self.node,
                self.stack,
                name,
                self.scripts,
                tag=tag,
                seconds=self.window,
                warmup=self.warmup,
                pin=pin,
                log=self.log,
            )
        workers = [self.worker(name, i, tag) for i in range(self.clients)]
        if pin is None:
            return run_load(name, workers, self.window, self.warmup, self.stack.cpu_seconds)
        with pinning.this_thread_on(pin[1]):  # the client threads inherit the mask
            return run_load(name, workers, self.window, self.warmup, self.stack.cpu_seconds)

    def floe(self, name: str, tag: str, pin: tuple[set[int], set[int]] | None = None) -> LoadResult:
        """One window; re-run (up to twice) when the connections landed on one worker."""
        for attempt in range(3):
            result = self.once(name, f"{tag}r{attempt}", pin)
            if result.cpu_json().get("busiest_worker_share", 0.0) <= LOPSIDED:
                break
            self.rerun[name] = self.rerun.get(name, 0) + 1
            self.log(f"(a) {name}: one worker took >{LOPSIDED:.0%} of the window; running it again")
        return result

    def measure(self, name: str, tag: str, pin: tuple[set[int], set[int]] | None) -> LoadResult:
        """One window of any load; pinned, the load side runs on ``pin[1]``."""
        if name in PEER_LOADS:
            assert self.node is not None
            return peer.window(
                self.node,
                PEER_LOADS[name],
                matches=self.clients,
                seconds=self.window,
                warmup=self.warmup,
                pin=pin,
            )
        return self.floe(name, tag, pin)

    def phase(self, phase: Phase) -> tuple[dict[str, LoadResult], list[dict[str, float]]]:
        """Every round of a phase: the pooled loads and each round's rate per load."""
        self.rerun.clear()
        self.stack.set_appendfsync(phase.fsync)
        pooled = {
            name: LoadResult(name=name, clients=self.clients, seconds=0.0) for name in phase.loads
        }
        per_round: list[dict[str, float]] = []
        with _server_on(self.stack, None if phase.pin is None else phase.pin[0]):
            for index in range(phase.rounds):
                tag = f"{'p' if phase.pin else ''}{phase.fsync[0]}{index}"
                this = {
                    name: self.measure(name, tag, phase.pin) for name in rotated(phase.loads, index)
                }
                for name, result in this.items():
                    pooled[name].merge(result)
                per_round.append({name: result.rate for name, result in this.items()})
        return pooled, per_round


def phases(
    fsync_policies: Sequence[str],
    *,
    rounds: int,
    legal_get: bool,
    bgio: bool,
    pinned: bool,
    pinned_rounds: int,
    log: Callable[[str], None],
    socket_loads: Sequence[str] = (),
) -> tuple[list[Phase], str]:
    """The phases to run, and why the pinned one is not among them ("" when it is).

    ``socket_loads``: those of ``SOCKET_LOADS`` and ``SOCKET_BOT`` that can run here.
    """
    peers = list(PEER_LOADS) if bgio else []
    socket_all = [name for name in SOCKET_LOADS if name in socket_loads]
    socket_first = [name for name in (SOCKET_BOT,) if name in socket_loads]
    found = []
    for index, fsync in enumerate(fsync_policies):
        # boardgame.io has no Redis: its windows under a second policy would measure it again
        first = index == 0
        names = [
            *FLOE_LOADS,
            *socket_all,
            *(peers if first else []),
            *([LEGAL_GET] if legal_get and first else []),
            *(socket_first if first else []),
        ]
        group = f"(a) http, fsync {fsync}"
        found.append(Phase(group, f"appendfsync_{fsync}", fsync, names, rounds))
    if not pinned:
        return found, "not asked for (--no-pinned)"
    split = pinning.split()
    if split is None:
        reason = f"needs 2 cores, this process may run on {len(pinning.cores())}"
        log(f"(a) pinned variant skipped: {reason}")
        return found, reason
    fsync = PINNED_FSYNC if PINNED_FSYNC in fsync_policies else fsync_policies[0]
    names = [*FLOE_LOADS, *socket_all, *peers, *([LEGAL_GET] if legal_get else [])]
    names += socket_first
    group, key = f"(a) pinned, fsync {fsync}", f"pinned_appendfsync_{fsync}"
    found.append(Phase(group, key, fsync, names, pinned_rounds, split))
    return found, ""


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
    bgio: bool = True,
    pinned: bool = True,
    pinned_rounds: int | None = None,
    socket: bool = True,
) -> None:
    """All (a) loads; adds results and details to ``report``.

    Per fsync policy, every load gets ``duration`` seconds split into ``rounds`` windows, the
    order rotated round by round, every window on fresh connections (a fresh Node server and
    driver for the peer), so a lopsided spread of connections over gunicorn's workers or a
    burst of other load on the machine hits every load alike. Windows are then pooled; each
    ratio is also computed per round, to show its spread.
    """
    clients = len(scripts)
    window = duration / rounds
    node = peer.prepare(log) if bgio or socket else None
    socket_loads, socket_details = _socket_loads(stack, node, socket, log)
    planned, pinned_skipped = phases(
        fsync_policies,
        rounds=rounds,
        legal_get=legal_get,
        bgio=bgio and node is not None,
        pinned=pinned,
        pinned_rounds=pinned_rounds or max(2, rounds // 2),
        log=log,
        socket_loads=socket_loads,
    )
    details: dict[str, Any] = {
        "clients": clients,
        "duration_s": duration,
        "rounds": rounds,
        "warmup_s": warmup,
        "bgio": _peer_details(node, bgio),
        "sockets": socket_details,
        "pinned_skipped": pinned_skipped,
    }
    runner = Runner(stack, scripts, window=window, warmup=warmup, node=node, log=log)
    for phase in planned:
        shape = f"{clients} clients, {phase.rounds}x{window:g}s"
        if phase.pin is not None:
            shape += f", server on CPU {phase.pin[0]}, load on {phase.pin[1]}"
        log(f"{phase.group}: {', '.join(phase.loads)}; {shape}")
        loads, per_round = runner.phase(phase)
        details[phase.key] = {
            **{name: result.to_json() for name, result in loads.items()},
            "round_rates": per_round,
            "round_orders": [rotated(phase.loads, i) for i in range(phase.rounds)],
            "lopsided_windows_rerun": dict(runner.rerun),
            "pin": None if phase.pin is None else [sorted(cpus) for cpus in phase.pin],
        }
        _report(report, phase, loads, per_round, sum(runner.rerun.values()))
    report.details["throughput"] = details


def _socket_loads(
    stack: Stack, node: peer.Node | None, asked: bool, log: Callable[[str], None]
) -> tuple[list[str], dict[str, Any]]:
    """The socket loads that can run (none without Node; the bare one alone where Floe's
    route does not upgrade), and what the report says of them."""
    if not asked:
        return [], {"measured": False, "why": "not asked for (--no-sockets)"}
    if node is None:
        return [], {"measured": False, "why": "node or npm missing, or npm ci failed (see the log)"}
    details: dict[str, Any] = {
        "measured": True,
        "node": node.version,
        "client": "ws (bench/peer/sockets.js), one socket per seat (bare: per match)",
    }
    why = sockets.floe_route(stack)
    if why:
        log(f"(a) {why}")
        details["floe_socket"] = {"measured": False, "why": why}
        return ["bare_socket"], details
    details["floe_socket"] = {"measured": True}
    return ["bare_socket", "socket", SOCKET_BOT], details


def _peer_details(node: peer.Node | None, asked: bool) -> dict[str, Any]:
    if not asked:
        return {"measured": False, "why": "not asked for (--no-bgio)"}
    if node is None:
        return {"measured": False, "why": "node or npm missing, or npm ci failed (see the log)"}
    return {
        "measured": True,
        "boardgame.io": peer.BOARDGAME_IO,
        "node": node.version,
        "client": "boardgame.io/client Client + SocketIO transport (websocket), 2 per match",
    }


def _report(
    report: Report,
    phase: Phase,
    loads: dict[str, LoadResult],
    per_round: Sequence[dict[str, float]],
    reruns: int,
) -> None:
    for label, load in loads.items():
        _report_load(report, phase.group, label, load)
    for ratio in RATIOS:
        if ratio.top not in loads or ratio.bottom not in loads:
            continue
        top, bottom = loads[ratio.top].rate, loads[ratio.bottom].rate
        rounds = [r[ratio.top] / r[ratio.bottom] for r in per_round if r[ratio.bottom]]
        notes = [ratio.note] if ratio.note else []
        if rounds:
            notes.append(
                f"rounds {min(rounds):.2f}..{max(rounds):.2f}, median {median(rounds):.2f}"
            )
        if ratio.bottom in ("bare_xadd", "bare_socket"):
            notes += _lopsided_notes(loads, reruns, (ratio.top, ratio.bottom))
        applies = ratio.target_fsync in (None, phase.fsync)
        report.add(
            Result(
                phase.group,
                ratio.name,
                top / bottom if bottom else 0.0,
                "x",
                target=ratio.target if applies else None,
                note="; ".join(notes),
            )
        )


def _report_load(report: Report, group: str, label: str, load: LoadResult) -> None:
    summary = latency_summary(load.latencies)
    unit = {"bare_xadd": "req/s", "bare_socket": "msgs/s"}.get(label, "moves/s")
    low, high = load.spread()
    notes = [f"rounds {low:,.0f}..{high:,.0f} {unit}"]
    if load.errors:
        notes.append(f"errors {load.errors}")
    report.add(Result(group, f"{label} rate", load.rate, unit, note="; ".join(notes)))
    report.add(Result(group, f"{label} p50", summary["p50_ms"], "ms"))
    report.add(Result(group, f"{label} p99", summary["p99_ms"], "ms"))
    cpu = load.cpu_json()
    if "cpu_ms_per_op_api" in cpu:
        server = "node server" if label in PEER_LOADS else "gunicorn"
        report.add(Result(group, f"{label} {server} CPU/op", cpu["cpu_ms_per_op_api"], "ms"))


def _lopsided_notes(
    loads: dict[str, LoadResult], reruns: int, names: Sequence[str] = FLOE_LOADS
) -> list[str]:
    notes = []
    lopsided = sum(
        1
        for name in names
        for window in loads[name].rounds
        if window.get("busiest_worker_share", 0.0) > LOPSIDED
    )
    if reruns:
        notes.append(f"{reruns} window(s) re-run: >{LOPSIDED:.0%} of the load on one worker")
    if lopsided:
        notes.append(f"{lopsided} kept window(s) still lopsided")
    return notes
