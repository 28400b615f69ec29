"""The store writes the line ``seal`` made for each event, and an event with none (read back,
or made elsewhere) is encoded to the same bytes: on a real Redis server."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from domain.engine.canonical import canonical_json
from domain.engine.log import GENESIS_HASH, StoredEvent, seal
from domain.engine.types import Event
from service.store.events import Appended, RedisEventStore, events_key, meta_key
from tests.support.store import AT

#: Events whose data holds what could mislead a splice: keys sorting around ``hash`` and
#: ``prev_hash``, quotes, backslashes, non-ASCII.
AWKWARD = [
    Event("place", 0, {"hash": "x", "prev_hash": {"hash": '"prev_hash":"'}, "é": "\U0001f9ca"}),
    Event('pl"a\\ce', 1, {"zz": ["\\", '"', "\u2028"], "type": "t", "version": 2**70}),
    Event("game_over", "system", {"winners": [1]}),
]


@pytest.mark.parametrize("carried", [True, False], ids=["sealed", "read-back"])
def test_every_entry_is_the_canonical_json_of_its_event(
    redis_client: redis.Redis, carried: bool
) -> None:
    store = RedisEventStore(redis_client)
    sealed = seal(
        "g1",
        [Event("game_created", "system", {"game": "arktia", "name": "Åsa"}), *AWKWARD],
        first_version=1,
        prev_hash=GENESIS_HASH,
        at=AT,
        command_id="c1",
    )
    if not carried:  # the same events as anything but ``seal`` makes them: no line
        sealed = [StoredEvent.from_json(e.to_json()) for e in sealed]
    assert all((e._line is not None) is carried for e in sealed)
    first, *rest = sealed
    store.create(first, seed_hex="00" * 32, meta={"game": "arktia"}, created_ms=1)
    assert store.append(rest, command_key="0:c1", command_record={"first": 2}) == Appended(4)
    entries: Any = redis_client.xrange(events_key("g1"))
    expected = [canonical_json(e.to_json()).encode() for e in sealed]
    assert [fields[b"e"] for _, fields in entries] == expected
    assert store.read("g1") == sealed
    assert redis_client.hget(meta_key("g1"), "bytes") == str(sum(map(len, expected))).encode()
