"""No input gives a 500: random bodies, fields, tokens and query strings on every route; and
no tournament body, however broken, leaves half a tournament behind."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import redis
from flask.testing import FlaskClient

from service.api.app import create_app
from service.settings import Settings
from tests.support.api import ORGANIZER, Game, bearer

JSON = {"Content-Type": "application/json"}

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
                f"/v1/games/{game.id}/actions",
                data=json.dumps(random_json(rng)),
                headers={**headers, **JSON},
            )
        elif kind == 2:
            response = client.post(
                "/v1/games", data=json.dumps(random_json(rng)), headers={**headers, **JSON}
            )
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


# ----- tournaments ---------------------------------------------------------------------------

TOURNAMENT_FIELDS: dict[str, list[Any]] = {
    "game": ["arktia", "iceberg", "ice-breakers", "chess", None, 1],
    "format": ["swiss", "round_robin", "knockout", None, ["swiss"]],
    "table_size": [2, 3, 4, 1, 5, True, "2", None, 2.0, 2**70],
    "rounds": [1, 2, 3, 99, 0, -1, 100, None, "2", 1.5, 2**70],
    "options": [{}, {"turn_limit": 5}, {"idle_turn_limit": 3}, {"turn_limit": 0}, {"dice": 1}, []],
}
NAMES = ["Ada", "Bo", "Cy", "Di", "Ed", "", "\u0000", "x" * 65, "🧊", None, 7]
BOT_KINDS = [None, "random", "greedy", "mcts", "strong", 1]


def random_tournament(rng: random.Random) -> Any:
    """A tournament body: mostly the right fields with right or wrong values, often one
    that can be run, sometimes any JSON at all."""
    if rng.random() < 0.1:
        return random_json(rng)
    body: dict[str, Any] = {"game": "arktia", "format": "swiss", "rounds": 2}
    odds = rng.choice([0.1, 0.4])  # one field changed now and then, or many
    for key, values in TOURNAMENT_FIELDS.items():
        roll = rng.random() / odds
        if roll < 0.8:
            body[key] = rng.choice(values)
        elif roll < 0.9:
            body.pop(key, None)
        elif roll < 1:
            body[key] = random_json(rng, 2)
    players = []
    for number in range(rng.choice([0, 1, 2, 2, 3, 3, 4, 4, 5, 6])):
        name = f"p{number}" if rng.random() < 0.9 else rng.choice(NAMES)
        player: dict[str, Any] = {"name": name}
        if rng.random() < 0.5:
            player["bot"] = rng.choice(BOT_KINDS[:4] if rng.random() < 0.9 else BOT_KINDS)
        if rng.random() < 0.05:
            player[rng.choice(KEYS)] = random_json(rng, 3)
        players.append(player)
    body["players"] = players if rng.random() < 0.95 else random_json(rng, 1)
    if rng.random() < 0.05:
        body[rng.choice(KEYS)] = random_json(rng, 1)
    return body


def tournament_records(redis_client: redis.Redis) -> int:
    return sum(1 for _ in redis_client.scan_iter("floe:tournament:*", count=1000))


def assert_whole(client: FlaskClient, tournament_id: str) -> None:
    """The tournament is all there: readable, its seeds committed, round 1's games made."""
    document = client.get(f"/v1/tournaments/{tournament_id}").get_json()
    tables = len(document["players"]) // document["table_size"]
    assert len(document["seed_commitments"]) == document["planned_rounds"] * tables
    [first] = document["rounds"]
    assert len(first["games"]) == tables
    for game in first["games"]:
        assert game["status"] != "pending", document
        assert client.get(f"/v1/games/{game['game_id']}").status_code == 200


def test_random_tournament_requests_never_get_a_server_error_nor_leave_half_of_one(
    redis_url: str, redis_client: redis.Redis
) -> None:
    settings = Settings(
        redis_url=redis_url,
        organizer_token=ORGANIZER,
        sse_max_seconds=0.05,
        sse_heartbeat_seconds=0.05,
    )
    client = create_app(settings).test_client()
    rng = random.Random(2615)
    made: list[str] = []
    person = "0123456789abcdef.0.x"
    statuses: set[int] = set()
    for _ in range(400):
        if rng.random() < 0.7:
            token = rng.choice([ORGANIZER, ORGANIZER, ORGANIZER, None, "garbage", person])
            headers = bearer(token) if token is not None else {}
            before = tournament_records(redis_client)
            response = client.post(
                "/v1/tournaments",
                data=json.dumps(random_tournament(rng)),
                headers={**headers, **JSON},
            )
            if response.status_code == 201:
                created = response.get_json()
                made.append(created["id"])
                person = next((p["token"] for p in created["players"] if p["token"]), person)
                assert_whole(client, created["id"])
            else:
                assert tournament_records(redis_client) == before, response.get_json()
        else:
            target = rng.choice([*made[-3:], "nope", "..", "%00", "a" * 300, "0123456789abcdef"])
            path = rng.choice(["", "/stream", "/export", "/nope"])
            last = rng.choice([None, "", "x", "0", "1", "9" * 20, "-1", "²"])
            token = rng.choice([None, ORGANIZER, person, "garbage", "a.b.c"])
            headers = bearer(token) if token is not None else {}
            if last is not None:
                headers["Last-Event-ID"] = last
            response = client.get(f"/v1/tournaments/{target}{path}", headers=headers)
        statuses.add(response.status_code)
        assert response.status_code < 500, (response.status_code, response.get_data()[:300])
        kinds = {"application/json", "application/x-ndjson", "text/event-stream"}
        assert response.mimetype in kinds, response.mimetype
    assert {200, 201, 400, 401, 403, 404} <= statuses, statuses
    assert len(made) >= 10, "few bodies could be run: the mix is off"
    assert tournament_records(redis_client) == len(made)
    for tournament_id in made:
        assert_whole(client, tournament_id)
