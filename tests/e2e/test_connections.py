"""What one client can hold of ``floe run``'s connections, against the real processes.

Each client binds its own loopback address (``127.0.0.N``; all of them are local on Linux),
since every cap here is per address: connections per address at accept
(``service/run/gevent_worker.py``), the deadline on a request's headers, the body each route
may be sent (``service/run/web.py``), and long-request holds given back when the process that
held them dies (``service/limits/long_requests.py``). What is asserted is what each attacker
gets and that honest requests are answered meanwhile; how fast is ``bench.attacks``' to say.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import select
import signal
import socket
import time
from collections.abc import Iterator

import pytest

from service.limits.long_requests import holds_key
from tests.support.floe_run import (
    FloeRun,
    call,
    connect,
    floe_run,
    new_game,
    open_stream,
    process_tree,
    start_slow_body,
    status_of,
)
from tests.support.waiting import PROMPTLY, wait_until

pytestmark = pytest.mark.processes  # every test asks for ``served``: floe run

CONNECTIONS_PER_ADDRESS = 8
HEADER_SECONDS = 3.0
#: Long, so a body that is waited for would be answered 408 long after everything here.
BODY_SECONDS = 60.0
STREAMS_PER_ADDRESS = 3
#: Long, so a hold that lapses by its age could not explain a freed slot.
SSE_SECONDS = 600.0
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FloeRun]:
    env = {
        "FLOE_WEB_WORKERS": "1",  # the connection cap is per process: one makes it exact
        "FLOE_CONNECTIONS_PER_ADDRESS": str(CONNECTIONS_PER_ADDRESS),
        "FLOE_HEADER_TIMEOUT_SECONDS": str(HEADER_SECONDS),
        "FLOE_BODY_TIMEOUT_SECONDS": str(BODY_SECONDS),
        "FLOE_LONG_REQUESTS_PER_ADDRESS": str(STREAMS_PER_ADDRESS),
        "FLOE_SSE_MAX_SECONDS": str(SSE_SECONDS),
        "FLOE_SSE_HEARTBEAT_SECONDS": "1",
    }
    with floe_run(tmp_path_factory.mktemp("floe-run"), env) as run:
        yield run


def until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection, or resets it (as it
    does when it closes with some of the request unread)."""
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def answer_on_a_new_connection(port: int, source: str) -> bytes:
    """What the server sends a fresh connection from ``source`` asking for health, up to
    its close (empty: closed unanswered)."""
    sock = connect(port, source)
    try:
        with contextlib.suppress(OSError):  # refused before it was all sent: read what came
            sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return until_closed(sock)
    finally:
        sock.close()


def health_answers(port: int, source: str = "127.0.0.1") -> bool:
    return call(port, "GET", "/v1/health", source=source)[0] == 200


def test_one_address_past_its_connection_cap_is_refused_while_others_connect(
    served: FloeRun,
) -> None:
    port, greedy = served.port, "127.0.0.21"
    held = [start_slow_body(port, greedy) for _ in range(CONNECTIONS_PER_ADDRESS)]
    try:
        # The next connection from that address is answered 429 at once and closed, unread.
        refused = answer_on_a_new_connection(port, greedy)
        assert refused.startswith(b"HTTP/1.1 429"), refused[:300]
        assert b"Retry-After: 5" in refused and b"Connection: close" in refused
        assert json.loads(refused.split(b"\r\n\r\n", 1)[1])["error"]["code"] == (
            "too_many_connections"
        )
        # Another address connects and is served; so is health from the usual one.
        assert answer_on_a_new_connection(port, "127.0.0.22").startswith(b"HTTP/1.1 200")
        assert health_answers(port)
        # The held connections were never cut: each still gets its 408 in the end, not now.
        readable, _, _ = select.select(held, [], [], 0)
        assert readable == []
        # One closed: its count is given back, and the address connects again.
        held.pop().close()
        wait_until(
            lambda: answer_on_a_new_connection(port, greedy).startswith(b"HTTP/1.1 200"),
            PROMPTLY,
            "a connection from the address once one of its own closed",
        )
    finally:
        for sock in held:
            sock.close()


