"""The cap on live streams and ``?wait=`` requests one client address holds open.

In-process, on the real app and Redis: which requests take a slot, the 429 beyond the cap,
slots given back when a stream closes (even one never read), slots of a process that died
given back once its liveness key lapses (a real process, SIGKILLed) and, whatever happens,
expiring on the service clock. The same attacks against ``floe run``'s real processes are in
``tests/faults/test_hostile_load.py`` and ``tests/e2e/test_connections.py``.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.api.app import create_app
from service.limits.long_requests import ALIVE_MS, GRACE_MS, alive_key, holds_key
from service.settings import Settings
from tests.support.clocks import ManualClock
from tests.support.waiting import PROMPTLY, wait_until

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
    for response in abandoned:  # late: their holds had lapsed already
        response.close()


def written_by(client: FlaskClient, redis_client: redis.Redis) -> list[bytes]:
    """The long-request keys this app's process wrote: its holds and its liveness key (a
    stream another test left open keeps its own process's key renewed, even here)."""
    process = client.application.extensions["floe"].long_requests.liveness.process
    keys = [key for key in redis_client.keys("floe:long-requests:*") if isinstance(key, bytes)]
    return [key for key in keys if b":process:" not in key or process.encode() in key]


def test_zero_turns_the_cap_off(redis_url: str, redis_client: redis.Redis) -> None:
    settings = Settings(redis_url=redis_url, long_requests_per_address=0)
    client = create_app(settings).test_client()
    game_id = new_game(client).get_json()["id"]
    streams = [stream(client, game_id) for _ in range(5)]
    assert all(response.status_code == 200 for response in streams)
    assert written_by(client, redis_client) == []
    for response in streams:
        response.close()


#: A process of its own that takes ``CAP`` slots of an address for an hour, says so, and
#: waits to be killed: argv is the Redis URL, the address and the cap.
HOLDER = """
import sys, threading, redis
from service.clock import utc_now
from service.limits.long_requests import LongRequestSlots
url, address, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
slots = LongRequestSlots(redis.Redis.from_url(url), cap, utc_now)
holds = [slots.acquire(address, 3600) for _ in range(cap)]
print(slots.liveness.process, flush=True)
threading.Event().wait()
"""


@pytest.mark.processes  # the holder
def test_slots_of_a_killed_process_are_given_back_once_its_liveness_lapses(
    client: FlaskClient, redis_client: redis.Redis, redis_url: str
) -> None:
    """Another process holds the address's every slot, for an hour: while it lives they
    count (429 here, and nothing of it dropped); once it is SIGKILLed (no ``finally`` runs)
    its liveness key lapses within ``ALIVE_MS`` and the next take drops its holds. The service
    clock never moves here, so no hold lapses by its age."""
    game_id = new_game(client).get_json()["id"]
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, redis_url, "127.0.0.1", str(CAP)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        process = holder.stdout.readline().strip()
        assert redis_client.zcard(holds_key("127.0.0.1")) == CAP
        assert 0 < redis_client.pttl(alive_key(process)) <= ALIVE_MS
        refused = stream(client, game_id)
        assert refused.status_code == 429
        assert redis_client.zcard(holds_key("127.0.0.1")) == CAP  # a live holder's stay
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()

    revived: list[Any] = []

    def streams_again() -> bool:
        response = stream(client, game_id)
        if response.status_code != 200:
            return False
        revived.append(response)
        return True

    wait_until(streams_again, PROMPTLY, "the killed process's slots to be given back")
    assert redis_client.exists(alive_key(process)) == 0
    # Every hold of the dead process went at once, not one by one.
    second = stream(client, game_id)
    assert second.status_code == 200
    assert redis_client.zcard(holds_key("127.0.0.1")) == 2
    for response in (*revived, second):
        response.close()
    assert redis_client.zcard(holds_key("127.0.0.1")) == 0


def test_a_process_keeps_its_liveness_key_while_it_holds_a_slot(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    """The key is set before the first hold is taken and lapses on its own after the last
    is given back (the thread that renews it stops)."""
    game_id = new_game(client).get_json()["id"]
    opened = stream(client, game_id)
    assert opened.status_code == 200
    [member] = redis_client.zrange(holds_key("127.0.0.1"), 0, -1)
    assert isinstance(member, bytes)
    process = member.decode().partition(":")[0]
    assert 0 < redis_client.pttl(alive_key(process)) <= ALIVE_MS
    opened.close()
    wait_until(
        lambda: redis_client.exists(alive_key(process)) == 0,
        PROMPTLY,
        "the liveness key to lapse once nothing is held",
    )


def test_a_process_keeps_a_quarter_of_its_connections_for_plain_requests(
    redis_url: str, clock: ManualClock, redis_client: redis.Redis
) -> None:
    """Many addresses, each within its own cap, cannot take every connection a process
    serves: with ``FLOE_WEB_CONNECTIONS`` 8, six streams are held and the seventh, from a
    fresh address, is 503 ``streams_full`` with ``Retry-After``, taking no slot; a plain
    request is answered, and a closed stream makes room again."""
    settings = Settings(
        redis_url=redis_url,
        long_requests_per_address=CAP,
        sse_max_seconds=SSE_SECONDS,
        web_connections=8,
    )
    client = create_app(settings, clock=clock).test_client()
    game_id = new_game(client).get_json()["id"]
    held = [stream(client, game_id, f"10.0.0.{n}") for n in range(6)]
    assert [response.status_code for response in held] == [200] * 6
    refused = stream(client, game_id, "10.0.1.1")
    assert refused.status_code == 503
    assert refused.get_json()["error"]["code"] == "streams_full"
    assert refused.headers["Retry-After"] == "5"
    assert redis_client.zcard(holds_key("10.0.1.1")) == 0
    assert client.get("/v1/health").status_code == 200
    held.pop().close()
    again = stream(client, game_id, "10.0.1.1")
    assert again.status_code == 200
    for response in [*held, again]:
        response.close()
    assert written_by(client, redis_client) == []
