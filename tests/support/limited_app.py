"""What the tests of the per-client limits share: the real app on the test Redis with the
limits a test sets, and a snapshot of what Redis holds, to say a refusal wrote nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis
from flask import Flask

from service.api.app import create_app
from service.settings import Settings
from tests.support.api import ORGANIZER
from tests.support.clocks import ManualClock

#: ``limited_app`` with the test's Redis URL bound: ``make_app(clock, **overrides)``.
MakeApp = Callable[..., Flask]


def limited_app(redis_url: str, clock: ManualClock | None = None, **overrides: Any) -> Flask:
    """The app on ``redis_url`` with the organizer's token, the settings ``overrides`` (the
    limits under test) and ``clock`` (a fresh ``ManualClock`` by default)."""
    settings = Settings(redis_url=redis_url, organizer_token=ORGANIZER, **overrides)
    return create_app(settings, clock=clock or ManualClock())


def floe_keys(client: redis.Redis) -> dict[bytes, Any]:
    """Every key under ``floe:`` but the rate limiter's, with its contents: what a create or
    a join could write."""
    return {key: contents(client, key) for key in sorted(written_keys(client))}


#: Keys no request writes on its own behalf: the rate limiter's counters, and each API
#: process's liveness key, kept while it holds any stream (another test's, maybe).
NOT_A_REQUESTS = (b"floe:ratelimit:", b"floe:long-requests:process:")


def written_keys(client: redis.Redis) -> set[bytes]:
    """Every ``floe:`` key a request could have written (``NOT_A_REQUESTS`` left out)."""
    keys = (bytes(key) for key in client.scan_iter("floe:*") if isinstance(key, bytes))
    return {key for key in keys if not key.startswith(NOT_A_REQUESTS)}


def contents(client: redis.Redis, key: bytes) -> Any:
    """What ``key`` holds, read by its type: never by ``DUMP``, whose bytes for a big hash
    follow its table's layout, which Redis rehashes as it reads, not only as it writes."""
    kind = client.type(key)
    if kind == b"zset":
        return client.zrange(key, 0, -1, withscores=True)
    if kind == b"hash":
        return client.hgetall(key)
    if kind == b"stream":
        return client.xrange(key)
    if kind == b"list":
        return client.lrange(key, 0, -1)
    if kind == b"set":
        return sorted(client.smembers(key))
    return client.dump(key)
