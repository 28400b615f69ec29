"""The guide's socket client (docs/examples/socket_client.py) builds the messages
``openapi.yaml`` documents and answers the server's messages as the guide says, with no
server: its message building and its ``Player`` do no I/O.
(tests/e2e/test_socket_example.py plays a game with it against a real ``floe run``.)"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.support.examples import load_example
from tests.support.openapi import OpenApi, _pointer

CLIENT = _pointer("components", "schemas", "SocketClientMessage")
SERVER = _pointer("components", "schemas", "SocketServerMessage")
PLACE = {"type": "place", "size": "G", "tile": [0, 0]}


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
