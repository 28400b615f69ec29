"""The event store's contract, on a real Redis server (never a fake)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import redis
from redis.crc import key_slot

from domain.engine.canonical import canonical_json
from domain.engine.log import GENESIS_HASH, StoredEvent, event_hash, seal
from domain.engine.types import Event
from service.store.events import (
    Appended,
    Conflict,
    Duplicate,
    GameExists,
    RedisEventStore,
    commands_key,
    events_key,
    meta_key,
    seed_key,
)
from tests.support.store import AT, create_first
from tests.support.waiting import PROMPTLY


def _next(head: StoredEvent, command_id: str, n: int = 1) -> list[StoredEvent]:
    events = [Event("retire", 0, {"action": {"type": "retire"}}) for _ in range(n)]
    return seal(
        head.game_id,
        events,
        first_version=head.version + 1,
        prev_hash=head.hash,
        at=AT,
        command_id=command_id,
    )


@pytest.fixture
def store(redis_client: redis.Redis) -> RedisEventStore:
    return RedisEventStore(redis_client)


def test_append_writes_versions_with_entry_ids_that_are_the_versions(
    store: RedisEventStore, redis_client: redis.Redis
) -> None:
    first = create_first(store)
    events = _next(first, "c1", n=2)
    assert store.append(events, command_key="0:c1", command_record={"first": 2}) == Appended(3)
    entries: Any = redis_client.xrange(events_key("g1"))
    ids = [entry_id for entry_id, _ in entries]
    assert ids == [b"0-1", b"0-2", b"0-3"]
    assert store.read("g1") == [first, *events]
    assert store.read("g1", after=1, upto=2) == events[:1]
    stored_bytes = sum(len(canonical_json(e.to_json())) for e in [first, *events])
    assert redis_client.hgetall(meta_key("g1")) == {
        b"game": b"arktia",
        b"version": b"3",
        b"bytes": str(stored_bytes).encode(),
        b"head": events[-1].hash.encode(),
    }


def test_a_stale_version_writes_nothing(store: RedisEventStore, redis_client: redis.Redis) -> None:
    first = create_first(store)
    winner = _next(first, "a")
    loser = _next(first, "b")
    assert isinstance(store.append(winner, command_key="0:a"), Appended)
    assert store.append(loser, command_key="0:b") == Conflict(2)
    assert redis_client.xlen(events_key("g1")) == 2
    assert store.command("g1", "0:b") is None
    assert store.read("g1")[-1] == winner[0]


def test_a_wrong_head_hash_writes_nothing(
    store: RedisEventStore, redis_client: redis.Redis
) -> None:
    first = create_first(store)
    forged = seal(
        "g1", [Event("retire", 0, {})], first_version=2, prev_hash="f" * 64, at=AT, command_id="x"
    )
    assert store.append(forged) == Conflict(1)
    assert redis_client.xlen(events_key("g1")) == 1
    assert redis_client.hget(meta_key("g1"), "head") == first.hash.encode()


def test_a_repeated_command_id_returns_the_first_record_and_writes_once(
    store: RedisEventStore, redis_client: redis.Redis
) -> None:
    first = create_first(store)
    events = _next(first, "c1")
    record = {"seat": 0, "first": 2, "last": 2}
    assert isinstance(store.append(events, command_key="0:c1", command_record=record), Appended)
    again = _next(store.read("g1")[-1], "c1")
    assert store.append(again, command_key="0:c1", command_record={}) == Duplicate(record)
    assert redis_client.xlen(events_key("g1")) == 2
    assert store.command("g1", "0:c1") == record


def test_concurrent_appends_at_one_version_let_exactly_one_through(store: RedisEventStore) -> None:
    first = create_first(store)
    results: list[object] = []
    barrier = threading.Barrier(16)

    def writer(i: int) -> None:
        events = _next(first, f"c{i}")
        barrier.wait(timeout=PROMPTLY)
        results.append(store.append(events, command_key=f"0:c{i}"))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=PROMPTLY)
    assert not any(thread.is_alive() for thread in threads)
    assert sum(isinstance(r, Appended) for r in results) == 1
    assert sum(isinstance(r, Conflict) for r in results) == 15
    assert [e.version for e in store.read("g1")] == [1, 2]


def test_creating_a_game_twice_is_refused_and_changes_nothing(store: RedisEventStore) -> None:
    first = create_first(store)
    with pytest.raises(GameExists):
        create_first(store)
    assert store.read("g1") == [first]


def test_every_key_of_a_game_shares_one_cluster_slot() -> None:
    keys = [events_key("abc"), meta_key("abc"), seed_key("abc"), commands_key("abc")]
    assert len({key_slot(k.encode()) for k in keys}) == 1
    assert all("{abc}" in k for k in keys)


def test_the_stream_is_never_trimmed(store: RedisEventStore, redis_client: redis.Redis) -> None:
    head = create_first(store)
    for i in range(300):
        [head] = _next(head, f"c{i}")
        assert isinstance(store.append([head], command_key=f"0:c{i}"), Appended)
    events = store.read("g1")
    assert [e.version for e in events] == list(range(1, 302))
    prev = GENESIS_HASH
    for event in events:
        assert event.prev_hash == prev and event_hash(event.to_json()) == event.hash
        prev = event.hash
    assert redis_client.xinfo_stream(events_key("g1"))["first-entry"][0] == b"0-1"


def test_wait_returns_new_events_or_nothing_after_the_timeout(store: RedisEventStore) -> None:
    first = create_first(store)
    assert store.wait("g1", after=1, block_ms=10) == []
    assert store.wait("g1", after=0, block_ms=10) == [first]
