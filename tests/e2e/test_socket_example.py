"""The guide's socket client (docs/examples/socket_client.py) against a real ``floe run``:
it plays a whole game against a bot over the live socket, seeing every event once, in
order, and a spectator's socket opened afterwards shows what ``GET .../events`` shows; its
socket cut mid-game by a real relay, it resumes after its last event and sends its
unanswered move again; refused 429 ``too_many_streams``, it tries again until it opens."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from tests.support.examples import load_example
from tests.support.floe_run import FloeRun, call, floe_run
from tests.support.socket_client import Socket
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_for

pytestmark = pytest.mark.processes


@pytest.fixture(scope="module")
def floe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FloeRun]:
    with floe_run(tmp_path_factory.mktemp("floe"), {}) as run:
        yield run


def shown(events: list[dict[str, object]]) -> list[str]:
    """The lines the example prints for these events."""
    return [f"{e['version']:>4} {e['type']} by {e['actor']}" for e in events]


def test_the_example_plays_a_game_against_a_bot_to_its_end(floe: FloeRun) -> None:
    example = load_example()
    players = [{"name": "Ann"}, {"name": "Hal", "bot": "random"}]
    body = {"game": "arktia", "players": players, "options": {"turn_limit": 4}}
    status, created, _ = call(floe.port, "POST", "/v1/games", body)
    assert status == 201, created
    game_id, token = created["id"], created["seats"][0]["token"]
    base = f"http://127.0.0.1:{floe.port}"

    printed: list[str] = []
    last = example.play(base, game_id, token, wait=PROMPTLY, show=printed.append)

    status, page, _ = call(floe.port, "GET", f"/v1/games/{game_id}/events", token=token)
    assert status == 200
    events = page["events"]
    over = next(e["version"] for e in events if e["type"] == "game_over")
    assert last == over
    assert printed == shown(events[:over]), "every event once, in order, up to game_over"
    assert {e["actor"] for e in events if e["command_id"] is not None} == {0, 1}
    assert all(e["command_id"].startswith("move-") for e in events if e["actor"] == 0)

    watched: list[str] = []
    assert example.play(base, game_id, None, wait=PROMPTLY, show=watched.append) == over
    status, public, _ = call(floe.port, "GET", f"/v1/games/{game_id}/events")
    assert status == 200 and watched == shown(public["events"][:over])


# ----- a dropped socket: a real TCP relay that cuts the connection once --------------------


class Cutter:
    """A real TCP relay on a port of its own, between the example and Floe as a proxy would
    stand: bytes pass unchanged both ways, and each frame the client sends is read whole
    (unmasked, so the test knows what it was). The ``cut_at``-th action the client sends is
    never passed on: the relay drops both connections instead, with no close frame, as a
    network drop would. Everything after (the reconnection) is relayed as it is."""

    def __init__(self, port: int, cut_at: int) -> None:
        self.port, self.cut_at = port, cut_at
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.connections = 0
        self.actions: list[dict[str, Any]] = []  # every action the client sent, in order
        self.dropped: dict[str, Any] | None = None  # the action the cut swallowed
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):  # the listener closed: the test is over
            while True:
                client, _ = self.listener.accept()
                server = socket.create_connection(("127.0.0.1", self.port))
                self.connections += 1
                self.open += [client, server]
                threading.Thread(target=self._pump, args=(server, client), daemon=True).start()
                threading.Thread(target=self._frames, args=(client, server), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        """The server's bytes to the client, as they come."""
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                target.sendall(chunk)
        self._drop(source, target)

    def _frames(self, client: socket.socket, server: socket.socket) -> None:
        """The client's upgrade request, then its frames one by one."""
        reader = client.makefile("rb")
        with contextlib.suppress(OSError, ValueError):
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                line = reader.readline()
                if not line:
                    raise OSError("closed in the upgrade")
                head += line
            server.sendall(head)
            while frame := self._frame(reader):
                raw, opcode, payload = frame
                if opcode == 1 and (message := json.loads(payload))["type"] == "action":
                    self.actions.append(message)
                    if self.dropped is None and len(self.actions) == self.cut_at:
                        self.dropped = message
                        break  # not passed on: the connection is cut here
                server.sendall(raw)
        self._drop(client, server)

    @staticmethod
    def _frame(reader: BinaryIO) -> tuple[bytes, int, bytes] | None:
        """One whole client frame (RFC 6455 5.2): its bytes, opcode and unmasked payload."""
        first = reader.read(2)
        if len(first) < 2:
            return None
        size, extra = first[1] & 0x7F, b""
        if size >= 126:
            extra = reader.read(2 if size == 126 else 8)
            size = int.from_bytes(extra, "big")
        mask = reader.read(4)  # a client's frames are always masked
        body = reader.read(size)
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(body))
        return first + extra + mask + body, first[0] & 0x0F, payload

    @staticmethod
    def _drop(*sockets: socket.socket) -> None:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        self.listener.close()
        self._drop(*self.open)


