"""Which HTTP server should serve Floe's Flask app? A reproducible comparison.

``python -m bench.servers`` starts every candidate at once, each serving Floe's app against
one private durable Redis (``DURABLE_CONFIG``, unix socket, as ``floe run``'s), the whole
server side (every candidate's processes and redis-server) pinned to one core, and loads
them from the other core with ``wrk`` (16 connections, 1 thread), one at a time:

- ``xadd``: ``POST /bench/xadd`` (``FLOE_BENCH_ROUTES=1``), one bare XADD behind the server,
  with a move's body and a bearer token: what the server itself costs;
- ``get_game``: ``GET /v1/games/<id>`` of a real 2-player Arktia game with one of its seat
  tokens: a read through Floe's whole stack (rate limiter, auth, cache check, view, JSON).

Windows are interleaved (round-robin over candidates, the order rotated every round) so a
drift of the shared machine hits all alike; each is a 1 s unmeasured warm-up then a
measured run. Per window: requests/s and latency p50/p99 (wrk ``--latency``), and the CPU
the server's processes used per request (utime+stime from ``/proc`` of the server's whole
process tree, before and after), Redis's apart. Reported as median and min..max.

Then the constraint behind the choice: Floe's SSE streams and ``?wait=`` long polls stay
open for minutes. Each candidate gets 200 idle ``GET /v1/games/<id>/events/stream``
connections (raw sockets, never read) and must still answer ``GET /v1/health`` within 2 s.
A gevent worker holds a greenlet per stream; gthread and granian's WSGI hold a thread each.

Every server gets ``FLOE_LONG_REQUESTS_PER_ADDRESS=0`` besides the brief's settings: all
clients here are 127.0.0.1, and the per-address cap (64) would answer the idle streams
429 before they could tie anything up. It changes nothing for the two loads.

``--no-pin`` leaves everything unpinned: gevent's tail latency on the read path depends on
whether Redis shares its core, so a pinned figure alone could blame the server for that.

Needs ``wrk`` (Debian's package): without it this says so and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import http.client
import json
import math
import os
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import pinning
from bench.report import git_state, json_safe, load_average, machine
from bench.stack import HOST, BenchError, Client, _children, create_game, proc_cpu
from service.run.redis_server import (
    DURABLE_CONFIG,
    RedisServer,
    free_tcp_port,
    parent_death_signal,
)
from service.run.supervisor import api_command
from service.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "servers.json"
WRK_MISSING = "wrk not found: install Debian's wrk package"
CONNECTIONS = 16
#: Threads per worker of the thread-based candidates (gthread, granian's blocking threads).
THREADS = 8
#: The app as gunicorn's gevent workers serve it (a gevent-based body deadline in front).
GEVENT_APP = "service.run.web:create_web_app()"
#: The bare Flask app, for servers without gevent (``BodyDeadline`` needs a gevent hub).
PLAIN_APP = "service.api.app:create_app()"
IDLE_STREAMS = 200
HEALTH_DEADLINE = 2.0


# ----- candidates -------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One server configuration: how to start it on a port, and what it serves."""

    key: str
    label: str
    app: str
    access_log: bool
    argv: Callable[[int], list[str]]


def floe_run(port: int, workers: int = 2) -> list[str]:
    """Exactly what ``floe run`` starts (``api_command``), on ``port``."""
    settings = Settings(host=HOST, port=port, web_workers=workers, python=sys.executable)
    return api_command(settings)


def _without(argv: Sequence[str], flag: str) -> list[str]:
    """``argv`` minus ``flag`` and its value."""
    at = list(argv).index(flag)
    return [*argv[:at], *argv[at + 2 :]]


def _with(argv: Sequence[str], flag: str, value: str) -> list[str]:
    """``argv`` with ``flag``'s value replaced."""
    out = list(argv)
    out[out.index(flag) + 1] = value
    return out


def gevent_without_log(port: int) -> list[str]:
    """``floe run``'s gunicorn minus the access log: what the log itself costs."""
    return _without(_without(floe_run(port), "--access-logfile"), "--logger-class")


def gthread(port: int) -> list[str]:
    """``floe run``'s gunicorn (same timeouts, same access log) on gthread workers.

    Serves the plain app: ``web.py``'s body deadline runs under ``gevent.Timeout``.
    """
    argv = _with(floe_run(port), "--worker-class", "gthread")
    argv = [*argv[:-1], "--threads", str(THREADS), argv[-1]]
    assert argv[-1] == GEVENT_APP, argv
    return [*argv[:-1], PLAIN_APP]


