"""Hostile input: every one is a clear 4xx with a stable code in the standard error JSON.

Oversized and deeply nested bodies, absurd numbers, awkward unicode, wrong content types,
wrong methods and unknown routes — never a 500, and a refused request writes nothing: no
half-created game is left in Redis, no event is appended to a running game.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.api.app import create_app
from service.settings import Settings
from tests.support.api import ORGANIZER, Game, bearer
from tests.support.limited_app import written_keys

NewGame = Callable[..., Game]
JSON = {"Content-Type": "application/json"}
PLAYERS = [{"name": "Ada"}, {"name": "Bo"}]
CREATE = {"game": "arktia", "players": PLAYERS}


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    """Assert the standard error JSON, exactly ``{"error": {"code", "message"}}``."""
    assert response.status_code == status, (response.status_code, response.get_data()[:300])
    assert response.mimetype == "application/json"
    body: dict[str, Any] = json.loads(response.get_data())
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body


def game_keys(redis_client: redis.Redis) -> set[bytes]:
    """Every key a request wrote (not the rate limiter's, nor a process's liveness)."""
    return written_keys(redis_client)


def action_body(**overrides: Any) -> dict[str, Any]:
    return {
        "action": {"type": "place", "size": "T", "tile": [0, 0]},
        "expected_version": 1,
        "command_id": "c1",
        **overrides,
    }


# ----- oversized and deeply nested bodies ----------------------------------------------------


def test_a_body_over_64_kib_is_413_on_both_post_routes(
    client: FlaskClient, new_game: NewGame, redis_client: redis.Redis
) -> None:
    padded = {**CREATE, "players": [{"name": "Ada"}, {"name": "x" * (64 * 1024)}]}
    refused(client.post("/v1/games", json=padded), 413, "body_too_large")
    assert game_keys(redis_client) == set()
    game = new_game()
    huge = json.dumps(action_body(command_id="y" * (64 * 1024 + 1)))
    response = client.post(
        f"/v1/games/{game.id}/actions", data=huge, headers={**bearer(game.tokens[0]), **JSON}
    )
    refused(response, 413, "body_too_large")
    assert game.view()["version"] == 1


def test_just_under_the_limit_is_read_and_judged(client: FlaskClient) -> None:
    body = json.dumps({**CREATE, "pad": "x" * (60 * 1024)})
    assert len(body) < 64 * 1024
    refused(client.post("/v1/games", data=body, headers=JSON), 400, "invalid_body")


def test_100k_nested_arrays_are_refused_never_a_recursion_error(
    redis_url: str, client: FlaskClient, redis_client: redis.Redis
) -> None:
    nested = "[" * 100_000 + "]" * 100_000
    refused(client.post("/v1/games", data=nested, headers=JSON), 413, "body_too_large")
    # With the size limit out of the way the parser itself must refuse it cleanly.
    roomy: Flask = create_app(Settings(redis_url=redis_url, max_body_bytes=1024 * 1024))
    response = roomy.test_client().post("/v1/games", data=nested, headers=JSON)
    refused(response, 400, "malformed_json")
    nested_object = '{"a":' * 100_000 + "1" + "}" * 100_000
    response = roomy.test_client().post("/v1/games", data=nested_object, headers=JSON)
    refused(response, 400, "malformed_json")
    assert game_keys(redis_client) == set()


@pytest.mark.parametrize("depth", [33, 200, 30_000])
def test_nesting_deeper_than_32_is_malformed_json(
    client: FlaskClient, new_game: NewGame, depth: int
) -> None:
    deep = "[" * depth + "]" * depth
    refused(client.post("/v1/games", data=deep, headers=JSON), 400, "malformed_json")
    game = new_game()
    body = '{"action": {"type": "place", "size": "T", "tile": %s}, "expected_version": 1, "command_id": "c"}'
    response = client.post(
        f"/v1/games/{game.id}/actions",
        data=body % deep,
        headers={**bearer(game.tokens[0]), **JSON},
    )
    refused(response, 400, "malformed_json")
    # 32 levels in all (body, options, board, 29 lists) still reach the option's own check
    options = json.dumps({**CREATE, "options": {"board": json.loads("[" * 30 + "]" * 30)}})
    refused(client.post("/v1/games", data=options, headers=JSON), 400, "invalid_option")
    assert game.view()["version"] == 1


# ----- numbers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw_version", "code"),
    [
        ("1" + "0" * 400, "invalid_body"),  # 10**400: parsed, out of range
        ("1e400", "invalid_body"),  # a float (infinite), not an integer
        ("-1" + "0" * 400, "invalid_body"),
        ("1" + "0" * 5000, "malformed_json"),  # past Python's 4300-digit conversion limit
        ("NaN", "malformed_json"),  # not JSON at all
        ("Infinity", "malformed_json"),
        ("-Infinity", "malformed_json"),
    ],
)
def test_absurd_numbers_as_expected_version(new_game: NewGame, raw_version: str, code: str) -> None:
    game = new_game()
    raw = (
        '{"action": {"type": "place", "size": "T", "tile": [0, 0]}, '
        f'"expected_version": {raw_version}, "command_id": "c"}}'
    )
    response = game.client.post(
        f"/v1/games/{game.id}/actions", data=raw, headers={**bearer(game.tokens[0]), **JSON}
    )
    refused(response, 400, code)
    assert game.view()["version"] == 1


@pytest.mark.parametrize(
    "tile", ["[1" + "0" * 400 + ", 0]", "[1e400, 0]", "[1e308, 0]", "[NaN, 0]"]
)
def test_absurd_numbers_in_action_fields(new_game: NewGame, tile: str) -> None:
    game = new_game()
    raw = (
        '{"action": {"type": "place", "size": "T", "tile": TILE}, '
        '"expected_version": 1, "command_id": "c"}'
    ).replace("TILE", tile)
    response = game.client.post(
        f"/v1/games/{game.id}/actions", data=raw, headers={**bearer(game.tokens[0]), **JSON}
    )
    refused(response, 400, "malformed_json" if "NaN" in tile else "invalid_field")
    assert game.view()["version"] == 1


@pytest.mark.parametrize(
    "options",
    [
        '{"turn_limit": 1' + "0" * 400 + "}",
        '{"turn_limit": 1e400}',
        '{"board": [[1e400, 0], [0, 0]]}',
        '{"neutrals_3p": 1e400}',
    ],
)
def test_absurd_numbers_in_options_leave_no_game(
    client: FlaskClient, redis_client: redis.Redis, options: str
) -> None:
    raw = '{"game": "arktia", "players": [{"name": "a"}, {"name": "b"}], "options": OPTIONS}'
    raw = raw.replace("OPTIONS", options)
    refused(client.post("/v1/games", data=raw, headers=JSON), 400, "invalid_option")
    assert game_keys(redis_client) == set()


# ----- unicode -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["🧊🐧", "مرحبا", "שלום", "e\u0301", "🐧" * 64, "a" * 64],
    ids=["emoji", "arabic", "hebrew", "combining", "64-emoji", "64-ascii"],
)
def test_unicode_names_are_kept_exactly(client: FlaskClient, name: str) -> None:
    created = client.post("/v1/games", json={**CREATE, "players": [{"name": name}, PLAYERS[1]]})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    view = client.get(f"/v1/games/{game_id}").get_json()
    assert view["seats"][0]["name"] == name
    event = client.get(f"/v1/games/{game_id}/events").get_json()["events"][0]
    assert event["data"]["seats"][0]["name"] == name
    assert client.get(f"/v1/games/{game_id}/board.svg").status_code == 200


@pytest.mark.parametrize(
    ("raw_name", "code"),
    [
        ('"a\\u0000b"', "invalid_body"),  # NUL
        ('"line\\nbreak"', "invalid_body"),  # other control characters
        ('"\\u0007"', "invalid_body"),
        ('"\\u202eRTL\\u202c"', "invalid_body"),  # a bidi override (test_input_hygiene.py)
        ('"\\ud800"', "malformed_json"),  # lone high surrogate: no UTF-8 can hold it
        ('"x\\udfff"', "malformed_json"),  # lone low surrogate
        ('"' + "a" * 65 + '"', "invalid_body"),  # too long
        ('"' + "🐧" * 65 + '"', "invalid_body"),
        ('""', "invalid_body"),
        ("null", "invalid_body"),
        ("12", "invalid_body"),
    ],
)
def test_bad_names_are_refused_and_leave_no_game(
    client: FlaskClient, redis_client: redis.Redis, raw_name: str, code: str
) -> None:
    raw = '{"game": "arktia", "players": [{"name": NAME}, {"name": "b"}]}'.replace("NAME", raw_name)
    refused(client.post("/v1/games", data=raw.encode("utf-8"), headers=JSON), 400, code)
    assert game_keys(redis_client) == set()


@pytest.mark.parametrize("field", ["command_id", "action_type", "action_field", "key"])
def test_lone_surrogates_anywhere_in_an_action_are_malformed(new_game: NewGame, field: str) -> None:
    game = new_game()
    raw = {
        "command_id": '{"action": {"type": "retire"}, "expected_version": 1, "command_id": "\\ud800"}',
        "action_type": '{"action": {"type": "\\ud800"}, "expected_version": 1, "command_id": "c"}',
        "action_field": '{"action": {"type": "place", "size": "\\udc00", "tile": [0, 0]}, "expected_version": 1, "command_id": "c"}',
        "key": '{"action": {"type": "retire", "\\ud800": 1}, "expected_version": 1, "command_id": "c"}',
    }[field]
    response = game.client.post(
        f"/v1/games/{game.id}/actions", data=raw, headers={**bearer(game.tokens[0]), **JSON}
    )
    refused(response, 400, "malformed_json")
    assert game.view()["version"] == 1


def test_a_unicode_command_id_is_idempotent(new_game: NewGame) -> None:
    game = new_game()
    command_id = "🧊-\u202e-ü"
    first = game.post(0, {"type": "place", "size": "T", "tile": [0, 0]}, 1, command_id)
    assert first.status_code == 201, first.get_json()
    again = game.post(0, {"type": "place", "size": "T", "tile": [0, 0]}, 1, command_id)
    assert (again.status_code, again.get_json()) == (201, first.get_json())
    assert game.view()["version"] == 2


# ----- content types and bodies --------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "data", "status", "code"),
    [
        ({"Content-Type": "text/plain"}, json.dumps(CREATE), 415, "unsupported_media_type"),
        (
            {"Content-Type": "application/x-www-form-urlencoded"},
            "game=arktia&players=Ada",
            415,
            "unsupported_media_type",
        ),
        (
            {"Content-Type": "multipart/form-data; boundary=b"},
            '--b\r\nContent-Disposition: form-data; name="game"\r\n\r\narktia\r\n--b--\r\n',
            415,
            "unsupported_media_type",
        ),
        ({"Content-Type": "application/xml"}, "<game/>", 415, "unsupported_media_type"),
        (JSON, "", 400, "malformed_json"),  # no body
        (JSON, "   \n", 400, "malformed_json"),
        ({}, "", 400, "malformed_json"),  # no body, no content type
        (JSON, b"\xff\xfe\xfa{", 400, "malformed_json"),  # invalid UTF-8
        (JSON, b'{"game": "arktia\xc3", "players": []}', 400, "malformed_json"),
        (JSON, '{"game": "arktia",}', 400, "malformed_json"),
        (JSON, "[]", 400, "invalid_body"),
        (JSON, '"arktia"', 400, "invalid_body"),
    ],
)
def test_wrong_content_types_and_bodies_on_create(
    client: FlaskClient,
    redis_client: redis.Redis,
    headers: dict[str, str],
    data: str | bytes,
    status: int,
    code: str,
) -> None:
    refused(client.post("/v1/games", data=data, headers=headers), status, code)
    assert game_keys(redis_client) == set()


def test_json_content_types_are_accepted(client: FlaskClient) -> None:
    for content_type in [
        "application/json",
        "application/json; charset=utf-8",
        "application/merge-patch+json",
    ]:
        response = client.post(
            "/v1/games", data=json.dumps(CREATE), headers={"Content-Type": content_type}
        )
        assert response.status_code == 201, (content_type, response.get_json())
    # no Content-Type at all: refused, as a browser may send that cross-site without asking
    answer = client.post("/v1/games", data=json.dumps(CREATE))
    refused(answer, 415, "unsupported_media_type")


def test_wrong_content_types_on_an_action_write_nothing(new_game: NewGame) -> None:
    game = new_game()
    url = f"/v1/games/{game.id}/actions"
    good = json.dumps(action_body())
    token = bearer(game.tokens[0])
    for content_type in ["text/plain", "application/x-www-form-urlencoded", "text/html"]:
        response = game.client.post(url, data=good, headers={**token, "Content-Type": content_type})
        refused(response, 415, "unsupported_media_type")
    response = game.client.post(url, data={"action": "x"}, headers=token)  # real multipart
    refused(response, 415, "unsupported_media_type")
    refused(game.client.post(url, headers=token), 400, "malformed_json")
    refused(
        game.client.post(url, data=b"\xc3\x28", headers={**token, **JSON}), 400, "malformed_json"
    )
    # the order of docs/reference/errors.md holds: 401 and 404 come before any look at the body
    refused(
        game.client.post(url, data="x", headers={"Content-Type": "text/plain"}),
        401,
        "missing_token",
    )
    refused(
        game.client.post(
            "/v1/games/nope/actions", data="x", headers={**token, "Content-Type": "text/plain"}
        ),
        404,
        "game_not_found",
    )
    assert game.view()["version"] == 1
    assert game.post(0, {"type": "place", "size": "T", "tile": [0, 0]}).status_code == 201


# ----- methods, routes, queries, headers -----------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/v1/games", {"GET", "POST"}),
        ("DELETE", "/v1/games", {"GET", "POST"}),
        ("PATCH", "/v1/games/{id}", {"GET"}),
        ("DELETE", "/v1/games/{id}", {"GET"}),
        ("POST", "/v1/games/{id}/state", {"GET"}),
        ("GET", "/v1/games/{id}/actions", {"POST"}),
        ("PUT", "/v1/games/{id}/actions", {"POST"}),
        ("POST", "/v1/games/{id}/export", {"GET"}),
        ("POST", "/v1/health", {"GET"}),
        ("PUT", "/v1/tournaments", {"GET", "POST"}),
        ("GET", "/v1/tournaments/{id}/rounds", {"POST"}),
        ("PUT", "/v1/tournaments/{id}/decisions", {"POST"}),
        ("POST", "/v1/tournaments/{id}/me", {"GET"}),
        ("DELETE", "/v1/tournaments/{id}/players/0/token", {"POST"}),
        ("DELETE", "/v1/tournaments/{id}", {"GET"}),
        ("POST", "/v1/tournaments/{id}/stream", {"GET"}),
        ("PUT", "/v1/tournaments/{id}/export", {"GET"}),
    ],
)
def test_wrong_methods_are_405_json_with_allow(
    new_game: NewGame, method: str, path: str, allowed: set[str]
) -> None:
    game = new_game()
    response = game.client.open(path.replace("{id}", game.id), method=method, json={})
    refused(response, 405, "method_not_allowed")
    assert allowed <= {m.strip() for m in response.headers["Allow"].split(",")}
    assert game.view()["version"] == 1


@pytest.mark.parametrize(
    "path",
    [
        "/nope",
        "/v1",
        "/v1/",
        "/v1/nope",
        "/v2/games",
        "/v1/games/x/y/z",
        "/v1/games/{id}/nope",
        "/v1/health/",
        "/v1/%F0%9F%A7%8A",
        "/v1/games/{id}/actions/x",
        "/v1/tournaments/{id}/nope",
        "/v1/tournaments/{id}/stream/x",
    ],
)
def test_unknown_routes_are_404_json(new_game: NewGame, path: str) -> None:
    game = new_game()
    for method in ["GET", "POST", "DELETE"]:
        response = game.client.open(path.replace("{id}", game.id), method=method)
        refused(response, 404, "not_found")


@pytest.mark.parametrize("game_id", ["%00", "..", "%F0%9F%A7%8A", "x" * 300, "a.b", "%20"])
def test_odd_game_ids_are_404_game_not_found(client: FlaskClient, game_id: str) -> None:
    for suffix in ["", "/state?version=1", "/events", "/export", "/board.svg", "/events/stream"]:
        refused(client.get(f"/v1/games/{game_id}{suffix}"), 404, "game_not_found")


@pytest.mark.parametrize(
    "query",
    ["?limit=²", "?limit=١٠", "?offset=-1", "?limit=1e3", "?limit=" + "9" * 5000, "?offset=%00"],
)
def test_odd_query_values_are_invalid_query(client: FlaskClient, query: str) -> None:
    refused(client.get(f"/v1/games{query}"), 400, "invalid_query")


def test_odd_wait_values_are_invalid_query(new_game: NewGame, client: FlaskClient) -> None:
    game = new_game()
    for wait in ["-1", "31", "1.5", "²", "9" * 100, ""]:
        refused(client.post(f"/v1/games?wait={wait}", json=CREATE), 400, "invalid_query")
        response = client.post(
            f"/v1/games/{game.id}/actions?wait={wait}",
            json=action_body(),
            headers=bearer(game.tokens[0]),
        )
        refused(response, 400, "invalid_query")
    assert game.view()["version"] == 1


def test_a_huge_last_event_id_is_invalid_query(new_game: NewGame) -> None:
    game = new_game()
    url = f"/v1/games/{game.id}/events/stream"
    for last in ["9" * 30, str(2**53 + 1), "abc", "", "-1", "1.5"]:
        refused(game.client.get(url, headers={"Last-Event-ID": last}), 400, "invalid_query")
    refused(game.client.get(f"{url}?after=²"), 400, "invalid_query")


def test_a_number_with_a_zero_fraction_is_the_integer_it_is(new_game: NewGame) -> None:
    """JSON (and the JSON Schema the spec is written in) has one kind of number: 164.0 is the
    integer 164 wherever an integer is asked for, and is recorded as 164; 1.5 is no integer."""
    game = new_game()
    action = game.legal(0)["actions"][0]
    body = {"action": action, "expected_version": 1.0, "command_id": "zero-fraction"}
    headers = bearer(game.tokens[0])
    refused(
        game.client.post(
            f"/v1/games/{game.id}/actions", json={**body, "expected_version": 1.5}, headers=headers
        ),
        400,
        "invalid_body",
    )
    accepted = game.client.post(f"/v1/games/{game.id}/actions", json=body, headers=headers)
    assert accepted.status_code == 201, accepted.get_json()
    [event] = accepted.get_json()["events"]
    assert event["version"] == 2 and event["data"] == {"action": action}
    again = game.client.post(
        f"/v1/games/{game.id}/actions", json={**body, "expected_version": 1}, headers=headers
    )
    assert again.get_json() == accepted.get_json(), "one request, whichever way 1 is written"
    events = game.get("/events?after=1.0").get_json()["events"]
    assert [e["version"] for e in events] == [2]


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "bearer x.0.y",
        "Bearer \u00e9t\u00e9",
        "Bearer a.99.b",
        "Bearer " + "x" * 4000,
        "Bearer ../../..",
        "Bearer a.b.c.d",
    ],
)
def test_odd_authorization_headers_are_401(new_game: NewGame, authorization: str) -> None:
    game = new_game()
    response = game.client.get(f"/v1/games/{game.id}", headers={"Authorization": authorization})
    body = refused(response, 401, response.get_json()["error"]["code"])
    assert body["error"]["code"] in {"invalid_authorization", "unknown_token"}
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_an_organizer_lookalike_is_not_the_organizer(client: FlaskClient) -> None:
    seed = bytes(range(32)).hex()
    for token in [ORGANIZER[:-1], ORGANIZER.upper(), ORGANIZER + "\u00e9"]:
        response = client.post(
            "/v1/games", json={**CREATE, "seed": seed}, headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code in {401, 403}, (token, response.get_json())
        assert response.get_json()["error"]["code"] in {"unknown_token", "organizer_only"}


def test_every_refused_create_leaves_no_trace_of_a_game(
    client: FlaskClient, new_game: NewGame, redis_client: redis.Redis
) -> None:
    seat_token = new_game().tokens[0]
    before = game_keys(redis_client)
    seed = bytes(range(32)).hex()
    cases: list[tuple[dict[str, Any], dict[str, str], int, str]] = [
        ({**CREATE, "players": PLAYERS[:1]}, {}, 400, "player_count"),
        ({**CREATE, "players": [{"name": f"p{i}"} for i in range(5)]}, {}, 400, "player_count"),
        ({"game": "iceberg", "players": PLAYERS * 3}, {}, 400, "player_count"),
        ({**CREATE, "options": {"dice": 2}}, {}, 400, "unknown_option"),
        ({**CREATE, "options": {"turn_limit": 0}}, {}, 400, "invalid_option"),
        (
            {"game": "ice-breakers", "players": PLAYERS, "options": {"map": "moon"}},
            {},
            400,
            "invalid_option",
        ),
        (
            {**CREATE, "players": [{"name": "a", "bot": "grandmaster"}, PLAYERS[1]]},
            {},
            400,
            "invalid_body",
        ),
        ({**CREATE, "seed": "zz" * 32}, bearer(ORGANIZER), 400, "invalid_body"),
        ({**CREATE, "seed": seed}, {}, 401, "missing_token"),
        ({**CREATE, "seed": seed}, bearer(seat_token), 403, "organizer_only"),
        ({**CREATE, "seed": seed}, bearer("forged.0.token"), 401, "unknown_token"),
    ]
    for body, headers, status, code in cases:
        refused(client.post("/v1/games", json=body, headers=headers), status, code)
    assert game_keys(redis_client) == before
    assert len(client.get("/v1/games").get_json()["games"]) == 1


def test_a_wait_longer_than_the_socket_timeout_is_not_a_503(redis_url: str) -> None:
    """Found by fuzzing: ``?wait=24`` blocked one XREAD past redis-py's 5 s socket timeout
    and the answer was 503. The store now blocks in slices below the client's timeout; here a
    0.4 s timeout and a 1 s wait (no worker runs, so the whole second is waited out)."""
    client = redis.Redis.from_url(redis_url, socket_timeout=0.4)
    app = create_app(Settings(redis_url=redis_url), redis_client=client)
    iceberg = {"game": "iceberg", "players": PLAYERS}
    response = app.test_client().post("/v1/games?wait=1", json=iceberg)
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["status"] == "awaiting_random"
    client.close()


# ----- tournaments ---------------------------------------------------------------------------

#: Two players meet once: one round (a second would repeat their table, refused).
TOURNAMENT = {"game": "arktia", "format": "swiss", "rounds": 1, "players": PLAYERS}


def tournament(**changes: Any) -> str:
    return json.dumps({**TOURNAMENT, **changes})


def rounds_as(raw: str) -> str:
    """The tournament with ``rounds`` written as ``raw`` (JSON no encoder would write)."""
    return tournament().replace('"rounds": 1', f'"rounds": {raw}')


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        (tournament(pad="x" * (64 * 1024)), 413, "body_too_large"),
        ("", 400, "malformed_json"),
        ('{"game": "arktia",}', 400, "malformed_json"),
        (tournament(options=json.loads("[" * 40 + "]" * 40)), 400, "malformed_json"),
        (tournament().replace('"Ada"', '"\\ud800"'), 400, "malformed_json"),
        (rounds_as("NaN"), 400, "malformed_json"),
        (rounds_as("1" + "0" * 5000), 400, "malformed_json"),
        (rounds_as("1e400"), 400, "invalid_body"),
        (rounds_as("1" + "0" * 400), 400, "invalid_body"),
        (tournament(table_size=2**64), 400, "invalid_body"),
        (tournament(table_size=2.5), 400, "invalid_body"),  # 2.0 is the integer 2, as in JSON
        (tournament(rounds=True), 400, "invalid_body"),
        (tournament(players=[{"name": "a\u0000b"}, PLAYERS[1]]), 400, "invalid_body"),
        (tournament(players=[{"name": "a" * 65}, PLAYERS[1]]), 400, "invalid_body"),
        (tournament(players=[{"name": f"p{i}"} for i in range(100)]), 400, "invalid_body"),
        ("[]", 400, "invalid_body"),
        (tournament(players=PLAYERS * 2), 400, "invalid_tournament"),
        (
            tournament(rounds=99, players=[{"name": f"p{i}"} for i in range(99)]),
            400,
            "invalid_tournament",
        ),
        (tournament(options={"turn_limit": 1e300}), 400, "invalid_option"),
    ],
)
def test_hostile_tournament_bodies_are_refused_and_leave_no_trace(
    client: FlaskClient, redis_client: redis.Redis, raw: str, status: int, code: str
) -> None:
    headers = {**JSON, **bearer(ORGANIZER)}
    response = client.post("/v1/tournaments", data=raw.encode("utf-8"), headers=headers)
    refused(response, status, code)
    if status != 413:  # the size is checked first
        plain = {"Content-Type": "text/plain", **bearer(ORGANIZER)}
        answer = client.post("/v1/tournaments", data=raw, headers=plain)
        refused(answer, 415, "unsupported_media_type")
    assert game_keys(redis_client) == set(), "no tournament, no game, not in part"


@pytest.mark.parametrize(
    "tournament_id", ["%00", "..", "%F0%9F%A7%8A", "x" * 300, "a.b", "%20", "0123456789ABCDEF"]
)
def test_odd_tournament_ids_are_404_tournament_not_found(
    client: FlaskClient, tournament_id: str
) -> None:
    for suffix in ["", "/stream", "/export"]:
        response = client.get(f"/v1/tournaments/{tournament_id}{suffix}", headers=bearer(ORGANIZER))
        refused(response, 404, "tournament_not_found")


def test_odd_last_event_ids_and_tokens_on_a_tournament(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    created = client.post("/v1/tournaments", json=TOURNAMENT, headers=bearer(ORGANIZER))
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    url = f"/v1/tournaments/{body['id']}"
    for last in ["x", "-1", "1.5", "²", "9" * 16, "0x1"]:
        refused(client.get(f"{url}/stream", headers={"Last-Event-ID": last}), 400, "invalid_query")
    for authorization in [
        "Bearer",
        "Basic dXNlcjpwYXNz",
        f"Bearer {body['id']}.9.x",
        "Bearer a.b.c.d",
    ]:
        headers = {"Authorization": authorization}
        for response in (
            client.get(url, headers=headers),
            client.post("/v1/tournaments", json=TOURNAMENT, headers=headers),
        ):
            error = refused(response, 401, response.get_json()["error"]["code"])["error"]
            assert error["code"] in {"invalid_authorization", "unknown_token"}
    # a forged secret for a real person is nobody; the real token is a person, not the organizer
    token = body["players"][0]["token"]
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")
    refused(client.get(url, headers=bearer(forged)), 401, "unknown_token")
    refused(
        client.post("/v1/tournaments", json=TOURNAMENT, headers=bearer(token)),
        403,
        "organizer_only",
    )
    refused(client.get(f"{url}/export", headers=bearer(token)), 403, "organizer_only")
    assert redis_client.zcard("floe:tournaments") == 1, "only the one created"
