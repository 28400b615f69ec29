"""Connections to Redis: the event store's (one Redis or a Redis Cluster) and the queues'.

Nothing connects at import time, and nothing connects here either until the first command:
the clients are lazy.
"""

from __future__ import annotations

from typing import cast
from urllib.parse import urlsplit

import redis
from redis.cluster import ClusterNode, RedisCluster

from service.run.url_secrets import without_secrets
from service.settings import Settings

#: Seconds a command may queue for a pooled Redis connection before it gives up (503).
REDIS_POOL_TIMEOUT = 10


def connect(settings: Settings) -> redis.Redis:
    """A client for the event store (lazy: the first command connects).

    The pool is bounded and blocking: under gevent thousands of requests may want a
    connection at the same moment (every live stream's heartbeat, say); they queue for one
    of ``redis_connections`` instead of opening thousands, or failing. One still waiting
    after ``REDIS_POOL_TIMEOUT`` seconds is a 503 ``store_unavailable``.

    With ``redis_cluster`` it is redis-py's cluster client, started from the nodes
    ``REDIS_URL`` lists. It is typed as ``redis.Redis`` for the stores: they use only what
    both speak (scripts whose keys share one slot, non-transactional pipelines).
    """
    if settings.redis_cluster:
        return _connect_cluster(settings)
    return _connect_one(settings.store_url, settings.redis_connections)


def connect_queue(settings: Settings, store: redis.Redis) -> redis.Redis:
    """A client for the job queues: ``store`` itself unless ``FLOE_QUEUE_URL`` names another."""
    if settings.queue_url is None:
        return store
    return _connect_one(settings.queue_url, settings.redis_connections)


def _connect_one(url: str, connections: int) -> redis.Redis:
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=connections,
        timeout=REDIS_POOL_TIMEOUT,
        socket_connect_timeout=2,
        health_check_interval=10,
    )
    return redis.Redis(connection_pool=pool)


def _connect_cluster(settings: Settings) -> redis.Redis:
    nodes = []
    for url in settings.store_urls:
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss") or not parts.hostname:
            shown = without_secrets(url)
            raise ValueError(f"REDIS_URL: {shown!r} is not a redis://host:port URL")
        nodes.append(ClusterNode(parts.hostname, parts.port or 6379))  # type: ignore[no-untyped-call]
    client = RedisCluster(
        startup_nodes=nodes,
        max_connections=settings.redis_connections,
        socket_connect_timeout=2,
        health_check_interval=10,
    )
    return cast(redis.Redis, client)
