"""The host's forgeries, each against a real finished export with its seed revealed (issue 25,
"a proof that holds against the host"): the host holds the seed, so it can re-play a game
with other legal moves, re-derive every draw and re-hash the chain. Against a seat that signs,
``floe replay verify`` no longer accepts that, and says whose signature, at which version;
against a seat that does not, it cannot tell, and says that seat is unsigned.

Each forgery is checked to be perfect in everything but the signatures: with every key and
signature taken out (``tests.support.signing.unkeyed``) it verifies ``ok``. A bot's move
replaced (``tests/e2e/test_bot_replay.py`` covers it for games of bots) fails beside a signing
person too, and the bot is never called unsigned.
"""

from __future__ import annotations

import random
import subprocess
from typing import Any

import redis
from flask.testing import FlaskClient

from domain.engine import play
from domain.engine.canonical import canonical_json
from domain.engine.log import event_of
from domain.engine.signing import action_message
from domain.games import GAMES
from replay import ed25519
from replay.player_key import PlayerKey
from replay.verify import verify
from service.store.events import events_key
from tests.support.api import BOT_MOVE_WITHIN_MS
from tests.support.bots import forge_move
from tests.support.signing import (
    SignedGame,
    actions_of,
    create_signed,
    forge,
    game_over,
    unkeyed,
)

ANN = PlayerKey.from_hex("a1" * 32)
BO = PlayerKey.from_hex("b0" * 32)
#: The choices every game here is played with (with the fixed seed: the same game each run).
CHOICES = 11


def finished(game: SignedGame) -> list[dict[str, Any]]:
    """The export of ``game`` played to its end with ``CHOICES``."""
    assert game.play_randomly(random.Random(CHOICES))["status"] == "over"
    events = game.export()
    assert events[-1]["type"] == "seed_revealed"
    return events


def not_the_players(seat: int, version: int) -> str:
    return (
        f"the signature of seat {seat} at version {version} is not seat {seat}'s key's over "
        f"this move (in this game, at version {version - 1}): the move was not the player's"
    )


def assert_perfect_but_for_signatures(forged: list[dict[str, Any]], seed: str) -> None:
    """The forgery is a whole legal game, every draw from the revealed seed, every hash
    chained: only the signatures can tell."""
    assert (forged[-1]["type"], forged[-1]["data"]) == ("seed_revealed", {"seed": seed})
    plain = verify(unkeyed(forged))
    assert plain.status == "ok", plain


