"""The store from the test's side: games written straight into the event store, as the
service writes them, and every byte Redis holds (to look for what must never be stored)."""

from __future__ import annotations

from typing import Any

import redis

from domain.engine.log import GENESIS_HASH, StoredEvent, seal
from domain.engine.types import Event
from service.store.events import RedisEventStore

#: The time every hand-written event carries.
AT = "2026-11-22T12:00:00Z"


def create_first(store: RedisEventStore, game_id: str = "g1") -> StoredEvent:
    """A game of one ``game_created`` event, written as the service writes it."""
    [first] = seal(
        game_id,
        [Event("game_created", "system", {"game": "arktia"})],
        first_version=1,
        prev_hash=GENESIS_HASH,
        at=AT,
        command_id=None,
    )
    store.create(first, seed_hex="00" * 32, meta={"game": "arktia"}, created_ms=1)
    return first


def every_stored_byte(client: redis.Redis) -> bytes:
    """Every key and value in Redis, whatever its type, as one blob."""
    blob = b""
    for key in client.keys("*"):
        assert isinstance(key, bytes)
        kind = client.type(key)
        value: Any
        if kind == b"string":
            value = client.get(key)
        elif kind == b"hash":
            value = client.hgetall(key)
        elif kind == b"stream":
            value = client.xrange(key)
        elif kind == b"zset":
            value = client.zrange(key, 0, -1, withscores=True)
        elif kind == b"list":
            value = client.lrange(key, 0, -1)
        elif kind == b"set":
            value = client.smembers(key)
        else:
            raise AssertionError(f"unexpected key type {kind!r} of {key!r}")
        blob += key + repr(value).encode()
    return blob