def granian(port: int, workers: int, access_log: bool) -> list[str]:
    """granian's WSGI interface on the plain app, ``THREADS`` blocking threads per worker.

    The header deadline is set to ``floe run``'s (10 s; granian's default is 30 s).
    """
    header_ms = str(int(Settings().header_timeout_seconds * 1000))
    return [
        sys.executable, "-m", "granian",
        "--interface", "wsgi", "--no-ws",
        "--factory", "service.api.app:create_app",
        "--workers", str(workers),
        "--blocking-threads", str(THREADS),
        "--http1-header-read-timeout", header_ms,
        "--host", HOST, "--port", str(port),
        "--access-log" if access_log else "--no-access-log",
    ]  # fmt: skip


CANDIDATES: tuple[Candidate, ...] = (
    Candidate("floe-run", "floe run: gunicorn gevent 2w, log", GEVENT_APP, True, floe_run),
    Candidate("gevent-1w", "gunicorn gevent 1w, log", GEVENT_APP, True, lambda p: floe_run(p, 1)),
    Candidate("gevent-nolog", "gunicorn gevent 2w, no log", GEVENT_APP, False, gevent_without_log),
    Candidate("gthread", f"gunicorn gthread 2w x {THREADS}t, log", PLAIN_APP, True, gthread),
    Candidate(
        "granian-1w",
        f"granian wsgi 1w x {THREADS}t, log",
        PLAIN_APP,
        True,
        lambda p: granian(p, 1, True),
    ),
    Candidate(
        "granian-2w",
        f"granian wsgi 2w x {THREADS}t, log",
        PLAIN_APP,
        True,
        lambda p: granian(p, 2, True),
    ),
)


def server_env(redis_url: str) -> dict[str, str]:
    """The environment of every candidate: the private Redis, the bench route, no quotas."""
    return {
        **os.environ,
        "REDIS_URL": redis_url,
        "FLOE_BENCH_ROUTES": "1",
        # One client address far outrunning a person: the limiter keeps counting (its cost
        # is part of the measurement) but never throttles.
        "FLOE_RATE_LIMIT_PER_TOKEN": str(10**9),
        "FLOE_RATE_LIMIT_PER_ADDRESS": str(10**9),
        "FLOE_LIVE_GAMES_PER_CREATOR": "0",
        "FLOE_STORED_BYTES_PER_CREATOR": "0",
        "FLOE_BOT_GAMES_PER_CREATOR": "0",
        # Off so that 200 idle streams from 127.0.0.1 really are 200 (module docstring).
        "FLOE_LONG_REQUESTS_PER_ADDRESS": "0",
    }


# ----- a running server -------------------------------------------------------------------


def descendants(pid: int) -> list[int]:
    """``pid``'s children, their children, ...: every worker of a server (granian's workers
    are its main process's children, which is itself the CLI's child under ``-m``)."""
    found: list[int] = []
    frontier = [pid]
    while frontier:
        children = [child for parent in frontier for child in _children(parent)]
        found.extend(children)
        frontier = children
    return found


