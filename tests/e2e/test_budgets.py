"""Budgets on what an anonymous client may store: events per game, bytes in Redis per creator.

The real app on the test Redis (and a real SQLite archive for a game that leaves Redis); the
creator is the client address Flask's test client sends (127.0.0.1, or another through
``environ_base``). Small limits are set through ``Settings``.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.bootstrap import Floe
from service.limits.quotas import ORPHAN_MS
from service.limits.storage import stored_key
from service.settings import Settings
from service.store.events import events_key, meta_key
from tests.support.api import ORGANIZER, Game, bearer
from tests.support.clocks import ManualClock
from tests.support.limited_app import MakeApp, floe_keys, limited_app

PEOPLE = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
HERE, ELSEWHERE = "127.0.0.1", {"REMOTE_ADDR": "10.0.0.2"}


@pytest.fixture
def make_app(redis_url: str) -> MakeApp:
    return partial(limited_app, redis_url)


def new_game(client: FlaskClient, **headers: Any) -> Game:
    response = client.post("/v1/games", json=PEOPLE, **headers)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    return Game(client, created["id"], [seat["token"] for seat in created["seats"]])


def first_legal_move(game: Game) -> Any:
    """The first legal action of the seat to act, posted."""
    seat = game.view()["to_act"][0]
    legal = game.legal(seat)
    return game.post(seat, legal["actions"][0], legal["version"])


def log_of(redis_client: redis.Redis, game_id: str) -> tuple[int, dict[Any, Any]]:
    """What Redis holds of a game's log: its length and its meta hash."""
    return redis_client.xlen(events_key(game_id)), redis_client.hgetall(meta_key(game_id))


def stored_bytes(redis_client: redis.Redis, game_id: str) -> int:
    return int(redis_client.hget(meta_key(game_id), "bytes") or 0)


