"""A Redis at ``maxmemory`` with ``noeviction`` refuses writes: 503 ``store_full``, never a
500, never a half-written game; reads still answer; once there is room again, the same
requests succeed.

A private redis-server with a small ``maxmemory`` is filled with junk until it refuses a
write, then its limit is lowered below what it holds, so that no request's own buffers can
tip it back under between two checks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service.api.app import create_app
from service.run.redis_server import DURABLE_CONFIG, EPHEMERAL_CONFIG, RedisServer, durable_config
from service.settings import Settings
from tests.support.api import ORGANIZER
from tests.support.limited_app import NOT_A_REQUESTS, contents
from tests.support.openapi import CheckedClient, OpenApi

FULL_CONFIG = {**EPHEMERAL_CONFIG, "maxmemory": "16mb", "maxmemory-policy": "noeviction"}
PEOPLE = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
BOTS = {"game": "iceberg", "players": [{"name": "a", "bot": "random"}, {"name": "b"}]}


@pytest.fixture
def small_redis(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis", config=FULL_CONFIG) as server:
        yield server


def fill(client: redis.Redis) -> int:
    """Write junk until Redis refuses, then hold it over its limit; return the limit set."""
    junk = b"x" * 65536
    number = 0
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        while number < 10_000:
            client.set(f"junk:{number}", junk)
            number += 1
    used = int(client.info("memory")["used_memory"])
    limit = used - 1024 * 1024
    client.config_set("maxmemory", limit)
    return limit


def everything(client: redis.Redis) -> dict[bytes, Any]:
    """Every key but the junk, with its contents."""
    keys = sorted(
        k
        for k in client.keys("*")
        if isinstance(k, bytes) and b"junk:" not in k and not k.startswith(NOT_A_REQUESTS)
    )
    return {key: contents(client, key) for key in keys}


@pytest.mark.processes
def test_a_full_store_is_503_store_full_and_writes_nothing(small_redis: RedisServer) -> None:
    spec = OpenApi.load()
    settings = Settings(
        redis_url=small_redis.url,
        organizer_token=ORGANIZER,
        rate_limit_per_token=0,  # the limiter counts in Redis too: see the next test
        rate_limit_per_address=0,
    )
    api = CheckedClient(create_app(settings), spec)
    game = api.call("POST", "/v1/games", json_body=PEOPLE, expect=201).body
    game_id, token = game["id"], game["seats"][0]["token"]
    move = {"action": {"type": "place", "size": "T", "tile": [0, 0]}, "expected_version": 1}
    move["command_id"] = "first"
    client = small_redis.client()
    try:
        fill(client)
        before = everything(client)
        for body, who in ((PEOPLE, None), (BOTS, None), (PEOPLE, ORGANIZER)):
            answer = api.call(
                "POST", "/v1/games?wait=1", json_body=body, token=who, expect=503, code="store_full"
            )
            assert answer.headers["Retry-After"] == "60"
        path = f"/v1/games/{game_id}/actions"
        api.call("POST", path, json_body=move, token=token, expect=503, code="store_full")
        assert everything(client) == before, "nothing written, not even in part"
        # Reads need no room.
        view = api.get(f"/v1/games/{game_id}", expect=200).body
        assert view["version"] == 1
        api.get(f"/v1/games/{game_id}/legal-actions", token=token, expect=200)
        assert len(api.get("/v1/games", expect=200).body["games"]) == 1
        # Room again (here: a higher limit): the same requests go through.
        client.config_set("maxmemory", 0)
        api.call("POST", path, json_body=move, token=token, expect=201)
        api.call("POST", "/v1/games", json_body=PEOPLE, expect=201)
    finally:
        client.close()


@pytest.mark.processes
def test_with_the_rate_limiter_on_a_full_store_still_serves_reads(
    small_redis: RedisServer,
) -> None:
    """The rate limiter writes its counters for every request; a full Redis refuses them
    too. Counting is a guard, not a contract: the request goes through uncounted, so reads
    answer and writes get their own 503 ``store_full``, never a 500."""
    spec = OpenApi.load()
    api = CheckedClient(create_app(Settings(redis_url=small_redis.url)), spec)
    game_id = api.call("POST", "/v1/games", json_body=PEOPLE, expect=201).body["id"]
    client = small_redis.client()
    try:
        fill(client)
        api.call("POST", "/v1/games", json_body=PEOPLE, expect=503, code="store_full")
        assert api.get(f"/v1/games/{game_id}", expect=200).body["id"] == game_id
        api.get("/v1/health", expect=200)
    finally:
        client.close()


@pytest.mark.processes
def test_floe_runs_redis_refuses_rather_than_evicts(tmp_path: Path) -> None:
    """``floe run``'s Redis: ``noeviction`` always (evicting would delete events), and the
    ``maxmemory`` of ``FLOE_REDIS_MAXMEMORY`` when it is set."""
    assert DURABLE_CONFIG["maxmemory-policy"] == "noeviction"
    assert "maxmemory" not in durable_config(None)
    with RedisServer(tmp_path / "redis", config=durable_config("64mb")) as server:
        client = server.client(decode_responses=True)
        try:
            assert client.config_get("maxmemory") == {"maxmemory": str(64 * 1024 * 1024)}
            assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
            assert client.config_get("appendfsync") == {"appendfsync": "always"}
        finally:
            client.close()
    assert Settings.from_env({}).redis_maxmemory is None
    assert Settings.from_env({"FLOE_REDIS_MAXMEMORY": "2GB"}).redis_maxmemory == "2gb"
    for bad in ("lots", "-1", "0", "2 gb", "1tb"):
        with pytest.raises(ValueError, match="FLOE_REDIS_MAXMEMORY"):
            Settings.from_env({"FLOE_REDIS_MAXMEMORY": bad})
