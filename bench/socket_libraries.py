"""Which WebSocket library should serve Floe's live socket? Echo routes, measured alike.

``python -m bench.socket_libraries`` starts one gunicorn per candidate, each as ``floe run``
starts it (``bench.servers.floe_run``: gevent workers, 2 of them, access log) but serving
this module's tiny Flask app (``create_app``): one ECHO route per library, no Redis, no
token, no JSON parsed, so what a message costs is the library's and the server's. The whole
server side is pinned to one core, the load to the other (``bench.pinning``), as
``bench.servers`` does. Candidates:

- ``simple-floe``: simple-websocket 1.x as ``GET /v1/games/{id}/socket`` runs it
  (``ping_interval``, ``max_message_size``, ``SerialWrites``, the send timeout): the baseline.
- ``simple-plain``: simple-websocket with its defaults (no pings). flask-sock is this: its
  route decorator calls ``simple_websocket.Server(environ, **SOCK_SERVER_OPTIONS)`` and adds
  no per-message code, so it is not measured apart.
- ``wsproto``: wsproto 1.x (simple-websocket's own engine) driven by a minimal loop in the
  route's greenlet: no reader thread, no event, no input queue; 64 KiB reads.
- ``websockets``: the sans-I/O ``ServerProtocol`` of ``websockets`` (its sync and asyncio
  servers own the listening socket and run a thread or an event loop: not a WSGI route),
  driven by the same kind of loop on ``environ["gunicorn.socket"]``; C-accelerated masking.
- ``gevent-websocket``: geventwebsocket 0.10.1's own gunicorn worker class
  (``GeventWebSocketWorker``: gevent's pywsgi in place of gunicorn's HTTP parser, so not
  ``CappedGeventWorker``), ``environ["wsgi.websocket"]``.

Loads (``bench/peer/socket_libraries.js``, Node's ``ws``): 16 sockets, one message in flight
on each, a move-shaped JSON text message padded to ~100 B and to ~10 KB, echoed back.
Windows are interleaved (round-robin over candidates, order rotated each round); per window
messages/s and server CPU per message (utime+stime of the candidate's gunicorn tree from
/proc, sampled at the window's ends). Ratios are to ``simple-floe`` in the same round.
Then, per candidate, 1,000 idle sockets (raw handshakes, nothing sent after): the growth of
the workers' summed RSS, per socket.

The candidates missing from the virtualenv (gevent-websocket, websockets) are taken from
``--libs`` (default /tmp/wslibs), put on the servers' PYTHONPATH:
``.venv/bin/pip install --no-deps --target /tmp/wslibs gevent-websocket==0.10.1 websockets``.
A candidate that cannot be imported is reported "not measured", saying why.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import datetime
import functools
import importlib
import json
import math
import os
import select
import shutil
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

from flask import Flask, Response, request

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "socket_libraries.json"
DEFAULT_LIBS = Path("/tmp/wslibs")
DRIVER = "socket_libraries.js"
APP = "bench.socket_libraries:create_app()"
GEVENT_WEBSOCKET_WORKER = "geventwebsocket.gunicorn.workers.GeventWebSocketWorker"
SOCKETS = 16
SIZES = (100, 10_240)
IDLE_SOCKETS = 1_000
BASELINE = "simple-floe"
READ_BYTES = 65_536


# ----- the server side: one echo route per library ----------------------------------------


def _simple(environ: dict[str, Any], floe: bool) -> Response:
    """simple-websocket's echo: as Floe's socket route configures it, or with its defaults."""
    from simple_websocket import ConnectionClosed, Server

    from service.api.socket import SEND_SECONDS, Handled, SerialWrites
    from service.settings import Settings

    if floe:
        settings = Settings.from_env()
        ws: Any = Server(
            environ,
            ping_interval=settings.socket_ping_seconds,
            max_message_size=settings.max_body_bytes,
        )
        ws.sock = SerialWrites(ws.sock)
        ws.sock.settimeout(SEND_SECONDS)
    else:
        ws = Server.accept(environ)
    try:
        while (message := ws.receive()) is not None:
            ws.send(message)
        ws.close()
    except ConnectionClosed:
        pass
    return Handled(ws.mode)


def _request_bytes(environ: dict[str, Any]) -> bytes:
    """The upgrade request as gunicorn parsed it, rebuilt for a sans-I/O engine to read."""
    lines = [f"GET {environ.get('PATH_INFO', '/')} HTTP/1.1"]
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            lines.append(f"{'-'.join(p.capitalize() for p in key[5:].split('_'))}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _wsproto(environ: dict[str, Any]) -> Response:
    """wsproto driven by the route's own greenlet: read, answer, write, nothing else."""
    from wsproto import ConnectionType, WSConnection
    from wsproto.events import (
        AcceptConnection,
        BytesMessage,
        CloseConnection,
        Ping,
        Request,
        TextMessage,
    )

    from service.api.socket import Handled

    sock = environ["gunicorn.socket"]
    conn = WSConnection(ConnectionType.SERVER)
    conn.receive_data(_request_bytes(environ))
    sock.sendall(
        b"".join(conn.send(AcceptConnection()) for e in conn.events() if isinstance(e, Request))
    )
    text: list[str] = []
    binary: list[bytes] = []
    closed = False
    with contextlib.suppress(OSError):
        while not closed:
            data = sock.recv(READ_BYTES)
            conn.receive_data(data or None)
            out = bytearray()
            for event in conn.events():
                if isinstance(event, TextMessage):
                    text.append(event.data)
                    if event.message_finished:
                        out += conn.send(TextMessage(data="".join(text)))
                        text.clear()
                elif isinstance(event, BytesMessage):
                    binary.append(bytes(event.data))
                    if event.message_finished:
                        out += conn.send(BytesMessage(data=b"".join(binary)))
                        binary.clear()
                elif isinstance(event, Ping):
                    out += conn.send(event.response())
                elif isinstance(event, CloseConnection):
                    with contextlib.suppress(Exception):
                        out += conn.send(event.response())
                    closed = True
            if out:
                sock.sendall(out)
            closed = closed or not data
    return Handled("gunicorn")


