"""The backlog of work for the job workers: pending items, their claims, and the drains.

An item is one draw, bot move or tournament advance, named by its job id
``<kind>-<game_id>-<version>`` (``service.jobs.queue.job_id``). It does not become an RQ job of its
own: it waits in its queue's backlog until a drain job (``service.jobs.drain``), an RQ job that
works many items, claims it. All of it lives in the queue Redis (``Floe.queue_redis``), next
to RQ's own keys, under the queue's name (``floe:draws``, ``floe:bots``):

- ``<queue>:pending``  sorted set: item -> a sequence number (first in, first out); a set,
                       so an item is pending at most once
- ``<queue>:drains``   hash: drain job id -> ``queued:<ms>`` (enqueued then) or
                       ``run:<worker>`` (running on that worker)
- ``<queue>:workers``  set of the workers that listen to the queue
- ``floe:claims``      hash: item -> the worker running it (its lease, held while that
                       worker's liveness key ``floe:worker:<name>:alive`` lives)
- ``floe:worker:<name>:bell``  each worker's doorbell: a short list of queue names, one
                       pushed (to every live worker of the queue) whenever items are added to
                       it; a drain waiting for work blocks on its own (``BLPOP``) instead of
                       polling, and ``wake`` is pushed there to stop it
- ``floe:backlog:seq``, ``floe:drain:seq``  counters (pending order, drain job ids)

Every change is one Lua script, so each is atomic and one round trip. The queue Redis is one
Redis (RQ needs one), so the scripts also touch keys they compute: a worker's liveness key
and doorbell, RQ's queue list.

Adding an item (``add``) is idempotent: an item pending, or claimed by a live worker, is not
added again. The same script makes sure a drain will see it: when fewer drains are queued or
running for the queue than workers listen to it (at least one), it registers a new drain job
id and the caller enqueues that RQ job. A drain leaves (``leave``) only in the same script
that finds its queue empty, or it names a successor; so an item never waits with no drain to
come, short of a crash, and after a crash the sweeper adds it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

CLAIMS_KEY = "floe:claims"
SEQUENCE_KEY = "floe:backlog:seq"
DRAIN_SEQUENCE_KEY = "floe:drain:seq"
#: A drain registered as queued counts, even before its RQ job is in RQ's queue list, for
#: this long (the API registers it, then enqueues it: one round trip later).
QUEUED_GRACE_MS = 1_000

# Lua helpers shared by the scripts (KEYS/ARGV are each script's own).
_ALIVE = """
local function alive(worker)
  return redis.call('EXISTS', 'floe:worker:' .. worker .. ':alive') == 1
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Every live worker of the queue (its set: KEYS[workers]) hears that items came to it.
local function ring(workers, queue)
  for _, worker in ipairs(redis.call('SMEMBERS', workers)) do
    if alive(worker) then
      local bell = 'floe:worker:' .. worker .. ':bell'
      redis.call('LPUSH', bell, queue)
      redis.call('LTRIM', bell, 0, 7)
      redis.call('EXPIRE', bell, 600)
    end
  end
end
"""

# The drains a queue has, after dropping those lost (their worker died, or a queued job that
# is no longer in RQ's queue list), and the workers that listen to it. ARGV[2] is the drain
# id prefix and ARGV[3] the grace in ms, in every script that uses these.
_COUNT = """
local function drains(key, rq_queue, now)
  local count = 0
  local entries = redis.call('HGETALL', key)
  for i = 1, #entries, 2 do
    local id, where = entries[i], entries[i + 1]
    local kept
    if string.sub(where, 1, 7) == 'queued:' then
      kept = now - tonumber(string.sub(where, 8)) < tonumber(ARGV[3])
        or redis.call('LPOS', rq_queue, id) ~= false
    else
      kept = alive(string.sub(where, 5))
    end
    if kept then count = count + 1 else redis.call('HDEL', key, id) end
  end
  return count
end
local function listeners(key)
  local count = 0
  for _, worker in ipairs(redis.call('SMEMBERS', key)) do
    if alive(worker) then count = count + 1 else redis.call('SREM', key, worker) end
  end
  return count
end
local function new_drain(key, sequence, now)
  local id = ARGV[2] .. redis.call('INCR', sequence)
  redis.call('HSET', key, id, 'queued:' .. now)
  return id
