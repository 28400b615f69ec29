"""Players' keys in tournaments, on the real app and Redis: a person listed at creation or
entered late with an Ed25519 public key has it in their seat of every game of theirs and signs
every move there; the roster commitment covers the keys of the players listed at creation; the
export carries every key, and its audit checks each game's seats against them.

Arktia draws nothing and every turn is a person's, so no worker runs: the tournament's advance
(the worker's job) is called by hand once a round is over."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.tournament import roster_commitment
from replay.ed25519 import new_private_key, public_key_of
from replay.tournament import audit_tournament
from service.tournaments.store import tournament_key
from tests.support.api import ORGANIZER, bearer
from tests.support.openapi import OpenApi
from tests.support.tournament_api import (
    create,
    decide,
    document,
    events,
    floe_of,
    people,
    play_once,
    play_round,
    refused,
    signed_body,
    swiss,
    tokens_of,
)

SPEC = OpenApi.load()
#: Private keys of players 0, 1 and 3 (player 2 signs nothing).
KEYS = {0: new_private_key(), 1: new_private_key(), 3: new_private_key()}
PUBLIC = {player: public_key_of(key) for player, key in KEYS.items()}


def keyed(count: int, keys: dict[int, str]) -> list[dict[str, Any]]:
    """``count`` people, those in ``keys`` with their public key."""
    return [
        {**person, **({"public_key": keys[i]} if i in keys else {})}
        for i, person in enumerate(people(count))
    ]


def seats_of(client: FlaskClient, game_id: str) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = events(client, game_id)[0]["data"]["seats"]
    return seats


def expected_seat(seat: int, player: dict[str, Any]) -> dict[str, Any]:
    """A game's seat as ``game_created`` records the tournament's ``player``: their key only
    when they have one."""
    shown = {"seat": seat, "name": player["name"], "bot": player["bot"]}
    return shown | ({} if player["public_key"] is None else {"public_key": player["public_key"]})


def documented(method: str, template: str, response: Any) -> None:
    """The answer is one the spec documents, and fits it."""
    status, headers = response.status_code, response.headers
    SPEC.check_response(method, template, status, headers, response.get_data())


def export_lines(client: FlaskClient, tournament_id: str) -> list[str]:
    response = client.get(f"/v1/tournaments/{tournament_id}/export", headers=bearer(ORGANIZER))
    assert response.status_code == 200, response.get_json()
    documented("get", "/v1/tournaments/{tournament_id}/export", response)
    lines: list[str] = response.get_data(as_text=True).splitlines()
    return lines


def with_manifest(lines: list[str], change: Any) -> list[str]:
    """The export with ``change`` applied to its manifest."""
    manifest = json.loads(lines[0])["tournament"]
    change(manifest)
    return [json.dumps({"tournament": manifest}), *lines[1:]]


def an_unsigned_move_is_refused(client: FlaskClient, game_id: str, token: str) -> None:
    """401 ``bad_signature`` for a keyed player's move carrying no signature; nothing
    written."""
    legal = client.get(f"/v1/games/{game_id}/legal-actions", headers=bearer(token)).get_json()
    assert legal["actions"], "the player is to act"
    body = signed_body(game_id, legal["actions"][0], legal["version"], None)
    posted = client.post(f"/v1/games/{game_id}/actions", json=body, headers=bearer(token))
    refused(posted, 401, "bad_signature")
    assert client.get(f"/v1/games/{game_id}").get_json()["version"] == legal["version"]


def test_keyed_players_sign_in_every_game_and_the_roster_commits_to_their_keys(
    app: Flask, client: FlaskClient
) -> None:
    payload = swiss(keyed(4, PUBLIC), rounds=2)
    assert SPEC.request_errors("post", "/v1/tournaments", payload) == []
    created = create(client, payload)
    tournament_id, tokens = created["id"], tokens_of(created)
    players = created["players"]
    assert [p["public_key"] for p in players] == [PUBLIC[0], PUBLIC[1], None, PUBLIC[3]]
    shown = client.get(f"/v1/tournaments/{tournament_id}")
    documented("get", "/v1/tournaments/{tournament_id}", shown)
    assert [p["public_key"] for p in shown.get_json()["players"]] == [
        p["public_key"] for p in players
    ]
    # The roster commits to each player's key (null where absent), byte for byte.
    entries = [{"bot": p["bot"], "name": p["name"], "public_key": p["public_key"]} for p in players]
    written = json.dumps(entries, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert created["roster_commitment"] == hashlib.sha256(written.encode()).hexdigest()
    listed = [(p["name"], p["bot"], p["public_key"]) for p in players]
    assert created["roster_commitment"] == roster_commitment(listed)
    assert created["roster_commitment"] != roster_commitment([(n, b) for n, b, _ in listed])

    rng = random.Random(5)
    for number in (1, 2):
        games = document(client, tournament_id)["rounds"][-1]["games"]
        for game in games:  # every game's seats carry their players' keys, and no other
            assert seats_of(client, game["game_id"]) == [
                expected_seat(seat, players[p]) for seat, p in enumerate(game["players"])
            ]
        refusals = 0
        for game in games:  # a keyed player to act: their token alone is not enough
            mover = game["players"][
                client.get(f"/v1/games/{game['game_id']}").get_json()["to_act"][0]
            ]
            if mover in KEYS:
                an_unsigned_move_is_refused(client, game["game_id"], tokens[mover])
                refusals += 1
        assert refusals or number > 1, "three of four players sign: one of them moves first"
        play_round(client, tournament_id, tokens, rng, keys=KEYS)
        floe_of(app).tournaments.advance(tournament_id)  # the worker's job, here by hand
        assert len(document(client, tournament_id)["rounds"]) == number + (number < 2)
    assert document(client, tournament_id)["status"] == "finished"

    # Every keyed move is stored with its signature, an unkeyed one without.
    for game in (g for r in document(client, tournament_id)["rounds"] for g in r["games"]):
        for event in events(client, game["game_id"]):
            if isinstance(event["actor"], int) and "action" in event["data"]:
                player = game["players"][event["actor"]]
                assert ("signature" in event["data"]) == (player in KEYS), event

    # The export lists each key (only a keyed player's), and its audit passes.
    lines = export_lines(client, tournament_id)
    manifest = json.loads(lines[0])["tournament"]
    assert manifest["players"] == [
        {"player": i, "name": p["name"], "bot": None}
        | ({"public_key": PUBLIC[i]} if i in PUBLIC else {})
        for i, p in enumerate(players)
    ]
    assert manifest["roster_commitment"] == created["roster_commitment"]
    verdict = audit_tournament(lines)
    assert (verdict.status, verdict.problems) == ("ok", ()), verdict.report()

    # Ada's listed key swapped for another: the roster no longer gives its commitment, and
    # every game of hers seats a key that is not her listed one.
    other = public_key_of(new_private_key())
    forged = audit_tournament(
        with_manifest(lines, lambda m: m["players"][0].update(public_key=other))
    )
    assert forged.status == "failed"
    assert any(p.startswith("roster: the players listed") for p in forged.problems)
    assert any("'s key is not p0's listed key" in p for p in forged.problems), forged.problems


def test_a_late_entrant_brings_their_key_into_their_games(
    app: Flask, client: FlaskClient, redis_client: redis.Redis
) -> None:
    created = create(client, swiss(people(3), rounds=2, max_players=4))
    tournament_id, tokens = created["id"], tokens_of(created)
    eve = new_private_key()
    stored = redis_client.hgetall(tournament_key(tournament_id))
    # A key that is not one, or a key for a bot: 400 invalid_field, nothing written.
    for bad in (
        {"public_key": "AB" * 32},
        {"public_key": "ab" * 32 + "\n"},
        {"public_key": 7},
        {"public_key": public_key_of(eve), "bot": "random"},
    ):
        refused(decide(client, tournament_id, "enter", name="Eve", **bad), 400, "invalid_field")
    assert redis_client.hgetall(tournament_key(tournament_id)) == stored

    request = {"decision": "enter", "name": "Eve", "public_key": public_key_of(eve), "reason": "r"}
    decisions = "/v1/tournaments/{tournament_id}/decisions"
    assert SPEC.request_errors("post", decisions, request) == []
    entered = decide(client, tournament_id, "enter", name="Eve", public_key=public_key_of(eve))
    assert entered.status_code == 201, entered.get_json()
    documented("post", decisions, entered)
    answer = entered.get_json()
    assert answer["entered"]["player"] == 3 and answer["entered"]["token"]
    tokens[3] = answer["entered"]["token"]
    [decision] = answer["decisions"]
    assert decision["public_key"] == public_key_of(eve)
    assert answer["players"][3]["public_key"] == public_key_of(eve)
    # The roster commitment is the creation's: a late entrant is their decision's.
    assert answer["roster_commitment"] == created["roster_commitment"]

    rng = random.Random(9)
    play_round(client, tournament_id, tokens, rng, keys={3: eve})
    floe_of(app).tournaments.advance(tournament_id)
    games = document(client, tournament_id)["rounds"][-1]["games"]
    [hers] = [g for g in games if 3 in g["players"]]
    seat = hers["players"].index(3)
    assert seats_of(client, hers["game_id"])[seat] == {
        "seat": seat,
        "name": "Eve",
        "bot": None,
        "public_key": public_key_of(eve),
    }
    if client.get(f"/v1/games/{hers['game_id']}").get_json()["to_act"] != [seat]:
        opponent = hers["players"][1 - seat]  # signs nothing: moves first, then it is Eve's turn
        assert play_once(client, hers["game_id"], tokens[opponent], rng)
    an_unsigned_move_is_refused(client, hers["game_id"], tokens[3])
    play_round(client, tournament_id, tokens, rng, keys={3: eve})
    floe_of(app).tournaments.advance(tournament_id)
    assert document(client, tournament_id)["status"] == "finished"

    lines = export_lines(client, tournament_id)
    manifest = json.loads(lines[0])["tournament"]
    assert all("public_key" not in p for p in manifest["players"])
    assert manifest["decisions"][0]["public_key"] == public_key_of(eve)
    verdict = audit_tournament(lines)
    assert (verdict.status, verdict.problems) == ("ok", ()), verdict.report()
    # Her key in the enter decision replaced: her game's seat is not signed by the key the
    # export names for her.
    other = public_key_of(new_private_key())
    forged = audit_tournament(
        with_manifest(lines, lambda m: m["decisions"][0].update(public_key=other))
    )
    assert forged.status == "failed"
    where = f"round 2 table {hers['table']} (game {hers['game_id']})"
    assert f"{where}: seat {seat}'s key is not Eve's listed key" in " ".join(forged.problems)


def test_a_key_for_a_bot_or_a_malformed_key_is_refused_at_creation(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    key = public_key_of(new_private_key())
    for players in (
        [{"name": "Hal", "bot": "random", "public_key": key}, *people(3)],
        [{"name": "Ada", "public_key": key.upper()}, *people(3)],
        [{"name": "Ada", "public_key": key[:-2]}, *people(3)],
        [{"name": "Ada", "public_key": 12}, *people(3)],
    ):
        response = client.post("/v1/tournaments", json=swiss(players), headers=bearer(ORGANIZER))
        refused(response, 400, "invalid_body")
    assert redis_client.keys("floe:tournament*") == []
    assert redis_client.keys("floe:game:*") == []
