"""Counted slots that expire on their own: at most ``limit`` holders of one key at once.

Both the cap on a client's open streams and waits (``long_requests.py``) and the cap on a
creator's open tables (``tables.py``) are "at most N at once, and a holder that vanishes
without saying so must not hold its slot for ever". One sorted set per key does both: each
member is a holder, scored by when its slot lapses; taking a slot first drops the lapsed
ones, then counts. Giving a slot back early is one ``ZREM``.
"""

from __future__ import annotations

import redis

# KEYS: the slots.  ARGV: now (ms), this slot's expiry (ms), the limit, the holder.
# Drops lapsed slots, then takes one if fewer than the limit are held: 1 taken, 0 refused.
# The key itself lapses with its longest slot (relative to ``now``: the service clock may not
# be Redis's).
TAKE_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
local life = tonumber(ARGV[2]) - tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < life then redis.call('PEXPIRE', KEYS[1], life) end
return 1
"""


class ExpiringSlots:
    """Take and give back slots of one sorted set per key (the connection is passed in)."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client
        self._take = client.register_script(TAKE_SCRIPT)

    def take(self, key: str, holder: str, *, now_ms: int, until_ms: int, limit: int) -> bool:
        """A slot of ``key`` for ``holder`` until ``until_ms``, if fewer than ``limit`` are
        held now."""
        args: list[int | str] = [now_ms, until_ms, limit, holder]
        return bool(int(self._take(keys=[key], args=args)))

    def give_back(self, key: str, holder: str) -> None:
        self._client.zrem(key, holder)

    def held(self, key: str) -> int:
        return int(self._client.zcard(key))
