"""boardgame.io as a peer of Floe's move path: one measurement window of (a), from Python.

``bench/peer/`` is a small Node project pinning ``boardgame.io`` 0.50.2: a two-player game
whose every move ends the turn (``game.js``), a server for it on boardgame.io's in-memory or
FlatFile store (``server.js``), and a driver (``driver.js``) that plays 16 matches through
the real client (``boardgame.io/client`` with the ``SocketIO`` transport), one move in flight
per match, as Floe's ``actions`` load has one POST in flight per game.

Here: find ``node`` and ``npm``; ``npm ci`` when ``node_modules`` is missing or was installed
from another lock; start the server, wait for its ``listening`` line; run the driver for one
window, sampling CPU (``/proc``) of the server and the driver when it says the window opens
and closes; turn its JSON into the ``LoadResult`` the Floe loads produce; stop the server.

Without ``node`` or ``npm`` (Node is not part of Floe's stack) ``prepare`` logs
"node not found: boardgame.io not measured" and returns None, and (a) runs without the peer.

What the peer's answer means differs from Floe's, and the report says so: Floe answers a
POST after the event is in Redis (``appendfsync always``: on disk); boardgame.io broadcasts
the new state *before* it writes the store, and FlatFile (node-persist) never fsyncs.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from bench import pinning
from bench.loads import LoadResult
from bench.stack import HOST, BenchError, machine_busy, proc_cpu
from service.run.redis_server import free_tcp_port, parent_death_signal

PEER_DIR = Path(__file__).resolve().parent / "peer"
BOARDGAME_IO = "0.50.2"
STORES = ("memory", "flatfile")
#: Written into node_modules after a successful ``npm ci``: the digest of the manifest and
#: lock it installed. A different digest (a pulled lock) means install again.
STAMP = PEER_DIR / "node_modules" / ".floe-installed"
NOT_FOUND = "node not found: boardgame.io not measured"
#: Seconds for the server to print its line, and for the driver beyond its window (creating
#: 16 matches, connecting 32 sockets, the last answers).
STARTUP_TIMEOUT = 30.0
DRIVER_SLACK = 60.0


@dataclass(frozen=True)
class Node:
    """The Node toolchain found on PATH."""

    node: str
    npm: str
    version: str


class NotMeasured(Exception):
    """The peer cannot run here (no Node, no npm, a failed install); the message says why."""


def find_node() -> Node | None:
    """``node`` and ``npm`` from PATH, or None if either is missing or ``node`` won't run."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return None
    try:
        done = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return Node(node=node, npm=npm, version=done.stdout.strip())


def prepare(log: Callable[[str], None]) -> Node | None:
    """Node found and the peer's packages installed, or None after logging why not."""
    node = find_node()
    if node is None:
        log(NOT_FOUND)
        return None
    try:
        ensure_installed(node, log)
    except NotMeasured as error:
        log(f"{error}: boardgame.io not measured")
        return None
    return node


def _manifest_digest() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((PEER_DIR / name).read_bytes())
    return digest.hexdigest()


def installed() -> bool:
    """True when node_modules was installed by ``npm ci`` from the current lock."""
    try:
        return STAMP.read_text().strip() == _manifest_digest()
    except OSError:
        return False


@contextlib.contextmanager
def _install_lock() -> Iterator[None]:
    """One ``npm ci`` at a time for this checkout (a test and a bench may start together)."""
    key = hashlib.sha256(str(PEER_DIR).encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"floe-bench-peer-{key}.lock"
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_installed(node: Node, log: Callable[[str], None]) -> None:
    """``npm ci`` in bench/peer unless the stamp says the current lock is installed."""
    with _install_lock():
        if installed():
            return
        log(f"installing bench/peer (boardgame.io {BOARDGAME_IO}) with npm ci")
        command = [node.npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
        try:
            done = subprocess.run(
                command, cwd=PEER_DIR, capture_output=True, text=True, timeout=600, check=False
            )
        except (OSError, subprocess.SubprocessError) as error:
            raise NotMeasured(f"npm ci could not run: {error}") from error
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-15:])
            raise NotMeasured(f"npm ci failed ({done.returncode}):\n{tail}")
        STAMP.write_text(_manifest_digest() + "\n")


