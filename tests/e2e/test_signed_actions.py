"""Seats with their own keys, through the API (issue 25): a seat given a ``public_key`` at
creation signs every action it posts, over the game, the expected version and the action; a
post without that very signature is 401 ``bad_signature`` and writes nothing; the event keeps
the signature beside the action, for the audit. An unkeyed seat is as it always was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.engine.signing import action_message
from replay import ed25519
from replay.player_key import PlayerKey
from tests.support.api import ORGANIZER, bearer
from tests.support.signing import SignedGame, create_signed

ANN = PlayerKey.from_hex("a1" * 32)
BO = PlayerKey.from_hex("b0" * 32)
EVE = PlayerKey.from_hex("e5" * 32)


def error_code(response: Any) -> str:
    return str(response.get_json()["error"]["code"])


def first_move(game: SignedGame, seat: int = 0) -> tuple[dict[str, Any], int]:
    legal = game.legal(seat)
    return dict(legal["actions"][0]), int(legal["version"])


def test_a_keyed_seat_is_recorded_with_its_key_and_an_unkeyed_one_as_before(
    client: FlaskClient,
) -> None:
    game = create_signed(client, [ANN, None])
    seats = game.export()[0]["data"]["seats"]
    assert seats == [
        {"seat": 0, "name": "p0", "bot": None, "public_key": ANN.public_key},
        {"seat": 1, "name": "p1", "bot": None},
    ]


def test_a_signed_action_is_stored_with_its_signature_and_an_unsigned_one_without(
    client: FlaskClient,
) -> None:
    game = create_signed(client, [ANN, None])
    action, version = first_move(game, 0)
    answer = game.post(0, action, version)
    assert answer.status_code == 201, answer.get_json()
    event = game.export()[version]
    assert event["version"] == version + 1 and event["actor"] == 0
    assert event["data"] == {
        "action": action,
        "signature": ANN.sign_action(game.id, version, action),
    }
    message = action_message(game.id, event["version"] - 1, event["data"]["action"])
    assert ed25519.signature_is_valid(ANN.public_key, message, event["data"]["signature"])
    action, version = first_move(game, 1)
    assert game.post(1, action, version).status_code == 201
    assert game.export()[version]["data"] == {"action": action}


def forged_bodies(game: SignedGame, other_game: str) -> dict[str, Callable[..., dict[str, Any]]]:
    """A post of ``action`` against ``version`` whose signature is wrong in one way each."""

    def body(action: dict[str, Any], version: int, signature: str | None) -> dict[str, Any]:
        posted = {"action": action, "expected_version": version, "command_id": "c-1"}
        return posted if signature is None else {**posted, "signature": signature}

    def another_action(action: dict[str, Any], version: int) -> dict[str, Any]:
        other = next(a for a in game.legal(0)["actions"] if a != action)
        return body(action, version, ANN.sign_action(game.id, version, other))

    return {
        "missing": lambda action, version: body(action, version, None),
        "another expected_version": lambda action, version: body(
            action, version, ANN.sign_action(game.id, version + 1, action)
        ),
        "another game": lambda action, version: body(
            action, version, ANN.sign_action(other_game, version, action)
        ),
        "another action": another_action,
        "another key": lambda action, version: body(
            action, version, EVE.sign_action(game.id, version, action)
        ),
        "not hex": lambda action, version: body(action, version, "zz" * 64),
        "upper case": lambda action, version: body(
            action, version, ANN.sign_action(game.id, version, action).upper()
        ),
    }


@pytest.mark.parametrize(
    "forgery",
    [
        "missing",
        "another expected_version",
        "another game",
        "another action",
        "another key",
        "not hex",
        "upper case",
    ],
)
def test_a_post_without_the_seats_own_signature_is_401_and_writes_nothing(
    client: FlaskClient, forgery: str
) -> None:
    game = create_signed(client, [ANN, BO])
    other = create_signed(client, [ANN, BO])
    action, version = first_move(game)
    before = game.export()
    refused = game.send(0, forged_bodies(game, other.id)[forgery](action, version))
    assert refused.status_code == 401, refused.get_json()
    assert error_code(refused) == "bad_signature"
    assert game.export() == before, "nothing written"
    # The command id was not spent: the same command, signed, is accepted now.
    accepted = game.post(0, action, version, "c-1")
    assert accepted.status_code == 201, accepted.get_json()
    assert game.view()["version"] == version + 1


def test_a_seats_token_alone_cannot_move_for_it_even_with_a_body_that_fails_its_schema(
    client: FlaskClient,
) -> None:
    """401 outranks every refusal of the body: a keyed seat's post is checked for its
    signature before anything else of it."""
    game = create_signed(client, [ANN, BO])
    broken = {"action": "place", "expected_version": "1", "command_id": "x"}
    refused = game.send(0, broken)
    assert (refused.status_code, error_code(refused)) == (401, "bad_signature")
    assert game.view()["version"] == 1


def test_a_signed_illegal_move_is_refused_by_the_rules_not_the_signature(
    client: FlaskClient,
) -> None:
    game = create_signed(client, [ANN, BO])
    action, version = first_move(game, 0)
    to_act = game.view()["to_act"]
    assert to_act == [0]
    refused = game.post(1, action, version)  # Bo's valid signature, out of turn
    assert refused.status_code in (403, 409), refused.get_json()
    assert error_code(refused) == "not_your_turn"
    assert game.view()["version"] == version


def test_a_repeat_with_the_same_signature_answers_as_the_first_and_writes_once(
    client: FlaskClient,
) -> None:
    game = create_signed(client, [ANN, BO])
    action, version = first_move(game)
    body = ANN.signed_body(game.id, version, action, "once")
    first = game.send(0, body)
    assert first.status_code == 201, first.get_json()
    again = game.send(0, body)
    assert (again.status_code, again.get_json()) == (201, first.get_json())
    assert game.view()["version"] == version + 1
    reply, later = first_move(game, 1)  # the version moves on: the repeat is stale now
    assert game.post(1, reply, later).status_code == 201
    stale = game.send(0, body)
    assert (stale.status_code, stale.get_json()) == (201, first.get_json())
    assert game.view()["version"] == later + 1


def test_an_unkeyed_seat_sending_a_signature_is_400_and_writes_nothing(
    client: FlaskClient,
) -> None:
    game = create_signed(client, [None, BO])
    action, version = first_move(game)
    body = ANN.signed_body(game.id, version, action, "c-1")
    refused = game.send(0, body)
    assert (refused.status_code, error_code(refused)) == (400, "invalid_body")
    assert game.view()["version"] == version


@pytest.mark.parametrize(
    "player",
    [
        {"name": "bot", "bot": "random", "public_key": ANN.public_key},  # a bot signs nothing
        {"name": "Ann", "public_key": ANN.public_key.upper()},
        {"name": "Ann", "public_key": ANN.public_key[:-2]},
        {"name": "Ann", "public_key": 7},
    ],
)
def test_a_key_for_a_bot_or_a_malformed_key_is_400(
    client: FlaskClient, player: dict[str, Any]
) -> None:
    body = {"game": "arktia", "players": [player, {"name": "Bo"}]}
    refused = client.post("/v1/games", json=body, headers=bearer(ORGANIZER))
    assert (refused.status_code, error_code(refused)) == (400, "invalid_body")
    assert client.get("/v1/games").get_json()["games"] == []
