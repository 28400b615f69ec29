"""A clock chosen for a table or a tournament, on the real app and Redis: checked when the
table opens or the tournament is created (400 ``invalid_clock``, nothing written), shown in
their views, and recorded exactly as given in the ``game_created`` of every game they make.
Without a clock, their games' first events are what they always were (no ``clock`` key)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from replay.tournament.audit import audit_tournament
from service.tables.store import table_key
from service.tournaments.store import tournament_key
from tests.support.api import ORGANIZER, bearer

FISCHER = {"kind": "fischer", "initial_s": 300, "increment_s": 5}
PER_MOVE = {"kind": "per_move", "move_s": 45}
BAD_CLOCKS = [
    {"kind": "fischer", "initial_s": 0, "increment_s": 5},
    {"kind": "sundial"},
    {"kind": "per_move", "move_s": 2_592_001},
    {"kind": "per_move", "move_s": 30, "increment_s": 1},
    {"kind": "per_move", "move_s": True},
]


def game_created(client: FlaskClient, game_id: str) -> dict[str, Any]:
    """The data of the game's first event, as the organizer reads it."""
    response = client.get(f"/v1/games/{game_id}/events", headers=bearer(ORGANIZER))
    assert response.status_code == 200, response.get_json()
    first = response.get_json()["events"][0]
    assert first["type"] == "game_created" and first["version"] == 1
    data: dict[str, Any] = first["data"]
    return data


def stored_keys(redis_client: redis.Redis, pattern: str) -> list[bytes]:
    return sorted(redis_client.scan_iter(pattern))


# ----- tables ------------------------------------------------------------------------------


def open_table(client: FlaskClient, **extra: Any) -> Any:
    body = {"game": "arktia", "seats": [{"name": "Ada"}, {"open": True}], **extra}
    return client.post("/v1/tables", json=body)


