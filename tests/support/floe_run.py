"""Hostile clients against a real ``floe run``: the attacks of the availability review.

Shared by the attack tests (``tests/faults/test_hostile_load.py``, which assert what each
attacker and each honest client gets) and ``python -m bench.attacks`` (which measures how
fast the honest clients are served meanwhile). Every client opens its own connection, from
a chosen loopback address (``127.0.0.N``): the caps and quotas are per address.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from service.jobs.backlog import Backlog
from service.jobs.queue import BATCHES
from service.run.redis_server import free_tcp_port
from tests.support.redis_binary import VARIABLE as TEST_REDIS_SERVER
from tests.support.waiting import PROMPTLY, wait_until

#: A client that gets no answer in this long counts the server as down (generous: a busy
#: machine is slow, not down; ``bench.attacks`` measures how fast the answers come).
ANSWER_WITHIN = 30.0
PLAYERS = [{"name": "a"}, {"name": "b"}]

Reply = tuple[int, Any, dict[str, str]]
_PID = re.compile(r"\(pid (\d+)")
_REPLACES = re.compile(r"; replaces (\d+)\)")


@dataclass
class FloeRun:
    """A running ``floe run``: its process, port and data directory (Redis inside)."""

    process: subprocess.Popen[bytes]
    port: int
    data_dir: Path

    def log(self) -> str:
        return (self.data_dir / "floe-run.log").read_text(errors="replace")

    def worker_pids(self) -> list[int]:
        """The job workers it started (it prints ``floe: worker ... (pid N, ...)``)."""
        return [
            int(line.rsplit("(pid ", 1)[1].split(",")[0].split(")")[0])
            for line in self.log().splitlines()
            if line.startswith("floe: worker")
        ]

    def current_worker_pids(self) -> list[int]:
        """The job workers running now, one per place: a replacement (``...; replaces N)``)
        takes the place of the worker it replaces."""
        return self._current("floe: worker")

    def api_pid(self) -> int:
        """The API's gunicorn master running now (the last one started)."""
        [pid] = self._current("floe: api")
        return pid

    def _current(self, prefix: str) -> list[int]:
        places: list[int] = []
        for line in self.log().splitlines():
            if not line.startswith(prefix):
                continue
            pid = int(_PID.findall(line)[-1])
            replaced = _REPLACES.search(line)
            if replaced is None:
                places.append(pid)
            else:
                places[places.index(int(replaced[1]))] = pid
        return places

    def api_workers(self) -> list[int]:
        """The gunicorn worker processes (children of the current ``floe: api`` process)."""
        api = self.api_pid()
        children = Path(f"/proc/{api}/task/{api}/children").read_text().split()
        return [int(pid) for pid in children]

    def queue_redis(self) -> redis.Redis:
        """The job queues' Redis that ``floe run`` starts beside its store (in memory)."""
        return redis.Redis(unix_socket_path=str(self.data_dir / "queue" / "redis.sock"))

    def redis(self) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.data_dir / "redis" / "redis.sock"))

    def healthy(self) -> bool:
        assert self.process.poll() is None, self.log()
        try:
            return call(self.port, "GET", "/v1/health")[0] == 200
        except (OSError, http.client.HTTPException, ValueError):  # not listening yet
            return False


@contextmanager
def floe_run(data_dir: Path, env: Mapping[str, str]) -> Iterator[FloeRun]:
    """``floe run`` in ``data_dir`` with ``env`` on top of ours; stopped with Ctrl-C. Its
    Redis servers run the suite's ``redis-server`` when ``TEST_REDIS_SERVER`` names one."""
    port = free_tcp_port()
    environ = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    if os.environ.get(TEST_REDIS_SERVER):
        environ["FLOE_REDIS_SERVER"] = os.environ[TEST_REDIS_SERVER]
    environ |= {"PORT": str(port), **env}
    with (data_dir / "floe-run.log").open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "run", "--data-dir", str(data_dir)],
            env=environ,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    run = FloeRun(process, port, data_dir)
    try:
        wait_until(run.healthy, 2 * PROMPTLY, "floe run to answer /v1/health")
        yield run
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# ----- honest clients -----------------------------------------------------------------------


def call(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    source: str = "127.0.0.1",
    timeout: float = ANSWER_WITHIN,
) -> Reply:
    """One request on a fresh connection from ``source``: status, JSON body, headers."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
    )
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = connection.getresponse()
        raw = response.read()
        return response.status, json.loads(raw), dict(response.getheaders())
    finally:
        connection.close()


def new_game(
    port: int,
    game: str,
    *,
    wait: int = 0,
    source: str = "127.0.0.1",
    players: list[dict[str, str]] | None = None,
) -> Reply:
    body = {"game": game, "players": players or PLAYERS}
    path = f"/v1/games?wait={wait}"
    return call(port, "POST", path, body, source=source, timeout=wait + PROMPTLY)


def play_one_move(port: int, game_id: str, tokens: list[str]) -> tuple[int, float] | None:
    """One legal move of a game that needs no draw for it (Arktia never draws): the
    answer's status and how long the ``POST`` alone took, or None when the game is over."""
    _, view, _ = call(port, "GET", f"/v1/games/{game_id}")
    if not view["to_act"]:
        return None
    seat = view["to_act"][0]
    _, legal, _ = call(port, "GET", f"/v1/games/{game_id}/legal-actions", token=tokens[seat])
    body = {
        "action": legal["actions"][0],
        "expected_version": legal["version"],
        "command_id": f"m{legal['version']}",
    }
    path = f"/v1/games/{game_id}/actions"
    started = time.perf_counter()
    status, _, _ = call(port, "POST", path, body, token=tokens[seat])
    return status, time.perf_counter() - started


def timed(request: Callable[[], object]) -> float:
    """Seconds one request took (it asserts its own answer)."""
    started = time.perf_counter()
    request()
    return time.perf_counter() - started


def p99(seconds: list[float]) -> float:
    ordered = sorted(seconds)
    return ordered[max(0, round(0.99 * len(ordered)) - 1)]


# ----- attackers ----------------------------------------------------------------------------


def connect(port: int, source: str) -> socket.socket:
    return socket.create_connection(
        ("127.0.0.1", port), timeout=PROMPTLY, source_address=(source, 0)
    )


def open_stream(port: int, game_id: str, source: str) -> tuple[socket.socket, bytes]:
    """A live stream, opened and left idle: the socket and the head of the answer."""
    sock = connect(port, source)
    sock.sendall(f"GET /v1/games/{game_id}/events/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return sock, head


def status_of(head: bytes) -> int:
    return int(head.split(b" ", 2)[1])


def start_slow_body(port: int, source: str) -> socket.socket:
    """A POST whose headers promise 100 bytes, of which one ever arrives."""
    sock = connect(port, source)
    sock.sendall(
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{"
    )
    return sock


def read_reply(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def rss_bytes(pids: list[int]) -> int:
    """Resident memory of ``pids`` together (Linux ``/proc``)."""
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def queued_job_ids(queues: redis.Redis) -> list[str]:
    """Every job id the queues hold (pending in a backlog, or claimed by a worker), with
    repeats (a repeat is the sweeper bug); ``queues`` is the job queues' Redis."""
    return Backlog(queues).items(list(BATCHES))


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process under it (Linux ``/proc``): the API's gunicorn master, its
    workers and whatever those start (a pool of upload processes, say), for ``rss_bytes``."""
    tree: list[int] = []
    pending = [pid]
    while pending:
        current = pending.pop()
        tree.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except FileNotFoundError:  # it ended while we looked
            continue
    return tree