def _websockets(environ: dict[str, Any]) -> Response:
    """websockets' sans-I/O ``ServerProtocol`` driven by the route's own greenlet."""
    from service.api.socket import Handled
    from service.settings import Settings

    server: Any = importlib.import_module("websockets.server")
    frames: Any = importlib.import_module("websockets.frames")
    closed: Any = importlib.import_module("websockets.protocol").State.CLOSED
    text_op, binary_op, cont_op = frames.Opcode.TEXT, frames.Opcode.BINARY, frames.Opcode.CONT
    sock = environ["gunicorn.socket"]
    protocol = server.ServerProtocol(max_size=Settings.from_env().max_body_bytes)
    protocol.receive_data(_request_bytes(environ))  # its parser reads the request first
    (upgrade,) = protocol.events_received()
    response = protocol.accept(upgrade)
    protocol.send_response(response)
    sock.sendall(b"".join(protocol.data_to_send()))
    if response.status_code != 101:
        return Handled("gunicorn")
    parts: list[bytes] = []
    opcode = text_op
    with contextlib.suppress(OSError):
        while True:
            data = sock.recv(READ_BYTES)
            if data:
                protocol.receive_data(data)
            else:
                protocol.receive_eof()
            for frame in protocol.events_received():
                if frame.opcode in (text_op, binary_op, cont_op):
                    if frame.opcode is not cont_op:
                        opcode = frame.opcode
                    parts.append(frame.data)
                    if frame.fin:
                        payload = b"".join(parts)
                        parts.clear()
                        if opcode is text_op:  # decoded and encoded, as an app would
                            protocol.send_text(payload.decode().encode())
                        else:
                            protocol.send_binary(payload)
            out = protocol.data_to_send()  # pongs and close frames are queued here too
            sock.sendall(b"".join(out))
            if not data or b"" in out or protocol.state is closed:
                break
    return Handled("gunicorn")


def _gevent_websocket(environ: dict[str, Any]) -> Response:
    """geventwebsocket's socket, set up by its handler before the app ran."""
    ws = environ.get("wsgi.websocket")
    if ws is None:
        return Response("needs geventwebsocket's worker class", status=400)
    while (message := ws.receive()) is not None:
        ws.send(message)
    return Response("")


