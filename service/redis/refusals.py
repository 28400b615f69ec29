"""Refusals Redis makes that mean something to a client: it is full, or it is away."""

from __future__ import annotations

import redis
from redis.exceptions import ClusterDownError, ClusterError, RedisClusterException, TryAgainError

#: Redis (or a Redis Cluster) could not be reached or could not serve the keys now: the
#: request may be retried later (503 ``store_unavailable``).
UNAVAILABLE: tuple[type[Exception], ...] = (
    redis.ConnectionError,
    redis.TimeoutError,
    ClusterDownError,
    ClusterError,
    TryAgainError,
    RedisClusterException,
)


def refused_for_memory(error: BaseException) -> bool:
    """Whether Redis refused a write because it is at ``maxmemory`` (``noeviction``).

    A plain command raises ``OutOfMemoryError``; inside a script Redis 6 wraps the same
    ``-OOM`` reply in a script error. A script that meets it at its first write wrote nothing.
    """
    if isinstance(error, redis.exceptions.OutOfMemoryError):
        return True
    return isinstance(error, redis.ResponseError) and "OOM command not allowed" in str(error)