def test_headers_sent_a_byte_a_second_are_cut_at_the_header_deadline(served: FloeRun) -> None:
    """Slowloris: twenty connections (five from each of four addresses, under their cap)
    each sending a header byte every second. The deadline is on the headers in all, not
    between bytes, so each is closed unanswered once it passes, however steadily it sends;
    health answers meanwhile."""
    port = served.port
    loris = [connect(port, f"127.0.0.{n}") for n in (31, 32, 33, 34) for _ in range(5)]
    for sock in loris:
        sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    started = time.monotonic()
    closed_after: dict[int, float] = {}
    answers: list[bytes] = []
    health = 0
    # Send until every connection is closed, or for far longer than the deadline (each
    # byte refreshes any idle timeout, so only a deadline on the whole headers cuts them).
    while len(closed_after) < len(loris) and time.monotonic() - started < 10 * HEADER_SECONDS:
        for index, sock in enumerate(loris):
            if index in closed_after:
                continue
            if _closed(sock, answers):
                closed_after[index] = time.monotonic() - started
                continue
            try:
                sock.sendall(b"a")
            except OSError:  # reset: it was closed
                closed_after[index] = time.monotonic() - started
        assert health_answers(port, "127.0.0.24")
        health += 1
        time.sleep(1.0)  # the attacker's pace: one byte a second
    for sock in loris:
        sock.close()
    assert len(closed_after) == len(loris), f"still open after {10 * HEADER_SECONDS} s"
    assert all(answer == b"" for answer in answers), answers  # closed, never answered
    assert min(closed_after.values()) >= HEADER_SECONDS * 0.9  # by the deadline, not before
    assert health >= 2
    # Health was served between the bytes, and is after.
    assert health_answers(port, "127.0.0.31")