ROUTES: dict[str, Callable[[dict[str, Any]], Response]] = {
    "simple-floe": lambda environ: _simple(environ, floe=True),
    "simple-plain": lambda environ: _simple(environ, floe=False),
    "wsproto": _wsproto,
    "websockets": _websockets,
    "gevent-websocket": _gevent_websocket,
}


def create_app() -> Flask:
    """The servers' app: ``GET /v1/health`` and ``GET /echo/<candidate>``."""
    app = Flask("bench.socket_libraries")
    app.add_url_rule("/v1/health", "health", lambda: {"ok": True})
    for key, serve in ROUTES.items():

        def view(serve: Callable[[dict[str, Any]], Response] = serve) -> Response:
            return serve(request.environ)

        app.add_url_rule(f"/echo/{key}", key, view, websocket=True)
    return app


# ----- the client side --------------------------------------------------------------------


@dataclass(frozen=True)
class Library:
    key: str
    label: str
    #: What must import in the server for this candidate to run.
    module: str
    worker_class: str | None = None


LIBRARIES = (
    Library("simple-floe", "simple-websocket 1.1, as Floe runs it", "simple_websocket"),
    Library("simple-plain", "simple-websocket 1.1, defaults (= flask-sock)", "simple_websocket"),
    Library("wsproto", "wsproto 1.x, own loop", "wsproto"),
    Library("websockets", "websockets sans-I/O, own loop", "websockets"),
    Library(
        "gevent-websocket",
        "gevent-websocket 0.10.1, its gunicorn worker",
        "geventwebsocket",
        GEVENT_WEBSOCKET_WORKER,
    ),
)


def argv_for(library: Library, port: int) -> list[str]:
    """``floe run``'s gunicorn on ``port`` serving this module's app (and, for
    gevent-websocket, its worker class in place of ``CappedGeventWorker``)."""
    from bench.servers import _with, floe_run

    argv = floe_run(port)
    argv[-1] = APP
    if library.worker_class is not None:
        argv = _with(argv, "--worker-class", library.worker_class)
    return argv


def library_version(library: Library, env: dict[str, str]) -> str:
    """The candidate's version as the servers would import it, or why it cannot run."""
    dist = {"simple_websocket": "simple-websocket", "geventwebsocket": "gevent-websocket"}
    name = dist.get(library.module, library.module)
    code = (
        f"import {library.module}, importlib.metadata as m; "
        f"print(m.version({name!r}) + ' from ' + {library.module}.__file__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        raise ImportError(f"cannot import {library.module}: {last}")
    return done.stdout.strip()


@dataclass
class Window:
    round: int
    bytes: int
    rate: float
    messages: int
    server_cpu_us: float
    others_cpu_pct: float
    core_busy_pct: float
    p50_ms: float
    p99_ms: float
    errors: int


@dataclass
class Outcome:
    library: Library
    command: list[str] = field(default_factory=list)
    version: str = ""
    error: str | None = None
    windows: list[Window] = field(default_factory=list)
    idle: dict[str, Any] | None = None


def drive(
    node: str, url: str, size: int, seconds: float, warmup: float, pids: Sequence[int],
    others: Sequence[int], cpus: set[int] | None, server_cpus: set[int] | None,
) -> tuple[dict[str, Any], float, float, float, float]:  # fmt: skip
    """One window: the driver's result, the server's CPU seconds, the other servers' (idle:
    should be ~0), the server core's busy seconds, wall seconds."""
    from bench import peer, pinning
    from bench.servers import core_busy, cpu_of
    from service.run.redis_server import parent_death_signal

    command = [node, DRIVER, "--url", url, "--bytes", str(size), "--sockets", str(SOCKETS)]
    command += ["--warmup", str(warmup), "--seconds", str(seconds)]
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            command,
            cwd=peer.PEER_DIR,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
            preexec_fn=pinning.preexec_on(cpus, parent_death_signal()),
        )
        assert process.stdout is not None
        lines = peer.Lines(process.stdout)
        deadline = time.monotonic() + warmup + seconds + 30
        before = after = (math.nan, math.nan, math.nan, math.nan)
        result: dict[str, Any] | None = None
        try:
            while (line := lines.next(deadline)) is not None:
                if not line.startswith("@@ "):
                    continue
                message = json.loads(line[3:])
                sample = (cpu_of(pids), cpu_of(others), core_busy(server_cpus), time.monotonic())
                if message.get("event") == "measuring":
                    before = sample
                elif message.get("event") == "measured":
                    after = sample
                else:
                    result = message
            code = process.wait(10)
        except TimeoutError:
            process.kill()
            process.wait()
            code = -9
        if code != 0 or result is None:
            errors.seek(0)
            tail = errors.read().decode(errors="replace")[-800:]
            raise RuntimeError(f"echo driver failed ({code}): {tail}")
    cpu, others_cpu, busy, wall = (b - a for a, b in zip(before, after, strict=True))
    return result, cpu, others_cpu, busy, wall


