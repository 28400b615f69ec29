"""Rate limits: a fixed-window counter in Redis per token and per client address.

Every ``/v1`` request counts once against its client address and, when it carries an
``Authorization`` header, once against that token (keyed by the SHA-256 of the token: the
token itself is never stored). The counters are bumped atomically by one Lua script (INCR,
and EXPIRE on the first hit of a window), so concurrent workers never lose a count. A window
is ``window_seconds`` long and aligned on the service clock (``service.clock``, so tests move
time by passing a clock, never by sleeping). Over a limit the request is refused with 429
``rate_limited`` and ``Retry-After``: the seconds until the window ends. A limit of 0 is off.

Redis errors are not swallowed: they surface as the usual 503 ``store_unavailable``.
"""

from __future__ import annotations

import hashlib
import logging
import math
from dataclasses import dataclass
from typing import Any

import redis

from service.clock import Clock, epoch_seconds
from service.errors import RateLimited
from service.store import refused_for_memory

#: INCR every key; the first hit of a window sets its expiry. Returns the counts, in order.
#: The counters are kept out of the AOF and replicas (``REPL_NONE``): with ``appendfsync
#: always`` every logged write costs an fsync, and a count is not worth one; a restarted
#: Redis simply starts every window afresh.
_INCR_ALL = """
redis.replicate_commands()
redis.set_repl(redis.REPL_NONE)
local counts = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then
    redis.call('EXPIRE', key, ARGV[1])
  end
  counts[i] = count
end
return counts
"""

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
        self._script: Any = client.register_script(_INCR_ALL)
        self._cluster = cluster

    @property
    def limits(self) -> Limits:
        return self._limits

    def check(self, address: str | None, authorization: str | None) -> None:
        """Count one request; raise ``RateLimited`` when a limit is exceeded."""
        limits = self._limits
        if not limits.enabled:
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
        keys = [key for key, _, _ in checks]
        ttl = [limits.window_seconds + 1]
        try:
            if self._cluster:
                counts = [self._script(keys=[key], args=ttl)[0] for key in keys]
            else:
                counts = self._script(keys=keys, args=ttl)
        except redis.ResponseError as error:
            if not refused_for_memory(error):
                raise
            # A full Redis (``maxmemory``) refuses the counters too. Counting is a guard,
            # not a contract: let the request through, so that reads still answer and writes
            # get their own 503 ``store_full``, rather than every request failing here.
            log.warning("rate limiter not counting: the store is full")
            return
        for (_, limit, what), count in zip(checks, counts, strict=True):
            if int(count) > limit:
                retry = max(1, math.ceil((window + 1) * limits.window_seconds - now))
                raise RateLimited(
                    f"too many requests for this {what}: at most {limit} per "
                    f"{limits.window_seconds} s; retry after {retry} s",
                    retry,
                )