class Server:
    """One candidate's process tree, started on ``cpus`` with its stdout and stderr in a file."""

    def __init__(self, candidate: Candidate, env: dict[str, str], log: Path, cpus: set[int] | None):
        self.candidate = candidate
        self.port = free_tcp_port(HOST)
        self.command = candidate.argv(self.port)
        self.env = env
        self.log = log
        self.cpus = cpus
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float) -> None:
        """Start, then poll ``/v1/health`` until 200 (BenchError past ``timeout``)."""
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.command,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=pinning.preexec_on(self.cpus, parent_death_signal()),
            )
        self._wait_healthy(timeout)
        if self.cpus is not None:  # inherited already; this catches a server resetting it
            for pid in self.pids():
                pinning.pin_process(pid, self.cpus)

    def _wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise BenchError(f"exited with {self.process.returncode}:\n{self.log_tail()}")
            if health(self.port, 1.0)[0] == 200:
                return
            if time.monotonic() >= deadline:
                raise BenchError(f"no 200 from /v1/health within {timeout:g}s:\n{self.log_tail()}")
            time.sleep(0.1)  # a polling interval, not a synchronisation

    def log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def pids(self) -> list[int]:
        return [] if self.process is None else [self.process.pid, *descendants(self.process.pid)]

    def terminate(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()

    def wait_or_kill(self, timeout: float) -> None:
        """Wait for the graceful stop; past ``timeout`` SIGKILL its process group (its own
        session, started here), so no worker outlives the benchmark."""
        if self.process is None:
            return
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def health(port: int, timeout: float) -> tuple[int | None, float]:
    """``GET /v1/health`` on a new connection: (status or None, seconds taken)."""
    started = time.monotonic()
    client = Client(port, timeout=timeout)
    try:
        status, _ = client.request("GET", "/v1/health")
    except (OSError, http.client.HTTPException):
        status = None
    finally:
        client.close()
    return status, time.monotonic() - started


def cpu_of(pids: Sequence[int]) -> float:
    """utime+stime of ``pids`` in seconds (a process gone since is counted as 0)."""
    return sum(proc_cpu(pid) for pid in pids)


def core_busy(cpus: set[int] | None) -> float:
    """Busy seconds of ``cpus`` since boot (``/proc/stat``): is the server core saturated?"""
    if not cpus:
        return math.nan
    busy = 0
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            for line in stat:
                name, *fields = line.split()
                if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cpus:
                    busy += sum(int(fields[i]) for i in (0, 1, 2, 5, 6, 7) if i < len(fields))
    except (OSError, ValueError):
        return math.nan
    return busy / os.sysconf("SC_CLK_TCK")


# ----- wrk --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Load:
    """One wrk load: a path and the Lua script setting its method, body and headers."""

    key: str
    path: str
    script: Path


def _lua_string(text: str) -> str:
    """``text`` as a Lua long-bracket literal (no escaping to get wrong)."""
    level = 0
    while f"]{'=' * level}]" in text:
        level += 1
    return f"[{'=' * level}[{text}]{'=' * level}]"


def lua_script(method: str, token: str, body: str | None = None) -> str:
    lines = [
        f"wrk.method = {_lua_string(method)}",
        f'wrk.headers["Authorization"] = {_lua_string("Bearer " + token)}',
    ]
    if body is not None:
        lines.append(f"wrk.body = {_lua_string(body)}")
        lines.append('wrk.headers["Content-Type"] = "application/json"')
    return "\n".join(lines) + "\n"


def make_loads(directory: Path, game_id: str, token: str) -> list[Load]:
    """The two loads; the XADD's body has a move's shape (``bench.throughput.BareXadd``)."""
    move = {
        "action": {"type": "place", "size": "T", "tile": [-1, 0]},
        "expected_version": 1,
        "command_id": "bench-1",
    }
    xadd = directory / "xadd.lua"
    xadd.write_text(lua_script("POST", "bench.0.x", json.dumps(move)))
    get = directory / "get_game.lua"
    get.write_text(lua_script("GET", token))
    return [Load("xadd", "/bench/xadd", xadd), Load("get_game", f"/v1/games/{game_id}", get)]


@dataclass
class WrkResult:
    requests: int
    seconds: float
    rps: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    socket_errors: int


_UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


def _ms(value: str, unit: str) -> float:
    return float(value) * _UNIT_MS[unit]


def _time_s(value: str, unit: str) -> float:
    return _ms(value, unit) / 1000


def parse_wrk(text: str) -> WrkResult:
    """The figures of ``wrk --latency``'s report (BenchError if it has none)."""
    done = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m|h)", text)
    rate = re.search(r"Requests/sec:\s*([\d.]+)", text)
    if done is None or rate is None:
        raise BenchError(f"unreadable wrk output:\n{text}")
    pct = {
        int(m[1]): _ms(m[2], m[3])
        for m in re.finditer(r"^\s*(\d+)%\s+([\d.]+)(us|ms|s|m|h)\s*$", text, re.M)
    }
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text
    )
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return WrkResult(
        requests=int(done[1]),
        seconds=_time_s(done[2], done[3]),
        rps=float(rate[1]),
        p50_ms=pct.get(50, math.nan),
        p99_ms=pct.get(99, math.nan),
        non_2xx=int(non_2xx[1]) if non_2xx else 0,
        socket_errors=sum(int(n) for n in errors.groups()) if errors else 0,
    )


def run_wrk(wrk: str, port: int, load: Load, seconds: int, cpus: set[int] | None) -> WrkResult:
    """One wrk run from the load core: ``CONNECTIONS`` keep-alive connections, 1 thread."""
    argv = [
        wrk, "-t1", f"-c{CONNECTIONS}", f"-d{seconds}s", "--latency",
        "-s", str(load.script), f"http://{HOST}:{port}{load.path}",
    ]  # fmt: skip
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=seconds + 30,
        check=False,
        preexec_fn=pinning.preexec_on(cpus),
    )
    if done.returncode != 0:
        raise BenchError(f"wrk exited with {done.returncode}: {done.stderr.strip()}")
    return parse_wrk(done.stdout)


