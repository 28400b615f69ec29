"""Start and stop a local Redis Cluster: masters and their replicas, each a private
``redis-server`` (``service.run.redis_server``), joined by ``redis-cli --cluster create``.

For the tests and the benchmarks, which need a real cluster on one machine; a deployment
runs its own cluster and names its nodes in ``REDIS_URL``.

A cluster is ready only once every node sees it whole *and* every replica has finished its
first sync with its master: until then a write's ``WAIT`` reaches no replica. Redis 7 starts
a diskless sync only after ``repl-diskless-sync-delay`` (5 s by default), so a cluster called
ready on ``cluster_state:ok`` alone failed every replicated write for its first seconds; the
nodes here set that delay to 0 and ``start_cluster`` waits for the links to be up.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import redis
from redis.cluster import ClusterNode, RedisCluster

from service.run.redis_server import (
    DURABLE_CONFIG,
    RedisServer,
    ephemeral_port_low,
    find_redis_server,
    free_tcp_port,
    port_is_free,
)

#: A node's cluster bus listens on its port plus this.
BUS_OFFSET = 10_000

#: Each node persists like ``floe run``'s Redis, and notices a dead peer within a second.
NODE_CONFIG: Mapping[str, str] = {
    **DURABLE_CONFIG,
    "cluster-enabled": "yes",
    "cluster-config-file": "nodes.conf",
    "cluster-node-timeout": "1000",
    # a replica's first sync starts at once (Redis 7 waits 5 s by default, Redis 6 sync on disk)
    "repl-diskless-sync-delay": "0",
}


@dataclass
class LocalCluster:
    nodes: list[RedisServer]

    @property
    def url(self) -> str:
        """``REDIS_URL`` for Floe: every node, comma-separated."""
        return ",".join(f"redis://127.0.0.1:{node.port}" for node in self.nodes)

    def client(self) -> RedisCluster:
        nodes = [ClusterNode("127.0.0.1", node.port) for node in self.nodes]  # type: ignore[no-untyped-call]
        return RedisCluster(startup_nodes=nodes)

    def masters(self) -> list[RedisServer]:
        return [node for node in self.nodes if node.running and role(node) == "master"]

    def flush(self) -> None:
        """Empty every master (the replicas follow)."""
        for node in self.masters():
            with node.client() as client:
                client.flushall()

    def healthy(self) -> bool:
        """Every running node sees the cluster whole."""
        running = [node for node in self.nodes if node.running]
        return all(cluster_info(node).get("cluster_state") == "ok" for node in running)

    def replicated(self, replicas: int) -> bool:
        """Every running master has ``replicas`` replicas whose first sync is done."""
        running = [node for node in self.nodes if node.running]
        infos = [replication(node) for node in running]
        masters = [info for info in infos if info.get("role") == "master"]
        followers = [info for info in infos if info.get("role") == "slave"]
        return all(int(info.get("connected_slaves", 0)) >= replicas for info in masters) and all(
            info.get("master_link_status") == "up"
            and not int(info.get("master_sync_in_progress", 0))
            for info in followers
        )

    def stop(self) -> None:
        for node in self.nodes:
            with contextlib.suppress(Exception):
                node.stop()


def cluster_info(node: RedisServer) -> dict[str, str]:
    """``CLUSTER INFO`` of one node, as a dict."""
    with node.client() as client:
        text = client.execute_command("CLUSTER INFO")
    if isinstance(text, dict):
        return {str(k): str(v) for k, v in text.items()}
    raw = text.decode() if isinstance(text, bytes) else str(text)
    return dict(line.split(":", 1) for line in raw.splitlines() if ":" in line)


def replication(node: RedisServer) -> dict[str, str]:
    """``INFO replication`` of one node, its values as text."""
    with node.client() as client:
        return {str(k): str(v) for k, v in client.info("replication").items()}


def role(node: RedisServer) -> str:
    return str(replication(node)["role"])


def start_cluster(
    base: Path,
    masters: int = 3,
    replicas: int = 1,
    *,
    timeout: float = 30.0,
    executable: str | None = None,
) -> LocalCluster:
    """``masters`` masters with ``replicas`` replicas each, whole, answering and replicated
    (every replica's first sync done). ``executable``: the ``redis-server`` to run (default
    ``find_redis_server()``'s); its ``redis-cli`` beside it joins the nodes."""
    executable = executable or find_redis_server()
    nodes = [
        RedisServer(
            base / f"node{i}", port=cluster_port(), config=NODE_CONFIG, executable=executable
        ).start()
        for i in range(masters * (1 + replicas))
    ]
    cluster = LocalCluster(nodes)
    cli = str(Path(executable).with_name("redis-cli"))
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
    if created.returncode != 0:
        cluster.stop()
        raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
    deadline = time.monotonic() + timeout
    while not _ready(cluster, replicas):
        if time.monotonic() > deadline:
            cluster.stop()
            raise RuntimeError("the cluster did not become whole and replicated in time")
        time.sleep(0.05)  # polling a condition on servers we just started
    return cluster


def cluster_port() -> int:
    """A free port a cluster node can use, with its cluster bus port (10,000 above it) free
    too, both below the ephemeral range."""
    for _ in range(1000):
        port = free_tcp_port(below=ephemeral_port_low() - BUS_OFFSET)
        if port_is_free("127.0.0.1", port + BUS_OFFSET):
            return port
    raise RuntimeError("no free port pair for a cluster node")


def _ready(cluster: LocalCluster, replicas: int) -> bool:
    try:
        return cluster.healthy() and cluster.replicated(replicas)
    except redis.RedisError:
        return False
