"""A real Redis Cluster for the tests: three masters and three replicas of the same
``redis-server`` the rest of the suite runs (``TEST_REDIS_SERVER``, else the bundled one), on free loopback ports, joined by
``redis-cli --cluster create`` (``service.run.redis_cluster``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.run.redis_cluster import LocalCluster, start_cluster
from tests.support.redis_binary import redis_server_binary


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    cluster = start_cluster(tmp_path_factory.mktemp("cluster"), executable=redis_server_binary())
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def cluster(redis_cluster: LocalCluster, redis_url: str) -> LocalCluster:
    """The session's cluster, emptied (``redis_url``, the session's plain Redis, holds the
    job queues)."""
    redis_cluster.flush()
    return redis_cluster