# ----- measuring --------------------------------------------------------------------------


@dataclass
class Window:
    """One measured run of one load against one candidate."""

    round: int
    rps: float
    requests: int
    p50_ms: float
    p99_ms: float
    errors: int
    server_cpu_us: float
    redis_cpu_us: float
    core_busy_pct: float


@dataclass
class Plan:
    rounds: int
    seconds: int
    warmup: int
    server_cpus: set[int] | None
    load_cpus: set[int] | None


def measure(wrk: str, server: Server, redis_pid: int, load: Load, plan: Plan, index: int) -> Window:
    """Warm up (unmeasured), then one window with CPU sampled just around wrk.

    The pids are taken before the window; a worker respawned inside it would be missed (its
    CPU shows as a drop), which the min..max spread would give away.
    """
    if plan.warmup > 0:
        run_wrk(wrk, server.port, load, plan.warmup, plan.load_cpus)
    pids = server.pids()
    before = (cpu_of(pids), proc_cpu(redis_pid), core_busy(plan.server_cpus), time.monotonic())
    result = run_wrk(wrk, server.port, load, plan.seconds, plan.load_cpus)
    after = (cpu_of(pids), proc_cpu(redis_pid), core_busy(plan.server_cpus), time.monotonic())
    per_request = 1e6 / max(1, result.requests)
    return Window(
        round=index,
        rps=result.rps,
        requests=result.requests,
        p50_ms=result.p50_ms,
        p99_ms=result.p99_ms,
        errors=result.non_2xx + result.socket_errors,
        server_cpu_us=(after[0] - before[0]) * per_request,
        redis_cpu_us=(after[1] - before[1]) * per_request,
        core_busy_pct=100 * (after[2] - before[2]) / (after[3] - before[3]),
    )


def rotated(items: Sequence[Any], index: int) -> list[Any]:
    """Round ``index``'s order: every candidate takes every position in turn."""
    k = index % len(items) if items else 0
    return [*items[k:], *items[:k]]


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median and min..max: a few noisy windows, so no mean and no deviation."""
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return {"median": math.nan, "min": math.nan, "max": math.nan}
    return {"median": statistics.median(finite), "min": min(finite), "max": max(finite)}


def summarise(windows: Sequence[Window]) -> dict[str, Any]:
    names = ("rps", "server_cpu_us", "redis_cpu_us", "p50_ms", "p99_ms", "core_busy_pct")
    out: dict[str, Any] = {name: spread([getattr(w, name) for w in windows]) for name in names}
    out["errors"] = sum(w.errors for w in windows)
    return out


# ----- idle long requests -----------------------------------------------------------------


@dataclass
class IdleResult:
    """200 idle SSE streams open: how many the server started, and did health answer?"""

    streams: int
    answered: int
    health_status: int | None
    health_seconds: float


def _answered(socks: Sequence[socket.socket], wait: float) -> int:
    """How many streams have had their first bytes by now, waiting up to ``wait`` for all."""
    poller = select.poll()
    for sock in socks:
        poller.register(sock, select.POLLIN)
    ready: set[int] = set()
    deadline = time.monotonic() + wait
    while len(ready) < len(socks):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for fd, _event in poller.poll(left * 1000):
            ready.add(fd)
            poller.unregister(fd)
    return len(ready)


@contextlib.contextmanager
def idle_streams(port: int, path: str, token: str, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections, each having sent one stream request and reading nothing."""
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/event-stream\r\n"
        f"Authorization: Bearer {token}\r\n\r\n"
    ).encode()
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.create_connection((HOST, port), timeout=5)
            socks.append(sock)
            sock.sendall(request)
        yield socks
    finally:
        for sock in socks:
            sock.close()


def idle_check(port: int, game_id: str, token: str, count: int = IDLE_STREAMS) -> IdleResult:
    """Open ``count`` idle streams, let the server start what it can (up to 3 s), then time
    ``GET /v1/health`` on a fresh connection against ``HEALTH_DEADLINE``."""
    path = f"/v1/games/{game_id}/events/stream"
    with idle_streams(port, path, token, count) as socks:
        answered = _answered(socks, 3.0)
        status, took = health(port, HEALTH_DEADLINE)
    return IdleResult(count, answered, status, took)