end
"""

# KEYS (``Backlog._queue_keys``): pending, claims, drains, workers, the pending sequence,
# RQ's queue list, the drain sequence.
# ARGV: the item ('' to only make sure a drain will come), drain id prefix, grace ms, queue.
# Returns {1 if the item was added else 0, the id of a drain to enqueue or ''}.
ADD_SCRIPT = (
    _ALIVE
    + _COUNT
    + """
local added = 0
local item = ARGV[1]
if item ~= '' and not redis.call('ZSCORE', KEYS[1], item) then
  local holder = redis.call('HGET', KEYS[2], item)
  if not (holder and alive(holder)) then
    if holder then redis.call('HDEL', KEYS[2], item) end
    redis.call('ZADD', KEYS[1], redis.call('INCR', KEYS[5]), item)
    ring(KEYS[4], ARGV[4])
    added = 1
  end
end
if redis.call('ZCARD', KEYS[1]) == 0 then return {added, ''} end
local now = now_ms()
if drains(KEYS[3], KEYS[6], now) >= math.max(1, listeners(KEYS[4])) then
  return {added, ''}
end
return {added, new_drain(KEYS[3], KEYS[7], now)}
"""
)

# KEYS: claims.  Drops the claims of workers that died (their items, if still waited for,
# are added again by the sweeper; an item whose game moved on would keep its claim for ever).
# Returns how many were dropped.
PRUNE_SCRIPT = (
    _ALIVE
    + """
local dropped = 0
local claims = redis.call('HGETALL', KEYS[1])
for i = 1, #claims, 2 do
  if not alive(claims[i + 1]) then
    redis.call('HDEL', KEYS[1], claims[i])
    dropped = dropped + 1
  end
end
return dropped
"""
)

# KEYS: claims, then the pending set of each queue in the order to take from.
# ARGV: worker, how many items it finished, those items, then per queue the most to take.
# Releases the finished items' claims, then claims up to that many items of the first queue
# that has any. Returns {the queue's position (1-based), items...}, or {} when all are empty.
CLAIM_SCRIPT = """
local worker = ARGV[1]
local done = tonumber(ARGV[2])
for i = 3, 2 + done do
  if redis.call('HGET', KEYS[1], ARGV[i]) == worker then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
