"""The guide's socket client (docs/examples/socket_client.py) builds the messages
``openapi.yaml`` documents and answers the server's messages as the guide says, with no
server: its message building and its ``Player`` do no I/O.
(tests/e2e/test_socket_example.py plays a game with it against a real ``floe run``.)"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.examples import SOCKET_CLIENT, load_example
from tests.support.openapi import OpenApi, _pointer

CLIENT = _pointer("components", "schemas", "SocketClientMessage")
SERVER = _pointer("components", "schemas", "SocketServerMessage")
PLACE = {"type": "place", "size": "G", "tile": [0, 0]}
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "live-socket.md"
#: A fenced block of Python in Markdown: its language, then its text.
PYTHON_BLOCK = re.compile(r"^```(?:python|py|python3)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


@pytest.fixture(scope="module")
def example() -> ModuleType:
    return load_example()


@pytest.fixture(scope="module")
def openapi() -> OpenApi:
    return OpenApi.load()


def event(version: int, kind: str = "place") -> dict[str, Any]:
    """A ``SocketEvent`` as a seat sees it (enough of the event for the client)."""
    return {
        "type": "event",
        "event": {"version": version, "type": kind, "actor": 0, "game_id": "g"},
    }


def legal(version: int, *actions: Any) -> dict[str, Any]:
    return {"type": "legal_actions", "version": version, "actions": list(actions)}


def refused(status: int, code: str, command_id: str | None = "move-3") -> dict[str, Any]:
    return {
        "type": "refused",
        "command_id": command_id,
        "status": status,
        "error": {"code": code, "message": "m"},
    }


def test_the_url_is_the_games_socket_and_never_carries_a_token(example: ModuleType) -> None:
    url = example.socket_url
    assert url("http://localhost:8000", "abc") == "ws://localhost:8000/v1/games/abc/socket"
    assert url("https://floe.example/", "abc") == "wss://floe.example/v1/games/abc/socket"
    assert url("https://floe.example/play/?x=1", "abc") == (
        "wss://floe.example/play/v1/games/abc/socket"
    )


def test_hello_and_action_are_the_documented_client_messages(
    example: ModuleType, openapi: OpenApi
) -> None:
    spectator = example.hello(None)
    seat = example.hello("g.0.secret")
    resuming = example.hello("g.0.secret", after=7)
    assert spectator == {"type": "hello"}
    assert seat == {"type": "hello", "token": "g.0.secret"}
    assert resuming == {"type": "hello", "token": "g.0.secret", "after": 7}
    move = example.action(PLACE, 3, "move-3")
    assert move == {
        "type": "action",
        "action": PLACE,
        "expected_version": 3,
        "command_id": "move-3",
    }
    for message in (spectator, seat, resuming, move):
        assert openapi.errors(CLIENT, message) == [], message
    for wrong in ({"type": "hello", "token": ""}, {**move, "expected_version": 0}, {"token": "t"}):
        assert openapi.errors(CLIENT, wrong), wrong


def test_the_player_plays_the_first_legal_action_of_the_version_it_holds(
    example: ModuleType, openapi: OpenApi
) -> None:
    player = example.Player()
    assert player.receive(event(1, "game_created")) is None and player.version == 1
    # Offered for an older version than the last event (a message already overtaken): no.
    assert player.receive(event(2)) is None
    assert player.receive(legal(1, PLACE)) is None
    second = {**PLACE, "tile": [1, 0]}
    sent = player.receive(legal(2, PLACE, second))
    assert sent == example.action(PLACE, 2, "move-2")
    accepted = {"type": "accepted", "command_id": "move-2", "version": 3}
    assert player.receive(accepted) is None
    for message in (legal(2, PLACE, second), accepted):  # (the events above are partial)
        assert openapi.errors(SERVER, message) == [], message


def test_a_version_conflict_waits_for_the_next_offer_and_other_refusals_stop_it(
    example: ModuleType, openapi: OpenApi
) -> None:
    player = example.Player()
    player.receive(event(3))
    conflict = refused(409, "version_conflict")
    assert player.receive(conflict) is None
    assert openapi.errors(SERVER, conflict) == []
    for status, code in ((401, "unknown_token"), (403, "not_your_turn"), (422, "no_such_tile")):
        with pytest.raises(RuntimeError, match=str(status)):
            player.receive(refused(status, code))
    # A refusal that passes is not one of these: it is tried again (the next test).
    assert not issubclass(example.Retry, RuntimeError)


def test_a_refusal_that_passes_is_tried_again_and_only_that(
    example: ModuleType, openapi: OpenApi
) -> None:
    player = example.Player()
    player.receive(event(3))
    for status, code, command_id in (
        (429, "rate_limited", "move-3"),  # an action's: the same one goes again
        (429, "rate_limited", None),  # the hello's (then closed 1008)
        (503, "store_unavailable", "move-3"),
        (503, "store_unavailable", None),  # the hello's (then closed 1011)
    ):
        message = refused(status, code, command_id)
        assert openapi.errors(SERVER, message) == [], message
        with pytest.raises(example.Retry, match=f"refused {status}"):
            player.receive(message)
    assert (player.version, player.over) == (3, False)
    assert example.PASSING == (429, 503)
    assert openapi.errors(SERVER, refused(401, "unknown_token", None)) == []


def test_the_player_stops_at_game_over_and_offers_nothing_after(example: ModuleType) -> None:
    player = example.Player()
    player.receive(event(8))
    assert not player.over
    player.receive(event(9, "game_over"))
    assert player.over and player.version == 9
    assert player.receive(legal(9, PLACE)) is None


def test_the_welcome_tells_the_player_its_seat_and_asks_nothing(
    example: ModuleType, openapi: OpenApi
) -> None:
    for seat in (1, None):  # a seat's, a spectator's
        player = example.Player()
        welcome = {"type": "welcome", "version": 5, "seat": seat}
        assert player.receive(welcome) is None
        assert (player.seat, player.version, player.over) == (seat, 0, False)
        assert openapi.errors(SERVER, welcome) == [], welcome
    for wrong in (
        {"type": "welcome", "version": 5},  # the seat is always said, null for a spectator
        {"type": "welcome", "version": 0, "seat": 0},
        {"type": "welcome", "version": 5, "seat": 0, "token": "t"},  # nothing more
    ):
        assert openapi.errors(SERVER, wrong), wrong


def guide_python_blocks() -> list[str]:
    """Every fenced Python block of docs/guide/live-socket.md. The guide's only Python is the
    example's, shown where it explains it: each block is a copy of part of the file."""
    return PYTHON_BLOCK.findall(GUIDE.read_text())


