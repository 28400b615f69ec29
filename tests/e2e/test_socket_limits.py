"""The live socket's limits against a real ``floe run``, met by a raw client (a TCP socket
speaking WebSocket through wsproto, which answers nothing on its own): a socket that answers
no ping is closed 1008 within a bounded time while one that answers stays open past several
pings; and a client that stops reading is dropped once a send has waited ``SEND_SECONDS``,
which gives its long-request slot back, the server answering throughout."""

from __future__ import annotations

import contextlib
import json
import socket as sockets
import threading
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Event,
    Ping,
    Request,
    TextMessage,
)

from tests.support.floe_run import FloeRun, call, floe_run
from tests.support.waiting import PROMPTLY, wait_for

pytestmark = pytest.mark.processes

#: The served app's ping interval: short, so a missed pong is seen in seconds, and long
#: enough that a client answering from its read loop on a busy machine is never late.
PING_SECONDS = 2
#: Pings a ponging client sees before it is held to be still open "past several".
PINGS = 4
#: A message's largest size in characters (``Settings.max_body_bytes``, fixed in code).
LIMIT = 64 * 1024


class RawSocket:
    """A WebSocket client on a bare TCP socket: it pongs only if told to, reads only when
    asked, and its receive buffer may be as small as the kernel allows."""

    def __init__(self, port: int, game_id: str, *, tiny_buffer: bool = False) -> None:
        self.sock = sockets.socket(sockets.AF_INET, sockets.SOCK_STREAM)
        if tiny_buffer:  # before connecting: the window the server may fill is tiny
            self.sock.setsockopt(sockets.SOL_SOCKET, sockets.SO_RCVBUF, 1)
        self.sock.settimeout(PROMPTLY)
        self.sock.connect(("127.0.0.1", port))
        self.ws = WSConnection(ConnectionType.CLIENT)
        target = f"/v1/games/{game_id}/socket"
        self.sock.sendall(self.ws.send(Request(host=f"127.0.0.1:{port}", target=target)))
        self.pings = 0
        self.texts: list[dict[str, Any]] = []
        self.closed: CloseConnection | None = None
        self.pending: deque[Event] = deque()
        accepted = self.next_event(PROMPTLY)
        assert isinstance(accepted, AcceptConnection), accepted

    def next_event(self, timeout: float, *, pong: bool = False) -> Event:
        """The next event (pings, texts and the close recorded); ``pong``: answer pings."""
        deadline = time.monotonic() + timeout
        while True:
            self.pending.extend(self.ws.events())
            while self.pending:
                event = self.pending.popleft()
                if isinstance(event, Ping):
                    self.pings += 1
                    if pong:
                        self.sock.sendall(self.ws.send(event.response()))
                elif isinstance(event, TextMessage):
                    self.texts.append(json.loads(event.data))
                elif isinstance(event, CloseConnection):
                    self.closed = event
                return event
            left = deadline - time.monotonic()
            assert left > 0, f"nothing from the server in {timeout}s; texts: {self.texts[-3:]}"
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            assert chunk, "the server ended the connection without a close frame"
            self.ws.receive_data(chunk)

    def frame(self, message: Any) -> bytes:
        text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
        return self.ws.send(TextMessage(data=text))

    def send(self, message: Any) -> None:
        self.sock.sendall(self.frame(message))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def create(run: FloeRun) -> tuple[str, list[str]]:
    body = {"game": "arktia", "players": [{"name": "a"}, {"name": "b"}]}
    status, created, _ = call(run.port, "POST", "/v1/games?wait=30", body, timeout=30 + PROMPTLY)
    assert status == 201, created
    return created["id"], [seat["token"] for seat in created["seats"]]


