"""Games written straight into the event store, as the service writes them."""

from __future__ import annotations

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
