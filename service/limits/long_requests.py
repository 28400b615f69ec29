"""A cap on the long requests one client address holds open: live streams and ``?wait=``.

A stream or a wait costs the server almost nothing while it idles (``service/store/appends.py``),
but not nothing: a socket, a greenlet, a waiter. One address may hold ``per_address`` of them
at once, across every API process; the next is refused with 429 ``too_many_streams`` until
one closes. Each hold is a member of a sorted set scored by when it expires, so a process
that dies holding slots gives them back when their longest possible life has passed.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import redis

from service.clock import Clock, epoch_seconds
from service.errors import TooManyStreams
from service.limits.slots import ExpiringSlots
from service.redis.keys import KeyPattern

#: A hold outlives the request it covers by this much before it counts as abandoned.
GRACE_MS = 30_000
#: What a refused client is told to wait before trying again.
RETRY_AFTER_SECONDS = 5


holds_key = KeyPattern("floe:long-requests:{<id>}")


@dataclass(frozen=True, slots=True)
class Hold:
    """One taken slot; ``release`` gives it back (idempotent)."""

    slots: ExpiringSlots
    key: str
    member: str

    def release(self) -> None:
        self.slots.give_back(self.key, self.member)


class LongRequestSlots:
    """Per-address slots for requests that stay open; ``per_address`` 0 turns the cap off."""

    def __init__(self, client: redis.Redis, per_address: int, clock: Clock) -> None:
        self._slots = ExpiringSlots(client)
        self._per_address = per_address
        self._clock = clock

    @property
    def per_address(self) -> int:
        return self._per_address

    def acquire(self, address: str | None, seconds: float) -> Hold | None:
        """A slot for ``seconds`` at most, or 429 ``too_many_streams``; None when off."""
        if self._per_address <= 0:
            return None
        key = holds_key(address or "unknown")
        now_ms = int(1000 * epoch_seconds(self._clock))
        life_ms = int(1000 * seconds) + GRACE_MS
        member = secrets.token_hex(8)
        until_ms = now_ms + life_ms
        limit = self._per_address
        if not self._slots.take(key, member, now_ms=now_ms, until_ms=until_ms, limit=limit):
            raise TooManyStreams(
                f"this address already holds {self._per_address} open streams and waits; "
                "close one (or wait for one to end) and try again",
                RETRY_AFTER_SECONDS,
            )
        return Hold(self._slots, key, member)

    @contextmanager
    def holding(self, address: str | None, seconds: float) -> Iterator[None]:
        """Hold a slot for the body of the ``with``."""
        hold = self.acquire(address, seconds)
        try:
            yield
        finally:
            if hold is not None:
                hold.release()