def test_a_dropped_socket_is_reopened_after_the_last_event_and_the_unanswered_move_resent(
    floe: FloeRun,
) -> None:
    example = load_example()
    players = [{"name": "Ann"}, {"name": "Hal", "bot": "random"}]
    body = {"game": "arktia", "players": players, "options": {"turn_limit": 6}}
    status, created, _ = call(floe.port, "POST", "/v1/games", body)
    assert status == 201, created
    game_id, token = created["id"], created["seats"][0]["token"]

    relay = Cutter(floe.port, cut_at=1)
    try:
        printed: list[str] = []
        last = example.play(relay.address, game_id, token, wait=PROMPTLY, show=printed.append)
    finally:
        relay.close()

    dropped = relay.dropped
    assert dropped is not None, f"the relay cut nothing: {relay.actions}"
    assert relay.connections >= 2, "the example reopened its socket through the relay"
    status, page, _ = call(floe.port, "GET", f"/v1/games/{game_id}/events", token=token)
    assert status == 200
    events = page["events"]
    over = next(e["version"] for e in events if e["type"] == "game_over")
    assert last == over
    assert printed == shown(events[:over]), "every event once, in order, across both sockets"
    # The move the cut swallowed never reached Floe; sent again, unchanged, on the new
    # socket, it was written once, at the version it was meant for.
    resent = [m for m in relay.actions if m["command_id"] == dropped["command_id"]]
    assert resent == [dropped, dropped]
    written = [e for e in events if e["command_id"] == dropped["command_id"]]
    assert [(e["version"], e["actor"]) for e in written] == [(dropped["expected_version"] + 1, 0)]
    assert written[0]["data"]["action"] == dropped["action"]


# ----- a refusal that passes: 429 too_many_streams, then the slot is free ------------------


def test_a_socket_refused_429_too_many_streams_is_tried_again_until_it_opens(
    tmp_path: Path,
) -> None:
    example = load_example()
    with floe_run(tmp_path, {"FLOE_LONG_REQUESTS_PER_ADDRESS": "1"}) as run:
        players = [{"name": "Ann"}, {"name": "Hal", "bot": "random"}]
        body = {"game": "arktia", "players": players, "options": {"turn_limit": 4}}
        status, created, _ = call(run.port, "POST", "/v1/games", body)
        assert status == 201, created
        game_id, token = created["id"], created["seats"][0]["token"]

        holder = Socket(run.port, game_id)  # the address's one long request
        holder.hello()
        holder.welcomed()
        printed: list[str] = []
        outcome: list[int | BaseException] = []

        def player() -> None:
            try:
                base = f"http://127.0.0.1:{run.port}"
                outcome.append(
                    example.play(base, game_id, token, wait=PROMPTLY, show=printed.append)
                )
            except BaseException as error:  # the test's thread reports it, below
                outcome.append(error)

        thread = threading.Thread(target=player, daemon=True)
        thread.start()
        refused = wait_for(
            lambda: list(printed),
            lambda lines: bool(lines) or bool(outcome),
            PROMPTLY,
            "the example's first try",
        )
        first = refused[0] if refused else f"no try again: {outcome}"
        assert first.startswith("socket refused 429: trying again in "), first
        holder.close()  # the slot is given back: the next try opens
        thread.join(AT_LENGTH)
        assert not thread.is_alive(), "the example did not finish the game"

        status, page, _ = call(run.port, "GET", f"/v1/games/{game_id}/events", token=token)
    assert status == 200
    events = page["events"]
    over = next(e["version"] for e in events if e["type"] == "game_over")
    assert outcome == [over], outcome
    retries = [line for line in printed if "trying again" in line]
    assert retries and all(line.startswith("socket refused 429") for line in retries)
    assert [line for line in printed if line not in retries] == shown(events[:over])