# ----- the run ----------------------------------------------------------------------------


@dataclass
class Outcome:
    """Everything measured of one candidate (``error``: it did not start, or broke)."""

    candidate: Candidate
    command: list[str] = field(default_factory=list)
    error: str | None = None
    windows: dict[str, list[Window]] = field(default_factory=dict)
    idle: IdleResult | None = None

    def to_json(self) -> dict[str, Any]:
        c = self.candidate
        return {
            "key": c.key,
            "label": c.label,
            "app": c.app,
            "access_log": c.access_log,
            "command": self.command,
            "error": self.error,
            "loads": {
                load: {"summary": summarise(ws), "windows": [asdict(w) for w in ws]}
                for load, ws in self.windows.items()
            },
            "idle_streams": None if self.idle is None else asdict(self.idle),
        }


def start_servers(
    candidates: Sequence[Candidate], redis_url: str, tmp: Path, plan: Plan, timeout: float
) -> tuple[list[Server], dict[str, Outcome]]:
    """Start every candidate (one after the other: they share one core); a failure is
    recorded and the others go on."""
    env = server_env(redis_url)
    servers: list[Server] = []
    outcomes: dict[str, Outcome] = {}
    for candidate in candidates:
        server = Server(candidate, env, tmp / f"{candidate.key}.log", plan.server_cpus)
        outcomes[candidate.key] = Outcome(candidate, server.command)
        try:
            server.start(timeout)
        except (BenchError, OSError) as error:
            outcomes[candidate.key].error = f"did not start: {error}"
            print(f"{candidate.key}: did not start: {error}", file=sys.stderr)
            server.terminate()
            server.wait_or_kill(10)
            continue
        print(f"{candidate.key}: up on port {server.port}", file=sys.stderr)
        servers.append(server)
    return servers, outcomes


def stop_servers(servers: Sequence[Server]) -> None:
    """SIGTERM all, then wait for each: their graceful stops overlap."""
    for server in servers:
        server.terminate()
    for server in servers:
        server.wait_or_kill(15)


def run_rounds(
    wrk: str,
    servers: Sequence[Server],
    outcomes: dict[str, Outcome],
    loads: Sequence[Load],
    redis_pid: int,
    plan: Plan,
) -> None:
    for index in range(plan.rounds):
        for server in rotated(servers, index):
            outcome = outcomes[server.candidate.key]
            if outcome.error is not None:
                continue
            for load in rotated(loads, index):
                try:
                    window = measure(wrk, server, redis_pid, load, plan, index)
                except (BenchError, subprocess.TimeoutExpired) as error:
                    outcome.error = f"round {index}, {load.key}: {error}"
                    print(f"{server.candidate.key}: {outcome.error}", file=sys.stderr)
                    break
                outcome.windows.setdefault(load.key, []).append(window)
                print(
                    f"round {index} {server.candidate.key:<13} {load.key:<9}"
                    f" {window.rps:8.0f} req/s {window.server_cpu_us:7.0f} µs/req"
                    f" core {window.core_busy_pct:3.0f}%",
                    file=sys.stderr,
                )


def run(args: argparse.Namespace, wrk: str) -> dict[str, Any]:
    split = pinning.split() if args.pin and pinning.supported() else None
    plan = Plan(
        rounds=args.rounds,
        seconds=args.duration,
        warmup=args.warmup,
        server_cpus=split[0] if split else None,
        load_cpus=split[1] if split else None,
    )
    chosen = [c for c in CANDIDATES if not args.candidates or c.key in args.candidates]
    tmp = Path(tempfile.mkdtemp(prefix="floe-servers-"))
    redis = RedisServer(tmp / "redis", unix_socket=tmp / "redis.sock", config=DURABLE_CONFIG)
    servers: list[Server] = []
    try:
        redis.start()
        redis_pid = redis.pid or 0
        if plan.server_cpus is not None:
            pinning.pin_process(redis_pid, plan.server_cpus)
        servers, outcomes = start_servers(chosen, redis.url, tmp, plan, args.startup_timeout)
        if not servers:
            raise BenchError("no candidate started")
        game_id, tokens = create_game(Client(servers[0].port), 2, {})
        loads = make_loads(tmp, game_id, tokens[0])
        run_rounds(wrk, servers, outcomes, loads, redis_pid, plan)
        if args.idle:
            for server in servers:
                outcomes[server.candidate.key].idle = idle_check(server.port, game_id, tokens[0])
    finally:
        stop_servers(servers)
        redis.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "load_average_before": args.load_before,
        "git": git_state(str(ROOT)),
        "plan": {
            "rounds": plan.rounds,
            "seconds": plan.seconds,
            "warmup_seconds": plan.warmup,
            "connections": CONNECTIONS,
            "wrk_threads": 1,
            "server_cpus": sorted(plan.server_cpus or []),
            "load_cpus": sorted(plan.load_cpus or []),
            "pinned": split is not None,
            "idle_streams": IDLE_STREAMS if args.idle else 0,
            "health_deadline_s": HEALTH_DEADLINE,
        },
        "candidates": [outcomes[c.key].to_json() for c in chosen],
    }


