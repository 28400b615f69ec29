"""``floe worker``: run the RQ jobs, and sweep for jobs lost with a worker that died.

The worker is RQ's ``SimpleWorker``: jobs run in the worker process itself, so a draw costs
no fork and the repository's state cache stays warm across jobs. It listens to
``floe:draws``, then ``floe:bots``, then the legacy ``floe`` queue (``service.jobs``), so a
draw is always taken before any bot move.

While it runs, a thread keeps the worker's liveness key (``floe:worker:<name>:alive``, a
short TTL) renewed; a SIGKILLed worker's key expires within ``alive_ttl``, and a job it left
"started" counts as lost. RQ's own worker key lives ``worker_ttl + 60`` s, too long to wait.

A lost job is found again by the sweeper. One sweeper sweeps at a time, whichever worker
holds the Redis lock ``floe:sweeper:lock`` (``SET NX PX``, renewed by its holder, taken over
by another worker once it expires). A sweep re-enqueues a job still waited for across two of
its sweeps only when RQ no longer holds it (``RqJobQueue.enqueue`` checks), so it never
piles copies of a job id onto a queue. Each sweep also advances every running tournament
whose round is over (idempotent), so a job lost with its worker never leaves one stuck. A
bot move that failed (out of time, or a bug) is not
lost: the sweeper leaves it alone, and each worker retries it once, when it starts.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid

import redis
from redis.exceptions import RedisClusterException
from rq import SimpleWorker
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from service import jobs
from service.automation import Automation
from service.bootstrap import Floe
from service.follow_ups import JobKind, JobQueue

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
    """Re-enqueue draws and bot moves that stayed pending across two sweeps and that RQ no
    longer holds (lost with a dead worker, failed, or never enqueued)."""

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
            # RQ's own cleanup: jobs whose started entry expired move to failed.
            StartedJobRegistry(queue=queue).cleanup()
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


def run_worker(floe: Floe, *, burst: bool = False, draws_only: bool = False) -> bool:
    """Work the Floe queues until stopped (``burst``: until empty), sweeping meanwhile.

    ``draws_only``: listen to the draws queue alone, so that however many bots think, a
    person's dice never wait behind them (``floe run`` keeps its first worker for draws).

    Starting, it retries every bot move that failed (``Automation.retry_failed``): this is
    how games whose bot ran out of time, or hit a bug, resume (docs/ai.md).
    """
    jobs.install(floe.automation)
    try:
        floe.automation.retry_failed()
    except redis.RedisError as error:  # Redis away: the next start retries them
        log.warning("could not retry the failed bot moves: %s", error)
    stop = threading.Event()
    every = floe.settings.sweep_seconds
    worker = SimpleWorker(
        jobs.worker_queues(floe.queue_redis, draws_only=draws_only),
        connection=floe.queue_redis,
        serializer=JSONSerializer,
    )
    _keep_alive(floe.queue_redis, worker.name, alive_ttl(floe), stop)
    threading.Thread(
        target=_keep_alive_forever,
        args=(floe.queue_redis, worker.name, alive_ttl(floe), stop),
        daemon=True,
    ).start()
    if not burst and every > 0:
        sweeper = Sweeper(floe.automation, floe.jobs, floe.queue_redis, every)
        threading.Thread(target=_sweep_forever, args=(sweeper, every, stop), daemon=True).start()
    try:
        return bool(worker.work(burst=burst, with_scheduler=False))
    finally:
        stop.set()
        with contextlib.suppress(redis.RedisError):
            floe.queue_redis.delete(jobs.alive_key(worker.name))


def _keep_alive(client: redis.Redis, name: str, ttl: float, stop: threading.Event) -> None:
    if not stop.is_set():
        client.set(jobs.alive_key(name), 1, px=int(ttl * 1000))


def _keep_alive_forever(client: redis.Redis, name: str, ttl: float, stop: threading.Event) -> None:
    while not stop.wait(ttl / 3):
        try:
            _keep_alive(client, name, ttl, stop)
        except redis.RedisError as error:  # Redis away: try again next beat
            log.warning("liveness renewal failed: %s", error)


def _sweep_forever(sweeper: Sweeper, every: float, stop: threading.Event) -> None:
    while not stop.wait(every):
        try:
            sweeper.sweep()
        except (redis.RedisError, RedisClusterException) as error:  # away: try next round
            log.warning("sweep failed: %s", error)
