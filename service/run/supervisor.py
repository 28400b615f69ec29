"""``floe run``: start Redis (unless ``REDIS_URL`` is set), the job workers and the API.

A deliberately small supervisor for local use and demos: one command, one Ctrl-C. Every
child runs in its own session so a terminal Ctrl-C reaches only this process, which then
stops the children in order -- API and workers first (they may still write), Redis last.
A job worker or the API (gunicorn's master; gunicorn itself replaces its own workers) that
dies is started again, after a backoff, and the log says so: workers hold nothing of their
own (what a dead one held is found again by the sweeper), and one ends itself when an item is
stuck past its deadline (``service.jobs.deadlines``); the API holds nothing either (every
game is in the store). A worker's replacement does not retry failed bot moves (an operator's
restart does), so a bot that hangs does not hang each replacement in turn. A part that keeps
dying as it starts (a bad configuration, say), or a Redis that dies, stops the others and
``run`` returns non-zero, so a half-running system never looks healthy.

With its own event store (``REDIS_URL`` unset) it also starts the job queues' Redis (unless
``FLOE_QUEUE_URL`` names one): a second redis-server in ``<data_dir>/queue``, in memory only
(``QUEUE_CONFIG``), so the workers' bookkeeping pays no fsync while every event is still
fsynced to the store's AOF. It is watched like the others: if it dies, everything stops;
what it held is rebuilt from the event store after a restart (docs/operations/guarantees.md).

Before any part starts it loads the service key, making it on a first start
(``FLOE_SERVICE_KEY_FILE``, else ``<data_dir>/keys/service.key``), and hands every part the
file's full path, so every API process signs receipts with that one key.

Before that, it binds the API's address once itself (``port_problem``): a port in use stops
it with a message naming the port and the variables that choose it, not gunicorn's "Can't
connect" after the store has started. With ``REDIS_URL`` it reads that store's configuration
(``store_may_be_used``): one that may lose games stops it unless
``FLOE_STORE_RISKS_ACCEPTED=1``. Its own lines follow ``FLOE_LOG_LEVEL`` (``level_of``).
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import importlib.metadata
import logging
import math
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TextIO

from service.archive.opening import open_archive
from service.archive.protocol import ArchiveError
from service.jobs.deadlines import STUCK_EXIT_STATUS
from service.keys import service_key
from service.keys.service_key import ServiceKeyError, default_file
from service.log_level import LEVELS
from service.redis.connect import connect
from service.redis.durability import UNREACHABLE, StoreRisksRefused, check_at_start
from service.run.redis_server import (
    QUEUE_CONFIG,
    RedisServer,
    RedisServerError,
    durable_config,
    find_redis_server,
    make_private_dir,
    parent_death_signal,
    socket_path,
)
from service.run.url_secrets import without_secrets
from service.settings import Settings

__all__ = [
    "Child",
    "RestartPolicy",
    "Settings",
    "ShutdownRequest",
    "api_command",
    "find_redis_server",
    "gunicorn_has_control_socket",
    "install_signal_handlers",
    "parse_settings",
    "run",
    "start_child",
    "start_embedded_redis",
    "start_queue_redis",
    "stop_children",
    "supervise",
    "worker_command",
]

POLL_INTERVAL = 0.1
#: A worker or the API that died is started again after this long, doubled for each death in a
#: row that came within ``STEADY_SECONDS`` of its start, up to ``RESTART_MAX_SECONDS``.
RESTART_SECONDS = 1.0
RESTART_MAX_SECONDS = 30.0
STEADY_SECONDS = 60.0
#: A part that dies this many times in a row within ``STEADY_SECONDS`` of its start cannot
#: run (a bad configuration, say): ``floe run`` stops, as when a Redis dies.
QUICK_DEATHS_ALLOWED = 5


@dataclass(frozen=True)
class RestartPolicy:
    """When a part that died starts again: after a backoff that doubles while it keeps
    dying soon after each start, up to a cap, and never once it has so died too often.

    Only deaths in a row that each came soon after a start count (``quick_deaths``): a part
    that ran ``STEADY_SECONDS`` had a fault now and then, not one that stops it running.
    """

    #: Deaths in a row, each within ``STEADY_SECONDS`` of a start, of the part in this place.
    quick_deaths: int = 0

    def after_death(self, started: float, died: float) -> tuple[RestartPolicy, float | None]:
        """The policy for the part's replacement, and the seconds to wait before starting it
        (None: give up, the part keeps dying as it starts)."""
        quick = 0 if died - started >= STEADY_SECONDS else self.quick_deaths + 1
        if quick >= QUICK_DEATHS_ALLOWED:
            return RestartPolicy(quick), None
        return RestartPolicy(quick), min(RESTART_MAX_SECONDS, RESTART_SECONDS * float(2**quick))


@dataclass
class Child:
    """A started component: its name, the address it serves, and its process."""

    name: str
    address: str
    process: subprocess.Popen[bytes]
    #: What it is, for the log (a worker: whether it works only draws).
    note: str = ""
    #: Starts another in its place (workers and the API); None: its death stops ``floe run``.
    again: Callable[[], Child] | None = None
    started: float = field(default_factory=time.monotonic)
    #: How those in its place have died so far.
    policy: RestartPolicy = field(default_factory=RestartPolicy)

    def restart_delay(self, now: float) -> float | None:
        """Seconds to wait before starting another in its place, now that it died; None:
        it may not be replaced (a Redis, or a part that keeps dying as it starts)."""
        if self.again is None:
            return None
        self.policy, delay = self.policy.after_death(self.started, now)
        return delay


@dataclass
class ShutdownRequest:
    """Counts SIGINT/SIGTERM received: one asks for a graceful stop, two for SIGKILL."""

    signals: int = 0
    names: list[str] = field(default_factory=list)

    @property
    def requested(self) -> bool:
        return self.signals > 0

    @property
    def urgent(self) -> bool:
        return self.signals > 1

    def handle(self, signum: int, _frame: FrameType | None) -> None:
        """Signal handler: only records, so it is safe at any point of the main loop."""
        self.signals += 1
        self.names.append(signal.Signals(signum).name)


def parse_settings(argv: list[str], env: Mapping[str, str]) -> Settings:
    """The settings from ``env``, with ``floe run``'s flags winning over it.

    Raises ValueError for malformed environment values (argparse exits on bad flags).
    """
    settings = Settings.from_env(env)
    parser = argparse.ArgumentParser(
        prog="floe run",
        description="Run Redis (unless REDIS_URL is set), the job worker and the HTTP API.",
    )
    parser.add_argument("--host", default=settings.host, help="API bind address")
    parser.add_argument("--port", type=int, default=None, help="API port (env PORT, 8000)")
    parser.add_argument(
        "--data-dir",
        default=str(settings.data_dir),
        help="where the embedded Redis keeps its data (env FLOE_DATA_DIR, .floe-data)",
    )
    args = parser.parse_args(argv)
    # --data-dir counts as FLOE_DATA_DIR, so the service key follows it (unless
    # FLOE_SERVICE_KEY_FILE names another file).
    settings = Settings.from_env({**env, "FLOE_DATA_DIR": args.data_dir})
    return dataclasses.replace(
        settings,
        host=args.host,
        port=settings.port if args.port is None else args.port,
        data_dir=Path(args.data_dir),
    )


def worker_command(python: str, *, draws_only: bool = False, replacing: bool = False) -> list[str]:
    """argv of an RQ job worker (``draws_only``: one that never takes a bot's move;
    ``replacing``: one started in place of a worker that died, which leaves failed bot moves
    failed)."""
    flags = [
        *(["--draws-only"] if draws_only else []),
        *(["--no-retry-failed"] if replacing else []),
    ]
    return [python, "-m", "service.cli", "worker", *flags]


def gunicorn_has_control_socket() -> bool:
    """True for gunicorn >= 25.1, which opens a control socket shared by all instances.

    The default path is per user (``~/.gunicorn/gunicorn.ctl``), so two ``floe run`` (or a
    run and a test) would fight over it; we turn it off where the flag exists.
    """
    try:
        release = importlib.metadata.version("gunicorn")
    except importlib.metadata.PackageNotFoundError:
        return False
    numbers = [int(part) for part in re.findall(r"\d+", release)[:2]]
    return tuple(numbers) >= (25, 1)


def api_command(settings: Settings, *, control_socket_flag: bool | None = None) -> list[str]:
    """argv of gunicorn serving the Flask app on gevent workers (``service/run/web.py``).

    Gevent, so that an idle live stream or ``?wait=`` costs a greenlet and a socket, not
    one of a few request threads; our worker class (``gevent_worker.py``) caps the
    connections of one address in each process and reads every request's line and headers
    within ``FLOE_HEADER_TIMEOUT_SECONDS`` (``--keep-alive``, whole seconds, only has to be
    set for gunicorn to take that path); ``web.py`` adds the body's deadline. The access log
    is gunicorn's combined format, written by ``access_log.AccessLogger``.

    ``control_socket_flag``: pass ``--no-control-socket`` (None: if gunicorn knows it).
    """
    if control_socket_flag is None:
        control_socket_flag = gunicorn_has_control_socket()
    extra = ["--no-control-socket"] if control_socket_flag else []
    return [
        settings.python, "-m", "gunicorn",
        "--bind", f"{settings.host}:{settings.port}",
        "--worker-class", "service.run.gevent_worker.CappedGeventWorker",
        "--workers", str(settings.web_workers),
        "--worker-connections", str(settings.web_connections),
        "--keep-alive", str(max(1, math.ceil(settings.header_timeout_seconds))),
        "--graceful-timeout", str(max(1, int(settings.stop_timeout) - 1)),
        "--access-logfile", "-",
        "--log-level", settings.log_level,
        "--logger-class", "service.run.access_log.AccessLogger",
        *extra,
        "service.run.web:create_web_app()",
    ]  # fmt: skip


def start_embedded_redis(
    data_dir: Path, *, executable: str | None = None, maxmemory: str | None = None
) -> RedisServer:
    """Start the durable local Redis in ``<data_dir>/redis``, reachable only by unix socket.

    ``port 0`` means no TCP listener, so it can never clash with (or be mistaken for)
    another Redis on the machine; every write is fsynced to the AOF before it is acked.
    ``<data_dir>/redis`` is 0700 and everything in it private, whatever the umask: the AOF
    holds every running game's seed and hidden layout. ``data_dir`` is made 0700 too when it
    is floe's own (new, empty, or holding only its ``redis``, ``queue``, ``keys`` and archive); a
    directory that holds other things (``--data-dir /tmp``) keeps its mode, the private
    ``redis`` inside it is enough.
    ``maxmemory`` (``FLOE_REDIS_MAXMEMORY``, e.g. ``2gb``) caps its memory: at the cap it
    refuses writes (``noeviction``) and the API answers 503 ``store_full``.
    """
    data_dir = data_dir.resolve()
    if not data_dir.exists() or set(os.listdir(data_dir)) <= OWN_ENTRIES:
        make_private_dir(data_dir)
    redis_dir = (data_dir / "redis").resolve()
    server = RedisServer(
        redis_dir,
        unix_socket=socket_path(redis_dir),
        config=durable_config(maxmemory),
        executable=executable,
    )
    return server.start()


#: What ``floe run`` keeps in its data directory (the archive: its default SQLite file).
OWN_ENTRIES = frozenset(
    {"redis", "queue", "keys", "archive.sqlite3", "archive.sqlite3-wal", "archive.sqlite3-shm"}
)


def start_queue_redis(data_dir: Path, *, executable: str | None = None) -> RedisServer:
    """Start the job queues' Redis in ``<data_dir>/queue``, on a unix socket only, in memory.

    Nothing of it reaches the disk (``QUEUE_CONFIG``): the directory holds only its socket
    and log. Started after the store (``start_embedded_redis`` makes ``data_dir`` private).
    """
    queue_dir = (data_dir.resolve() / "queue").resolve()
    server = RedisServer(
        queue_dir,
        unix_socket=socket_path(queue_dir),
        config=QUEUE_CONFIG,
        executable=executable,
    )
    return server.start()


def level_of(message: str) -> int:
    """How important one of ``floe run``'s lines is, by how it begins: what
    ``FLOE_LOG_LEVEL`` keeps (``error:``, ``warning:`` and ``restarting:`` lines are kept at
    ``warning``; what started and stopped, at ``info``; ``debug:``, only at ``debug``)."""
    if message.startswith("error:"):
        return logging.ERROR
    if message.startswith(("warning:", "restarting:")):
        return logging.WARNING
    if message.startswith("debug:"):
        return logging.DEBUG
    return logging.INFO


def port_problem(host: str, port: int) -> str | None:
    """Why the API could not listen on ``host:port`` (None: it can, right now).

    The socket is bound as gunicorn binds it (``SO_REUSEADDR``, so connections of a stopped
    server still in TIME_WAIT do not count), then closed: only a socket that listens there,
    or an address this machine does not have, stops the bind.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return (
                f"port {port} on {host} is in use: stop what listens there, or choose "
                "another (PORT or --port; FLOE_HOST or --host)"
            )
        reason = error.strerror or str(error)
        return f"the API cannot listen on {host} port {port}: {reason} (FLOE_HOST or --host)"
    return None


