"""Acknowledged means replicated: a write is answered only once ``k`` replicas hold it.

Redis replicates asynchronously: a master answers a write before any replica has it, so a
master lost right after an answer can take the write with it when a replica is promoted.
With ``FLOE_REPLICA_ACKS=k`` every write script of the event store, the tables and the
tournaments is followed by ``WAIT k timeout`` on the same connection (one pipeline; redis-py
sends a ``SCRIPT EXISTS`` before it, so two round trips): ``WAIT`` counts the replicas
that acknowledged everything that connection wrote. Fewer than ``k`` within the timeout
raises ``NotReplicated``, a 503
``store_unavailable``: the write may exist, but it is not promised. Every write is
idempotent (a command id, a compare-and-set), so a retry with the same command id is safe;
a retry that finds the write already made confirms it the same way (``confirm``), so its
201 promises as much as the first would have.

On a Redis Cluster the pipeline goes to the master that serves the keys' slot (``WAIT`` has
no key, so the cluster client could not route it there); a slot that moved meanwhile is
looked up again, and one being moved is followed where its keys went (``ASKING``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import redis
from redis.client import Pipeline
from redis.cluster import RedisCluster
from redis.exceptions import AskError, MovedError, TryAgainError

from service.errors import NotReplicated
from service.redis.scripts import BoundScript

#: How often a write whose slot moved under it is sent again to the slot's new master.
MOVED_ATTEMPTS = 3
#: The harmless write ``confirm`` makes in a key's slot (it expires on its own).
CONFIRM_TTL_MS = 60_000


class ReplicaAcks:
    """Run write scripts so their answer waits for ``count`` replicas (0: no waiting)."""

    def __init__(self, client: redis.Redis, count: int = 0, timeout_ms: int = 1000) -> None:
        self._client = client
        self._count = count
        self._timeout_ms = timeout_ms

    @property
    def count(self) -> int:
        return self._count

    def run(self, script: BoundScript, **values: Any) -> Any:
        """``script(**values)``, answered once ``count`` replicas hold what it wrote."""
        if self._count == 0:
            return script(**values)
        return self._waited(script.first_key(**values), lambda pipe: script(client=pipe, **values))

    def confirm(self, key: str) -> None:
        """Wait for ``count`` replicas to hold every write made so far in ``key``'s slot (a
        retry that found its write already made: it may not have been replicated yet)."""
        if self._count == 0:
            return
        tag = key[key.index("{") : key.index("}") + 1] if "{" in key else key
        mark = f"floe:acked:{tag}"
        self._waited(key, lambda pipe: pipe.set(mark, 1, px=CONFIRM_TTL_MS))

    def _waited(self, key: str, write: Callable[[Pipeline], object]) -> Any:
        asked: redis.Redis | None = None  # the node a migrating slot sent us to, if any
        for _ in range(MOVED_ATTEMPTS):
            pipe = (asked or self._node(key)).pipeline(transaction=False)
            if asked is not None:
                pipe.execute_command("ASKING")  # type: ignore[no-untyped-call]  # into an importing slot
            write(pipe)
            pipe.wait(self._count, self._timeout_ms)
            try:
                *_, result, acked = pipe.execute()
            except MovedError:  # the slot moved: ask the cluster where it is now
                self._refresh()
                asked = None
                continue
            except AskError as ask:  # the slot is moving and the keys went ahead
                asked = self._node_at(ask.host, ask.port)
                continue
            if int(acked) < self._count:
                raise NotReplicated(int(acked), self._count)
            return result
        raise TryAgainError(f"the slot of {key!r} kept moving")

    def _node(self, key: str) -> redis.Redis:
        """The connection for ``key``: the client itself, or its slot's master's."""
        if not isinstance(self._client, RedisCluster):
            return self._client
        cluster = cast(RedisCluster, self._client)
        node = cluster.get_node_from_key(key)
        return cast(redis.Redis, cluster.get_redis_connection(node))

    def _node_at(self, host: str, port: int) -> redis.Redis | None:
        cluster = cast(RedisCluster, self._client)
        node = cluster.get_node(host=host, port=port)  # type: ignore[no-untyped-call]
        return None if node is None else cluster.get_redis_connection(node)

    def _refresh(self) -> None:
        if isinstance(self._client, RedisCluster):
            self._client.nodes_manager.initialize()
