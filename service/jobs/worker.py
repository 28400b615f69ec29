"""``floe worker``: run the drain jobs, and sweep for jobs lost with a worker that died.

The worker is RQ's ``SimpleWorker``: jobs run in the worker process itself, so the
repository's state cache stays warm across them. Its jobs are drains (``service.jobs.drain``):
each claims and runs many draws and bot moves from the backlog (``service.jobs.backlog``), on a
few threads, so RQ's bookkeeping is paid per drain, not per item. It listens to RQ's
``floe:draws``, then ``floe:bots``, then the legacy ``floe`` queue (``service.jobs.queue``), and a
drain claims draws before bot moves, so a draw is always taken before any bot move. Asked to
stop (SIGTERM), it wakes its idle drain at once; the drain finishes the items in hand and
names a successor if items wait.

While it runs, a thread keeps the worker's liveness key (``floe:worker:<name>:alive``, a
short TTL) renewed, and its name in the sets of workers of the queues it listens to (a
queue gets as many drains as it has workers); a SIGKILLed worker's key expires within
``alive_ttl``, and the items it had claimed, and its running drain, count as lost. RQ's own
worker key lives ``worker_ttl + 60`` s, too long to wait.

A lost item is found again by the sweeper. One sweeper sweeps at a time, whichever worker
holds the Redis lock ``floe:sweeper:lock`` (``SET NX PX``, renewed by its holder, taken over
by another worker once it expires). A sweep re-enqueues a job still waited for across two of
its sweeps only when no live worker holds it and it is not pending already
(``RqJobQueue.enqueue`` checks, in one script), so it never piles copies of a job id onto a
queue; the same script names a drain if the queue has too few. Each sweep also advances
every running tournament whose round is over (idempotent), so a job lost with its worker
never leaves one stuck. A bot move that failed (out of time, or a bug) is not lost: the
sweeper leaves it alone, and each worker retries it once, when it starts.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import redis
from redis.exceptions import RedisClusterException
from rq import SimpleWorker
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from service.bootstrap import Floe
from service.games.follow_ups import JobKind, JobQueue
from service.jobs import queue as jobs
from service.jobs.backlog import Backlog
from service.jobs.drain import IDLE_SECONDS, Drainer, DrainSettings, lanes_for
from service.jobs.handlers import Automation

log = logging.getLogger(__name__)

LOCK_KEY = "floe:sweeper:lock"
#: Extend the lock only if this sweeper still holds it (compare, then PEXPIRE).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


class SweepLock:
    """``SET key token NX PX ttl``: one holder at a time; the holder renews, others wait
    for it to expire (a dead holder's lock lapses after ``ttl``)."""

    def __init__(self, client: redis.Redis, ttl_seconds: float) -> None:
        self._client = client
        self._token = uuid.uuid4().hex
        self._ttl_ms = max(1, int(ttl_seconds * 1000))

    def acquire(self) -> bool:
        if self._client.set(LOCK_KEY, self._token, nx=True, px=self._ttl_ms):
            return True
        return bool(self._client.eval(_RENEW, 1, LOCK_KEY, self._token, self._ttl_ms))


class Sweeper:
    """Re-enqueue draws and bot moves that stayed pending across two sweeps and that no live
    worker holds (lost with a dead worker, failed, lost with the queue Redis, or never
    enqueued)."""

    def __init__(
        self, automation: Automation, queue: JobQueue, client: redis.Redis, every: float
    ) -> None:
        self._automation = automation
        self._queue = queue
        self._client = client
        self._lock = SweepLock(client, 2 * every)
        self._seen: set[tuple[JobKind, str, int]] = set()

    def sweep(self) -> list[tuple[JobKind, str, int]] | None:
        """Sweep once; the jobs re-enqueued, or None when another sweeper holds the lock."""
        if not self._lock.acquire():
            return None
        for queue in jobs.worker_queues(self._client):
            # RQ's own cleanup: drain jobs whose started entry expired move to failed.
            StartedJobRegistry(queue=queue).cleanup()
        if isinstance(self._queue, jobs.RqJobQueue):
            self._queue.backlog.prune()  # the claims of workers that died
        self._automation.advance_tournaments()
        pending = set(self._automation.waiting_jobs())
        stuck = sorted(pending & self._seen)
        enqueued = []
        for kind, game_id, version in stuck:
            if self._queue.enqueue(kind, game_id, version) is not False:
                log.warning("re-enqueued the lost %s job of %s at v%d", kind, game_id, version)
                enqueued.append((kind, game_id, version))
        self._seen = pending
        return enqueued


def alive_ttl(floe: Floe) -> float:
    """How long a worker's liveness key outlives its last renewal."""
    return max(2.0, 3 * floe.settings.sweep_seconds)


class FloeWorker(SimpleWorker):
    """RQ's ``SimpleWorker``, told when a stop is asked for (its running drain then ends
    after the item in hand, at once if it is idle)."""

    on_stop: Callable[[], None] | None = None

    def handle_warm_shutdown_request(self) -> None:
        super().handle_warm_shutdown_request()  # type: ignore[no-untyped-call]
        if self.on_stop is not None:
            self.on_stop()


def run_worker(floe: Floe, *, burst: bool = False, draws_only: bool = False) -> bool:
    """Work the Floe queues until stopped (``burst``: until empty), sweeping meanwhile.

    ``draws_only``: listen to the draws queue alone, so that however many bots think, a
    person's dice never wait behind them (``floe run`` keeps its first worker for draws).

    Starting, it retries every bot move that failed (``Automation.retry_failed``): this is
    how games whose bot ran out of time, or hit a bug, resume (docs/ai.md).
    """
    client = floe.queue_redis
    queue = _job_queue(floe)
    stop = threading.Event()  # the process ends: the renewals and the sweeps stop
    stopping = threading.Event()  # a stop is asked for: the drain ends after its item
    every = floe.settings.sweep_seconds
    queues = jobs.worker_queues(client, draws_only=draws_only)
    worker = FloeWorker(queues, connection=client, serializer=JSONSerializer)
    lanes = lanes_for([q.name for q in queues], jobs.BATCHES)
    drainer = Drainer(
        queue.backlog,
        functools.partial(jobs.run_item, floe.automation),
        queue.timeout_of,
        queue.enqueue_drain,
        worker.name,
        lanes,
        stopping,
        thinking_queues=frozenset({jobs.QUEUE_NAMES["bot"]}),
        settings=DrainSettings(
            idle_seconds=0.0 if burst else IDLE_SECONDS, threads=floe.settings.worker_threads
        ),
    )
    jobs.install(floe.automation, drainer)

    def asked_to_stop() -> None:  # in the signal handler: wake the idle drain from a thread
        stopping.set()
        threading.Thread(target=_wake, args=(queue.backlog, worker.name), daemon=True).start()

    worker.on_stop = asked_to_stop
    listening = [lane.queue for lane in lanes]
    liveness = Liveness(client, queue.backlog, worker.name, listening, alive_ttl(floe), stop)
    liveness.renew()
    try:
        floe.automation.retry_failed()
    except redis.RedisError as error:  # Redis away: the next start retries them
        log.warning("could not retry the failed bot moves: %s", error)
    for name in listening:  # items that waited for a worker: one more drain may take them
        queue.ensure_drain(name)
    threading.Thread(target=liveness.keep_renewed, daemon=True).start()
    if not burst and every > 0:
        sweeper = Sweeper(floe.automation, queue, client, every)
        threading.Thread(target=_sweep_forever, args=(sweeper, every, stop), daemon=True).start()
    try:
        return bool(worker.work(burst=burst, with_scheduler=False))
    finally:
        stop.set()
        with contextlib.suppress(redis.RedisError):
            queue.backlog.leave_all(worker.name, listening)
            client.delete(jobs.alive_key(worker.name))


def _job_queue(floe: Floe) -> jobs.RqJobQueue:
    """The worker's queue: Floe's own, unless a test handed Floe another kind."""
    if isinstance(floe.jobs, jobs.RqJobQueue):
        return floe.jobs
    return jobs.RqJobQueue(floe.queue_redis, bot_move_seconds=floe.settings.bot_move_seconds)


def _wake(backlog: Backlog, name: str) -> None:
    with contextlib.suppress(redis.RedisError):
        backlog.wake(name)


@dataclass(frozen=True)
class Liveness:
    """This worker's liveness key and the queues it listens to, renewed every third of
    ``ttl`` until ``stop``: a SIGKILLed worker's claims lapse within ``ttl``."""

    client: redis.Redis
    backlog: Backlog
    name: str
    queues: list[str]
    ttl: float
    stop: threading.Event

    def renew(self) -> None:
        if not self.stop.is_set():
            self.client.set(jobs.alive_key(self.name), 1, px=int(self.ttl * 1000))
            self.backlog.listen(self.name, self.queues)

    def keep_renewed(self) -> None:
        while not self.stop.wait(self.ttl / 3):
            try:
                self.renew()
            except redis.RedisError as error:  # Redis away: try again next beat
                log.warning("liveness renewal failed: %s", error)


def _sweep_forever(sweeper: Sweeper, every: float, stop: threading.Event) -> None:
    while not stop.wait(every):
        try:
            sweeper.sweep()
        except (redis.RedisError, RedisClusterException) as error:  # away: try next round
            log.warning("sweep failed: %s", error)
