"""``floe worker``: run the RQ jobs, and sweep for jobs lost with a worker that died.

The worker is RQ's ``SimpleWorker``: jobs run in the worker process itself, so a draw costs
no fork and the repository's state cache stays warm across jobs. A job lost with its worker
is found again by the sweeper, which re-enqueues any job still waited for across two sweeps.
"""

from __future__ import annotations

import logging
import threading

import redis
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service import jobs
from service.automation import Automation
from service.bootstrap import Floe
from service.follow_ups import JobKind, JobQueue

log = logging.getLogger(__name__)


class Sweeper:
    """Re-enqueue draws and bot moves that stayed pending across two sweeps (job lost)."""

    def __init__(self, automation: Automation, queue: JobQueue) -> None:
        self._automation = automation
        self._queue = queue
        self._seen: set[tuple[JobKind, str, int]] = set()

    def sweep(self) -> list[tuple[JobKind, str, int]]:
        pending = set(self._automation.waiting_jobs())
        stuck = sorted(pending & self._seen)
        for kind, game_id, version in stuck:
            log.warning("re-enqueueing the lost %s job of %s at version %d", kind, game_id, version)
            self._queue.enqueue(kind, game_id, version)
        self._seen = pending
        return stuck


def run_worker(floe: Floe, *, burst: bool = False) -> bool:
    """Work the Floe queue until stopped (``burst``: until it is empty), sweeping meanwhile."""
    jobs.install(floe.automation)
    stop = threading.Event()
    every = floe.settings.sweep_seconds
    if not burst and every > 0:
        sweeper = Sweeper(floe.automation, floe.jobs)
        threading.Thread(target=_sweep_forever, args=(sweeper, every, stop), daemon=True).start()
    worker = SimpleWorker(
        [jobs.queue(floe.redis)], connection=floe.redis, serializer=JSONSerializer
    )
    try:
        return bool(worker.work(burst=burst, with_scheduler=False))
    finally:
        stop.set()


def _sweep_forever(sweeper: Sweeper, every: float, stop: threading.Event) -> None:
    while not stop.wait(every):
        try:
            sweeper.sweep()
        except redis.RedisError as error:  # Redis away: try again next round
            log.warning("sweep failed: %s", error)
