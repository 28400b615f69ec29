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

A fair queue (the bots', ``Fairness``) keeps its items in lines besides: one per creator
(``service.jobs.lines`` names a game's), served in turn, so one client's flood of bot games
never holds every other client's bot behind it:

- ``<queue>:lines``     sorted set, all scores 0: ``<line>|<seq>|<item>`` for each item waiting,
                        so a line's items read in order by lexical range, one key for all
- ``<queue>:rotation``  list: the lines with items waiting, the next to serve first
- ``<queue>:spent``     hash: line -> ``<seconds>:<ms>``, the thinking time its items took
                        lately (charged as they run, decaying), against ``budget_seconds``

The line ``priority`` (the organizer's games: a tournament's) is served before every other;
then the rotation's lines in turn, passing over a line that thought more than its budget in
the last window while another waits (``claim_items.lua``; docs/guide/bots.md says it plainly).
``pending`` still holds every item, so adding stays idempotent and the sweeper's view whole.

Every change that must be atomic is one Lua script beside this module, its KEYS and ARGV
named in its header (``service.redis.scripts``): ``add_items.lua`` (add, ring the doorbells,
name a drain if the queue needs one), ``claim_items.lua`` (release what is done, claim the
next), ``charge_line.lua`` (charge a line its item's thinking time), ``leave_queue.lua`` (a
drain leaves) and ``prune_claims.lua`` (drop dead workers' claims). Adding is idempotent,
and a drain leaves an empty queue only, or names a successor: an item never waits with no
drain to come, short of a crash, and after a crash the sweeper (``service.jobs.sweeper``)
adds it again.
"""

from __future__ import annotations

import json
import re
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

#: The line served before every other in a fair queue (``service.jobs.lines``).
PRIORITY_LINE = "priority"
#: The line of an item added to a fair queue with none named.
SHARED_LINE = "shared"
#: How many lines of the rotation a claim looks at, at most, for one within its budget.
SCAN_LINES = 32
#: What a line's name may hold: members are ``<line>|<seq>|<item>``, read by lexical range.
_LINE_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,100}")

ADD_ITEMS = Script.load(__package__, "add_items.lua")
CLAIM_ITEMS = Script.load(__package__, "claim_items.lua")
CHARGE_LINE = Script.load(__package__, "charge_line.lua")
LEAVE_QUEUE = Script.load(__package__, "leave_queue.lua")
PRUNE_CLAIMS = Script.load(__package__, "prune_claims.lua")


@dataclass(frozen=True, slots=True)
class Added:
    """What ``add`` did: whether the item was added, and a drain job to enqueue (or None)."""

    added: bool
    drain: str | None


@dataclass(frozen=True, slots=True)
class Fairness:
    """Which queues keep lines (the bots'), and the thinking time a line may use in about
    ``window_seconds`` before it is passed over while others wait (0: no budget, lines are
    served in turn whatever they cost)."""

    queues: frozenset[str] = frozenset()
    budget_seconds: float = 0.0
    window_seconds: float = 60.0


@dataclass(frozen=True, slots=True)
class Claimed:
    """What a claim took: the queue (None: nothing), its items, and each item's line (''
    for an item of no line)."""

    queue: str | None
    items: list[str]
    lines: list[str]


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
lines_key = KeyPattern("<id>:lines")
rotation_key = KeyPattern("<id>:rotation")
spent_key = KeyPattern("<id>:spent")
#: A worker's doorbell: the names of queues items came to, and ``WAKE``.
bell_key = KeyPattern("floe:worker:<id>:bell")
#: RQ's list of the job ids queued on a queue (RQ's own layout).
rq_queue_key = KeyPattern("rq:queue:<id>")


def drain_prefix(queue: str) -> str:
    """Drain job ids are ``drain-<queue without 'floe:'>-<n>``: ``drain-draws-12``."""
    return f"drain-{queue.removeprefix('floe:')}-"


class Backlog:
    """The backlog's operations on the queue Redis, each one round trip."""

    def __init__(self, client: redis.Redis, fairness: Fairness = Fairness()) -> None:
        self._client = client
        self.fairness = fairness
        self._add = ADD_ITEMS.on(client)
        self._claim = CLAIM_ITEMS.on(client)
        self._charge = CHARGE_LINE.on(client)
        self._leave = LEAVE_QUEUE.on(client)
        self._prune = PRUNE_CLAIMS.on(client)

    def add(self, queue: str, item: str, line: str | None = None) -> Added:
        """Add ``item`` unless it is pending or a live worker runs it; name a drain to
        enqueue if the queue has fewer than it needs. In a fair queue it waits in ``line``
        (None: ``SHARED_LINE``); elsewhere ``line`` is ignored."""
        if queue in self.fairness.queues:
            line = line or SHARED_LINE
            if not _LINE_NAME.fullmatch(line):
                raise ValueError(f"not a line's name: {line!r}")
        added, drain = self._add_items(queue, [item], line or "")
        return Added(added > 0, drain)

    def need_drain(self, queue: str) -> str | None:
        """A drain to enqueue if items wait on ``queue`` and it has fewer drains than it
        needs (registered as queued: the caller enqueues it), else None."""
        return self._add_items(queue, [], "")[1]

    def _add_items(self, queue: str, items: list[str], line: str) -> tuple[int, str | None]:
        added, drain = self._add(
            pending=pending_key(queue),
            claims=CLAIMS_KEY,
            drains=drains_key(queue),
            workers=workers_key(queue),
            sequence=SEQUENCE_KEY,
            rq_queue=rq_queue_key(queue),
            drain_sequence=DRAIN_SEQUENCE_KEY,
            lines=lines_key(queue),
            rotation=rotation_key(queue),
            queue=queue,
            drain_prefix=drain_prefix(queue),
            grace_ms=QUEUED_GRACE_MS,
            line=line if queue in self.fairness.queues else "",
            items=items,
        )
        return int(added), _text(drain) or None

    def claim(
        self, worker: str, lanes: Sequence[Lane], done: Sequence[str]
    ) -> tuple[str | None, list[str]]:
        """Release the claims on ``done`` and claim the next items of the first lane that
        has any (``lane.batch`` at most): that lane's queue and the items, in the order
        they are served; (None, []) when every lane is empty."""
        claimed = self.take(worker, lanes, done)
        return claimed.queue, claimed.items

    def take(
        self,
        worker: str,
        lanes: Sequence[Lane],
        done: Sequence[str],
        *,
        busy: Sequence[str] = (),
    ) -> Claimed:
        """``claim``, with each item's line: a plain queue's first in line first, a fair
        queue's from its lines in turn, none of the lines ``busy`` names (those the worker
        has a bot thinking for: ``claim_items.lua``)."""
        fair = self.fairness
        taken = self._claim(
            claims=CLAIMS_KEY,
            lane_keys=[
                key(lane.queue)
                for lane in lanes
                for key in (pending_key, lines_key, rotation_key, spent_key)
            ],
            worker=worker,
            lanes=json.dumps([[lane.batch, int(lane.queue in fair.queues)] for lane in lanes]),
            budget=repr(fair.budget_seconds),
            window_ms=max(1, int(fair.window_seconds * 1000)),
            priority=PRIORITY_LINE,
            scan=SCAN_LINES,
            busy=json.dumps(sorted(set(busy))),
            finished=list(done),
        )
        if not taken:
            return Claimed(None, [], [])
        pairs = [_text(part) for part in taken[1:]]
        return Claimed(lanes[int(taken[0]) - 1].queue, pairs[0::2], pairs[1::2])

    def charge(self, queue: str, line: str, seconds: float) -> float:
        """Charge ``line`` of ``queue`` the ``seconds`` one of its items thought; its count
        now (decayed, this charge included)."""
        counted = self._charge(
            spent=spent_key(queue),
            line=line,
            seconds=repr(max(0.0, seconds)),
            window_ms=max(1, int(self.fairness.window_seconds * 1000)),
        )
        return float(_text(counted))

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

    def lines(self, queue: str) -> list[tuple[str, str]]:
        """The (line, item) pairs waiting in ``queue``'s lines, line by line, each in order."""
        members = self._client.zrange(lines_key(queue), 0, -1)
        pairs = (_text(member).split("|", 2) for member in members)
        return [(line, item) for line, _, item in pairs]

    def rotation(self, queue: str) -> list[str]:
        """The lines of ``queue`` in the order they are next served (but ``priority``)."""
        return [_text(line) for line in self._client.lrange(rotation_key(queue), 0, -1)]

    def spent(self, queue: str) -> dict[str, float]:
        """Each line's thinking seconds as last charged (not decayed since)."""
        raw: Any = self._client.hgetall(spent_key(queue))
        return {_text(line): float(_text(value).split(":")[0]) for line, value in raw.items()}

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