def upgrade_status(run: FloeRun, game_id: str) -> tuple[int, sockets.socket]:
    """A WebSocket upgrade from this address: its status, and the connection (which holds a
    long-request slot while open when the status is 101)."""
    sock = sockets.create_connection(("127.0.0.1", run.port), timeout=PROMPTLY)
    sock.sendall(
        f"GET /v1/games/{game_id}/socket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
        "Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, f"the server closed before answering the upgrade: {head!r}"
        head += chunk
    return int(head.split(b" ", 2)[1]), sock


# ----- the ping deadline --------------------------------------------------------------------


@pytest.fixture(scope="module")
def pinging(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FloeRun]:
    env = {"FLOE_SOCKET_PING_SECONDS": str(PING_SECONDS)}
    with floe_run(Path(tmp_path_factory.mktemp("socket-ping")), env) as served:
        yield served


def test_a_socket_that_answers_no_ping_is_closed_1008(pinging: FloeRun) -> None:
    """Welcomed, then silent: the server pings, and once a ping goes unanswered past the next
    interval it closes the socket (1008, simple-websocket's words), long before the socket's
    time (``FLOE_SOCKET_MAX_SECONDS``, an hour) would."""
    game_id, _ = create(pinging)
    client = RawSocket(pinging.port, game_id)
    client.send({"type": "hello"})
    started = time.monotonic()
    while client.closed is None:
        client.next_event(PROMPTLY)  # never a pong
    took = time.monotonic() - started
    assert client.texts[0]["type"] == "welcome", client.texts[:2]
    assert client.pings >= 1, "closed before any ping: not the ping deadline"
    assert (client.closed.code, client.closed.reason) == (1008, "Ping/Pong timeout")
    assert took < PROMPTLY, took  # bounded: a few intervals, never the socket's hour
    client.close()


def test_a_socket_that_answers_each_ping_stays_open(pinging: FloeRun) -> None:
    """Answering every ping, the socket outlives several intervals and still answers."""
    game_id, _ = create(pinging)
    client = RawSocket(pinging.port, game_id)
    client.send({"type": "hello"})
    while client.pings < PINGS:
        client.next_event(PROMPTLY, pong=True)
        assert client.closed is None, (client.closed, client.pings)
    client.send({"type": "action", "command_id": "still-here"})  # a spectator: 401
    while not any(m.get("command_id") == "still-here" for m in client.texts):
        client.next_event(PROMPTLY, pong=True)
        assert client.closed is None, (client.closed, client.pings)
    [answer] = [m for m in client.texts if m.get("command_id") == "still-here"]
    assert (answer["type"], answer["status"]) == ("refused", 401), answer
    client.close()


# ----- a client that stops reading ----------------------------------------------------------


def test_a_client_that_stops_reading_is_dropped_and_its_slot_given_back(tmp_path: Path) -> None:
    """One long request per address, pings an hour apart (so only the send deadline can end
    the socket): a client with the smallest receive buffer says hello, then sends messages
    whose answers are large (a 413 ``refused`` echoes the command id: ~260 KB of 4-byte
    characters each, uncharged) and reads nothing. Their answers fill the server's send
    buffer; the send that waits ``SEND_SECONDS`` drops the client, and its slot comes back:
    a new socket from the same address is upgraded. The server answers health meanwhile.

    At most ``MAX_WAITING_MESSAGES`` messages are sent, so the flood's close (which would
    free the slot without any send waiting) cannot be what ends it. 32 answers are ~8 MB,
    past what Linux queues for a socket (``tcp_wmem``'s 4 MB) and the tiny receive buffer."""
    env = {"FLOE_LONG_REQUESTS_PER_ADDRESS": "1", "FLOE_SOCKET_PING_SECONDS": "3600"}
    with floe_run(tmp_path, env) as served:
        game_id, _ = create(served)
        reader = RawSocket(served.port, game_id, tiny_buffer=True)
        reader.send({"type": "hello"})
        status, refused = upgrade_status(served, game_id)
        refused.close()
        assert status == 429, "the silent client's socket holds the address's one slot"

        command_id = "\U0001f600" * (LIMIT - 200)  # characters under the frame cap
        frame = reader.frame({"type": "action", "command_id": command_id})
        assert len(frame) > LIMIT

        def flood() -> None:  # the server may drop the client amid these writes
            with contextlib.suppress(OSError):
                for _ in range(32):
                    reader.sock.sendall(frame)

        writer = threading.Thread(target=flood, daemon=True)
        writer.start()
        assert call(served.port, "GET", "/v1/health")[0] == 200

        held: list[sockets.socket] = []

        def upgraded() -> int:
            status, sock = upgrade_status(served, game_id)
            (held if status == 101 else []).append(sock)
            if status != 101:
                sock.close()
            return status

        wait_for(upgraded, lambda status: status == 101, PROMPTLY, "the slot to come back")
        writer.join(PROMPTLY)
        assert not writer.is_alive(), "the client's writes never ended"
        assert call(served.port, "GET", "/v1/health")[0] == 200
        for sock in held:
            sock.close()
        reader.close()
