"""No input gives a 500: random bodies, fields, tokens and query strings on every route."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from flask.testing import FlaskClient

from tests.e2e.conftest import Game, bearer

NewGame = Callable[..., Game]

ATOMS: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2**70,
    -(2**70),
    1.5,
    float("1e308"),
    "",
    "x",
    "\u202e\u0000",
    "G",
    "D",
    "T",
    "all",
    "neutral",
    "place",
    "move",
    "retire",
    "melt",
    "keep_group",
    "arktia",
    [0, 0],
    [1, -1],
    [0],
    [0, 0, 0],
    ["0", "0"],
    [True, False],
    [],
    {},
]
KEYS = [
    "type",
    "size",
    "tile",
    "from",
    "to",
    "unit",
    "colour",
    "action",
    "expected_version",
    "command_id",
    "game",
    "players",
    "name",
    "bot",
    "options",
    "seed",
    "board",
    "turn_limit",
    "neutrals_3p",
    "\u00e9",
]


def random_json(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.5:
        return rng.choice(ATOMS)
    if roll < 0.75:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(KEYS): random_json(rng, depth + 1) for _ in range(rng.randrange(5))}


def random_action(rng: random.Random) -> dict[str, Any]:
    action = {"type": rng.choice(["place", "move", "retire", "melt", "keep_group", "x"])}
    for key in rng.sample(KEYS[:7], rng.randrange(5)):
        action[key] = random_json(rng, 2)
    return action


def test_random_requests_never_get_a_server_error(client: FlaskClient, new_game: NewGame) -> None:
    rng = random.Random(2026)
    game = new_game()
    tokens = [None, "", "garbage", game.tokens[0], game.tokens[1], f"{game.id}.9.x", "a.b.c"]
    statuses: set[int] = set()
    for _ in range(600):
        token = rng.choice(tokens)
        headers = bearer(token) if token is not None else {}
        kind = rng.randrange(5)
        if kind == 0:
            body = {
                "action": random_action(rng),
                "expected_version": rng.choice([1, 2, 0, -1, "1", None, 2**64]),
                "command_id": rng.choice(["c", "", 5, None, "x" * 200]),
            }
            response = client.post(f"/v1/games/{game.id}/actions", json=body, headers=headers)
        elif kind == 1:
            response = client.post(
                f"/v1/games/{game.id}/actions", data=json.dumps(random_json(rng)), headers=headers
            )
        elif kind == 2:
            response = client.post("/v1/games", data=json.dumps(random_json(rng)), headers=headers)
        elif kind == 3:
            path = rng.choice(["", "/state", "/events", "/legal-actions", "/export"])
            query = rng.choice(
                [
                    "",
                    "?version=1",
                    "?version=-3",
                    "?after=x",
                    "?limit=99999999",
                    "?version=99999999999999999999",
                    "?after=1&limit=2",
                ]
            )
            target = rng.choice([game.id, "nope", "..", "%00", "a" * 300])
            response = client.get(f"/v1/games/{target}{path}{query}", headers=headers)
        else:
            response = client.get(
                rng.choice(["/v1/games", "/v1/games?limit=0", "/v1/games?offset=-1", "/v1/health"]),
                headers=headers,
            )
        statuses.add(response.status_code)
        assert response.status_code < 500, (response.status_code, response.get_data()[:300])
        assert response.is_json or response.mimetype == "application/x-ndjson"
    assert {200, 400, 401, 404} <= statuses
