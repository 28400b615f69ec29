"""``floe worker``: one process that runs drain jobs, keeps itself known alive, and sweeps.

RQ runs the drain jobs (``service.jobs.drains``) in the worker process itself (its
``SimpleWorker``), so the repository's state cache stays warm across them; ``DrainJob`` hands
each job this process's ``Drains``, so a job's function finds them without a global. The
worker listens to ``floe:draws``, then ``floe:bots`` (only the first: ``draws_only``), and a
drain claims draws before bot moves. Asked to stop (SIGTERM), it rings its own doorbell so an
idle drain ends at once; a running one finishes the items in hand and names a successor.

While it runs, a thread keeps its liveness key (``floe:worker:<name>:alive``, a short TTL)
renewed, and its name in the sets of workers of its queues (a queue gets as many drains as it
has workers): a SIGKILLed worker's key lapses within ``alive_ttl``, and what it had claimed,
and its running drain, count as lost (RQ's own worker key lives far too long to wait for).
Its sweeper (``service.jobs.sweeper``) adds lost items again, and its ticker moves the timers
of games' clocks that came due to the draws' backlog (``service.jobs.timers``). An item stuck
past its deadline (``service.jobs.deadlines``) ends the process: logged at ERROR, a bot move's
failure recorded, exit status ``STUCK_EXIT_STATUS``; ``floe run`` starts another worker in
its place.

``service.bootstrap.build_worker`` builds it from Floe's parts, as everything else is built.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.serializers import JSONSerializer

from service.archive.moving import Mover
from service.jobs.backlog import Backlog, Lane
from service.jobs.deadlines import STUCK_EXIT_STATUS, Deadlines
from service.jobs.drains import IDLE_SECONDS, Drains, DrainSettings
from service.jobs.handlers import Automation
from service.jobs.queue import BATCHES, BOTS, DRAWS, RqJobQueue, alive_key
from service.jobs.sweeper import Sweeper
from service.jobs.timers import Ticker

log = logging.getLogger(__name__)

#: How long a worker that found an item stuck waits for the failure to be recorded before it
#: exits anyway (the stuck code may hold what recording needs).
STUCK_RECORD_SECONDS = 10.0


class DrainJob(Job):
    """An RQ job whose function is called with the running worker's ``Drains`` first
    (``run_drain(drains, queue, drain)``): RQ stores only the function's name and the rest."""

    drains: Drains | None = None

    def _execute(self) -> Any:
        # RQ's ``Job.perform`` calls the function here and only here (rq 3.0, pinned); the
        # worker's ``execute_job`` set ``drains`` just before.
        if self.drains is None:
            raise RuntimeError(f"{self.id}: a drain runs inside `floe worker` only")
        return self.func(self.drains, *self.args, **self.kwargs)


class RqDrainWorker(SimpleWorker):
    """RQ's ``SimpleWorker``, handing its ``Drains`` to each job and told when a stop is
    asked for (its running drain then ends after the items in hand, at once if idle)."""

    def __init__(
        self, queues: list[Queue], drains: Drains, on_stop: Callable[[], None], **kwargs: Any
    ) -> None:
        super().__init__(queues, job_class=DrainJob, **kwargs)
        self.drains = drains
        self.on_stop = on_stop

    def execute_job(self, job: Job, queue: Queue) -> None:
        if isinstance(job, DrainJob):
            job.drains = self.drains
        super().execute_job(job, queue)

    def handle_warm_shutdown_request(self) -> None:
        super().handle_warm_shutdown_request()  # type: ignore[no-untyped-call]
        self.on_stop()


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
            self.client.set(alive_key(self.name), 1, px=int(self.ttl * 1000))
            self.backlog.listen(self.name, self.queues)

    def keep_renewed(self) -> None:
        while not self.stop.wait(self.ttl / 3):
            try:
                self.renew()
            except redis.RedisError as error:  # Redis away: try again next beat
                log.warning("liveness renewal failed: %s", error)


def alive_ttl(sweep_seconds: float) -> float:
    """How long a worker's liveness key outlives its last renewal."""
    return max(2.0, 3 * sweep_seconds)


