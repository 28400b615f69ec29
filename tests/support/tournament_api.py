"""The tournament routes as tests drive them: a plan of people or bots, the organizer's
requests, people playing a round out with their tokens, and ``floe replay verify`` on an
export. Shared by the director's tests."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.engine.signing import action_message
from replay.ed25519 import sign
from service.bootstrap import Floe
from service.tournaments.store import tournament_key
from tests.support.api import ORGANIZER, bearer
from tests.support.replay_cli import floe as floe_cli

#: Arktia draws nothing, so people play it with no worker; two turns end a game.
QUICK = {"turn_limit": 2}
#: A game id no tournament here has.
GAME = "0123456789abcdef"


def people(count: int) -> list[dict[str, Any]]:
    return [{"name": f"p{i}"} for i in range(count)]


def bots(count: int) -> list[dict[str, Any]]:
    return [{"name": f"bot{i}", "bot": "random"} for i in range(count)]


def swiss(players: list[dict[str, Any]], rounds: int = 2, **extra: Any) -> dict[str, Any]:
    return {
        "game": "arktia",
        "format": "swiss",
        "rounds": rounds,
        "players": players,
        "options": QUICK,
        **extra,
    }


def create(client: FlaskClient, payload: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/tournaments", json=payload, headers=bearer(ORGANIZER))
    assert response.status_code == 201, response.get_json()
    assert response.headers["Location"] == f"/v1/tournaments/{response.get_json()['id']}"
    created: dict[str, Any] = response.get_json()
    return created


def document(client: FlaskClient, tournament_id: str) -> dict[str, Any]:
    response = client.get(f"/v1/tournaments/{tournament_id}")
    assert response.status_code == 200, response.get_json()
    found: dict[str, Any] = response.get_json()
    return found


def tokens_of(created: dict[str, Any]) -> dict[int, str]:
    return {p["player"]: p["token"] for p in created["players"] if p["token"]}


def decide(
    client: FlaskClient,
    tournament_id: str,
    decision: str,
    token: str | None = ORGANIZER,
    **body: Any,
) -> Any:
    payload = {"decision": decision, "reason": f"the director: {decision}", **body}
    headers = bearer(token) if token else {}
    return client.post(f"/v1/tournaments/{tournament_id}/decisions", json=payload, headers=headers)


def start_round(client: FlaskClient, tournament_id: str, token: str | None = ORGANIZER) -> Any:
    headers = bearer(token) if token else {}
    return client.post(f"/v1/tournaments/{tournament_id}/rounds", headers=headers)


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.get_json()
    assert response.get_json()["error"]["code"] == code, response.get_json()


def floe_of(app: Flask) -> Floe:
    floe: Floe = app.extensions["floe"]
    return floe


def stored_rounds(redis_client: redis.Redis, tournament_id: str) -> list[dict[str, Any]]:
    """The rounds as the record keeps them (outcomes and end time once a round is over)."""
    raw = redis_client.hget(tournament_key(tournament_id), "rounds")
    rounds: list[dict[str, Any]] = json.loads(raw or b"[]")
    return rounds


def signed_body(
    game_id: str, action: dict[str, Any], version: int, private_key: str | None
) -> dict[str, Any]:
    """An action's body, signed by ``private_key`` (``domain.engine.signing``) when given."""
    body: dict[str, Any] = {
        "action": action,
        "expected_version": version,
        "command_id": f"move-{version}",
    }
    if private_key is not None:
        body["signature"] = sign(private_key, action_message(game_id, version, action))
    return body


def play_once(
    client: FlaskClient,
    game_id: str,
    token: str,
    rng: random.Random,
    *,
    private_key: str | None = None,
) -> bool:
    """One random legal action of ``token``'s seat, if it has any now; signed by
    ``private_key`` when the player has one (a keyed seat refuses an unsigned move)."""
    headers = bearer(token)
    legal = client.get(f"/v1/games/{game_id}/legal-actions", headers=headers).get_json()
    if not legal["actions"]:
        return False
    action = rng.choice(legal["actions"])
    body = signed_body(game_id, action, legal["version"], private_key)
    posted = client.post(f"/v1/games/{game_id}/actions", json=body, headers=headers)
    assert posted.status_code in (201, 202), posted.get_json()
    return True


def play_round(
    client: FlaskClient,
    tournament_id: str,
    tokens: dict[int, str],
    rng: random.Random,
    *,
    keys: Mapping[int, str] | None = None,
) -> None:
    """People play the latest round (of Arktia, which draws nothing) until its games are
    over, each player in ``keys`` signing with their private key; every turn is theirs, so
    this never waits on anything."""
    keys = keys or {}
    for _ in range(1000):
        games = document(client, tournament_id)["rounds"][-1]["games"]
        if all(g["status"] == "over" for g in games):
            return
        moved = False
        for game in games:
            for player in game["players"]:
                if game["status"] == "active" and player in tokens:
                    key = keys.get(player)
                    played = play_once(
                        client, game["game_id"], tokens[player], rng, private_key=key
                    )
                    moved = played or moved
        assert moved, f"nobody could move in {games}"
    raise AssertionError("the round never ended")


def worth(game: dict[str, Any], seat: int) -> tuple[str, str]:
    """A seat's result in a game that is over, and its points."""
    winners = game["outcome"]["winners"]
    if seat not in winners:
        return "lost", "0"
    return ("won", "1") if len(winners) == 1 else ("shared", f"1/{len(winners)}")


def events(client: FlaskClient, game_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    return found


def verify(tmp_path: Path, name: str, text: str) -> tuple[int, str]:
    """``floe replay verify`` on ``text``: its exit status (0: ok) and what it said."""
    path = tmp_path / name
    path.write_text(text)
    verified = floe_cli("verify", str(path))
    return verified.returncode, verified.stdout + verified.stderr


def round_ready(client: FlaskClient, tournament_id: str, number: int) -> bool:
    """Round ``number`` is made and every game of it created (the worker makes the round,
    then its games: a game not created yet shows as ``pending``)."""
    rounds = document(client, tournament_id)["rounds"]
    made = len(rounds) >= number
    return made and all(g["status"] != "pending" for g in rounds[number - 1]["games"])
