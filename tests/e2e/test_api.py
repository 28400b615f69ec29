"""The JSON API end to end on a real Redis: every status docs/reference/errors.md names, and their order."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.engine.log import GENESIS_HASH, event_hash
from service.api.app import create_app
from service.settings import Settings
from service.store.events import commands_key, events_key
from tests.support.api import ORGANIZER, Game, bearer

NewGame = Callable[..., Game]


def error_code(response: Any) -> str:
    body = response.get_json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    return str(body["error"]["code"])


def first_place(game: Game) -> dict[str, Any]:
    return dict(game.legal(0)["actions"][0])


# ----- creating ----------------------------------------------------------------------------


def test_create_returns_seats_with_tokens_and_a_seed_commitment(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    response = client.post(
        "/v1/games", json={"game": "arktia", "players": [{"name": "Ann"}, {"name": "Bo"}]}
    )
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"] == f"/v1/games/{body['id']}"
    assert body["version"] == 1 and body["game"] == "arktia"
    assert [s["name"] for s in body["seats"]] == ["Ann", "Bo"]
    tokens = [s["token"] for s in body["seats"]]
    assert len(set(tokens)) == 2 and all(len(t) > 40 for t in tokens)
    assert len(body["seed_commitment"]) == 64
    entries: Any = redis_client.xrange(events_key(body["id"]))
    raw = b"".join(v for _, fields in entries for v in fields.values())
    assert not any(t.encode() in raw for t in tokens), "tokens never reach the log"
    first = client.get(f"/v1/games/{body['id']}/events").get_json()["events"][0]
    assert first["type"] == "game_created" and first["actor"] == "system"
    assert first["data"] == {
        "game": "arktia",
        "rules_version": "1",
        "options": {},
        "seats": [
            {"seat": 0, "name": "Ann", "bot": None},
            {"seat": 1, "name": "Bo", "bot": None},
        ],
        "seed_commitment": body["seed_commitment"],
    }


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"game": "chess", "players": [{"name": "a"}, {"name": "b"}]}, "invalid_body"),
        ({"game": "arktia", "players": []}, "invalid_body"),
        ({"game": "arktia"}, "invalid_body"),
        ({"game": "arktia", "players": [{"name": "a"}]}, "player_count"),
        ({"game": "arktia", "players": [{"name": f"p{i}"} for i in range(5)]}, "player_count"),
        (
            {"game": "arktia", "players": [{"name": "a"}, {"name": "b", "bot": "alphazero"}]},
            "invalid_body",
        ),
        ({"game": "arktia", "players": [{"name": ""}, {"name": "b"}]}, "invalid_body"),
        (
            {"game": "arktia", "players": [{"name": "a"}, {"name": "b"}], "colour": 1},
            "invalid_body",
        ),
        (
            {"game": "arktia", "players": [{"name": "a"}, {"name": "b"}], "options": {"x": 1}},
            "unknown_option",
        ),
        (
            {
                "game": "arktia",
                "players": [{"name": "a"}, {"name": "b"}],
                "options": {"turn_limit": -1},
            },
            "invalid_option",
        ),
        ([1, 2], "invalid_body"),
    ],
)
def test_bad_creation_requests_are_400_and_create_nothing(
    client: FlaskClient, body: Any, code: str
) -> None:
    response = client.post("/v1/games", json=body)
    assert response.status_code == 400
    assert error_code(response) == code
    assert client.get("/v1/games").get_json()["games"] == []


#: The most tiles Arktia's ``board`` option may hold, as docs/reference/rules/arktia.md documents it.
MAX_BOARD_TILES = 200


def _hexagon(radius: int) -> list[list[int]]:
    return [
        [q, r]
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if abs(q + r) <= radius
    ]


@pytest.mark.parametrize(
    "board",
    [
        [[q, r] for q in range(15) for r in range(14)][: MAX_BOARD_TILES + 1],
        _hexagon(40),  # 4,921 tiles in 41 KB: the board of the security finding
    ],
    ids=["one-over-the-limit", "radius-40"],
)
def test_a_board_over_the_tile_limit_is_400_and_creates_nothing(
    client: FlaskClient, board: list[list[int]]
) -> None:
    body = {
        "game": "arktia",
        "players": [{"name": "a"}, {"name": "b"}],
        "options": {"board": board},
    }
    raw = json.dumps(body, separators=(",", ":"))
    assert len(raw) < 64 * 1024  # under the body limit: the rules refuse it, not the 413
    response = client.post("/v1/games", data=raw, content_type="application/json")
    assert response.status_code == 400
    assert error_code(response) == "invalid_option"
    assert f"at most {MAX_BOARD_TILES} tiles" in response.get_json()["error"]["message"]
    assert client.get("/v1/games").get_json()["games"] == []


def test_a_board_of_the_tile_limit_is_accepted(new_game: NewGame) -> None:
    board = [[q, r] for q in range(15) for r in range(14)][:MAX_BOARD_TILES]
    game = new_game(options={"board": board})
    assert len(game.view()["state"]["tiles"]) == MAX_BOARD_TILES


def test_a_supplied_seed_needs_the_organizer_token(client: FlaskClient, new_game: NewGame) -> None:
    seed = "ab" * 32
    body = {"game": "arktia", "players": [{"name": "a"}, {"name": "b"}], "seed": seed}
    assert client.post("/v1/games", json=body).status_code == 401
    seat_token = new_game().tokens[0]
    denied = client.post("/v1/games", json=body, headers=bearer(seat_token))
    assert (denied.status_code, error_code(denied)) == (403, "organizer_only")
    created = client.post("/v1/games", json=body, headers=bearer(ORGANIZER))
    assert created.status_code == 201
    expected = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert created.get_json()["seed_commitment"] == expected
    bad = client.post("/v1/games", json={**body, "seed": "xyz"}, headers=bearer(ORGANIZER))
    assert (bad.status_code, error_code(bad)) == (400, "invalid_body")


# ----- reading -------------------------------------------------------------------------------


def test_a_new_game_as_a_spectator_sees_it(new_game: NewGame) -> None:
    game = new_game(3)
    view = game.view()
    assert view["status"] == "active" and view["to_act"] == [0]
    assert view["outcome"] is None and view["pending"] is None and view["seed"] is None
    assert view["viewer"] is None
    assert view["state"]["phase"] == "round1"
    assert len(view["state"]["tiles"]) == 27
    assert game.get("", game.tokens[2]).get_json()["viewer"] == 2


def test_unknown_games_tokens_and_routes(client: FlaskClient, new_game: NewGame) -> None:
    game = new_game()
    assert error_code(client.get("/v1/games/nope")) == "game_not_found"
    assert client.get("/v1/games/nope").status_code == 404
    forged = f"{game.id}.0.{'x' * 43}"
    response = client.get(f"/v1/games/{game.id}", headers=bearer(forged))
    assert (response.status_code, error_code(response)) == (401, "unknown_token")
    response = client.get(f"/v1/games/{game.id}", headers={"Authorization": "Basic abc"})
    assert response.status_code == 401
    assert error_code(client.get("/v1/nothing-here")) == "not_found"
    assert error_code(client.delete(f"/v1/games/{game.id}")) == "method_not_allowed"


def test_another_games_token_is_not_a_seat_here(new_game: NewGame) -> None:
    one, two = new_game(), new_game()
    response = two.get("", one.tokens[0])
    assert (response.status_code, error_code(response)) == (403, "not_a_seat")
    response = two.get("/legal-actions", one.tokens[0])
    assert (response.status_code, error_code(response)) == (403, "not_a_seat")


def test_legal_actions_need_a_seat_token(client: FlaskClient, new_game: NewGame) -> None:
    game = new_game()
    assert game.get("/legal-actions").status_code == 401
    assert game.get("/legal-actions", ORGANIZER).status_code == 403
    assert game.legal(1) == {"version": 1, "actions": []}
    assert len(game.legal(0)["actions"]) == 72


# ----- posting: every status and their order ---------------------------------------------------


def test_an_accepted_action_is_one_event_answered_201(new_game: NewGame) -> None:
    game = new_game()
    action = first_place(game)
    response = game.post(0, action, 1, "first")
    assert response.status_code == 201
    body = response.get_json()
    assert body["version"] == 2
    [event] = body["events"]
    assert (event["type"], event["actor"], event["version"]) == ("place", 0, 2)
    assert event["data"] == {"action": action}
    assert event["command_id"] == "first"
    assert "hash" not in event and "prev_hash" not in event  # hidden until the end


def test_a_stale_expected_version_is_409_and_writes_nothing(new_game: NewGame) -> None:
    game = new_game()
    assert game.post(0, first_place(game), 1).status_code == 201
    before = game.view()
    response = game.post(1, game.legal(1)["actions"][0], 1, "late")
    assert (response.status_code, error_code(response)) == (409, "version_conflict")
    assert game.view() == before


def test_the_same_command_id_twice_gives_the_first_answer_and_one_event(new_game: NewGame) -> None:
    game = new_game()
    action = first_place(game)
    first = game.post(0, action, 1, "once")
    again = game.post(0, action, 1, "once")
    assert again.status_code == 201
    assert again.get_json() == first.get_json()
    assert game.view()["version"] == 2


@pytest.mark.parametrize(
    "change",
    [
        {"action": {"type": "retire"}},  # another action
        {"expected_version": 2},  # the same action against another version
        {"expected_version": "1"},  # a body that fails its schema
        {"action": "place"},
    ],
)
def test_a_command_id_reused_for_another_request_is_422_and_writes_nothing(
    new_game: NewGame, change: dict[str, Any]
) -> None:
    game = new_game()
    action = first_place(game)
    assert game.post(0, action, 1, "once").status_code == 201
    body = {"action": action, "expected_version": 1, "command_id": "once", **change}
    response = game.client.post(
        f"/v1/games/{game.id}/actions", json=body, headers=bearer(game.tokens[0])
    )
    assert (response.status_code, error_code(response)) == (422, "command_id_reused")
    assert game.view()["version"] == 2
    # The same request again still gets its first answer, whatever happened since.
    assert game.post(0, action, 1, "once").status_code == 201


def test_a_reused_command_id_is_refused_before_the_rules_are_asked(new_game: NewGame) -> None:
    """At the point of the first answer: after 401 and 404, before 400, 409, 403 and 422."""
    game = new_game()
    action = first_place(game)
    assert game.post(0, action, 1, "once").status_code == 201
    # Seat 0 may not act now (403) and version 1 is stale (409): the reuse is what is reported.
    response = game.post(0, {"type": "retire"}, 1, "once")
    assert (response.status_code, error_code(response)) == (422, "command_id_reused")
    unknown = game.client.post(
        "/v1/games/nope/actions",
        json={"action": action, "expected_version": 1, "command_id": "once"},
        headers=bearer(game.tokens[0]),
    )
    assert unknown.status_code == 404


def test_command_records_say_what_happened_and_old_records_still_answer(
    new_game: NewGame, redis_client: redis.Redis
) -> None:
    """Records hold versions, whether a draw is pending and the request's fingerprint, never
    an HTTP status; records written before (``status`` 201 or 202, no fingerprint) still give
    the first answer."""
    game = new_game()
    action = first_place(game)
    first = game.post(0, action, 1, "once")
    record = json.loads(redis_client.hget(commands_key(game.id), "0:once") or b"{}")
    fingerprint = record.pop("request")
    assert record == {"seat": 0, "first": 2, "last": 2, "awaiting_random": False}
    assert len(fingerprint) == 64 and set(fingerprint) <= set("0123456789abcdef")
    for status in (201, 202):
        legacy = {"seat": 0, "first": 2, "last": 2, "status": status}
        redis_client.hset(commands_key(game.id), "0:once", json.dumps(legacy))
        again = game.post(0, action, 1, "once")
        assert again.status_code == status
        assert again.get_json() == first.get_json()
    assert game.view()["version"] == 2


def test_command_ids_belong_to_their_seat(new_game: NewGame) -> None:
    game = new_game()
    assert game.post(0, first_place(game), 1, "same").status_code == 201
    second = game.post(1, game.legal(1)["actions"][0], 2, "same")
    assert second.status_code == 201
    assert second.get_json()["version"] == 3


def test_an_illegal_action_is_422_and_writes_nothing(new_game: NewGame) -> None:
    game = new_game()
    response = game.post(0, {"type": "move", "from": [0, 0], "unit": "all", "to": [1, 0]}, 1)
    assert (response.status_code, error_code(response)) == (422, "opening")
    response = game.post(0, {"type": "place", "size": "G", "tile": [40, 40]}, 1)
    assert (response.status_code, error_code(response)) == (422, "no_such_tile")
    assert game.view()["version"] == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", "malformed_json"),
        (b"", "malformed_json"),
        (b"[" * 20_000 + b"]" * 20_000, "malformed_json"),
        (b'"just a string"', "invalid_body"),
        (
            b'{"action": {"type": "retire"}, "expected_version": "1", "command_id": "c"}',
            "invalid_body",
        ),
        (
            b'{"action": {"type": "retire"}, "expected_version": true, "command_id": "c"}',
            "invalid_body",
        ),
        (
            b'{"action": {"type": "retire"}, "expected_version": 1.5, "command_id": "c"}',
            "invalid_body",
        ),
        (
            b'{"action": {"type": "retire"}, "expected_version": 1e400, "command_id": "c"}',
            "invalid_body",
        ),
        (b'{"action": {"type": "retire"}, "expected_version": 1}', "invalid_body"),
        (b'{"action": "retire", "expected_version": 1, "command_id": "c"}', "invalid_body"),
        (b'{"action": {}, "expected_version": 1, "command_id": "c"}', "invalid_body"),
        (
            b'{"action": {"type": "dance"}, "expected_version": 1, "command_id": "c"}',
            "unknown_action_type",
        ),
        (
            b'{"action": {"type": "place", "size": "X", "tile": [0, 0]}, "expected_version": 1, "command_id": "c"}',
            "invalid_field",
        ),
        (
            b'{"action": {"type": "place", "size": "G", "tile": [0]}, "expected_version": 1, "command_id": "c"}',
            "invalid_field",
        ),
        (
            b'{"action": {"type": "place", "size": "G"}, "expected_version": 1, "command_id": "c"}',
            "missing_field",
        ),
        (
            b'{"action": {"type": "retire", "why": 1}, "expected_version": 1, "command_id": "c"}',
            "unexpected_field",
        ),
        (
            b'{"action": {"type": "retire"}, "expected_version": 1, "command_id": "c", "x": 1}',
            "invalid_body",
        ),
    ],
)
def test_malformed_bodies_are_400(new_game: NewGame, body: bytes, code: str) -> None:
    game = new_game()
    response = game.client.post(
        f"/v1/games/{game.id}/actions",
        data=body,
        headers={**bearer(game.tokens[0]), "Content-Type": "application/json"},
    )
    assert (response.status_code, error_code(response)) == (400, code)
    assert game.view()["version"] == 1


def test_tokens_and_games_on_the_action_route(client: FlaskClient, new_game: NewGame) -> None:
    game, other = new_game(), new_game()
    body = {"action": first_place(game), "expected_version": 1, "command_id": "c"}
    url = f"/v1/games/{game.id}/actions"
    assert error_code(client.post(url, json=body)) == "missing_token"
    assert client.post(url, json=body).status_code == 401
    unknown = client.post(url, json=body, headers=bearer("nobody.0.secret"))
    assert (unknown.status_code, error_code(unknown)) == (401, "unknown_token")
    missing = client.post("/v1/games/nope/actions", json=body, headers=bearer(game.tokens[0]))
    assert (missing.status_code, error_code(missing)) == (404, "game_not_found")
    wrong_game = client.post(url, json=body, headers=bearer(other.tokens[0]))
    assert (wrong_game.status_code, error_code(wrong_game)) == (403, "not_a_seat")
    not_turn = client.post(url, json=body, headers=bearer(game.tokens[1]))
    assert (not_turn.status_code, error_code(not_turn)) == (403, "not_your_turn")
    organizer = client.post(url, json=body, headers=bearer(ORGANIZER))
    assert organizer.status_code == 403
    assert game.view()["version"] == 1


def test_when_several_errors_apply_the_first_in_order_wins(
    client: FlaskClient, new_game: NewGame
) -> None:
    game = new_game()
    illegal = {"type": "place", "size": "G", "tile": [40, 40]}
    # 401 before 404: no token on an unknown game.
    assert client.post("/v1/games/nope/actions", data=b"{").status_code == 401
    # 404 before 400.
    response = client.post("/v1/games/nope/actions", data=b"{", headers=bearer(game.tokens[0]))
    assert response.status_code == 404
    # 400 before 409.
    bad = {"action": {"type": "dance"}, "expected_version": 7, "command_id": "c"}
    url = f"/v1/games/{game.id}/actions"
    assert client.post(url, json=bad, headers=bearer(game.tokens[1])).status_code == 400
    # 409 before 403: a stale version from the seat that may not act.
    assert game.post(1, illegal, 7).status_code == 409
    # 403 before 422: an illegal action from the seat that may not act.
    assert game.post(1, illegal, 1).status_code == 403
    assert game.post(0, illegal, 1).status_code == 422


# ----- a whole game ---------------------------------------------------------------------------


def test_a_game_plays_to_the_end_using_only_legal_actions(new_game: NewGame) -> None:
    game = new_game(3)
    view = game.play_randomly(random.Random(3))
    assert view["status"] == "over" and view["to_act"] == []
    assert set(view["outcome"]) == {"winners", "scores"}
    assert set(view["outcome"]["scores"]) == {"0", "1", "2"}
    assert view["seed"] is not None
    assert hashlib.sha256(bytes.fromhex(view["seed"])).hexdigest() == view["seed_commitment"]
    assert all(game.legal(s)["actions"] == [] for s in range(3))
    late = game.post(0, {"type": "retire"}, view["version"])
    assert (late.status_code, error_code(late)) == (403, "game_over")
    events = game.get("/events").get_json()["events"]
    assert [e["version"] for e in events] == list(range(1, view["version"] + 1))
    assert [e["type"] for e in events[-2:]] == ["game_over", "seed_revealed"]
    assert events[-2]["data"] == view["outcome"]
    prev = GENESIS_HASH
    for event in events:  # after the end every event carries its hash: the chain recomputes
        assert event["prev_hash"] == prev and event_hash(event) == event["hash"]
        prev = event["hash"]


def test_state_at_every_version_and_its_bounds(new_game: NewGame, app: Flask) -> None:
    game = new_game()
    final = game.play_randomly(random.Random(5))
    fresh = create_app(app.config["FLOE_SETTINGS"]).test_client()  # an empty cache
    for version in range(1, final["version"] + 1):
        here = game.get(f"/state?version={version}").get_json()
        assert here["version"] == version
        assert fresh.get(f"/v1/games/{game.id}/state?version={version}").get_json() == here
    assert game.get(f"/state?version={final['version']}").get_json() == game.view()
    early = game.get("/state?version=1").get_json()
    assert early["outcome"] is None and early["status"] == "active"
    assert early["seed"] == final["seed"] is not None  # after the end, every version is public
    assert error_code(game.get("/state?version=0")) == "invalid_query"
    assert error_code(game.get("/state")) == "invalid_query"
    assert error_code(game.get("/state?version=x")) == "invalid_query"
    too_far = game.get(f"/state?version={final['version'] + 1}")
    assert (too_far.status_code, error_code(too_far)) == (404, "version_not_found")


def test_two_processes_share_a_game_through_the_store(new_game: NewGame, app: Flask) -> None:
    game = new_game()
    other = Game(create_app(app.config["FLOE_SETTINGS"]).test_client(), game.id, game.tokens)
    assert game.post(0, first_place(game), 1).status_code == 201
    assert other.view()["version"] == 2  # the other cache catches up from the stream
    assert other.post(1, other.legal(1)["actions"][0], 2).status_code == 201
    assert game.view() == other.view()


def test_same_seed_and_actions_give_the_same_events(client: FlaskClient) -> None:
    body = {"game": "arktia", "players": [{"name": "a"}, {"name": "b"}], "seed": "07" * 32}
    games = []
    for _ in range(2):
        created = client.post("/v1/games", json=body, headers=bearer(ORGANIZER)).get_json()
        games.append(Game(client, created["id"], [s["token"] for s in created["seats"]]))
    games[0].play_randomly(random.Random(11))
    for event in games[0].get("/events").get_json()["events"][1:]:
        if event["actor"] != "system":
            response = games[1].post(event["actor"], event["data"]["action"], event["version"] - 1)
            assert response.status_code == 201
    logs = [g.get("/events").get_json()["events"] for g in games]
    shape = [[(e["version"], e["type"], e["actor"], e["data"]) for e in log] for log in logs]
    assert shape[0] == shape[1]


# ----- events, export, list, health ------------------------------------------------------------


def test_events_after_a_version_and_paging(new_game: NewGame) -> None:
    game = new_game()
    for _ in range(3):
        legal = game.legal(game.view()["to_act"][0])
        game.post(game.view()["to_act"][0], legal["actions"][0], legal["version"])
    page = game.get("/events?after=2&limit=1").get_json()
    assert page["version"] == 4
    assert [e["version"] for e in page["events"]] == [3]
    assert [e["version"] for e in game.get("/events?after=1").get_json()["events"]] == [2, 3, 4]
    assert game.get("/events?after=9").get_json()["events"] == []
    assert error_code(game.get("/events?after=-1")) == "invalid_query"
    assert error_code(game.get("/events?limit=0")) == "invalid_query"


def test_export_is_for_the_organizer_until_the_end(client: FlaskClient, new_game: NewGame) -> None:
    game = new_game()
    assert game.get("/export").status_code == 401
    assert game.get("/export", game.tokens[0]).status_code == 403
    early = game.get("/export", ORGANIZER)
    assert early.status_code == 200 and early.mimetype == "application/x-ndjson"
    assert "hash" in json.loads(early.get_data(as_text=True).splitlines()[0])
    game.play_randomly(random.Random(2))
    lines = game.get("/export").get_data(as_text=True).splitlines()
    assert [json.loads(line)["version"] for line in lines] == list(range(1, len(lines) + 1))
    assert json.loads(lines[-1])["type"] == "seed_revealed"


def test_list_and_health(client: FlaskClient, new_game: NewGame) -> None:
    games = [new_game() for _ in range(3)]
    listing = client.get("/v1/games?limit=2").get_json()
    assert listing["cursor"] is not None and len(listing["games"]) == 2
    assert {g["id"] for g in listing["games"]} <= {g.id for g in games}
    assert listing["games"][0]["status"] == "active"
    rest = client.get(f"/v1/games?limit=2&cursor={listing['cursor']}").get_json()
    assert len(rest["games"]) == 1 and rest["cursor"] is None
    assert {g["id"] for g in listing["games"] + rest["games"]} == {g.id for g in games}
    health = {"status": "ok", "redis": "ok", "bot_failures": 0}
    answer = client.get("/v1/health").get_json()
    assert answer.pop("store")["durable"] is False, "the suite's Redis keeps no AOF"
    assert answer == health


def test_a_dead_store_is_503_with_retry_after_not_500() -> None:
    app = create_app(Settings(redis_url="redis://127.0.0.1:1/0"))
    client = app.test_client()
    for response in (client.get("/v1/health"), client.get("/v1/games/abc")):
        assert response.status_code == 503
        assert response.headers["Retry-After"] == "1"
        assert error_code(response) == "store_unavailable"


def test_an_oversized_body_is_413(new_game: NewGame) -> None:
    game = new_game()
    body = b'{"pad": "' + b"x" * 100_000 + b'"}'
    response = game.client.post(
        f"/v1/games/{game.id}/actions", data=body, headers=bearer(game.tokens[0])
    )
    assert (response.status_code, error_code(response)) == (413, "body_too_large")