def test_a_table_opened_with_a_clock_shows_it_and_its_game_records_it_as_given(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    opened = open_table(client, clock=FISCHER)
    assert opened.status_code == 201, opened.get_json()
    table = opened.get_json()
    assert table["status"] == "open" and table["clock"] == FISCHER
    assert client.get(f"/v1/tables/{table['id']}").get_json()["clock"] == FISCHER
    listed = client.get("/v1/tables").get_json()["tables"]
    assert [(t["id"], t["clock"]) for t in listed] == [(table["id"], FISCHER)]
    stored = redis_client.hget(table_key(table["id"]), "clock")
    assert stored is not None and json.loads(stored) == FISCHER
    assert stored_keys(redis_client, "floe:game:*") == []  # no game before the last seat

    joined = client.post(f"/v1/tables/{table['id']}/join", json={"name": "Bo"})
    assert joined.status_code == 201, joined.get_json()
    started = joined.get_json()["table"]
    assert started["status"] == "started" and started["clock"] == FISCHER
    data = game_created(client, started["game_id"])
    assert data["clock"] == FISCHER
    assert [s["name"] for s in data["seats"]] == ["Ada", "Bo"]
    assert client.get(f"/v1/tables/{table['id']}").get_json() == started


def test_a_full_table_with_a_clock_starts_its_game_with_it_at_once(client: FlaskClient) -> None:
    body = {"game": "arktia", "seats": [{"name": "Ada"}, {"name": "Hal", "bot": "random"}]}
    opened = client.post("/v1/tables", json={**body, "clock": PER_MOVE})
    assert opened.status_code == 201, opened.get_json()
    table = opened.get_json()
    assert table["status"] == "started" and table["clock"] == PER_MOVE
    assert game_created(client, table["game_id"])["clock"] == PER_MOVE


@pytest.mark.parametrize("clock", BAD_CLOCKS)
def test_a_table_with_a_bad_clock_is_400_and_writes_nothing(
    client: FlaskClient, redis_client: redis.Redis, clock: dict[str, Any]
) -> None:
    for seats in ([{"name": "Ada"}, {"open": True}], [{"name": "Ada"}, {"name": "Bo"}]):
        response = client.post(
            "/v1/tables", json={"game": "arktia", "seats": seats, "clock": clock}
        )
        assert response.status_code == 400, response.get_json()
        assert response.get_json()["error"]["code"] == "invalid_clock"
    assert stored_keys(redis_client, "floe:table*") == []
    assert stored_keys(redis_client, "floe:game*") == []


def test_a_table_without_a_clock_stores_none_and_its_game_has_none(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    for extra in ({}, {"clock": None}):
        table = open_table(client, **extra).get_json()
        assert table["clock"] is None
        # Stored as tables were before clocks: no field, and such a record reads as no clock.
        assert not redis_client.hexists(table_key(table["id"]), "clock")
        assert client.get(f"/v1/tables/{table['id']}").get_json()["clock"] is None
        started = client.post(f"/v1/tables/{table['id']}/join", json={"name": "Bo"}).get_json()
        assert started["table"]["clock"] is None
        data = game_created(client, started["table"]["game_id"])
        assert "clock" not in data and data["game"] == "arktia"


# ----- tournaments -------------------------------------------------------------------------


def tournament_body(**extra: Any) -> dict[str, Any]:
    players = [{"name": "Ada"}, {"name": "Bo"}, {"name": "bot0", "bot": "random"}]
    return {"game": "iceberg", "format": "swiss", "rounds": 2, "players": players, **extra}


def create_tournament(client: FlaskClient, **extra: Any) -> Any:
    return client.post("/v1/tournaments", json=tournament_body(**extra), headers=bearer(ORGANIZER))


def first_round_games(created: dict[str, Any]) -> list[str]:
    [first] = created["rounds"]
    return [game["game_id"] for game in first["games"]]


def test_a_tournament_with_a_clock_shows_it_and_every_game_it_makes_records_it(
    client: FlaskClient,
) -> None:
    response = create_tournament(client, clock=PER_MOVE)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    assert created["clock"] == PER_MOVE
    assert client.get(f"/v1/tournaments/{created['id']}").get_json()["clock"] == PER_MOVE
    game_ids = first_round_games(created)
    assert game_ids
    for game_id in game_ids:
        data = game_created(client, game_id)
        assert data["clock"] == PER_MOVE
        assert data["tournament"]["id"] == created["id"]


@pytest.mark.parametrize("clock", BAD_CLOCKS)
def test_a_tournament_with_a_bad_clock_is_400_and_writes_nothing(
    client: FlaskClient, redis_client: redis.Redis, clock: dict[str, Any]
) -> None:
    response = create_tournament(client, clock=clock)
    assert response.status_code == 400, response.get_json()
    assert response.get_json()["error"]["code"] == "invalid_clock"
    assert stored_keys(redis_client, "floe:tournament*") == []
    assert stored_keys(redis_client, "floe:game*") == []


def test_a_tournament_without_a_clock_makes_games_without_one(client: FlaskClient) -> None:
    for extra in ({}, {"clock": None}):
        response = create_tournament(client, **extra)
        assert response.status_code == 201, response.get_json()
        created = response.get_json()
        assert created["clock"] is None
        for game_id in first_round_games(created):
            data = game_created(client, game_id)
            assert "clock" not in data and data["tournament"]["id"] == created["id"]


def test_a_tournament_stored_before_clocks_still_reads_as_without_one(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    created = create_tournament(client, clock=FISCHER).get_json()
    key = tournament_key(created["id"])
    spec = json.loads(redis_client.hget(key, "spec") or b"{}")
    assert spec["clock"] == FISCHER
    del spec["clock"]  # as a tournament created before clocks was stored
    redis_client.hset(key, "spec", json.dumps(spec))
    shown = client.get(f"/v1/tournaments/{created['id']}")
    assert shown.status_code == 200, shown.get_json()
    assert shown.get_json()["clock"] is None
    assert shown.get_json()["rounds"] == created["rounds"]


def test_a_clocked_tournaments_export_names_its_clock_and_the_audit_holds_games_to_it(
    client: FlaskClient,
) -> None:
    created = create_tournament(client, clock=PER_MOVE).get_json()
    export = client.get(f"/v1/tournaments/{created['id']}/export", headers=bearer(ORGANIZER))
    assert export.status_code == 200
    lines = export.get_data(as_text=True).splitlines()
    manifest = json.loads(lines[0])
    assert manifest["tournament"]["clock"] == PER_MOVE
    honest = audit_tournament(lines)
    assert not [p for p in honest.problems if "clock" in p], honest.problems
    manifest["tournament"]["clock"] = {"kind": "per_move", "move_s": 3600}
    forged = audit_tournament([json.dumps(manifest), *lines[1:]])
    assert [p for p in forged.problems if "clock" in p]


def test_a_tournament_without_a_clock_exports_the_manifest_it_always_did(
    client: FlaskClient,
) -> None:
    created = create_tournament(client).get_json()
    export = client.get(f"/v1/tournaments/{created['id']}/export", headers=bearer(ORGANIZER))
    manifest = json.loads(export.get_data(as_text=True).splitlines()[0])
    assert "clock" not in manifest["tournament"]
