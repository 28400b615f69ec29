"""Waiting for a game's next event: one subscription per process, no connection per waiter.

The waits here are long (60 s) and the periodic recheck longer (120 s), so a waiter that
returns with its event within half its wait was woken by the append's signal: nothing else
could have (and half a minute is plenty for a signal, even on a busy machine).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator

import pytest
import redis

from domain.engine.log import StoredEvent, seal
from domain.engine.types import Event
from service.store.appends import AppendSignals
from service.store.events import Appended, RedisEventStore
from tests.support.store import create_first
from tests.support.waiting import PROMPTLY, wait_until

LONG_MS = 60_000
AT = "2026-01-01T00:00:00Z"


def create_game(store: RedisEventStore) -> str:
    return create_first(store, secrets.token_hex(8)).game_id


def append_one(store: RedisEventStore, game_id: str) -> None:
    head = store.read(game_id)[-1]
    events = seal(
        game_id,
        [Event("retire", 0, {"action": {"type": "retire"}})],
        first_version=head.version + 1,
        prev_hash=head.hash,
        at=AT,
        command_id=None,
    )
    assert isinstance(store.append(events), Appended)


@pytest.fixture
def signals(redis_client: redis.Redis) -> Iterator[AppendSignals]:
    yield AppendSignals(redis_client, recheck_seconds=120)


def _waiter(
    store: RedisEventStore, game_id: str, after: int, got: dict[str, list[StoredEvent]]
) -> threading.Thread:
    def wait() -> None:
        got[game_id] = store.wait(game_id, after=after, block_ms=LONG_MS)

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    return thread


def test_a_waiter_is_woken_by_an_append_made_through_another_client(
    redis_client: redis.Redis, redis_url: str, signals: AppendSignals
) -> None:
    waiting_store = RedisEventStore(redis_client, signals)
    writer = RedisEventStore(redis.Redis.from_url(redis_url))
    game_id = create_game(writer)
    got: dict[str, list[StoredEvent]] = {}
    thread = _waiter(waiting_store, game_id, 1, got)
    wait_until(lambda: signals.waiting() == 1, PROMPTLY, "the waiter to register")
    append_one(writer, game_id)
    thread.join(timeout=LONG_MS / 1000 / 2)  # half the wait: only the signal is this fast
    assert not thread.is_alive()
    assert [e.version for e in got[game_id]] == [2]
    assert signals.waiting() == 0


def test_two_hundred_waiters_wait_on_a_pool_of_four_connections(redis_url: str) -> None:
    """Four connections in all (a blocking pool, as ``bootstrap.connect`` makes): one is the
    subscription, three serve the reads. A waiter that held a connection would starve the
    rest, and the test would time out."""
    pool = redis.BlockingConnectionPool.from_url(redis_url, max_connections=4, timeout=PROMPTLY)
    client = redis.Redis(connection_pool=pool)
    signals = AppendSignals(client, recheck_seconds=120)
    store = RedisEventStore(client, signals)
    writer = RedisEventStore(redis.Redis.from_url(redis_url))
    games = [create_game(writer) for _ in range(200)]
    got: dict[str, list[StoredEvent]] = {}
    threads = [_waiter(store, game_id, 1, got) for game_id in games]
    wait_until(lambda: signals.waiting() == 200, PROMPTLY, "200 waiters to register")
    for game_id in games:
        append_one(writer, game_id)
    for thread in threads:
        thread.join(timeout=LONG_MS / 1000 / 2)
    assert sorted(got) == sorted(games)
    assert all([e.version for e in events] == [2] for events in got.values())


def test_a_lost_subscription_loses_no_event(
    redis_client: redis.Redis, redis_url: str, signals: AppendSignals
) -> None:
    """Kill the subscriber's connection, append while it is gone: the waiter still gets it."""
    store = RedisEventStore(redis_client, signals)
    admin = redis.Redis.from_url(redis_url)
    writer = RedisEventStore(admin)
    game_id = create_game(writer)
    got: dict[str, list[StoredEvent]] = {}
    thread = _waiter(store, game_id, 1, got)
    wait_until(lambda: signals.waiting() == 1, PROMPTLY, "the waiter to register")
    wait_until(
        lambda: admin.pubsub_numsub("floe:appended")[0][1] >= 1, PROMPTLY, "the subscription"
    )
    admin.client_kill_filter(_type="pubsub")
    append_one(writer, game_id)
    thread.join(timeout=LONG_MS / 1000 / 2)
    assert not thread.is_alive()
    assert [e.version for e in got[game_id]] == [2]


def test_a_wait_with_nothing_appended_returns_empty_at_its_deadline(
    redis_client: redis.Redis,
) -> None:
    store = RedisEventStore(redis_client, AppendSignals(redis_client, recheck_seconds=0.05))
    game_id = create_game(store)
    assert store.wait(game_id, after=1, block_ms=200) == []
    assert [e.version for e in store.wait(game_id, after=0, block_ms=200)] == [1]
