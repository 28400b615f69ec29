"""The backlog: the items waiting for the workers, who holds which, and the drains that run them.

An item is one draw, bot move or tournament advance, named ``<kind>-<game_id>-<version>``
(``service.jobs.queue.job_id``). It is not an RQ job of its own: it waits in its queue's
backlog until a drain (``service.jobs.drains``), an RQ job that runs many items, claims it.
Everything lives in the queue Redis (``Floe.queue_redis``), beside RQ's keys, under the
queue's name (``floe:draws``, ``floe:bots``):

- ``<queue>:pending``  sorted set: item -> its place in line; a set, so pending at most once
- ``<queue>:drains``   hash: drain job id -> ``queued:<ms>`` (enqueued then) or
                       ``run:<worker>`` (running there, counted while that worker lives)
- ``<queue>:workers``  set: the workers that listen to the queue
- ``floe:claims``      hash: item -> the worker running it (a lease: held while the worker's
                       liveness key ``floe:worker:<name>:alive`` lives)
- ``floe:worker:<name>:bell``  the worker's doorbell: the names of queues items came to,
                       so its idle drain blocks on it (``BLPOP``) instead of polling
- ``floe:backlog:seq``, ``floe:drain:seq``  counters (the line's order, drain ids)

Every change that must be atomic is one Lua script beside this module, its KEYS and ARGV
named in its header (``service.redis.scripts``): ``add_items.lua`` (add, ring the doorbells,
name a drain if the queue needs one), ``claim_items.lua`` (release what is done, claim the
next), ``leave_queue.lua`` (a drain leaves) and ``prune_claims.lua`` (drop dead workers'
claims). Adding is idempotent, and a drain leaves an empty queue only, or names a
successor: an item never waits with no drain to come, short of a crash, and after a crash
the sweeper (``service.jobs.sweeper``) adds it again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from service.redis.keys import KeyPattern
from service.redis.scripts import Script

CLAIMS_KEY = "floe:claims"
SEQUENCE_KEY = "floe:backlog:seq"
DRAIN_SEQUENCE_KEY = "floe:drain:seq"
#: A drain registered as queued counts, even before its RQ job is in RQ's queue list, for
#: this long (the caller registers it, then enqueues it: one round trip later).
QUEUED_GRACE_MS = 1_000
#: What ``wake`` rings: not a queue's name.
WAKE = "wake"

ADD_ITEMS = Script.load(__package__, "add_items.lua")
CLAIM_ITEMS = Script.load(__package__, "claim_items.lua")
LEAVE_QUEUE = Script.load(__package__, "leave_queue.lua")
PRUNE_CLAIMS = Script.load(__package__, "prune_claims.lua")


@dataclass(frozen=True, slots=True)
class Added:
    """What ``add`` did: whether the item was added, and a drain job to enqueue (or None)."""

    added: bool
    drain: str | None


@dataclass(frozen=True, slots=True)
class Lane:
    """A queue a drain takes items from, the most it claims at once, and whether its items
    think (bot moves: a drain lets one think at a time, and none while a draw runs)."""

    queue: str
    batch: int
    thinks: bool = False


pending_key = KeyPattern("<id>:pending")
drains_key = KeyPattern("<id>:drains")
workers_key = KeyPattern("<id>:workers")
#: A worker's doorbell: the names of queues items came to, and ``WAKE``.
bell_key = KeyPattern("floe:worker:<id>:bell")
#: RQ's list of the job ids queued on a queue (RQ's own layout).
rq_queue_key = KeyPattern("rq:queue:<id>")


def drain_prefix(queue: str) -> str:
    """Drain job ids are ``drain-<queue without 'floe:'>-<n>``: ``drain-draws-12``."""
    return f"drain-{queue.removeprefix('floe:')}-"


class Backlog:
    """The backlog's operations on the queue Redis, each one round trip."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client
        self._add = ADD_ITEMS.on(client)
        self._claim = CLAIM_ITEMS.on(client)
        self._leave = LEAVE_QUEUE.on(client)
        self._prune = PRUNE_CLAIMS.on(client)

    def add(self, queue: str, item: str) -> Added:
        """Add ``item`` unless it is pending or a live worker runs it; name a drain to
        enqueue if the queue has fewer than it needs."""
        added, drain = self._add_items(queue, [item])
        return Added(added > 0, drain)

    def need_drain(self, queue: str) -> str | None:
        """A drain to enqueue if items wait on ``queue`` and it has fewer drains than it
        needs (registered as queued: the caller enqueues it), else None."""
        return self._add_items(queue, [])[1]

    def _add_items(self, queue: str, items: list[str]) -> tuple[int, str | None]:
        added, drain = self._add(
            pending=pending_key(queue),
            claims=CLAIMS_KEY,
            drains=drains_key(queue),
            workers=workers_key(queue),
            sequence=SEQUENCE_KEY,
            rq_queue=rq_queue_key(queue),
            drain_sequence=DRAIN_SEQUENCE_KEY,
            queue=queue,
            drain_prefix=drain_prefix(queue),
            grace_ms=QUEUED_GRACE_MS,
            items=items,
        )
        return int(added), _text(drain) or None

    def claim(
        self, worker: str, lanes: Sequence[Lane], done: Sequence[str]
    ) -> tuple[str | None, list[str]]:
        """Release the claims on ``done`` and claim the next items of the first lane that
        has any (``lane.batch`` at most): that lane's queue and the items, first in line
        first; (None, []) when every lane is empty."""
        taken = self._claim(
            claims=CLAIMS_KEY,
            pending=[pending_key(lane.queue) for lane in lanes],
            worker=worker,
            batches=json.dumps([lane.batch for lane in lanes]),
            finished=list(done),
        )
        if not taken:
            return None, []
        return lanes[int(taken[0]) - 1].queue, [_text(item) for item in taken[1:]]

    def release(self, worker: str, items: Sequence[str]) -> None:
        """Drop this worker's claims on ``items`` (finished, or failed: not put back)."""
        if items:
            self.claim(worker, [], items)

    def running(self, queue: str, drain: str, worker: str) -> None:
        """Drain ``drain`` runs on ``worker`` now: it counts while the worker lives."""
        self._client.hset(drains_key(queue), drain, f"run:{worker}")

    def leave_if_empty(self, queue: str, drain: str) -> bool:
        """Unregister ``drain`` if nothing is pending on ``queue``; False (it stays
        registered) when items came meanwhile."""
        pending = self._leave(
            pending=pending_key(queue), drains=drains_key(queue), drain=drain, hand_over=0
        )
        return int(pending) >= 0

    def hand_over(self, queue: str, drain: str) -> str | None:
        """Unregister ``drain`` whatever is pending; the successor drain to enqueue for what
        is, if the queue needs one."""
        pending = self._leave(
            pending=pending_key(queue), drains=drains_key(queue), drain=drain, hand_over=1
        )
        return self.need_drain(queue) if int(pending) > 0 else None

    def prune(self) -> int:
        """Drop the claims of workers that died; how many (the sweeper does it each sweep)."""
        return int(self._prune(claims=CLAIMS_KEY))

    def listen(self, worker: str, queues: Sequence[str]) -> None:
        """Count ``worker`` among the workers of ``queues`` (while its liveness key lives)."""
        pipe = self._client.pipeline(transaction=False)
        for queue in queues:
            pipe.sadd(workers_key(queue), worker)
        pipe.execute()

    def stop_listening(self, worker: str, queues: Sequence[str]) -> None:
        """``worker`` stops: it no longer listens to ``queues``, and its doorbell goes."""
        pipe = self._client.pipeline(transaction=False)
        for queue in queues:
            pipe.srem(workers_key(queue), worker)
        pipe.delete(bell_key(worker))
        pipe.execute()

    def wait(self, worker: str, seconds: float) -> str | None:
        """Block until ``worker``'s doorbell rings, or ``seconds`` pass: the queue items came
        to (``WAKE`` when woken), or None."""
        answer: Any = self._client.blpop([bell_key(worker)], timeout=max(0.001, seconds))
        return None if answer is None else _text(answer[1])

    def wake(self, worker: str) -> None:
        """Ring ``worker``'s doorbell with ``WAKE``: its idle drain looks again at once."""
        pipe = self._client.pipeline(transaction=False)
        pipe.lpush(bell_key(worker), WAKE)
        pipe.expire(bell_key(worker), 600)
        pipe.execute()

    def pending(self, queue: str) -> list[str]:
        """The items pending on ``queue``, first in line first."""
        return [_text(item) for item in self._client.zrange(pending_key(queue), 0, -1)]

    def items(self, queues: Sequence[str]) -> list[str]:
        """Every item pending on ``queues`` or claimed, with repeats: an item both pending
        and claimed, or pending twice, would be held twice (which never happens)."""
        pipe = self._client.pipeline(transaction=False)
        for queue in queues:
            pipe.zrange(pending_key(queue), 0, -1)
        pipe.hkeys(CLAIMS_KEY)
        return [_text(item) for found in pipe.execute() for item in found]

    def claims(self) -> dict[str, str]:
        """Every claimed item and the worker that claimed it."""
        raw: Any = self._client.hgetall(CLAIMS_KEY)
        return {_text(item): _text(worker) for item, worker in raw.items()}

    def drains(self, queue: str) -> dict[str, str]:
        """The drains registered for ``queue`` (id -> ``queued:<ms>`` or ``run:<worker>``)."""
        raw: Any = self._client.hgetall(drains_key(queue))
        return {_text(drain): _text(where) for drain, where in raw.items()}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
