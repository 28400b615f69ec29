"""A real Redis Cluster for the tests: three masters and three replicas of the same
``redis-server`` the rest of the suite runs, on free loopback ports, joined by
``redis-cli --cluster create`` (the one shipped beside that server)."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from redis.cluster import ClusterNode, RedisCluster

from bench.hostile import wait_until
from service.run.redis_server import DURABLE_CONFIG, RedisServer, find_redis_server

#: Each node persists like ``floe run``'s Redis, and notices a dead peer within a second.
NODE_CONFIG = {
    **DURABLE_CONFIG,
    "cluster-enabled": "yes",
    "cluster-config-file": "nodes.conf",
    "cluster-node-timeout": "1000",
}


@dataclass
class Cluster:
    nodes: list[RedisServer]

    @property
    def url(self) -> str:
        """``REDIS_URL`` for Floe: every node, comma-separated."""
        return ",".join(f"redis://127.0.0.1:{node.port}" for node in self.nodes)

    def client(self) -> RedisCluster:
        nodes = [ClusterNode("127.0.0.1", node.port) for node in self.nodes]  # type: ignore[no-untyped-call]
        return RedisCluster(startup_nodes=nodes)

    def masters(self) -> list[RedisServer]:
        return [n for n in self.nodes if _role(n) == "master"]

    def flush(self) -> None:
        """Empty every master (the replicas follow)."""
        for node in self.masters():
            with node.client() as client:
                client.flushall()

    def healthy(self) -> bool:
        return all(_info(node).get("cluster_state") == "ok" for node in self.nodes)


def _info(node: RedisServer) -> dict[str, str]:
    with node.client() as client:
        text = client.execute_command("CLUSTER INFO")
    if isinstance(text, dict):
        return {str(k): str(v) for k, v in text.items()}
    raw = text.decode() if isinstance(text, bytes) else str(text)
    return dict(line.split(":", 1) for line in raw.splitlines() if ":" in line)


def _role(node: RedisServer) -> str:
    with node.client() as client:
        return str(client.info("replication")["role"])


def start_cluster(base: Path, masters: int = 3, replicas: int = 1) -> Cluster:
    nodes = [
        RedisServer(base / f"node{i}", config=NODE_CONFIG).start()
        for i in range(masters * (1 + replicas))
    ]
    cli = str(Path(find_redis_server()).with_name("redis-cli"))
    created = subprocess.run(
        [
            cli,
            "--cluster",
            "create",
            *(f"127.0.0.1:{node.port}" for node in nodes),
            "--cluster-replicas",
            str(replicas),
            "--cluster-yes",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    cluster = Cluster(nodes)
    if created.returncode != 0:
        stop_cluster(cluster)
        raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
    wait_until(cluster.healthy, 30, "every node to say cluster_state:ok")
    return cluster


def stop_cluster(cluster: Cluster) -> None:
    for node in cluster.nodes:
        with contextlib.suppress(Exception):
            node.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cluster = start_cluster(tmp_path_factory.mktemp("cluster"))
    try:
        yield cluster
    finally:
        stop_cluster(cluster)


@pytest.fixture
def cluster(redis_cluster: Cluster, redis_url: str) -> Cluster:
    """The session's cluster, emptied (and the session's plain Redis, for the queues)."""
    redis_cluster.flush()
    return redis_cluster


@pytest.fixture
def cluster_client(cluster: Cluster) -> Iterator[redis.Redis]:
    client = cluster.client()
    try:
        yield client  # type: ignore[misc]
    finally:
        client.close()