def rss_bytes(pid: int) -> int:
    """VmRSS of one process (0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@contextlib.contextmanager
def idle_sockets(port: int, path: str, count: int) -> Iterator[int]:
    """``count`` upgraded sockets that then send nothing; yields how many got their 101."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            key = base64.b64encode(os.urandom(16)).decode()
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n".encode()
            )
            socks.append(sock)
        poller = select.poll()
        by_fd = {sock.fileno(): sock for sock in socks}
        for fd in by_fd:
            poller.register(fd, select.POLLIN)
        upgraded = 0
        deadline = time.monotonic() + 15
        pending = set(by_fd)
        while pending and time.monotonic() < deadline:
            for fd, _ in poller.poll(200):
                poller.unregister(fd)
                pending.discard(fd)
                if b" 101 " in by_fd[fd].recv(4096).split(b"\r\n", 1)[0] + b" ":
                    upgraded += 1
        yield upgraded
    finally:
        for sock in socks:
            sock.close()


def idle_memory(port: int, library: Library, workers: Sequence[int]) -> dict[str, Any]:
    """RSS growth of the workers with ``IDLE_SOCKETS`` idle sockets open, per socket."""
    before = sum(rss_bytes(pid) for pid in workers)
    with idle_sockets(port, f"/echo/{library.key}", IDLE_SOCKETS) as upgraded:
        time.sleep(1.0)  # let every route reach its wait
        after = sum(rss_bytes(pid) for pid in workers)
    time.sleep(0.5)
    return {
        "sockets": IDLE_SOCKETS,
        "upgraded": upgraded,
        "rss_before_mib": before / 2**20,
        "rss_growth_mib": (after - before) / 2**20,
        "bytes_per_socket": (after - before) / max(1, upgraded),
    }


def spread(values: Sequence[float]) -> dict[str, float]:
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return {"median": math.nan, "min": math.nan, "max": math.nan}
    return {"median": statistics.median(finite), "min": min(finite), "max": max(finite)}