class Worker:
    """One ``floe worker`` process: RQ's worker running drains, its liveness, its sweeper.

    ``draws_only``: listen to the draws queue alone, so that however many bots think, a
    person's dice never wait behind them (``floe run`` keeps its first worker for draws).
    ``burst``: stop once the queues are empty (no sweeper). ``retry_failed``: retry every
    failed bot move once, at start (``Automation.retry_failed``): how games whose bot ran out
    of time, or hit a bug, resume after a restart with a larger bound or the bug fixed.
    ``deadline_of``: each item's deadline in seconds (default ``RqJobQueue.deadline_of``).
    """

    def __init__(
        self,
        automation: Automation,
        queue: RqJobQueue,
        client: redis.Redis,
        *,
        sweep_seconds: float,
        threads: int,
        draws_only: bool = False,
        burst: bool = False,
        retry_failed: bool = True,
        deadline_of: Callable[[str], float] | None = None,
        mover: Mover | None = None,
    ) -> None:
        self._automation = automation
        self._queue = queue
        self._client = client
        self._burst = burst
        self._retry_failed = retry_failed
        self._stop = threading.Event()  # the process ends: renewals and sweeps stop
        self._stopping = threading.Event()  # a stop is asked for: the drain ends
        self.queues = [DRAWS] if draws_only else list(BATCHES)
        lanes = [Lane(name, BATCHES[name], thinks=name == BOTS) for name in self.queues]
        rq_queues = [Queue(n, connection=client, serializer=JSONSerializer) for n in self.queues]
        deadlines = Deadlines(deadline_of or queue.deadline_of, self._item_stuck)
        self.name = uuid.uuid4().hex  # RQ's name for it, and its claims'
        drains = Drains(
            queue.backlog,
            automation.run_item,
            queue.enqueue_drain,
            self.name,
            lanes,
            self._stopping,
            watch=deadlines.watch,
            settings=DrainSettings(idle_seconds=0.0 if burst else IDLE_SECONDS, threads=threads),
        )
        self._rq = RqDrainWorker(
            rq_queues,
            drains,
            self._asked_to_stop,
            name=self.name,
            connection=client,
            serializer=JSONSerializer,
        )
        self._liveness = Liveness(
            client, queue.backlog, self.name, self.queues, alive_ttl(sweep_seconds), self._stop
        )
        self._sweeper: Sweeper | None = None
        if not burst and sweep_seconds > 0:
            self._sweeper = Sweeper(automation, queue, client, sweep_seconds, mover=mover)
        self._ticker = None if burst else Ticker(queue.timers, queue.add_now)

    def run(self) -> bool:
        """Work the queues until stopped (``burst``: until they are empty), sweeping meanwhile."""
        self._liveness.renew()
        if self._retry_failed:
            try:
                self._automation.retry_failed()
            except redis.RedisError as error:  # Redis away: the next start retries them
                log.warning("could not retry the failed bot moves: %s", error)
        for name in self.queues:  # items that waited for a worker: one more drain may take them
            self._queue.ensure_drain(name)
        threading.Thread(target=self._liveness.keep_renewed, name="liveness", daemon=True).start()
        if self._sweeper is not None:
            threading.Thread(
                target=self._sweeper.sweep_until, args=(self._stop,), name="sweeper", daemon=True
            ).start()
        if self._ticker is not None:
            threading.Thread(
                target=self._ticker.tick_until, args=(self._stop,), name="timers", daemon=True
            ).start()
        try:
            return bool(self._rq.work(burst=self._burst, with_scheduler=False))
        finally:
            self._stop.set()
            with contextlib.suppress(redis.RedisError):
                self._queue.backlog.stop_listening(self.name, self.queues)
                self._client.delete(alive_key(self.name))

    def _asked_to_stop(self) -> None:
        """In RQ's signal handler: end the drain, and wake it from a thread if it is idle."""
        self._stopping.set()
        threading.Thread(target=self._wake, daemon=True).start()

    def _wake(self) -> None:
        with contextlib.suppress(redis.RedisError):
            self._queue.backlog.wake(self.name)

    def _item_stuck(self, item: str) -> None:
        """An item ran past its deadline: log it, record a bot move's failure, and end the
        process (its other claims lapse with it; the sweeper adds them again)."""
        log.error(
            "%s ran past its deadline: code that never checks its budget; this worker "
            "exits with status %d",
            item,
            STUCK_EXIT_STATUS,
        )
        self._stop.set()  # no more renewals: the liveness key is dropped below
        recording = threading.Thread(target=self._record_stuck, args=(item,), daemon=True)
        recording.start()
        recording.join(STUCK_RECORD_SECONDS)
        sys.stderr.flush()
        os._exit(STUCK_EXIT_STATUS)

    def _record_stuck(self, item: str) -> None:
        try:
            self._automation.item_stuck(item)
        except Exception:
            log.exception("could not record that %s was stuck", item)
        with contextlib.suppress(redis.RedisError):
            self._client.delete(alive_key(self.name))
