"""Floe built in the benchmark's own process on a private, throwaway redis-server, its jobs
only counted: for the parts that measure the store and the service's reads, not the workers
or HTTP.

The redis-server is the tests' (``RedisServer`` with ``EPHEMERAL_CONFIG``: in memory, a free
port on 127.0.0.1), so nothing here touches another Redis. The per-creator quotas are off, as
a benchmark creates far more games than one person may.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import redis

from service.bootstrap import Floe, build
from service.games.follow_ups import JobKind
from service.run.redis_server import EPHEMERAL_CONFIG, RedisServer
from service.settings import Settings


class CountingQueue:
    """A job queue that only counts: no job runs, so no draw is made and no bot moves unless
    the benchmark does it itself."""

    def __init__(self) -> None:
        self.jobs = 0

    def enqueue(self, kind: JobKind, game_id: str, version: int, *, due: int | None = None) -> bool:
        self.jobs += 1
        return True


@contextlib.contextmanager
def ephemeral_redis(prefix: str) -> Iterator[RedisServer]:
    """A private in-memory redis-server, its folder under a temporary one named ``prefix``;
    stopped and removed after."""
    with (
        tempfile.TemporaryDirectory(prefix=prefix) as folder,
        RedisServer(Path(folder) / "redis", config=EPHEMERAL_CONFIG) as server,
    ):
        yield server


def counting_floe(client: redis.Redis, **settings: Any) -> Floe:
    """Floe on ``client`` with its jobs only counted and no per-creator quota; ``settings``
    are any others to set."""
    unlimited = Settings(
        bot_games_per_creator=0, live_games_per_creator=0, stored_bytes_per_creator=0, **settings
    )
    return build(unlimited, redis_client=client, jobs=CountingQueue())