def _closed(sock: socket.socket, answers: list[bytes]) -> bool:
    """Whether the server has closed ``sock`` (noting anything it sent first)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        answers.append(sock.recv(4096))
    except ConnectionResetError:
        answers.append(b"")
    return True


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/health"),
        ("POST", "/v1/health"),
        ("POST", "/v1/games/0123456789abcdef/actions"),  # a move: at most 64 KiB
        ("POST", "/v1/games"),
    ],
)
def test_a_declared_body_over_the_routes_limit_is_refused_unread(
    served: FloeRun, method: str, path: str
) -> None:
    """The headers alone, declaring 1 MiB: 413 ``body_too_large`` before a byte of the body
    is sent (a server that waited for it would answer 408 after ``BODY_SECONDS``), and the
    connection closed."""
    sock = connect(served.port, "127.0.0.25")
    sock.sendall(
        f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {MIB}\r\n\r\n".encode()
    )
    reply = until_closed(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 413"), reply[:300]
    head, body = reply.split(b"\r\n\r\n", 1)
    assert b"Connection: close" in head
    assert json.loads(body)["error"]["code"] == "body_too_large"
    assert health_answers(served.port)


def test_a_chunked_body_over_the_routes_limit_is_refused_once_past_it(served: FloeRun) -> None:
    """A chunked body has no declared length: it is read up to the route's limit, and
    refused once past it (70 KiB to a create, whose limit is 64 KiB)."""
    sock = connect(served.port, "127.0.0.26")
    chunk = b"x" * 10_000
    sock.sendall(
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    with contextlib.suppress(OSError):  # refused and closed while we still sent: read on
        for _ in range(7):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    reply = until_closed(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 413"), reply[:300]
    assert b'"body_too_large"' in reply


def test_an_upload_of_one_and_a_half_mib_is_still_read(served: FloeRun) -> None:
    """``POST /v1/replays`` takes up to 2 MiB: 1.5 MiB is read whole and handed to the route,
    which gives its verdict on the file (whatever it is, not the edge's 413 or 408)."""
    line = json.dumps({"x": "a" * 1000}).encode() + b"\n"
    upload = line * (3 * MIB // 2 // len(line))
    assert len(upload) > MIB
    connection_source = "127.0.0.27"
    status, body, _ = _post_raw(served.port, "/v1/replays", upload, connection_source)
    assert status != 413 and status != 408, body
    assert status in (200, 400), body  # the route's own verdict on the file's content
    assert health_answers(served.port, connection_source)


def test_a_second_upload_from_one_address_is_refused_before_its_body_is_read(
    served: FloeRun,
) -> None:
    """An upload is held in memory from its first byte, so the per-address cap on uploads
    is applied before reading: while one address's 2 MiB body is still arriving, its second
    upload is 429 ``upload_in_flight`` unread, and another address's upload is still read."""
    source = "127.0.0.28"
    first = connect(served.port, source)
    first.sendall(
        b"POST /v1/replays HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n"
        + f"Content-Length: {2 * MIB}\r\n\r\n".encode()
        + b"{"
    )
    try:
        # The first is admitted once the server has begun on it; until then a second may
        # be the one admitted, so the condition is the second being refused.
        def second_refused() -> bool:
            sock = connect(served.port, source)
            sock.sendall(
                b"POST /v1/replays HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/x-ndjson\r\n"
                + f"Content-Length: {2 * MIB}\r\n\r\n".encode()
            )
            sock.settimeout(5.0)  # admitted instead (it came first): the server waits on
            try:  # its body, so give up on this one and try again
                reply = until_closed(sock)
            except TimeoutError:
                return False
            finally:
                sock.close()
            return reply.startswith(b"HTTP/1.1 429") and b'"upload_in_flight"' in reply

        wait_until(second_refused, PROMPTLY, "a second upload from one address refused unread")
        status, _, _ = _post_raw(served.port, "/v1/replays", b"not an export\n", "127.0.0.29")
        assert status == 200  # another address: read, and judged
    finally:
        first.close()
    assert health_answers(served.port, source)


def _post_raw(port: int, path: str, body: bytes, source: str) -> tuple[int, object, object]:
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=PROMPTLY, source_address=(source, 0)
    )
    try:
        connection.request("POST", path, body, {"Content-Type": "application/x-ndjson"})
        response = connection.getresponse()
        return response.status, json.loads(response.read()), dict(response.getheaders())
    finally:
        connection.close()


def test_streams_held_by_an_api_process_killed_are_given_back_soon(served: FloeRun) -> None:
    """The address's streams die with their API process (SIGKILL: no ``finally`` runs);
    ``floe run`` starts another, and the address may open its streams again as soon as the
    dead process's liveness key has lapsed, long before their longest life
    (``SSE_SECONDS``) would have freed them."""
    port, viewer = served.port, "127.0.0.28"
    store = served.redis()
    status, game, _ = new_game(port, "arktia", wait=10)
    assert status == 201
    streams = [open_stream(port, game["id"], viewer) for _ in range(STREAMS_PER_ADDRESS)]
    assert all(status_of(head) == 200 for _, head in streams)
    assert store.zcard(holds_key(viewer)) == STREAMS_PER_ADDRESS
    sock, head = open_stream(port, game["id"], viewer)
    assert status_of(head) == 429
    sock.close()

    killed_at = time.monotonic()
    api = served.api_pid()
    for pid in process_tree(api):
        os.kill(pid, signal.SIGKILL)
    for sock, _ in streams:
        sock.close()
    wait_until(lambda: served.api_pid() != api, PROMPTLY, "floe run to start another API")
    wait_until(lambda: served.healthy(), PROMPTLY, "the new API to answer")
    assert store.zcard(holds_key(viewer)) == STREAMS_PER_ADDRESS  # nobody gave them back

    reopened: list[socket.socket] = []

    def all_reopened() -> bool:
        sock, head = open_stream(port, game["id"], viewer)
        if status_of(head) != 200:
            sock.close()
            return False
        reopened.append(sock)
        return len(reopened) == STREAMS_PER_ADDRESS

    try:
        wait_until(all_reopened, PROMPTLY, "the dead process's streams to be given back")
        assert time.monotonic() - killed_at < SSE_SECONDS / 2
    finally:
        for sock in reopened:
            sock.close()
