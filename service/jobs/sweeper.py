"""The sweeper: finds what games wait for that no worker will do, and adds it again.

An item can be lost: with a worker that died holding it, with the queue Redis (which keeps
nothing on disk), or between an append and its enqueue. The event store knows what every game
waits for (``Automation.waiting_jobs``), so each sweep compares: an item waited for across two
sweeps is added again (``RqJobQueue.enqueue``, which refuses one pending already or held by a
live worker, so a sweep never piles copies of an id onto a queue, and names a drain if the
queue has too few). Each sweep also drops the claims of workers that died, lets RQ move the
drain jobs of dead workers to its failed registry, and advances every running tournament
whose round is over (idempotent), so an advance lost with its worker never leaves one stuck,
moves the games over (then the tournaments settled) for ``FLOE_ARCHIVE_AFTER_S`` to the
archive (``service.archive.moving``, up to a batch a sweep), and arms again the timer of
every game with a clock (``service.jobs.timers``), so a timer lost with the queue Redis or
a worker is late by a sweep at most.
A bot move that failed is not lost: the sweeper leaves it alone (a worker retries it when
it starts).

A sweep reads only the games not over, the live index ``floe:live`` (``service.store.events``),
never every game: its cost follows the live games, not the games ever played. The index is
written beside each game's script (another slot in a cluster), added to before the game is
created and removed from after it is over, so a crash between the two leaves a stale id (the
sweep drops it on reading the game over, or missing for a minute), never a live game
unlisted. For a game the index lacks anyway (made by a Floe before the index, or its entry
lost), each sweep also reads a fixed slice of ``floe:games`` (``Automation.repair_live_index``,
``REPAIR_SLICE`` ids, from a cursor kept in Redis) and puts back those not over: one full
pass over all games finds every one, and a sweep costs O(live games + slice).

Every worker runs a sweeper; one sweeps at a time, whichever holds the lock ``LOCK_KEY``
(``hold_sweep_lock.lua``: taken with ``SET NX PX``, renewed by its holder, taken over by
another once it lapses).
"""

from __future__ import annotations

import logging
import threading
import uuid

import redis
from redis.exceptions import RedisClusterException
from rq import Queue
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from service.archive.moving import Mover
from service.games.follow_ups import JobKind
from service.jobs.handlers import Automation
from service.jobs.queue import BATCHES, RqJobQueue
from service.redis.scripts import Script

log = logging.getLogger(__name__)

LOCK_KEY = "floe:sweeper:lock"
HOLD_SWEEP_LOCK = Script.load(__package__, "hold_sweep_lock.lua")


class SweepLock:
    """One holder at a time; the holder renews it, a dead holder's lapses after ``ttl``."""

    def __init__(self, client: redis.Redis, ttl_seconds: float) -> None:
        self._hold = HOLD_SWEEP_LOCK.on(client)
        self._token = uuid.uuid4().hex
        self._ttl_ms = max(1, int(ttl_seconds * 1000))

    def acquire(self) -> bool:
        """Take or renew the lock; False while another sweeper holds it."""
        return bool(self._hold(lock=LOCK_KEY, token=self._token, ttl_ms=self._ttl_ms))


class Sweeper:
    """Adds again the draws and bot moves waited for across two sweeps that no live worker
    holds (lost with a dead worker or the queue Redis, failed in a drain, or never added)."""

    def __init__(
        self,
        automation: Automation,
        queue: RqJobQueue,
        client: redis.Redis,
        every: float,
        *,
        mover: Mover | None = None,
    ) -> None:
        """``mover``: moves finished games to the archive each sweep (None: no archive)."""
        self._automation = automation
        self._mover = mover
        self._queue = queue
        self._every = every
        self._lock = SweepLock(client, 2 * every)
        self._rq_queues = [Queue(n, connection=client, serializer=JSONSerializer) for n in BATCHES]
        self._seen: set[tuple[JobKind, str, int]] = set()

    def sweep(self) -> list[tuple[JobKind, str, int]] | None:
        """Sweep once; the items added again, or None when another sweeper holds the lock."""
        if not self._lock.acquire():
            return None
        for rq_queue in self._rq_queues:
            # RQ's own cleanup: drain jobs whose started entry expired move to failed.
            StartedJobRegistry(queue=rq_queue).cleanup()
        self._queue.backlog.prune()
        self._automation.advance_tournaments()
        self._automation.repair_live_index()
        for game_id, version, due in self._automation.waiting_timers():
            self._queue.enqueue("timeout", game_id, version, due=due)
        waiting = set(self._automation.waiting_jobs())
        lost = sorted(waiting & self._seen)
        added = []
        for kind, game_id, version in lost:
            if self._queue.enqueue(kind, game_id, version):
                log.warning("re-enqueued the lost %s job of %s at v%d", kind, game_id, version)
                added.append((kind, game_id, version))
        self._seen = waiting
        if self._mover is not None:
            moved = self._mover.move_due()
            if moved.moved:
                log.info("moved %d finished games to the archive", len(moved.moved))
            settled = self._mover.move_tournaments_due()
            if settled.moved:
                log.info("moved %d settled tournaments to the archive", len(settled.moved))
        return added

    def sweep_until(self, stop: threading.Event) -> None:
        """Sweep every ``every`` seconds until ``stop`` (a worker's thread)."""
        while not stop.wait(self._every):
            try:
                self.sweep()
            except (redis.RedisError, RedisClusterException) as error:  # away: next round
                log.warning("sweep failed: %s", error)