def copied_from(block: str, source: str) -> bool:
    """Whether ``block`` is a run of whole lines of ``source``, the same but for one
    indentation taken off them all (a method shown on its own, out of its class)."""
    lines = source.splitlines()
    wanted = textwrap.dedent(block).strip("\n").splitlines()
    for start in range(len(lines) - len(wanted) + 1):
        run = lines[start : start + len(wanted)]
        indent = len(run[0]) - len(run[0].lstrip(" "))
        if [line[indent:] if line.strip() else "" for line in run] == [
            line.rstrip() for line in wanted
        ] and all(not line.strip() or line[:indent] == " " * indent for line in run):
            return True
    return False


def test_the_copy_rule_takes_whole_lines_and_one_indentation_only() -> None:
    source = "class A:\n    def f(self):\n        return 1\n\n    x = 2\n"
    assert copied_from("def f(self):\n    return 1\n", source)
    assert copied_from("    x = 2\n", source)
    assert not copied_from("def f(self):\n  return 1\n", source)  # re-indented inside
    assert not copied_from("def f(self):\n    return 2\n", source)  # changed
    assert not copied_from("def f(self):\nx = 2\n", source)  # lines left out
    assert not copied_from("return", source)  # part of a line


def test_the_guides_python_is_the_examples_code_verbatim() -> None:
    blocks = guide_python_blocks()
    assert blocks, "live-socket.md shows the example's Player.receive in a python block"
    source = SOCKET_CLIENT.read_text()
    drifted = [block for block in blocks if not copied_from(block, source)]
    assert not drifted, (
        "docs/guide/live-socket.md shows Python that is not in docs/examples/socket_client.py "
        f"(copy it from the file again): {drifted}"
    )
