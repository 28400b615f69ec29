"""Rate limits: a fixed-window counter in Redis per token and per client address.

Every ``/v1`` request counts once against its client address and, when it carries an
``Authorization`` header, once against that token (keyed by the SHA-256 of the token: the
token itself is never stored). The counters are bumped atomically by one Lua script (INCR,
and EXPIRE on the first hit of a window), so concurrent workers never lose a count. A window
is ``window_seconds`` long and aligned on the service clock (``service.clock``, so tests move
time by passing a clock, never by sleeping). Over a limit the request is refused with 429
``rate_limited`` and ``Retry-After``: the seconds until the window ends. A limit of 0 is off.

**Cost.** A request that makes the server work harder counts as more than one: an uploaded
export file (``POST /v1/replays``) is charged ``body_units(size)``, one unit per
``BYTES_PER_UNIT`` of it on top of the request's own, so the limit bounds the bytes an
address has audited, not only its requests (``check(..., cost=n)``).

Redis errors are not swallowed: they surface as the usual 503 ``store_unavailable``.

**Leases.** A limit of at least ``2 * LEASE_DIVISOR`` is not counted one request at a time:
a process takes a *lease* of ``lease_size(limit)`` requests from the shared counter (one
``INCRBY``) and admits that many locally before asking again, so a hot token or address
costs one round trip per lease, not one per request. The shared counter still bounds every
process together: no window ever admits more than its limit. The price is at the other
edge: requests leased by one process but unused when the window ends are lost, so a client
may be refused up to ``(lease - 1)`` requests per process early, under 1 % of the limit.
Small limits (every one a test sets) are counted exactly, one request at a time.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from dataclasses import dataclass
from typing import Any

import redis

from service.clock import Clock, epoch_seconds
from service.errors import RateLimited
from service.redis.refusals import refused_for_memory
from service.redis.scripts import Script

COUNT_REQUESTS = Script.load(__package__, "count_requests.lua")

#: A limit is leased in pieces of about this fraction of it (see the module docstring).
LEASE_DIVISOR = 256
#: The largest lease, so a huge limit (a benchmark's "never") still checks in often.
MAX_LEASE = 64
#: Leases held at once; past it they are dropped (which can only refuse early, never admit).
MAX_LEASES = 100_000
#: A request body costs one unit of the rate limit per this many bytes, beyond the request.
BYTES_PER_UNIT = 64 * 1024


def body_units(size: int) -> int:
    """The units a request with a body of ``size`` bytes costs in all (1 for none)."""
    return 1 + max(0, size) // BYTES_PER_UNIT


def lease_size(limit: int) -> int:
    """Requests a process takes from the shared counter at a time for ``limit``."""
    return max(1, min(MAX_LEASE, limit // LEASE_DIVISOR))


log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Limits:
    """Requests allowed per window; 0 turns a limit off."""

    per_token: int
    per_address: int
    window_seconds: int

    @property
    def enabled(self) -> bool:
        return self.window_seconds > 0 and (self.per_token > 0 or self.per_address > 0)


def token_of(authorization: str | None) -> str | None:
    """The credential of an ``Authorization`` header (any scheme), or None."""
    if authorization is None or not authorization.strip():
        return None
    _, _, token = authorization.strip().partition(" ")
    return token.strip() or authorization.strip()


class RateLimiter:
    """``cluster``: the counters of one request may sit in different slots, and a script may
    touch one slot only, so each counter gets its own call (one call for all, elsewhere)."""

    def __init__(
        self, client: redis.Redis, limits: Limits, clock: Clock, *, cluster: bool = False
    ) -> None:
        self._limits = limits
        self._clock = clock
        self._script = COUNT_REQUESTS.on(client)
        self._cluster = cluster
        #: Requests still to admit locally per leased counter key, for the current window.
        self._leases: dict[str, int] = {}
        self._lease_window = ""
        self._lock = threading.Lock()

    @property
    def limits(self) -> Limits:
        return self._limits

    def check(self, address: str | None, authorization: str | None, *, cost: int = 1) -> None:
        """Count a request as ``cost`` units; raise ``RateLimited`` when a limit is exceeded
        (a request that costs more than the room left is refused, and still charged)."""
        limits = self._limits
        if not limits.enabled or cost <= 0:
            return
        now = epoch_seconds(self._clock)
        window = int(now // limits.window_seconds)
        suffix = f"{limits.window_seconds}:{window}"
        checks: list[tuple[str, int, str]] = []
        token = token_of(authorization)
        if limits.per_token > 0 and token is not None:
            digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
            checks.append((f"floe:ratelimit:token:{digest}:{suffix}", limits.per_token, "token"))
        if limits.per_address > 0:
            key = f"floe:ratelimit:addr:{address or 'unknown'}:{suffix}"
            checks.append((key, limits.per_address, "address"))
        if not checks:
            return
        asks = self._asks(checks, suffix, cost)
        if not asks:  # every counter admitted it from a lease this process holds
            return
        try:
            totals = self._count([key for key, _, _, _ in asks], [by for _, _, _, by in asks])
        except redis.ResponseError as error:
            if not refused_for_memory(error):
                raise
            # A full Redis (``maxmemory``) refuses the counters too. Counting is a guard,
            # not a contract: let the request through, so that reads still answer and writes
            # get their own 503 ``store_full``, rather than every request failing here.
            log.warning("rate limiter not counting: the store is full")
            return
        refused = self._settle(asks, totals, suffix, cost)
        if refused is not None:
            limit, what = refused
            retry = max(1, math.ceil((window + 1) * limits.window_seconds - now))
            raise RateLimited(
                f"too many requests for this {what}: at most {limit} per "
                f"{limits.window_seconds} s; retry after {retry} s",
                retry,
            )

    def _asks(
        self, checks: list[tuple[str, int, str]], window: str, cost: int
    ) -> list[tuple[str, int, str, int]]:
        """What to ask the shared counters, as (key, limit, what, increment): the request's
        ``cost`` and a new lease for each counter whose lease this process has not enough
        left of, the ``cost`` alone for those counted exactly. Empty when leases this
        process holds admit the request for every counter (a lease too small for the cost
        is kept for the requests after).

        A counter whose lease still has room is charged here, even if another counter then
        refuses the request: the request was made, and an unused lease only refuses early.
        """
        asks: list[tuple[str, int, str, int]] = []
        with self._lock:
            if window != self._lease_window or len(self._leases) > MAX_LEASES:
                self._leases.clear()  # the old window's leases are void
                self._lease_window = window
            for key, limit, what in checks:
                size = lease_size(limit)
                left = self._leases.get(key, 0)
                if size > 1 and left >= cost:
                    self._leases[key] = left - cost
                else:
                    asks.append((key, limit, what, cost + size - 1))
        return asks

    def _settle(
        self, asks: list[tuple[str, int, str, int]], totals: list[Any], window: str, cost: int
    ) -> tuple[int, str] | None:
        """Keep what each new lease granted beyond this request's ``cost``; the first
        counter that grants less than the cost, as (limit, what), or None when all admit."""
        refused: tuple[int, str] | None = None
        with self._lock:
            for (key, limit, what, by), total in zip(asks, totals, strict=True):
                granted = min(by, limit - (int(total) - by))  # room left under the limit
                if granted < cost:
                    refused = refused or (limit, what)
                elif by > cost and window == self._lease_window:
                    self._leases[key] = self._leases.get(key, 0) + granted - cost
        return refused

    def _count(self, keys: list[str], increments: list[int]) -> list[Any]:
        """Add ``increments`` to the shared counters ``keys``; their new totals."""
        ttl = self._limits.window_seconds + 1
        if self._cluster:
            return [
                self._script(counters=[key], ttl_s=ttl, increments=[by])[0]
                for key, by in zip(keys, increments, strict=True)
            ]
        return list(self._script(counters=keys, ttl_s=ttl, increments=increments))
