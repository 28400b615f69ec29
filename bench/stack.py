"""The system under test: a private durable Redis and gunicorn started as ``floe run`` would.

Redis gets ``DURABLE_CONFIG`` (AOF, ``appendfsync always``) on a unix socket in a temporary
directory, like ``floe run``'s embedded store; gunicorn gets ``service.run.supervisor.api_command``
verbatim (gevent, 2 workers, access log on), plus ``FLOE_BENCH_ROUTES=1`` for
the bare ``POST /bench/xadd``. The RQ worker is not started: Arktia never draws randomness,
so it would sit idle. Never touches the Redis on port 6379.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from service.run.redis_server import DURABLE_CONFIG, RedisServer, free_tcp_port, parent_death_signal
from service.run.supervisor import api_command, start_queue_redis
from service.settings import Settings

HOST = "127.0.0.1"


class BenchError(RuntimeError):
    """The stack did not come up, or answered something a benchmark cannot go on with."""


class Client:
    """One keep-alive HTTP/1.1 connection (``http.client``): one per benchmark thread.

    ``request`` sends exactly one request and reads the whole response, reconnecting once
    if the server closed the idle connection (gunicorn's keep-alive timeout is 2 s).
    """

    def __init__(self, port: int, host: str = HOST, timeout: float = 30.0) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        return self._conn

    def request(
        self, method: str, path: str, body: bytes | None = None, token: str | None = None
    ) -> tuple[int, bytes]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionError, http.client.BadStatusLine):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def json(
        self, method: str, path: str, payload: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        body = None if payload is None else json.dumps(payload).encode()
        status, raw = self.request(method, path, body, token)
        return status, json.loads(raw) if raw else None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class Stack:
    """Context manager: Redis, then gunicorn, then wait for ``/v1/health``; stops in reverse."""

    def __init__(self, *, workers: int = 2, startup_timeout: float = 30.0):
        self.workers = workers
        self.startup_timeout = startup_timeout
        self.tmp = Path(tempfile.mkdtemp(prefix="floe-bench-"))
        self.redis = RedisServer(
            self.tmp / "redis", unix_socket=self.tmp / "redis.sock", config=DURABLE_CONFIG
        )
        self.port = free_tcp_port(HOST)
        self.api: subprocess.Popen[bytes] | None = None
        self.command: list[str] = []

    @property
    def api_log(self) -> Path:
        return self.tmp / "gunicorn.log"

    def __enter__(self) -> Stack:
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
        self.redis.start()
        settings = Settings(
            host=HOST,
            port=self.port,
            web_workers=self.workers,
            python=sys.executable,
        )
        self.command = api_command(settings)
        env = {
            **os.environ,
            "REDIS_URL": self.redis.url,
            "FLOE_BENCH_ROUTES": "1",
            # Every client is 127.0.0.1 and the benchmark far outruns a person: keep the rate
            # limiter counting (its cost is part of the measurement) but never throttling.
            # BENCH_RATE_LIMIT=0 turns it off, to measure what it costs.
            "FLOE_RATE_LIMIT_PER_TOKEN": os.environ.get("BENCH_RATE_LIMIT", str(10**9)),
            "FLOE_RATE_LIMIT_PER_ADDRESS": os.environ.get("BENCH_RATE_LIMIT", str(10**9)),
            # Each of (a)'s 32 game sockets holds one of its address's long requests, and a
            # socket closed when its game is replaced may not have given its slot back yet.
            "FLOE_LONG_REQUESTS_PER_ADDRESS": "0",
        }
        with self.api_log.open("ab") as log:
            self.api = subprocess.Popen(
                self.command,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=parent_death_signal(),
            )
        self._wait_healthy()

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        client = Client(self.port, timeout=2.0)
        try:
            while True:
                if self.api is not None and self.api.poll() is not None:
                    raise BenchError(f"gunicorn exited during startup:\n{self._log_tail()}")
                with contextlib.suppress(OSError, http.client.HTTPException):
                    status, _ = client.request("GET", "/v1/health")
                    if status == 200:
                        return
                client.close()
                if time.monotonic() >= deadline:
                    raise BenchError(
                        f"/v1/health did not answer 200 within {self.startup_timeout}s:\n"
                        + self._log_tail()
                    )
                time.sleep(0.1)
        finally:
            client.close()

    def _log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.api_log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no gunicorn log)"

    def set_appendfsync(self, policy: str) -> None:
        """Switch the AOF fsync policy of the running Redis (``always`` or ``everysec``)."""
        client = self.redis.client()
        try:
            client.config_set("appendfsync", policy)
        finally:
            client.close()

    def stop(self) -> None:
        if self.api is not None and self.api.poll() is None:
            self.api.terminate()
            try:
                self.api.wait(15)
            except subprocess.TimeoutExpired:
                self.api.kill()
                self.api.wait()
        self.redis.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def client(self) -> Client:
        return Client(self.port)

    def server_pids(self) -> list[int]:
        """gunicorn's master and workers and redis-server: everything that serves a move."""
        pids = [] if self.api is None else [self.api.pid, *_children(self.api.pid)]
        redis_pid = self.redis.pid
        return pids if redis_pid is None else [*pids, redis_pid]

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds used so far: gunicorn's master and each worker, Redis, this process,
        and the whole machine (``/proc/stat``, to see other load competing for the cores).

        Sampled around a measurement window, it says whether a load was CPU-bound, what one
        op costs the server, and how evenly the keep-alive connections spread over workers.
        """
        out: dict[str, float] = {}
        if self.api is not None:
            out["api_master"] = proc_cpu(self.api.pid)
            for child in _children(self.api.pid):
                out[f"worker:{child}"] = proc_cpu(child)
        redis_pid = self.redis.pid
        out["redis"] = proc_cpu(redis_pid) if redis_pid is not None else 0.0
        times = os.times()
        out["client"] = times.user + times.system
        out["machine"] = machine_busy()
        return out


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_fields(pid: int) -> list[str]:
    """Fields of ``/proc/<pid>/stat`` after the command name (which may contain spaces)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return raw[raw.rfind(")") + 2 :].split()


def proc_cpu(pid: int) -> float:
    """utime + stime of one process in seconds (0 where /proc is unavailable)."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / _TICKS if len(fields) > 12 else 0.0


def machine_busy() -> float:
    """CPU seconds all cores spent busy since boot (user, nice, system, irq, softirq, steal)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()[1:]
    except OSError:
        return 0.0
    busy = [int(fields[i]) for i in (0, 1, 2, 5, 6, 7) if i < len(fields)]
    return sum(busy) / _TICKS


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (gunicorn's workers), found through /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if len(fields) > 1 and fields[1] == str(pid):
                found.append(int(entry.name))
    return found


def create_game(
    client: Client, players: int, options: dict[str, Any], clock: dict[str, Any] | None = None
) -> tuple[str, list[str]]:
    """Create an Arktia game over HTTP (with ``clock``, if any); returns its id and the seat
    tokens by seat."""
    payload: dict[str, Any] = {
        "game": "arktia",
        "players": [{"name": f"bench-{i}"} for i in range(players)],
        "options": options,
    }
    if clock is not None:
        payload["clock"] = clock
    status, body = client.json("POST", "/v1/games", payload)
    if status != 201:
        raise BenchError(f"creating a game answered {status}: {body}")
    return str(body["id"]), [str(seat["token"]) for seat in body["seats"]]


@contextlib.contextmanager
def own_queue_redis() -> Iterator[RedisServer]:
    """The job queues' Redis as ``floe run`` starts it (in memory), its URL in
    ``FLOE_QUEUE_URL`` for every process started meanwhile; stopped and removed after."""
    data_dir = Path(tempfile.mkdtemp(prefix="floe-bq-"))
    server = start_queue_redis(data_dir)
    before = os.environ.get("FLOE_QUEUE_URL")
    os.environ["FLOE_QUEUE_URL"] = server.url
    try:
        yield server
    finally:
        if before is None:
            os.environ.pop("FLOE_QUEUE_URL", None)
        else:
            os.environ["FLOE_QUEUE_URL"] = before
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
