"""The cap on live streams and ``?wait=`` requests one client address holds open.

In-process, on the real app and Redis: which requests take a slot, the 429 beyond the cap,
slots given back when a stream closes (even one never read), and slots of a process that
died expiring on the service clock. The same attacks against ``floe run``'s real processes
are in ``tests/faults/test_hostile_connections.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.api.app import create_app
from service.limits.long_requests import GRACE_MS, holds_key
from service.settings import Settings
from tests.support.clocks import ManualClock

CAP = 2
SSE_SECONDS = 60.0
PLAYERS = [{"name": "a"}, {"name": "b"}]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def client(redis_url: str, clock: ManualClock) -> FlaskClient:
    settings = Settings(
        redis_url=redis_url, long_requests_per_address=CAP, sse_max_seconds=SSE_SECONDS
    )
    return create_app(settings, clock=clock).test_client()


def new_game(client: FlaskClient, *, wait: int = 0, address: str = "127.0.0.1") -> Any:
    return client.post(
        f"/v1/games?wait={wait}",
        json={"game": "arktia", "players": PLAYERS},
        environ_base={"REMOTE_ADDR": address},
    )


def stream(client: FlaskClient, game_id: str, address: str = "127.0.0.1") -> Any:
    return client.get(
        f"/v1/games/{game_id}/events/stream",
        buffered=False,
        environ_base={"REMOTE_ADDR": address},
    )


def test_streams_beyond_the_cap_are_429_and_a_closed_stream_frees_its_slot(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    game_id = new_game(client).get_json()["id"]
    first, second = stream(client, game_id), stream(client, game_id)
    assert first.status_code == second.status_code == 200
    assert redis_client.zcard(holds_key("127.0.0.1")) == CAP

    refused = stream(client, game_id)
    assert refused.status_code == 429
    assert refused.get_json()["error"]["code"] == "too_many_streams"
    assert refused.headers["Retry-After"] == "5"
    # Another address has its own slots.
    elsewhere = stream(client, game_id, "10.0.0.2")
    assert elsewhere.status_code == 200
    elsewhere.close()

    first.close()  # never read: the slot still comes back
    assert redis_client.zcard(holds_key("127.0.0.1")) == CAP - 1
    third = stream(client, game_id)
    assert third.status_code == 200
    second.close()
    third.close()
    assert redis_client.zcard(holds_key("127.0.0.1")) == 0


def test_a_wait_takes_a_slot_and_a_request_that_does_not_wait_takes_none(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    game_id = new_game(client).get_json()["id"]
    held = [stream(client, game_id) for _ in range(CAP)]
    refused = new_game(client, wait=5)
    assert refused.status_code == 429
    assert refused.get_json()["error"]["code"] == "too_many_streams"
    assert redis_client.zcard("floe:games") == 1  # nothing was created
    assert new_game(client).status_code == 201  # wait=0 never waits, so never counts
    for response in held:
        response.close()
    assert new_game(client, wait=5).status_code == 201
    assert redis_client.zcard(holds_key("127.0.0.1")) == 0  # the wait gave its slot back


def test_slots_of_a_process_that_died_expire_after_their_longest_life(
    client: FlaskClient, redis_client: redis.Redis, clock: ManualClock
) -> None:
    """Holds the app never releases (as if its process died) stop counting once a stream
    could no longer be open: ``sse_max_seconds`` plus the grace."""
    game_id = new_game(client).get_json()["id"]
    abandoned = [stream(client, game_id) for _ in range(CAP)]
    assert stream(client, game_id).status_code == 429
    clock.advance(SSE_SECONDS + GRACE_MS / 1000 - 1)
    assert stream(client, game_id).status_code == 429
    clock.advance(2)
    revived = stream(client, game_id)
    assert revived.status_code == 200
    revived.close()
    del abandoned


def test_zero_turns_the_cap_off(redis_url: str, redis_client: redis.Redis) -> None:
    settings = Settings(redis_url=redis_url, long_requests_per_address=0)
    client = create_app(settings).test_client()
    game_id = new_game(client).get_json()["id"]
    streams = [stream(client, game_id) for _ in range(5)]
    assert all(response.status_code == 200 for response in streams)
    assert redis_client.keys("floe:long-requests:*") == []
    for response in streams:
        response.close()