def test_a_signed_seats_move_replaced_and_the_game_replayed_fails_naming_its_signature(
    client: FlaskClient,
) -> None:
    events = finished(create_signed(client, [ANN, None]))
    seed = events[-1]["data"]["seed"]
    moved = actions_of(events, 0)[len(actions_of(events, 0)) // 2]
    at = moved["version"]
    # The forger without Ann's key writes the signature she gave for her real move there.
    forged, put_in = forge(events, at, random.Random(at))
    assert canonical_json(put_in) != canonical_json(moved["data"]["action"])
    assert forged[at - 1]["data"] == {"action": put_in, "signature": moved["data"]["signature"]}
    assert_perfect_but_for_signatures(forged, seed)
    verdict = verify(forged)
    assert (verdict.status, verdict.version) == ("failed", at)
    assert verdict.reason == not_the_players(0, at)
    # Or writes none at all.
    bare, _ = forge(events, at, random.Random(at), signer=lambda *_: None)
    assert verify(bare).reason == (
        f"the move of seat 0 at version {at} carries no signature, but seat 0 signs its moves "
        "(its public_key is in game_created): the move was not the player's"
    )


def test_the_same_forgery_of_an_unsigned_seat_passes_and_the_verdict_names_the_seat(
    client: FlaskClient,
) -> None:
    """The honest limit: a seat without a key proves nothing against the host. The forger
    replaces one of Bo's moves and keeps every one of Ann's, signed, where it stays legal; the
    audit passes it, and says that Bo's moves rest on the host's word."""
    events = finished(create_signed(client, [ANN, None]))
    found = None
    for moved in reversed(actions_of(events, 1)):
        at = moved["version"]
        forged, put_in = forge(events, at, random.Random(at))
        if verify(forged).status == "ok":
            found = moved, forged, put_in
            break
    assert found is not None, "no move of Bo's could be replaced with Ann's moves kept"
    moved, forged, put_in = found
    assert canonical_json(put_in) != canonical_json(moved["data"]["action"])
    assert forged[moved["version"] - 1]["data"] == {"action": put_in}
    verdict = verify(forged)
    assert (verdict.status, verdict.unsigned) == ("ok", (1,))
    assert str(verdict).endswith("; seat 1 unsigned: its moves rest on the host's word)")


def test_a_winner_flipped_by_replaying_the_whole_game_fails(client: FlaskClient) -> None:
    """The reviewers' attack: the host plays the game again from Ann's first move with other
    legal moves of hers until someone else wins, every draw and hash re-derived."""
    events = finished(create_signed(client, [ANN, None]))
    seed = events[-1]["data"]["seed"]
    first = actions_of(events, 0)[0]["version"]
    real = game_over(events)
    flipped = None
    for attempt in range(200):
        forged, _ = forge(events, first, random.Random(attempt), keep=False)
        if game_over(forged)["winners"] != real["winners"]:
            flipped = forged
            break
    assert flipped is not None, f"no replay changed the winners {real['winners']}"
    assert_perfect_but_for_signatures(flipped, seed)
    verdict = verify(flipped)
    assert (verdict.status, verdict.version) == ("failed", first)
    assert verdict.reason == not_the_players(0, first)


def test_a_signature_from_another_game_fails(client: FlaskClient) -> None:
    """Ann signed a move in another game (same seed, same moves so far, then another move):
    her genuine signature, put on that move in this game, is not for this game."""
    game = create_signed(client, [ANN, None])
    events = finished(game)
    at = actions_of(events, 0)[2]["version"]
    other = create_signed(client, [ANN, None])
    for event in events[1 : at - 1]:  # the same moves up to the one before ``at``
        answer = other.post(event["actor"], event["data"]["action"], event["version"] - 1)
        assert answer.status_code == 201, answer.get_json()
    legal = other.legal(0)
    assert legal["version"] == at - 1
    logged = canonical_json(events[at - 1]["data"]["action"])
    move = next(a for a in legal["actions"] if canonical_json(a) != logged)
    assert other.post(0, move, at - 1).status_code == 201
    theirs = other.export()[at - 1]["data"]
    signed = action_message(other.id, at - 1, theirs["action"])
    assert ed25519.signature_is_valid(ANN.public_key, signed, theirs["signature"])  # genuine
    forged, _ = forge(
        events, at, random.Random(at), move=move, signer=lambda *_: theirs["signature"]
    )
    assert forged[at - 1]["data"] == theirs
    assert_perfect_but_for_signatures(forged, events[-1]["data"]["seed"])
    verdict = verify(forged)
    assert (verdict.status, verdict.version) == ("failed", at)
    assert verdict.reason == not_the_players(0, at)


def test_a_signature_from_another_version_of_the_same_game_fails(client: FlaskClient) -> None:
    """Ann's signed move at one version, played again where it is legal at a later one: the
    signature names the version it was made against."""
    events = finished(create_signed(client, [ANN, None]))
    rules = GAMES[events[0]["data"]["game"]].rules
    mine = actions_of(events, 0)
    pair = None
    for later in mine[1:]:
        before = [event_of(e) for e in events[: later["version"] - 1]]
        state = play.fold(rules, events[0]["game_id"], before)
        legal = {canonical_json(a.to_json()) for a in play.legal_actions(rules, state, 0)}
        logged = canonical_json(later["data"]["action"])
        earlier = next(
            (
                e
                for e in mine
                if e["version"] < later["version"]
                and canonical_json(e["data"]["action"]) in legal - {logged}
            ),
            None,
        )
        if earlier is not None:
            pair = earlier, later
            break
    assert pair is not None, "no move of Ann's is legal again later"
    earlier, later = pair
    at = later["version"]
    forged, _ = forge(
        events,
        at,
        random.Random(at),
        move=earlier["data"]["action"],
        signer=lambda *_: earlier["data"]["signature"],
    )
    assert forged[at - 1]["data"] == earlier["data"]  # her move and her signature, moved
    assert_perfect_but_for_signatures(forged, events[-1]["data"]["seed"])
    verdict = verify(forged)
    assert (verdict.status, verdict.version) == ("failed", at)
    assert verdict.reason == not_the_players(0, at)


def test_a_bots_move_replaced_beside_a_signing_person_fails_naming_the_bot(
    worker: subprocess.Popen[bytes], client: FlaskClient, redis_client: redis.Redis
) -> None:
    game = create_signed(client, [ANN, "greedy"], options={"turn_limit": 12})
    chooser = random.Random(CHOICES)
    while (view := game.view())["status"] != "over":
        if view["to_act"] != [0]:  # the bot's turn: wait for the worker's move
            after = f"0-{view['version']}"
            assert redis_client.xread({events_key(game.id): after}, block=BOT_MOVE_WITHIN_MS)
            continue
        legal = game.legal(0)
        assert game.post(0, chooser.choice(legal["actions"]), legal["version"]).status_code == 201
    events = game.export()
    honest = verify(events)
    assert (honest.status, honest.unsigned) == ("ok", ())  # the bot is re-derived, not unsigned
    bot = actions_of(events, 1)
    moved = bot[len(bot) // 2]
    forged, _ = forge_move(events, moved["version"])
    verdict = verify(forged)
    assert (verdict.status, verdict.version) == ("failed", moved["version"])
    assert verdict.reason is not None and verdict.reason.startswith(
        f"the bot of seat 1 (greedy) would have played "
        f"{canonical_json(moved['data']['action'])} at version {moved['version']}"
    )
    assert verdict.unsigned == ()