class Lines:
    """A child's stdout, read by a thread, so the caller can wait for a line with a deadline."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._queue.put(raw.decode(errors="replace").rstrip("\n"))
        self._queue.put(None)

    def next(self, deadline: float) -> str | None:
        """The next line, None at end of file; TimeoutError once ``deadline`` (monotonic)."""
        try:
            return self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError from None


def _node_env() -> dict[str, str]:
    # production: boardgame.io logs every move in development, and a deployment runs this.
    return {**os.environ, "NODE_ENV": "production"}


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no output)"


class PeerServer:
    """Context manager: ``node server.js`` on a free port, ready once it printed its line."""

    def __init__(self, node: Node, store: str, cpus: Iterable[int] | None = None) -> None:
        if store not in STORES:
            raise ValueError(f"store must be one of {STORES}, not {store!r}")
        self.node = node
        self.store = store
        self.cpus = None if cpus is None else set(cpus)
        self.tmp = Path(tempfile.mkdtemp(prefix="floe-bench-bgio-"))
        self.port = free_tcp_port(HOST)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        if self.process is None:
            raise BenchError("the boardgame.io server is not running")
        return self.process.pid

    def __enter__(self) -> PeerServer:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        command = [self.node.node, "server.js", "--store", self.store, "--port", str(self.port)]
        command += ["--dir", str(self.tmp / "flatfile")]
        with (self.tmp / "server.err").open("wb") as errors:
            self.process = subprocess.Popen(
                command,
                cwd=PEER_DIR,
                env=_node_env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=errors,
                start_new_session=True,
                preexec_fn=pinning.preexec_on(self.cpus, parent_death_signal()),
            )
        assert self.process.stdout is not None
        lines = Lines(self.process.stdout)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        try:
            line = lines.next(deadline)
        except TimeoutError:
            line = None
        if line is None or not line.startswith("listening "):
            raise BenchError(
                f"boardgame.io server ({self.store}) did not start: {line!r}\n"
                + _tail(self.tmp / "server.err")
            )

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _cpu(server: int, driver: int) -> dict[str, float]:
    """CPU seconds so far of the server and the driver (all their threads), and the machine."""
    return {"server": proc_cpu(server), "client": proc_cpu(driver), "machine": machine_busy()}


def drive(
    node: Node,
    server: PeerServer,
    *,
    matches: int,
    seconds: float,
    warmup: float,
    cpus: Iterable[int] | None = None,
    stall: float = 10.0,
) -> tuple[dict[str, Any], dict[str, float]]:
    """Run ``driver.js`` for one window: its JSON result and the CPU used inside the window."""
    command = [node.node, "driver.js", "--port", str(server.port), "--matches", str(matches)]
    command += ["--warmup", str(warmup), "--seconds", str(seconds), "--stall", str(stall)]
    errors_path = server.tmp / "driver.err"
    with errors_path.open("wb") as errors:
        process = subprocess.Popen(
            command,
            cwd=PEER_DIR,
            env=_node_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
            preexec_fn=pinning.preexec_on(cpus, parent_death_signal()),
        )
    assert process.stdout is not None
    lines = Lines(process.stdout)
    deadline = time.monotonic() + warmup + seconds + stall + DRIVER_SLACK
    before: dict[str, float] = {}
    after: dict[str, float] = {}
    result: dict[str, Any] | None = None
    try:
        while (line := lines.next(deadline)) is not None:
            if not line.startswith("@@ "):
                continue  # anything a library printed
            message = json.loads(line[3:])
            if message.get("event") == "measuring":
                before = _cpu(server.pid, process.pid)
            elif message.get("event") == "measured":
                after = _cpu(server.pid, process.pid)
            else:
                result = message
        code = process.wait(10)
    except TimeoutError:
        process.kill()
        process.wait()
        raise BenchError(f"boardgame.io driver timed out:\n{_tail(errors_path)}") from None
    if code != 0 or result is None:
        raise BenchError(f"boardgame.io driver failed ({code}):\n{_tail(errors_path)}")
    if not before or not after:
        raise BenchError("boardgame.io driver ended without reporting both ends of its window")
    return result, {key: after[key] - before[key] for key in after}


def to_load(name: str, result: dict[str, Any], cpu: dict[str, float]) -> LoadResult:
    """The driver's JSON as the record the Floe loads produce (latencies in seconds)."""
    if int(result["errors"]) == 0 and int(result["applied"]) != int(result["sent"]):
        summary = {key: value for key, value in result.items() if key != "latencies_ms"}
        raise BenchError(f"{name}: the server applied another count of moves than sent: {summary}")
    return LoadResult(
        name=name,
        clients=int(result["matches"]),
        seconds=float(result["seconds"]),
        latencies=[float(ms) / 1000 for ms in result["latencies_ms"]],
        errors=int(result["errors"]),
        cpu=cpu,
    )


def window(
    node: Node,
    store: str,
    *,
    matches: int,
    seconds: float,
    warmup: float,
    pin: tuple[set[int], set[int]] | None = None,
) -> LoadResult:
    """One measured window of ``bgio_<store>``: a fresh server, a fresh driver, stopped after.

    ``pin`` is ``(server CPUs, load CPUs)``: the server as ``taskset -c`` would put it on the
    first, the driver on the second.
    """
    server_cpus, load_cpus = pin if pin is not None else (None, None)
    with PeerServer(node, store, server_cpus) as server:
        result, cpu = drive(
            node, server, matches=matches, seconds=seconds, warmup=warmup, cpus=load_cpus
        )
    return to_load(f"bgio_{store}", result, cpu)
