"""Ice Breakers over HTTP with a real worker: co-operative turns, several seats at once,
draws mid-turn, and an Ice Report order nobody sees before each card is exposed."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.engine import rng
from tests.support.api import ORGANIZER, Game, bearer

NewGame = Callable[..., Game]
SECRET = ("reports_upper", "reports_lower")
PREFERRED = {"move_ship": 6.0, "give": 6.0, "clear": 3.0, "play_power": 3.0, "boost": 2.0}


def _no_report_leaks(client: FlaskClient, game: Game) -> None:
    """Every viewer sees the secret draws masked and only the exposed forecast card."""
    for headers in ({}, bearer(game.tokens[0]), bearer(ORGANIZER)):
        events = client.get(f"/v1/games/{game.id}/events", headers=headers).get_json()["events"]
        secret = [e for e in events if e["type"] == "random" and e["data"]["label"] in SECRET]
        assert len(secret) == 2 and all(e["data"]["outcome"] is None for e in secret)
        state = client.get(f"/v1/games/{game.id}", headers=headers).get_json()["state"]
        assert "reports" not in state  # the stack itself appears only after the end


@pytest.mark.parametrize(
    ("players", "options", "seed"),
    [
        (2, {}, 1),
        (3, {}, 2),
        (4, {}, 3),
        (2, {"intro": True}, 4),
        (3, {"intro": True}, 5),
        (4, {"intro": True}, 6),
    ],
)
def test_full_and_intro_games_play_to_the_end_over_http(
    worker: subprocess.Popen[bytes],
    new_game: NewGame,
    client: FlaskClient,
    players: int,
    options: dict[str, Any],
    seed: int,
) -> None:
    game = new_game(players, "ice-breakers", options=options)
    view = game.view()
    assert view["status"] == "active", "the five setup draws came from the worker"
    assert view["version"] == 6
    _no_report_leaks(client, game)
    chooser = random.Random(seed)
    for _ in range(3000):
        view = game.view()
        if view["status"] == "over":
            break
        assert view["status"] == "active"
        seat = chooser.choice(view["to_act"])
        legal = game.legal(seat)
        actions = legal["actions"]
        weights = [PREFERRED.get(a["type"], 1.0) for a in actions]
        action = chooser.choices(actions, weights)[0]
        if view["version"] % 40 == 0:  # checked while the game is surely still on
            _no_report_leaks(client, game)
        response = game.post(seat, action, legal["version"])
        assert response.status_code == 201, response.get_json()
    else:
        pytest.fail("the game did not end")
    outcome = view["outcome"]
    assert set(outcome) == {"winners", "scores", "delivered", "in_play", "turns"}
    assert outcome["in_play"] == (6 if options.get("intro") else 12)
    assert outcome["winners"] in ([], list(range(players)))
    assert (outcome["winners"] != []) == (outcome["delivered"] == outcome["in_play"])
    # After the end everything is public and every draw recomputes from the revealed seed.
    events = [json.loads(line) for line in game.get("/export").get_data(as_text=True).splitlines()]
    seed_bytes = bytes.fromhex(events[-1]["data"]["seed"])
    assert hashlib.sha256(seed_bytes).hexdigest() == events[0]["data"]["seed_commitment"]
    draws = [e for e in events if e["type"] == "random"]
    assert [d["data"]["label"] for d in draws[:5]] == [
        "pieces",
        "ships",
        "reports_upper",
        "reports_lower",
        "deck",
    ]
    for event in draws:
        data = event["data"]
        expected = rng.draw(
            seed_bytes, game.id, event["version"], data["label"], data["kind"], data["n"]
        )
        assert data["outcome"] == expected


def test_a_seat_that_may_not_act_is_refused_with_403(
    worker: subprocess.Popen[bytes], new_game: NewGame
) -> None:
    game = new_game(3, "ice-breakers")
    view = game.view()
    active = view["to_act"]
    assert active == [0], "before the Power card only the active player acts"
    boost = {"type": "boost", "card": "c27"}
    refused = game.post(1, boost, view["version"])
    assert refused.status_code == 403
    assert refused.get_json()["error"]["code"] == "not_your_turn"


def test_once_the_power_card_is_down_another_seat_boosts_in_the_same_turn(
    worker: subprocess.Popen[bytes], new_game: NewGame
) -> None:
    """Several seats act within one turn: the active player's Power card opens the boosts."""
    for _ in range(20):  # deals are random: find one where seat 1 holds a boost for a 5 or 7
        game = new_game(2, "ice-breakers")
        hands = game.view()["state"]["hands"]
        power = next(c for c in hands[0]["cards"] if c["kind"] == "power" and c["value"] in (5, 7))
        if any(c["kind"] in ("B1", "R3") for c in hands[1]["cards"]):
            break
    else:
        pytest.fail("no deal in 20 gave seat 1 a boost card")
    played = game.post(0, {"type": "play_power", "card": power["id"]})
    assert played.status_code == 201
    view = game.view()
    assert view["to_act"] == [0, 1], "the other seat may now boost"
    boosts = [a for a in game.legal(1)["actions"] if a["type"] == "boost"]
    assert boosts and {a["type"] for a in game.legal(1)["actions"]} <= {"boost", "cash_ab2"}
    boosted = game.post(1, boosts[0])
    assert boosted.status_code == 201
    assert boosted.get_json()["events"][0]["actor"] == 1
    turn = game.view()["state"]["turn"]
    assert turn["power"]["id"] == power["id"] and len(turn["boosts"]) == 1
