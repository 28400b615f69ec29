"""Who sees what: a spectator and the organizer see the same public view, never a seat's.

Complements test_api.py (seeds and exports need the organizer token) and the secrecy tests
of test_iceberg_api.py / test_ice_breakers_api.py / test_openapi.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from flask.testing import FlaskClient

from tests.support.api import ORGANIZER, Game, bearer

NewGame = Callable[..., Game]
READS = ["", "/state?version=1", "/events", "/board.svg"]


def test_a_spectator_and_the_organizer_get_the_public_view_never_a_seats(
    new_game: NewGame,
) -> None:
    game = new_game(3)
    assert game.post(0, game.legal(0)["actions"][0]).status_code == 201
    spectator = game.get().get_json()
    organizer = game.get("", ORGANIZER).get_json()
    assert spectator["viewer"] is None and organizer == spectator
    for seat, token in enumerate(game.tokens):
        assert game.get("", token).get_json()["viewer"] == seat
    for path in READS:
        public = game.get(path).get_data()
        assert game.get(path, ORGANIZER).get_data() == public, path
        for token in game.tokens:
            assert game.get(path, token).status_code == 200, path
    assert all("hash" not in e for e in game.get("/events", ORGANIZER).get_json()["events"])


def test_only_a_seat_token_gets_legal_actions_or_acts(new_game: NewGame) -> None:
    game = new_game()
    assert game.get("/legal-actions").status_code == 401
    assert game.get("/legal-actions", ORGANIZER).get_json()["error"]["code"] == "not_a_seat"
    action = {"action": {"type": "retire"}, "expected_version": 1, "command_id": "c"}
    url = f"/v1/games/{game.id}/actions"
    spectator = game.client.post(url, json=action)
    assert (spectator.status_code, spectator.get_json()["error"]["code"]) == (401, "missing_token")
    organizer = game.client.post(url, json=action, headers=bearer(ORGANIZER))
    assert (organizer.status_code, organizer.get_json()["error"]["code"]) == (403, "not_a_seat")
    assert game.view()["version"] == 1


def test_before_the_end_only_the_organizer_exports_and_nobody_sees_the_seed(
    client: FlaskClient, new_game: NewGame
) -> None:
    seed = bytes(range(32)).hex()
    body = {"game": "arktia", "players": [{"name": "a"}, {"name": "b"}], "seed": seed}
    created = client.post("/v1/games", json=body, headers=bearer(ORGANIZER)).get_json()
    game = Game(client, created["id"], [s["token"] for s in created["seats"]])
    for token in [None, ORGANIZER, *game.tokens]:
        view = game.get("", token).get_json()
        assert view["seed"] is None, token
        events = game.get("/events", token).get_json()["events"]
        assert seed not in json.dumps(events)
    assert game.get("/export").status_code == 401
    assert game.get("/export", game.tokens[0]).get_json()["error"]["code"] == "organizer_only"
    export = game.get("/export", ORGANIZER).get_data(as_text=True)
    assert json.loads(export.splitlines()[0])["hash"]