# ----- output -----------------------------------------------------------------------------


def _cell(stats: dict[str, float], digits: int = 0) -> str:
    """``median (min..max)``."""
    if math.isnan(stats["median"]):
        return "-"
    return f"{stats['median']:.{digits}f} ({stats['min']:.{digits}f}..{stats['max']:.{digits}f})"


def table(report: dict[str, Any]) -> str:
    header = (
        "candidate", "load", "req/s med (min..max)", "server µs/req med (min..max)",
        "redis µs/req", "core %", "p50 ms", "p99 ms", "errors",
    )  # fmt: skip
    rows: list[tuple[str, ...]] = [header]
    for cand in report["candidates"]:
        if not cand["loads"]:
            rows.append((cand["key"], "-", "not measured", cand["error"] or "", *[""] * 5))
            continue
        for load, data in cand["loads"].items():
            s = data["summary"]
            rows.append(
                (
                    cand["key"], load, _cell(s["rps"]), _cell(s["server_cpu_us"]),
                    f"{s['redis_cpu_us']['median']:.0f}", f"{s['core_busy_pct']['median']:.0f}",
                    f"{s['p50_ms']['median']:.2f}", f"{s['p99_ms']['median']:.2f}",
                    str(s["errors"]),
                )
            )  # fmt: skip
    plan = report["plan"]
    where = (
        f"server side on CPU {plan['server_cpus']}, wrk on CPU {plan['load_cpus']}"
        if plan["pinned"]
        else "unpinned"
    )
    lines = [
        f"{plan['rounds']} rounds of {plan['seconds']} s per candidate and load "
        f"({plan['connections']} connections; {where})",
        *_aligned(rows),
    ]
    idle = [c for c in report["candidates"] if c["idle_streams"]]
    if idle:
        lines += ["", f"{IDLE_STREAMS} idle SSE streams open, then GET /v1/health:"]
        idle_rows: list[tuple[str, ...]] = [("candidate", "streams started", "health")]
        for cand in idle:
            i = cand["idle_streams"]
            answer = (
                f"{i['health_status']} in {i['health_seconds'] * 1000:.0f} ms"
                if i["health_status"] is not None
                else f"no answer within {HEALTH_DEADLINE:g} s"
            )
            idle_rows.append((cand["key"], f"{i['answered']}/{i['streams']}", answer))
        lines += _aligned(idle_rows)
    return "\n".join(lines)


def _aligned(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.servers",
        description="Compare HTTP servers for Floe's Flask app: wrk from one core against "
        "each server (and its Redis) pinned to the other, interleaved windows.",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=4, help="seconds per window (wrk: whole)")
    parser.add_argument("--warmup", type=int, default=1, help="seconds of warm-up per window")
    parser.add_argument(
        "--candidates",
        type=lambda text: [part.strip() for part in text.split(",") if part.strip()],
        default=[],
        help="comma-separated keys: " + ",".join(c.key for c in CANDIDATES),
    )
    parser.add_argument("--no-idle", dest="idle", action="store_false", help="skip the idle test")
    parser.add_argument(
        "--no-pin",
        dest="pin",
        action="store_false",
        help="leave servers, Redis and wrk unpinned (to tell pinning effects from the server's)",
    )
    parser.add_argument("--startup-timeout", type=float, default=60.0)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    unknown = set(args.candidates) - {c.key for c in CANDIDATES}
    if unknown:
        parser.error(f"unknown candidates: {', '.join(sorted(unknown))}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    wrk = shutil.which("wrk")
    if wrk is None:
        print(WRK_MISSING)
        return 0
    args.load_before = load_average()
    try:
        report = run(args, wrk)
    except BenchError as error:
        print(f"bench.servers: {error}", file=sys.stderr)
        return 1
    print(table(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(json_safe(report), indent=2, allow_nan=False) + "\n")
    print(f"\nwritten: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