def summarise(outcomes: dict[str, Outcome]) -> dict[str, Any]:
    """Per candidate and size: medians and ranges, and ratios to the baseline's same round."""
    base = (
        {(w.round, w.bytes): w for w in outcomes[BASELINE].windows} if BASELINE in outcomes else {}
    )
    out: dict[str, Any] = {}
    for key, outcome in outcomes.items():
        per_size: dict[str, Any] = {}
        for size in sorted({w.bytes for w in outcome.windows}):
            ws = [w for w in outcome.windows if w.bytes == size]
            pairs = [(w, base[(w.round, w.bytes)]) for w in ws if (w.round, w.bytes) in base]
            per_size[str(size)] = {
                "rate": spread([w.rate for w in ws]),
                "server_cpu_us": spread([w.server_cpu_us for w in ws]),
                "core_busy_pct": spread([w.core_busy_pct for w in ws]),
                "others_cpu_pct": spread([w.others_cpu_pct for w in ws]),
                "p50_ms": spread([w.p50_ms for w in ws]),
                "rate_ratio": spread([w.rate / b.rate for w, b in pairs if b.rate]),
                "cpu_ratio": spread(
                    [w.server_cpu_us / b.server_cpu_us for w, b in pairs if b.server_cpu_us]
                ),
                "errors": sum(w.errors for w in ws),
            }
        out[key] = per_size
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    from bench import peer, pinning
    from bench.report import git_state, load_average, machine
    from bench.servers import Candidate, Server, descendants, rotated
    from bench.stack import BenchError

    node = peer.prepare(lambda text: print(text, file=sys.stderr))
    if node is None:
        raise BenchError("node and bench/peer's ws are needed for the echo load")
    split = pinning.split() if args.pin and pinning.supported() else None
    server_cpus, load_cpus = split if split else (None, None)
    libs = str(args.libs)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (libs, os.environ.get("PYTHONPATH", "")) if p),
        "FLOE_CONNECTIONS_PER_ADDRESS": "0",  # 1,000 idle sockets from 127.0.0.1
    }
    chosen = [lib for lib in LIBRARIES if not args.candidates or lib.key in args.candidates]
    tmp = Path(tempfile.mkdtemp(prefix="floe-wslibs-"))
    outcomes: dict[str, Outcome] = {lib.key: Outcome(lib) for lib in chosen}
    servers: dict[str, Server] = {}
    load_before = load_average()
    try:
        for lib in chosen:
            outcome = outcomes[lib.key]
            try:
                outcome.version = library_version(lib, env)
            except ImportError as error:
                outcome.error = str(error)
                print(f"{lib.key}: not measured: {error}", file=sys.stderr)
                continue
            candidate = Candidate(lib.key, lib.label, APP, True, functools.partial(argv_for, lib))
            server = Server(candidate, env, tmp / f"{lib.key}.log", server_cpus)
            outcome.command = server.command
            try:
                server.start(args.startup_timeout)
            except (BenchError, OSError) as error:
                outcome.error = f"did not start: {error}"
                print(f"{lib.key}: {outcome.error}", file=sys.stderr)
                server.terminate()
                server.wait_or_kill(10)
                continue
            servers[lib.key] = server
            print(f"{lib.key}: up on {server.port} ({outcome.version})", file=sys.stderr)
        keys = list(servers)
        for index in range(args.rounds):
            for key in rotated(keys, index):
                outcome, server = outcomes[key], servers[key]
                if outcome.error is not None:
                    continue
                for size in rotated(list(args.sizes), index):
                    url = f"ws://127.0.0.1:{server.port}/echo/{key}"
                    try:
                        others = [p for k, s in servers.items() if k != key for p in s.pids()]
                        result, cpu, other, busy, wall = drive(
                            node.node, url, size, args.seconds, args.warmup, server.pids(),
                            others, load_cpus, server_cpus,
                        )  # fmt: skip
                    except RuntimeError as error:
                        outcome.error = f"round {index}, {size} B: {error}"
                        print(f"{key}: {outcome.error}", file=sys.stderr)
                        break
                    messages = int(result["messages"])
                    window = Window(
                        round=index,
                        bytes=size,
                        rate=float(result["rate_per_s"]),
                        messages=messages,
                        server_cpu_us=1e6 * cpu / max(1, messages),
                        others_cpu_pct=100 * other / wall if wall else math.nan,
                        core_busy_pct=100 * busy / wall if wall else math.nan,
                        p50_ms=float(result["p50_ms"] or math.nan),
                        p99_ms=float(result["p99_ms"] or math.nan),
                        errors=int(result["errors"]),
                    )
                    outcome.windows.append(window)
                    print(
                        f"round {index} {key:<17} {size:>6} B {window.rate:8.0f} msg/s "
                        f"{window.server_cpu_us:6.1f} µs/msg core {window.core_busy_pct:3.0f}% "
                        f"(other servers {window.others_cpu_pct:.0f}%)"
                        + (f" errors {window.errors}" if window.errors else ""),
                        file=sys.stderr,
                    )
        if args.idle:
            for key, server in servers.items():
                workers = descendants(server.process.pid) if server.process else []
                outcomes[key].idle = idle_memory(server.port, outcomes[key].library, workers)
                idle = outcomes[key].idle or {}
                print(
                    f"idle {key:<17} {idle['upgraded']}/{IDLE_SOCKETS} upgraded, "
                    f"{idle['bytes_per_socket'] / 1024:.1f} KiB/socket",
                    file=sys.stderr,
                )
    finally:
        for server in servers.values():
            server.terminate()
        for server in servers.values():
            server.wait_or_kill(15)
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "load_average_before": load_before,
        "git": git_state(str(ROOT)),
        "plan": {
            "rounds": args.rounds,
            "seconds": args.seconds,
            "warmup_seconds": args.warmup,
            "sockets": SOCKETS,
            "sizes": list(args.sizes),
            "idle_sockets": IDLE_SOCKETS if args.idle else 0,
            "server_cpus": sorted(server_cpus or []),
            "load_cpus": sorted(load_cpus or []),
            "node": node.version,
            "libs": libs,
        },
        "candidates": [
            {
                "key": o.library.key,
                "label": o.library.label,
                "version": o.version,
                "command": o.command,
                "error": o.error,
                "windows": [asdict(w) for w in o.windows],
                "idle": o.idle,
            }
            for o in outcomes.values()
        ],
        "summary": summarise({k: o for k, o in outcomes.items() if o.windows}),
    }


