"""``floe replay verify`` on signed games the service wrote (issue 25): every action of a
seat with a ``public_key`` must carry that key's signature over the game, the version before
it and the action, and an unkeyed seat's none; every verdict names the people's seats without
a key ("unsigned": their moves rest on the host's word), in words and as ``unsigned_seats``.

The games are played through the real app on the test Redis and exported as the service
exports them; each tampered copy is re-hashed, as a careful forger would
(``tests/e2e/test_forgeries.py`` re-plays whole games).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from replay.player_key import PlayerKey
from replay.tournament import audit_tournament
from replay.verify import verify
from service.api.app import create_app
from service.settings import Settings
from tests.support.api import ORGANIZER
from tests.support.replay_cli import floe, rechain, write_events
from tests.support.signing import SeatSpec, actions_of, create_signed, unkeyed
from tests.support.tournament_exports import build

ANN = PlayerKey.from_hex("a1" * 32)
BO = PlayerKey.from_hex("b0" * 32)


@pytest.fixture
def client(redis_url: str) -> FlaskClient:
    return create_app(Settings(redis_url=redis_url, organizer_token=ORGANIZER)).test_client()


def played(client: FlaskClient, seats: list[SeatSpec], choices: int = 7) -> list[dict[str, Any]]:
    """The export of a game of ``seats`` played to its end (keyed seats signing)."""
    game = create_signed(client, seats)
    assert game.play_randomly(random.Random(choices))["status"] == "over"
    return game.export()


def edited(events: list[dict[str, Any]], version: int, **data: Any) -> list[dict[str, Any]]:
    """``events`` with the data of ``version`` changed (a key set to None is removed), then
    re-hashed."""
    copy = [dict(e) for e in events]
    changed = {**copy[version - 1]["data"], **data}
    copy[version - 1]["data"] = {k: v for k, v in changed.items() if v is not None}
    return rechain(copy)


def with_seats(events: list[dict[str, Any]], *seats: dict[str, Any]) -> list[dict[str, Any]]:
    """``events`` whose ``game_created`` lists ``seats``, re-hashed."""
    return edited(events, 1, seats=list(seats))


def test_a_game_where_every_person_signs_verifies_ok_with_no_unsigned_seat(
    client: FlaskClient,
) -> None:
    events = played(client, [ANN, BO])
    moves = [e for e in events if e["actor"] != "system"]
    assert moves and all(set(e["data"]) == {"action", "signature"} for e in moves)
    verdict = verify(events)
    assert verdict.status == "ok", verdict
    assert verdict.unsigned == () and verdict.to_json()["unsigned_seats"] == []
    assert "unsigned" not in str(verdict)


def test_a_seat_without_a_key_is_named_unsigned(client: FlaskClient) -> None:
    events = played(client, [ANN, None])
    assert all(set(e["data"]) == {"action"} for e in actions_of(events, 1))
    verdict = verify(events)
    assert verdict.status == "ok", verdict
    assert verdict.unsigned == (1,) and verdict.to_json()["unsigned_seats"] == [1]
    assert str(verdict).endswith(
        f"ok ({len(events)} events; seat 1 unsigned: its moves rest on the host's word)"
    )


def test_a_game_of_people_without_keys_names_every_seat(client: FlaskClient) -> None:
    events = played(client, [None, None])
    verdict = verify(events)
    assert verdict.status == "ok" and verdict.unsigned == (0, 1)
    assert str(verdict).endswith("; seats 0 and 1 unsigned: their moves rest on the host's word)")


@pytest.mark.processes
def test_the_cli_says_which_seats_are_unsigned(client: FlaskClient, tmp_path: Path) -> None:
    path = write_events(tmp_path / "game.jsonl", played(client, [ANN, None]))
    said = floe("verify", str(path))
    assert said.returncode == 0, said.stdout + said.stderr
    assert "; seat 1 unsigned: its moves rest on the host's word)" in said.stdout.splitlines()[0]
    as_json = json.loads(floe("verify", "--json", str(path)).stdout)
    assert (as_json["status"], as_json["unsigned_seats"]) == ("ok", [1])


@pytest.mark.parametrize(
    ("seat", "why"),
    [
        (
            {"seat": 1, "name": "bot", "bot": "random", "public_key": BO.public_key},
            "game_created gives the bot seat 1 a public_key: a bot signs nothing",
        ),
        (
            {"seat": 1, "name": "p1", "bot": None, "public_key": BO.public_key.upper()},
            "game_created gives seat 1 a public_key that is not 64 lowercase hex digits (an "
            "Ed25519 public key)",
        ),
        (
            {"seat": 1, "name": "p1", "bot": None, "public_key": None},
            "game_created gives seat 1 a public_key that is not 64 lowercase hex digits (an "
            "Ed25519 public key)",
        ),
    ],
)
def test_a_key_on_a_bot_or_a_malformed_key_fails_at_game_created(
    client: FlaskClient, seat: dict[str, Any], why: str
) -> None:
    events = played(client, [ANN, BO])
    first = events[0]["data"]["seats"][0]
    verdict = verify(with_seats(events, first, seat))
    assert (verdict.status, verdict.version, verdict.reason) == ("failed", 1, why)


def test_a_key_claimed_for_a_seat_that_never_signed_fails_at_its_first_move(
    client: FlaskClient,
) -> None:
    events = played(client, [ANN, None])
    first, second = events[0]["data"]["seats"]
    forged = with_seats(events, first, {**second, "public_key": BO.public_key})
    at = actions_of(events, 1)[0]["version"]
    verdict = verify(forged)
    assert (verdict.status, verdict.version) == ("failed", at)
    assert verdict.reason == (
        f"the move of seat 1 at version {at} carries no signature, but seat 1 signs its moves "
        "(its public_key is in game_created): the move was not the player's"
    )


def test_a_key_taken_out_of_game_created_leaves_signatures_nobody_can_check(
    client: FlaskClient,
) -> None:
    events = played(client, [ANN, None])
    first, second = events[0]["data"]["seats"]
    plain = {k: v for k, v in first.items() if k != "public_key"}
    at = actions_of(events, 0)[0]["version"]
    verdict = verify(with_seats(events, plain, second))
    assert (verdict.status, verdict.version) == ("failed", at)
    assert verdict.reason is not None
    assert verdict.reason.startswith(
        f"the move of seat 0 at version {at} carries a signature, but game_created gives seat 0 "
        "no public_key"
    )


def test_a_key_and_its_signatures_all_taken_out_are_said_not_hidden(client: FlaskClient) -> None:
    """The honest limit: a host who rewrites the whole log without the player's key has
    written a game of unsigned seats. It verifies, but its verdict names seat 0 unsigned, so
    the player who gave a key (and anyone who knows the roster) sees the log is not theirs."""
    events = played(client, [ANN, None])
    verdict = verify(unkeyed(events))
    assert verdict.status == "ok" and verdict.unsigned == (0, 1)
    assert verify(events).unsigned == (1,)


def test_a_dropped_or_altered_signature_fails_where_it_is(client: FlaskClient) -> None:
    events = played(client, [ANN, BO])
    move = actions_of(events, 1)[2]
    at, signature = move["version"], move["data"]["signature"]
    cases = {
        "dropped": edited(events, at, signature=None),
        "altered": edited(
            events, at, signature=("0" if signature[0] != "0" else "1") + signature[1:]
        ),
        "not a string": edited(events, at, signature=12345),
    }
    for name, forged in cases.items():
        verdict = verify(forged)
        assert (verdict.status, verdict.version) == ("failed", at), name
    assert verify(cases["dropped"]).reason == (
        f"the move of seat 1 at version {at} carries no signature, but seat 1 signs its moves "
        "(its public_key is in game_created): the move was not the player's"
    )
    assert verify(cases["altered"]).reason == (
        f"the signature of seat 1 at version {at} is not seat 1's key's over this move (in this "
        f"game, at version {at - 1}): the move was not the player's"
    )


def test_a_signature_on_an_unkeyed_seats_move_or_more_data_fails(client: FlaskClient) -> None:
    events = played(client, [ANN, None])
    signed, unsigned = actions_of(events, 0)[1], actions_of(events, 1)[1]
    borrowed = edited(events, unsigned["version"], signature=signed["data"]["signature"])
    verdict = verify(borrowed)
    assert (verdict.status, verdict.version) == ("failed", unsigned["version"])
    assert verdict.reason is not None and verdict.reason.startswith(
        f"the move of seat 1 at version {unsigned['version']} carries a signature, but "
        "game_created gives seat 1 no public_key"
    )
    extra = verify(edited(events, signed["version"], note="mine"))
    assert (extra.status, extra.version) == ("failed", signed["version"])
    assert extra.reason == (
        "an action event's data is exactly {'action': {...}}, with its 'signature' for a seat "
        "that has a public key"
    )


def test_a_tournament_verdict_names_its_unsigned_players_but_not_its_bots() -> None:
    export = build("iceberg", "swiss", ["Ada", "Bo", ("Cy", "greedy")], rounds=3, seed=7)
    verdict = audit_tournament(export.lines(), bot_replay=False)
    assert verdict.status == "ok", verdict.problems
    assert [(row.player, row.name) for row in verdict.unsigned_players] == [(0, "Ada"), (1, "Bo")]
    document = verdict.to_json()
    assert document["unsigned_players"] == [0, 1]
    by_id = {g["game_id"]: g for g in document["games"]}
    for game in verdict.games:
        assert game.round is not None and game.table is not None
        seats = export.log(game.round, game.table)[0]["data"]["seats"]
        people = [s["seat"] for s in seats if not s["bot"]]
        assert game.verdict.unsigned == tuple(people)
        assert by_id[game.game_id]["unsigned_seats"] == people
    report = verdict.report()
    line = "players 0 (Ada) and 1 (Bo) unsigned: their moves rest on the host's word"
    assert report[report.index(str(verdict)) - 1] == line