for q = 2, #KEYS do
  local popped = redis.call('ZPOPMIN', KEYS[q], tonumber(ARGV[1 + done + q]))
  if #popped > 0 then
    local taken = {q - 1}
    for i = 1, #popped, 2 do
      redis.call('HSET', KEYS[1], popped[i], worker)
      taken[#taken + 1] = popped[i]
    end
    return taken
  end
end
return {}
"""

# KEYS: claims, pending, the queue's workers.
# ARGV: worker, queue, then the items to put back first in line (in order).
# Claims of this worker on them are dropped; the items go before everything pending.
GIVE_BACK_SCRIPT = (
    _ALIVE
    + """
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local score = (#first > 0 and tonumber(first[2]) or 0) - #ARGV - 1
for i = 3, #ARGV do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
  redis.call('ZADD', KEYS[2], score + i, ARGV[i])
end
if #ARGV > 2 then ring(KEYS[3], ARGV[2]) end
return #ARGV - 2
"""
)

# KEYS: as ADD_SCRIPT's.  ARGV: '' (unused), drain id prefix, grace ms, the leaving drain's
# id, 1 to hand over (leave even with items pending, naming a successor) or 0 (stay then).
# Returns 'stay', '' (gone) or the successor's id (gone; the caller enqueues it).
LEAVE_SCRIPT = (
    _ALIVE
    + _COUNT
    + """
local pending = redis.call('ZCARD', KEYS[1]) > 0
if pending and ARGV[5] == '0' then return 'stay' end
redis.call('HDEL', KEYS[3], ARGV[4])
if not pending then return '' end
local now = now_ms()
if drains(KEYS[3], KEYS[6], now) >= math.max(1, listeners(KEYS[4])) then return '' end
return new_drain(KEYS[3], KEYS[7], now)
"""
)


@dataclass(frozen=True, slots=True)
class Added:
    """What ``add`` did: whether the item was added, and a drain job to enqueue (or None)."""

    added: bool
    drain: str | None


@dataclass(frozen=True, slots=True)
class Lane:
    """A queue a drain takes items from, and the most it claims at once."""

    queue: str
    batch: int


def pending_key(queue: str) -> str:
    return f"{queue}:pending"


def bell_key(worker: str) -> str:
    """``worker``'s doorbell: the names of queues items came to, and ``wake``."""
    return f"floe:worker:{worker}:bell"


def drains_key(queue: str) -> str:
    return f"{queue}:drains"


def workers_key(queue: str) -> str:
    return f"{queue}:workers"


#: What ``wake`` rings: not a queue's name.
WAKE = "wake"


def rq_queue_key(queue: str) -> str:
    """RQ's list of the job ids queued on ``queue`` (RQ's own layout)."""
    return f"rq:queue:{queue}"


def drain_prefix(queue: str) -> str:
    """Drain job ids are ``drain-<queue without 'floe:'>-<n>``: ``drain-draws-12``."""
    return f"drain-{queue.removeprefix('floe:')}-"


class Backlog:
    """The backlog's operations, each one script on the queue Redis."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client
        self._add = client.register_script(ADD_SCRIPT)
        self._claim = client.register_script(CLAIM_SCRIPT)
        self._give_back = client.register_script(GIVE_BACK_SCRIPT)
        self._leave = client.register_script(LEAVE_SCRIPT)
        self._prune = client.register_script(PRUNE_SCRIPT)

    def _queue_keys(self, queue: str) -> list[str]:
        return [
            pending_key(queue),
            CLAIMS_KEY,
            drains_key(queue),
            workers_key(queue),
            SEQUENCE_KEY,
            rq_queue_key(queue),
            DRAIN_SEQUENCE_KEY,
        ]

    def add(self, queue: str, item: str) -> Added:
        """Add ``item`` unless it is pending or a live worker runs it; name a drain to
        enqueue if the queue has fewer than it needs (``item`` '': only that)."""
        args: list[str | int] = [item, drain_prefix(queue), QUEUED_GRACE_MS, queue]
        added, drain = self._add(keys=self._queue_keys(queue), args=args)
        return Added(bool(int(added)), _text(drain) or None)

    def claim(
        self, worker: str, lanes: Sequence[Lane], done: Sequence[str]
    ) -> tuple[str | None, list[str]]:
        """Release the claims on ``done`` and claim the next items of the first lane that
        has any (``lane.batch`` at most): that lane's queue and the items, first in line
        first; (None, []) when every lane is empty."""
        keys = [CLAIMS_KEY, *(pending_key(lane.queue) for lane in lanes)]
        args: list[Any] = [worker, len(done), *done, *(lane.batch for lane in lanes)]
        taken = self._claim(keys=keys, args=args)
        if not taken:
            return None, []
        return lanes[int(taken[0]) - 1].queue, [_text(item) for item in taken[1:]]

    def give_back(self, worker: str, queue: str, items: Sequence[str]) -> None:
        """Put claimed items that were not run back first in line, released."""
        if items:
            keys = [CLAIMS_KEY, pending_key(queue), workers_key(queue)]
            self._give_back(keys=keys, args=[worker, queue, *items])

    def release(self, worker: str, items: Sequence[str]) -> None:
        """Drop this worker's claims on ``items`` (finished, or failed: not put back)."""
        self.claim(worker, [], items)

    def running(self, queue: str, drain: str, worker: str) -> None:
        """Drain ``drain`` runs on ``worker`` now: it counts while the worker lives."""
        self._client.hset(drains_key(queue), drain, f"run:{worker}")

    def leave(self, queue: str, drain: str, *, hand_over: bool) -> str | None:
        """Unregister ``drain`` if the queue is empty (or ``hand_over``); 'stay' when items
        came meanwhile (and not ``hand_over``), else the successor drain to enqueue, if any."""
        args: list[str | int] = [
            "",
            drain_prefix(queue),
            QUEUED_GRACE_MS,
            drain,
            1 if hand_over else 0,
        ]
        answer = _text(self._leave(keys=self._queue_keys(queue), args=args))
        return answer or None

    def prune(self) -> int:
        """Drop the claims of workers that died; how many (the sweeper does it each sweep)."""
        return int(self._prune(keys=[CLAIMS_KEY], args=[]))

    def listen(self, worker: str, queues: Sequence[str]) -> None:
        """Count ``worker`` among the workers of ``queues`` (while its liveness key lives)."""
        pipe = self._client.pipeline(transaction=False)
        for queue in queues:
            pipe.sadd(workers_key(queue), worker)
        pipe.execute()

    def leave_all(self, worker: str, queues: Sequence[str]) -> None:
        """``worker`` stops: it no longer listens, and its wake-up call is dropped."""
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
        """Ring ``worker``'s doorbell with ``WAKE`` (it is asked to stop; a drain ends)."""
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