def store_may_be_used(settings: Settings, say: Callable[[str], None]) -> bool:
    """Whether the event store ``REDIS_URL`` names may be used (``floe run``'s own always
    may): not one that may lose games, unless ``FLOE_STORE_RISKS_ACCEPTED=1``. Says why not,
    and warns of what it accepts (``service.redis.durability``)."""

    def warn(message: str) -> None:
        say(f"warning: {message}")

    try:
        client = connect(settings)
    except UNREACHABLE as error:
        warn(f"could not read the event store's configuration: {error}")
        return True
    try:
        check_at_start(client, settings, warn)
    except StoreRisksRefused as refused:
        say(f"error: {refused}")
        return False
    finally:
        client.close()
    return True


def start_child(
    name: str,
    address: str,
    argv: list[str],
    env: Mapping[str, str],
    *,
    popen: Callable[..., subprocess.Popen[bytes]] = subprocess.Popen,
) -> Child:
    """Start one component in its own session (see the module docstring for why)."""
    process = popen(
        argv,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=parent_death_signal(),
    )
    return Child(name=name, address=address, process=process)


def install_signal_handlers(request: ShutdownRequest) -> Callable[[], None]:
    """Route SIGINT/SIGTERM to ``request``; returns a function restoring the old handlers."""
    previous = {sig: signal.signal(sig, request.handle) for sig in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for sig, handler in previous.items():
            if handler is not None:  # None: installed outside Python, cannot be restored
                signal.signal(sig, handler)

    return restore


def supervise(
    children: list[Child],
    request: ShutdownRequest,
    *,
    servers: Sequence[Child] = (),
    say: Callable[[str], None] = lambda message: None,
    poll_interval: float = POLL_INTERVAL,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Child | None:
    """Block until a shutdown is requested (returns None) or a child that may not be replaced
    exits (returns it). A worker or the API that exits is replaced after its backoff
    (``Child.restart_delay``): ``children`` is updated in place. ``servers`` (the Redis
    servers) are watched, never replaced."""
    due: dict[int, float] = {}  # place in ``children`` -> when its replacement starts
    while not request.requested:
        now = clock()
        for place, child in enumerate(children):
            if place in due:
                if now >= due[place]:
                    del due[place]
                    children[place] = _replace(child, say)
                continue
            if child.process.poll() is None:
                continue
            delay = child.restart_delay(now)
            if delay is None:
                return child
            due[place] = now + delay
            say(f"restarting: {_describe_exit(child)}; another starts in {delay:g} s")
        for server in servers:
            if server.process.poll() is not None:
                return server
        sleep(poll_interval)
    return None


def _replace(dead: Child, say: Callable[[str], None]) -> Child:
    assert dead.again is not None
    child = dead.again()
    child.policy = dead.policy
    pid = child.process.pid
    note = f", {child.note}" if child.note else ""
    shown = without_secrets(child.address)
    say(f"{child.name:<7} {shown}  (pid {pid}{note}; replaces {dead.process.pid})")
    return child


def stop_children(
    children: Iterable[Child],
    timeout: float,
    request: ShutdownRequest | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """SIGTERM all children at once, wait up to ``timeout``, then SIGKILL the stragglers.

    A further Ctrl-C (``request.urgent``) skips the wait.
    """
    alive = [c for c in children if c.process.poll() is None]
    for child in alive:
        child.process.terminate()
    deadline = clock() + timeout
    while alive and clock() < deadline and not (request is not None and request.urgent):
        alive = [c for c in alive if c.process.poll() is None]
        if alive:
            sleep(POLL_INTERVAL)
    for child in alive:
        if child.process.poll() is None:
            child.process.kill()
        child.process.wait()


def _describe_exit(child: Child) -> str:
    code = child.process.returncode
    pid = f" (pid {child.process.pid})" if child.again is not None else ""
    if code is not None and code < 0:
        return f"{child.name}{pid} was killed by {signal.Signals(-code).name}"
    if code == STUCK_EXIT_STATUS and child.again is not None:
        return f"{child.name}{pid} exited with status {code}: an item was stuck past its deadline"
    return f"{child.name}{pid} exited with status {code}"


def _start_worker(
    python: str,
    address: str,
    env: Mapping[str, str],
    *,
    draws_only: bool,
    replacing: bool = False,
) -> Child:
    """A job worker, with what starts another in its place should it die."""
    argv = worker_command(python, draws_only=draws_only, replacing=replacing)
    worker = start_child("worker", address, argv, env)
    worker.note = "draws only" if draws_only else "draws, then bots"
    worker.again = lambda: _start_worker(
        python, address, env, draws_only=draws_only, replacing=True
    )
    return worker


def _start_api(settings: Settings, address: str, env: Mapping[str, str]) -> Child:
    """The API's gunicorn, with what starts another in its place should it die. A killed
    master's workers stop accepting within a second (they leave once their parent changes),
    and gunicorn retries a port still held for a few seconds, so the new one binds it.
    """
    api = start_child("api", address, api_command(settings), env)
    api.again = lambda: _start_api(settings, address, env)
    return api


def run(
    argv: list[str] | None = None,
    *,
    environ: MutableMapping[str, str] | None = None,
    out: TextIO | None = None,
) -> int:
    """Entry point of ``floe run``: start everything, wait, stop everything; exit status.

    ``argv`` holds the arguments after ``run`` (None: ``sys.argv[2:]``, as in
    ``floe run --port 9000``). Returns 0 after a requested shutdown, non-zero if a
    component failed to start or died.
    """
    env = os.environ if environ is None else environ
    stream = sys.stdout if out is None else out
    threshold = logging.INFO  # FLOE_LOG_LEVEL's, once it is read

    def say(message: str) -> None:
        if level_of(message) >= threshold:
            print(f"floe: {without_secrets(message)}", file=stream, flush=True)

    try:
        settings = parse_settings(sys.argv[2:] if argv is None else argv, env)
    except ValueError as exc:
        say(f"error: {exc}")
        return 2
    threshold = LEVELS[settings.log_level]
    unusable = port_problem(settings.host, settings.port)
    if unusable is not None:  # before anything starts: gunicorn would only say "Can't connect"
        say(f"error: {unusable}")
        return 1

    request = ShutdownRequest()
    restore_signals = install_signal_handlers(request)
    redis: RedisServer | None = None
    queue: RedisServer | None = None
    children: list[Child] = []
    try:
        if settings.redis_url is None:
            try:
                executable = find_redis_server(settings.redis_server)
                redis = start_embedded_redis(
                    settings.data_dir, executable=executable, maxmemory=settings.redis_maxmemory
                )
                if settings.queue_url is None:
                    queue = start_queue_redis(settings.data_dir, executable=executable)
            except (RedisServerError, ValueError) as exc:
                say(f"error: could not start Redis: {exc}")
                return 1
            redis_url = redis.url
            say(f"redis   {redis_url}  (pid {redis.pid}, data {redis.data_dir})")
        else:
            redis_url = settings.redis_url
            say(f"redis   {without_secrets(redis_url)}  (external, from REDIS_URL)")
            if not store_may_be_used(settings, say):
                return 1
        child_env = {**env, "REDIS_URL": redis_url}
        if queue is not None:
            child_env["FLOE_QUEUE_URL"] = queue.url
            say(f"queue   {queue.url}  (pid {queue.pid}, in memory: rebuilt after a crash)")
        elif settings.queue_url is not None:
            say(f"queue   {without_secrets(settings.queue_url)}  (external, from FLOE_QUEUE_URL)")
        key_file = settings.service_key_file or default_file(settings.data_dir)
        try:  # made here, once, before anything that signs starts: every part gets its path
            key = service_key.load(key_file)
        except ServiceKeyError as exc:
            say(f"error: {exc}")
            return 1
        child_env["FLOE_SERVICE_KEY_FILE"] = str(key_file.absolute())
        say(f"key     {key.public_key}  ({key_file.absolute()}, signs the receipts)")
        if settings.archive_url is None:
            child_env["FLOE_ARCHIVE_URL"] = "off"
            say("archive off  (finished games stay in Redis)")
        else:
            try:  # opened once here, so the schema exists before the parts race to make it
                open_archive(settings.archive_url).close()
            except ArchiveError as exc:
                say(f"error: {exc}")
                return 1
            child_env["FLOE_ARCHIVE_URL"] = settings.archive_url
            shown = without_secrets(settings.archive_url)
            say(f"archive {shown}  (games over {settings.archive_after_s:g} s)")

        for number in range(settings.job_workers):
            # With two or more, the first works only draws: dice never wait behind bots.
            draws_only = number == 0 and settings.job_workers > 1
            worker = _start_worker(settings.python, redis_url, child_env, draws_only=draws_only)
            children.append(worker)
            say(f"worker  {without_secrets(redis_url)}  (pid {worker.process.pid}, {worker.note})")
        api_address = f"http://{settings.host}:{settings.port}"
        api = _start_api(settings, api_address, child_env)
        children.append(api)
        say(f"debug: api command: {shlex.join(api_command(settings))}")
        say(f"api     {api_address}  (pid {api.process.pid})")

        servers = []
        if redis is not None and redis.process is not None:
            servers.append(Child("redis", redis_url, redis.process))
        if queue is not None and queue.process is not None:
            servers.append(Child("queue redis", queue.url, queue.process))
        died = supervise(children, request, servers=servers, say=say)
        if died is not None:
            if died.again is not None:
                say(
                    f"error: {_describe_exit(died)}: {QUICK_DEATHS_ALLOWED} deaths in a row, "
                    f"each within {STEADY_SECONDS:g} s of its start; stopping the others"
                )
            else:
                say(f"error: {_describe_exit(died)}; stopping the others")
            status = died.process.returncode or 1
            return status if status > 0 else 1
        say(f"received {request.names[0]}; stopping")
        return 0
    finally:
        stop_children(children, settings.stop_timeout, request)
        if queue is not None:
            queue.stop(timeout=settings.stop_timeout)
        if redis is not None:
            redis.stop(timeout=settings.stop_timeout)
        restore_signals()
        if children or redis is not None:
            say("stopped")
