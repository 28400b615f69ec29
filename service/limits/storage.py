"""The storage budget: how many bytes of events one creator's games may hold in Redis.

Quotas bound how many games a client has in play, but not what its finished games keep in
Redis until they are archived, nor how long its games grow: with archiving slow or off, one
address could still grow Redis without bound. So a creator whose games in Redis (live, or
over and not yet archived) already hold ``budget`` bytes of events creates no more: 429
``storage_quota``, nothing written, until some of them leave Redis.

A game's bytes are the length of its stored events' JSON, which the store's create and
append scripts keep beside the game (``EventStore.bytes_held``). Each creator's games are
the sorted set ``floe:quota:{<creator>}:stored`` (member game id, score when it was taken,
ms), beside the quotas' sets and added by the same script (``reserve_quota.lua``), so the
game a table starts counts against its host wherever its quotas are taken. The total is read
only when a creator creates, in pipelined batches (one round trip per ``BATCH`` games,
stopping once the budget is reached); the move path never reads it. Games Redis no longer
holds (archived, or a create that died) count nothing and are pruned from the set as the
total is read, once ``ORPHAN_MS`` old, so a game being created right now is never dropped.

Checked before the create and not atomically with it: creates racing from one address may
each find room, and games grow after they are created, so a creator may end a little past
its budget; the next create after that is refused.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import redis

from service.errors import StorageQuotaExceeded
from service.redis.keys import KeyPattern
from service.store.events import EventStore

#: Games whose bytes one round trip reads.
BATCH = 500

stored_key = KeyPattern("floe:quota:{<id>}:stored")


@dataclass(frozen=True, slots=True)
class Held:
    """What a creator's games hold in Redis, as far as the reading went (it stops at the
    budget), and the members found naming no game in Redis, old enough to prune."""

    bytes: int
    gone: tuple[str, ...]


def storage_quota(held: int, budget: int, archive_after_s: float | None) -> StorageQuotaExceeded:
    """429 ``storage_quota``, saying what is held, the budget, and what frees room."""
    if archive_after_s is None:
        leaving = "finished games leave Redis only when archived, and archiving is off here"
    else:
        leaving = (
            f"a finished game leaves Redis {archive_after_s:g} s after it ends "
            "(FLOE_ARCHIVE_AFTER_S), and its bytes with it"
        )
    message = (
        f"this client's games hold at least {held} bytes in Redis, at or over its budget of "
        f"{budget} bytes (FLOE_STORED_BYTES_PER_CREATOR); {leaving}; finish a game, or ask "
        "the organizer, whose token has no budget, to create it"
    )
    return StorageQuotaExceeded(message)


class StorageBudget:
    """Read a creator's bytes in Redis, and refuse a create at or over ``budget`` (0: off)."""

    def __init__(
        self,
        client: redis.Redis,
        store: EventStore,
        budget: int,
        *,
        archive_after_s: float | None = None,
    ) -> None:
        """``client``: where the creators' sets are; ``store``: the games' sizes;
        ``archive_after_s``: how long a finished game stays in Redis (None: no archive),
        for the refusal to say."""
        self._client = client
        self._store = store
        self._budget = budget
        self._archive_after_s = archive_after_s

    @property
    def enabled(self) -> bool:
        return self._budget > 0

    def check(self, creator: str, now_ms: int, orphan_ms: int) -> None:
        """``storage_quota`` when ``creator``'s games hold ``budget`` bytes or more; prunes
        the members that name no game in Redis and were taken ``orphan_ms`` ago or more."""
        if not self.enabled:
            return
        held = self.held(creator, now_ms - orphan_ms)
        if held.gone:
            with contextlib.suppress(redis.RedisError):  # pruned next time, then
                self._client.zrem(stored_key(creator), *held.gone)
        if held.bytes >= self._budget:
            raise storage_quota(held.bytes, self._budget, self._archive_after_s)

    def held(self, creator: str, taken_by_ms: int) -> Held:
        """The bytes ``creator``'s games hold, summed batch by batch until the budget is
        reached; members with no game in Redis taken by ``taken_by_ms`` are gone."""
        listed: Any = self._client.zrange(stored_key(creator), 0, -1, withscores=True)
        members = [(_text(member), float(taken_ms)) for member, taken_ms in listed]
        total, gone = 0, []
        for start in range(0, len(members), BATCH):
            batch = members[start : start + BATCH]
            sizes = self._store.bytes_held([game_id for game_id, _ in batch])
            for (game_id, taken_ms), size in zip(batch, sizes, strict=True):
                if size is not None:
                    total += size
                elif taken_ms <= taken_by_ms:
                    gone.append(game_id)
            if self.enabled and total >= self._budget:
                break
        return Held(total, tuple(gone))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
