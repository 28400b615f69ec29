"""Counted slots that expire on their own: at most ``limit`` holders of one key at once.

Both the cap on a client's open streams and waits (``long_requests.py``) and the cap on a
creator's open tables (``tables.py``) are "at most N at once, and a holder that vanishes
without saying so must not hold its slot for ever". One sorted set per key does both: each
member is a holder, scored by when its slot lapses; taking a slot first drops the lapsed
ones, then counts. Giving a slot back early is one ``ZREM``. A caller that knows more about
who is gone (``long_requests.py`` knows which processes have died) names those holders to
the take, which drops them too before it counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import redis

from service.redis.scripts import Script

TAKE_SLOT = Script.load(__package__, "take_slot.lua")


class ExpiringSlots:
    """Take and give back slots of one sorted set per key (the connection is passed in)."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client
        self._take = TAKE_SLOT.on(client)

    def take(
        self,
        key: str,
        holder: str,
        *,
        now_ms: int,
        until_ms: int,
        limit: int,
        dropping: Sequence[str] = (),
    ) -> bool:
        """A slot of ``key`` for ``holder`` until ``until_ms``, if fewer than ``limit`` are
        held now, once the holders ``dropping`` names are gone."""
        taken = self._take(
            slots=key,
            now_ms=now_ms,
            until_ms=until_ms,
            limit=limit,
            holder=holder,
            dropping=list(dropping),
        )
        return bool(int(taken))

    def give_back(self, key: str, holder: str) -> None:
        self._client.zrem(key, holder)

    def held(self, key: str) -> int:
        return int(self._client.zcard(key))

    def holders(self, key: str) -> list[str]:
        """Every holder of ``key``, lapsed ones included."""
        members = self._client.zrange(key, 0, -1)
        return [m.decode() if isinstance(m, bytes) else str(m) for m in members]