def refused(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.get_json()
    error = response.get_json()["error"]
    assert error["code"] == code
    message: str = error["message"]
    return message


# ----- events per game ---------------------------------------------------------------------


def test_an_action_past_the_cap_is_409_writes_nothing_and_resigning_still_ends_the_game(
    make_app: MakeApp, redis_client: redis.Redis
) -> None:
    client = make_app(events_per_game=3).test_client()
    game = new_game(client)
    for version in (2, 3):
        accepted = first_legal_move(game)
        assert accepted.status_code == 201, accepted.get_json()
        assert accepted.get_json()["version"] == version
    before = log_of(redis_client, game.id)

    message = refused(first_legal_move(game), 409, "game_too_long")
    assert "3 events" in message and "resign" in message and "organizer" in message
    assert log_of(redis_client, game.id) == before, "a refused action writes nothing"

    resigned = game.post(0, {"type": "resign"}, 3)
    assert resigned.status_code == 201, resigned.get_json()
    view = game.view()
    assert view["status"] == "over" and view["version"] > 3


def at_the_cap(client: FlaskClient, body: dict[str, Any] = PEOPLE) -> Game:
    """A new game of two moves, at a cap of 3 events, whose next move is refused."""
    response = client.post("/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    game = Game(client, created["id"], [seat["token"] for seat in created["seats"]])
    for _ in range(2):
        assert first_legal_move(game).status_code == 201
    refused(first_legal_move(game), 409, "game_too_long")
    return game


def test_the_organizers_decision_and_a_clocks_timeout_are_taken_past_the_cap(
    make_app: MakeApp,
) -> None:
    clock = ManualClock()
    app = make_app(clock, events_per_game=3)
    client = app.test_client()
    decided = at_the_cap(client)
    decision = {"decision": "result", "winners": [1], "reason": "the game is too long"}
    answer = client.post(
        f"/v1/games/{decided.id}/decisions", json=decision, headers=bearer(ORGANIZER)
    )
    assert answer.status_code == 201, answer.get_json()
    assert decided.view()["status"] == "over"

    timed = at_the_cap(client, {**PEOPLE, "clock": {"kind": "per_move", "move_s": 60}})
    clock.advance(61)
    floe: Floe = app.extensions["floe"]
    assert floe.automation.time_out(timed.id, 3), "what a worker's timer does when it is due"
    view = timed.view()
    assert view["status"] == "over" and view["version"] > 3


def test_the_organizers_games_are_not_capped(make_app: MakeApp) -> None:
    client = make_app(events_per_game=3).test_client()
    game = new_game(client, headers=bearer(ORGANIZER))
    for version in (2, 3, 4, 5):
        accepted = first_legal_move(game)
        assert accepted.status_code == 201, accepted.get_json()
        assert accepted.get_json()["version"] == version


def test_zero_turns_the_cap_off(make_app: MakeApp) -> None:
    client = make_app(events_per_game=0).test_client()
    game = new_game(client)
    for version in (2, 3, 4):
        assert first_legal_move(game).get_json()["version"] == version


# ----- bytes in Redis per creator ----------------------------------------------------------


def test_a_creator_at_its_byte_budget_is_429_writes_nothing_and_another_is_not(
    make_app: MakeApp, redis_client: redis.Redis
) -> None:
    """Its games' moves count too: the one game grows past the budget, and the next create
    is refused; another address, and the organizer, still create."""
    budget = 4096
    client = make_app(stored_bytes_per_creator=budget).test_client()
    game = new_game(client)
    assert redis_client.zrange(stored_key(HERE), 0, -1) == [game.id.encode()]
    while stored_bytes(redis_client, game.id) < budget:
        assert first_legal_move(game).status_code == 201
    held = stored_bytes(redis_client, game.id)
    before = floe_keys(redis_client)

    message = refused(client.post("/v1/games", json=PEOPLE), 429, "storage_quota")
    assert f" {held} bytes" in message and f" {budget} bytes" in message
    assert "FLOE_STORED_BYTES_PER_CREATOR" in message and "archiving is off" in message
    refused(client.post("/v1/games?wait=1", json=PEOPLE), 429, "storage_quota")
    assert floe_keys(redis_client) == before, "a refused create writes nothing"

    other = new_game(client, environ_base=ELSEWHERE)
    new_game(client, headers=bearer(ORGANIZER))
    assert redis_client.zrange(stored_key(ELSEWHERE["REMOTE_ADDR"]), 0, -1) == [other.id.encode()]
    assert redis_client.zcard(stored_key(HERE)) == 1, "the organizer is not counted"


def test_a_table_counts_against_its_hosts_budget(
    make_app: MakeApp, redis_client: redis.Redis
) -> None:
    """The game a full table starts at once counts against its host; then the host's next
    table's last join, which would start a game, is refused and takes no seat."""
    client = make_app(stored_bytes_per_creator=1).test_client()
    full = {"game": "arktia", "seats": [{"name": "Ada"}, {"name": "Bo"}]}
    started = client.post("/v1/tables", json=full)
    assert started.status_code == 201, started.get_json()
    assert redis_client.zcard(stored_key(HERE)) == 1
    refused(client.post("/v1/tables", json=full), 429, "storage_quota")

    waiting = {"game": "arktia", "seats": [{"name": "Ada"}, {"open": True}]}
    table_id = client.post("/v1/tables", json=waiting).get_json()["id"]
    stranger = {"environ_base": ELSEWHERE}
    joined = client.post(f"/v1/tables/{table_id}/join", json={"name": "Cy"}, **stranger)
    refused(joined, 429, "storage_quota")
    table = client.get(f"/v1/tables/{table_id}").get_json()
    assert table["status"] == "open" and table["seats"][1]["open"] is True


def test_a_game_that_leaves_redis_frees_its_bytes(
    make_app: MakeApp, redis_client: redis.Redis, tmp_path: Path
) -> None:
    clock = ManualClock()
    app = make_app(
        clock,
        stored_bytes_per_creator=1,
        archive_url=f"sqlite:///{tmp_path / 'archive.sqlite3'}",
        archive_after_s=0,
    )
    client = app.test_client()
    game = new_game(client)
    message = refused(client.post("/v1/games", json=PEOPLE), 429, "storage_quota")
    assert "0 s after it ends (FLOE_ARCHIVE_AFTER_S)" in message

    assert game.post(0, {"type": "resign"}, 1).status_code == 201
    refused(client.post("/v1/games", json=PEOPLE), 429, "storage_quota")  # over, still here
    floe: Floe = app.extensions["floe"]
    assert floe.mover is not None and floe.mover.move(game.id) is None
    assert redis_client.exists(meta_key(game.id)) == 0, "the game left Redis"

    later = new_game(client)
    listed = set(redis_client.zrange(stored_key(HERE), 0, -1))
    assert listed == {game.id.encode(), later.id.encode()}, "the moved game counts nothing"
    clock.advance(ORPHAN_MS / 1000)
    refused(client.post("/v1/games", json=PEOPLE), 429, "storage_quota")
    assert redis_client.zrange(stored_key(HERE), 0, -1) == [later.id.encode()], "pruned"


def test_zero_turns_the_budget_off(make_app: MakeApp, redis_client: redis.Redis) -> None:
    client = make_app(stored_bytes_per_creator=0).test_client()
    for _ in range(3):
        new_game(client)
    assert redis_client.exists(stored_key(HERE)) == 0, "nothing counted"


def test_defaults_and_env_vars() -> None:
    defaults = Settings.from_env({})
    assert (defaults.events_per_game, defaults.stored_bytes_per_creator) == (10000, 256 << 20)
    tuned = Settings.from_env(
        {"FLOE_EVENTS_PER_GAME": "0", "FLOE_STORED_BYTES_PER_CREATOR": "64mb"}
    )
    assert (tuned.events_per_game, tuned.stored_bytes_per_creator) == (0, 64 << 20)
    sizes = {"0": 0, "100000": 100000, "500k": 500_000, "2KB": 2048, "1g": 10**9, "1gb": 1 << 30}
    for raw, size in sizes.items():
        read = Settings.from_env({"FLOE_STORED_BYTES_PER_CREATOR": raw})
        assert read.stored_bytes_per_creator == size
    for bad in ("-1", "64 mb", "lots", "1tb"):
        with pytest.raises(ValueError, match="FLOE_STORED_BYTES_PER_CREATOR"):
            Settings.from_env({"FLOE_STORED_BYTES_PER_CREATOR": bad})
    with pytest.raises(ValueError, match="FLOE_EVENTS_PER_GAME"):
        Settings.from_env({"FLOE_EVENTS_PER_GAME": "-1"})