def _cell(stats: dict[str, float], digits: int = 0) -> str:
    if math.isnan(stats["median"]):
        return "-"
    return f"{stats['median']:.{digits}f} ({stats['min']:.{digits}f}..{stats['max']:.{digits}f})"


def table(report: dict[str, Any]) -> str:
    rows: list[tuple[str, ...]] = [
        ("candidate", "size", "msg/s med (min..max)", "x simple-floe", "server µs/msg",
         "x simple-floe", "core %", "idle KiB/socket"),
    ]  # fmt: skip
    for cand in report["candidates"]:
        summary = report["summary"].get(cand["key"])
        idle = cand["idle"]
        memory = "-" if not idle else f"{idle['bytes_per_socket'] / 1024:.1f}"
        if not summary:
            rows.append((cand["key"], "-", "not measured", cand["error"] or "", "", "", "", ""))
            continue
        for size, s in summary.items():
            rows.append(
                (
                    cand["key"], f"{size} B", _cell(s["rate"]), _cell(s["rate_ratio"], 2),
                    _cell(s["server_cpu_us"], 1), _cell(s["cpu_ratio"], 2),
                    f"{s['core_busy_pct']['median']:.0f}", memory,
                )
            )  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    plan = report["plan"]
    head = (
        f"{plan['rounds']} rounds x {plan['seconds']} s, {plan['sockets']} sockets x 1 in "
        f"flight; server on CPU {plan['server_cpus']}, Node on CPU {plan['load_cpus']}"
    )
    body = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join([head, *body])


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.socket_libraries",
        description="Compare WebSocket libraries on echo routes under floe run's gunicorn.",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0, help="measured seconds a window")
    parser.add_argument("--warmup", type=float, default=0.5, help="unmeasured seconds first")
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(part) for part in text.split(",")],
        default=list(SIZES),
        help="message sizes in bytes, comma-separated",
    )
    parser.add_argument(
        "--candidates",
        type=lambda text: [part.strip() for part in text.split(",") if part.strip()],
        default=[],
        help="comma-separated keys: " + ",".join(lib.key for lib in LIBRARIES),
    )
    parser.add_argument("--libs", type=Path, default=DEFAULT_LIBS, help="extra PYTHONPATH")
    parser.add_argument("--no-idle", dest="idle", action="store_false")
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    parser.add_argument("--startup-timeout", type=float, default=60.0)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    unknown = set(args.candidates) - {lib.key for lib in LIBRARIES}
    if unknown:
        parser.error(f"unknown candidates: {', '.join(sorted(unknown))}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    from bench.report import json_safe
    from bench.stack import BenchError

    args = parse_args(argv)
    try:
        report = run(args)
    except BenchError as error:
        print(f"bench.socket_libraries: {error}", file=sys.stderr)
        return 1
    print(table(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(json_safe(report), indent=2, allow_nan=False) + "\n")
    print(f"\nwritten: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
