"""Floe on a real six-node Redis Cluster: every game's keys in one slot, no command across
slots (tables, tournaments, rate limits, quotas), RQ on a Redis of its own."""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest
from flask.testing import FlaskClient
from redis.crc import key_slot

from service.api.app import create_app
from service.run.redis_cluster import LocalCluster
from service.settings import Settings
from service.store.events import commands_key, events_key, meta_key, seed_key
from tests.support.api import ORGANIZER, Game, bearer
from tests.support.replay_cli import floe as floe_cli
from tests.support.waiting import AT_LENGTH, wait_until
from tests.support.workers import StartWorker


def cluster_settings(cluster: LocalCluster, queue_url: str) -> Settings:
    return Settings(
        redis_url=cluster.url,
        redis_cluster=True,
        queue_url=queue_url,
        organizer_token=ORGANIZER,
    )


def cluster_env(cluster: LocalCluster, queue_url: str) -> dict[str, str]:
    return {"REDIS_URL": cluster.url, "FLOE_REDIS_CLUSTER": "1", "FLOE_QUEUE_URL": queue_url}


def over(client: FlaskClient, game_id: str) -> bool:
    status: str = client.get(f"/v1/games/{game_id}").get_json()["status"]
    return status == "over"


def create(client: FlaskClient, body: dict[str, Any], path: str = "/v1/games") -> Any:
    response = client.post(path, json=body, headers=bearer(ORGANIZER))
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_all_three_games_a_table_and_a_tournament_run_on_the_cluster(
    cluster: LocalCluster, redis_url: str, start_worker: StartWorker, tmp_path: Any
) -> None:
    app = create_app(cluster_settings(cluster, redis_url))
    client = app.test_client()
    start_worker(**cluster_env(cluster, redis_url))
    people = create(
        client,
        {"game": "iceberg", "players": [{"name": "Ada"}, {"name": "Bo"}]},
        "/v1/games?wait=30",
    )
    game = Game(client, people["id"], [s["token"] for s in people["seats"]])
    bots = [
        create(
            client,
            {
                "game": "arktia",
                "players": [{"name": "r", "bot": "random"}, {"name": "g", "bot": "greedy"}],
            },
        ),
        create(
            client,
            {"game": "ice-breakers", "players": [{"name": n, "bot": "random"} for n in "abc"]},
        ),
    ]
    table = client.post(
        "/v1/tables", json={"game": "arktia", "seats": [{"name": "Cy"}, {"open": True}]}
    ).get_json()
    joined = client.post(f"/v1/tables/{table['id']}/join", json={"name": "Di"})
    assert joined.status_code == 201, joined.get_json()
    assert joined.get_json()["table"]["status"] == "started"
    tournament = create(
        client,
        {
            "game": "arktia",
            "format": "swiss",
            "rounds": 2,
            "players": [{"name": f"b{i}", "bot": "random"} for i in range(5)],
        },
        "/v1/tournaments",
    )
    game.play_randomly(random.Random(5))
    for created in bots:
        wait_until(functools.partial(over, client, created["id"]), AT_LENGTH, "a bot game to end")
    wait_until(
        lambda: (
            client.get(f"/v1/tournaments/{tournament['id']}").get_json()["status"] == "finished"
        ),
        AT_LENGTH,
        "the tournament",
    )
    listed = client.get("/v1/games?limit=100").get_json()
    game_ids = [people["id"], *(b["id"] for b in bots), joined.get_json()["table"]["game_id"]]
    assert set(game_ids) <= {g["id"] for g in listed["games"]}
    assert len(listed["games"]) == 4 + 4  # and the tournament's two rounds of two tables

    for game_id in game_ids:
        keys = (events_key, meta_key, seed_key, commands_key)
        slots = {key_slot(key(game_id).encode()) for key in keys}
        assert len(slots) == 1, "a game's keys share one slot"
    spread = {key_slot(events_key(g).encode()) for g in game_ids}
    assert len(spread) > 1, "games spread over the cluster"
    stored: list[bytes] = cluster.client().keys("*")  # type: ignore[assignment]
    assert stored and not any(k.startswith(b"rq:") for k in stored), "RQ has a Redis of its own"

    paths = []
    for game_id in game_ids[:3]:
        path = tmp_path / f"{game_id}.jsonl"
        path.write_bytes(client.get(f"/v1/games/{game_id}/export").get_data())
        paths.append(str(path))
    export = tmp_path / "tournament.jsonl"
    export.write_bytes(client.get(f"/v1/tournaments/{tournament['id']}/export").get_data())
    verified = floe_cli("verify", *paths, str(export))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "4 ok, 0 incomplete, 0 failed" in verified.stdout


def test_the_rate_limits_count_across_slots(cluster: LocalCluster, redis_url: str) -> None:
    """A request with a token counts against two counters, in two slots."""
    settings = Settings(
        redis_url=cluster.url,
        redis_cluster=True,
        queue_url=redis_url,
        organizer_token=ORGANIZER,
        rate_limit_per_token=3,
        rate_limit_per_address=5,
    )
    client = create_app(settings).test_client()
    with_token = [client.get("/v1/games", headers=bearer(ORGANIZER)).status_code for _ in range(4)]
    assert with_token == [200, 200, 200, 429]
    without = [client.get("/v1/games").status_code for _ in range(2)]
    assert without == [200, 429], "the address counted every request, the token's too"


@pytest.mark.parametrize(
    "env",
    [
        {"FLOE_REDIS_CLUSTER": "1", "REDIS_URL": "redis://127.0.0.1:7000"},
        {"FLOE_REDIS_CLUSTER": "1", "FLOE_QUEUE_URL": "redis://127.0.0.1:7000"},
        {"FLOE_REDIS_CLUSTER": "yes"},
    ],
)
def test_a_cluster_needs_its_nodes_and_a_queue_redis(env: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="FLOE_REDIS_CLUSTER"):
        Settings.from_env(env)
