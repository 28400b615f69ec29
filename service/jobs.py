"""RQ jobs: the queues the service fills and the two job functions a worker runs.

A job carries only ``(game_id, version)`` as JSON (never a pickle) and has the deterministic
id ``<kind>-<game_id>-<version>``. Draws and bot moves go to two queues, ``floe:draws`` and
``floe:bots``; a worker listens to them in that order (RQ takes from the first non-empty
queue), so a draw, which blocks people, never waits behind bot thinking. ``floe`` is the
single queue of earlier versions: workers still listen to it, last, so its jobs are worked.

Enqueueing is idempotent per job id: a job RQ still holds (queued, deferred, scheduled, or
started by a worker whose liveness key is alive) is not pushed again, and a new job is pushed
with RQ's atomic ``unique`` enqueue, so a queue never holds one id twice. A job RQ no longer
holds (gone, failed, stopped, canceled, or started by a dead worker) is enqueued afresh.

The job functions are thin: they hand the job to the worker process's ``Automation``, which
``service.worker`` installs when it starts, built by ``service.bootstrap`` like every other
part of Floe.
"""

from __future__ import annotations

import math

import redis
from rq import Queue
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from service.automation import Automation
from service.follow_ups import JobKind

#: One queue per kind; a worker listens to ``WORKER_QUEUES`` in this order.
#: A tournament's advance (a finished game's round may start the next) is quick and people
#: wait for it, so it shares the draws' queue.
QUEUE_NAMES: dict[JobKind, str] = {
    "draw": "floe:draws",
    "bot": "floe:bots",
    "tournament": "floe:draws",
}
#: The single queue of earlier versions, listened to last so jobs left in it still run.
LEGACY_QUEUE_NAME = "floe"
WORKER_QUEUES: tuple[str, ...] = (QUEUE_NAMES["draw"], QUEUE_NAMES["bot"], LEGACY_QUEUE_NAME)
#: RQ looks job functions up by these names; they are stored in the queue, never in events.
JOB_FUNCTIONS: dict[JobKind, str] = {
    "draw": "service.jobs.draw_random",
    "bot": "service.jobs.bot_turn",
    "tournament": "service.jobs.tournament_game_over",
}
#: A bot job's RQ timeout, beyond the bot's own bound (``Settings.bot_move_seconds``): the
#: search stops itself first, so RQ's timeout is only a net for code that never checks.
BOT_JOB_MARGIN_SECONDS = 60
#: Statuses in which RQ still holds a job that will run (``started``: if its worker lives).
_HELD = {JobStatus.QUEUED, JobStatus.DEFERRED, JobStatus.SCHEDULED, JobStatus.STARTED}


def queue(client: redis.Redis, name: str = LEGACY_QUEUE_NAME) -> Queue:
    return Queue(name, connection=client, serializer=JSONSerializer)


def worker_queues(client: redis.Redis, *, draws_only: bool = False) -> list[Queue]:
    """The queues a worker listens to, draws first (only draws: a worker kept for them)."""
    names = (QUEUE_NAMES["draw"],) if draws_only else WORKER_QUEUES
    return [queue(client, name) for name in names]


def job_id(kind: JobKind, game_id: str, version: int) -> str:
    return f"{kind}-{game_id}-{version}"


def alive_key(worker_name: str) -> str:
    """The liveness key a running worker keeps renewed (``service.worker``)."""
    return f"floe:worker:{worker_name}:alive"


class RqJobQueue:
    """The ``JobQueue`` on RQ: draws and bot moves for the workers, one queue per kind."""

    def __init__(self, client: redis.Redis, *, bot_move_seconds: float = 60.0) -> None:
        self._client = client
        self._queues = {kind: queue(client, name) for kind, name in QUEUE_NAMES.items()}
        #: Per kind; None keeps RQ's default (180 s) for draws.
        self._timeouts: dict[JobKind, int | None] = {
            "draw": None,
            "tournament": None,
            "bot": math.ceil(bot_move_seconds) + BOT_JOB_MARGIN_SECONDS,
        }

    def held(self, job: Job) -> bool:
        """Whether RQ still holds ``job`` to run: queued (its id in its queue), deferred,
        scheduled, or started by a worker that is alive (its liveness key not expired)."""
        status = job.get_status(refresh=False)
        if status not in _HELD:
            return False
        if status == JobStatus.QUEUED:  # ... and its id still sits in its queue
            key = queue(self._client, job.origin).key
            return self._client.lpos(key, job.id) is not None
        if status != JobStatus.STARTED:
            return True
        name = job.worker_name
        return name is not None and bool(self._client.exists(alive_key(name)))

    def enqueue(self, kind: JobKind, game_id: str, version: int) -> bool:
        """Enqueue the job unless RQ still holds it; True when it was pushed."""
        ident = job_id(kind, game_id, version)
        try:
            existing = Job.fetch(ident, connection=self._client, serializer=JSONSerializer)
        except NoSuchJobError:
            existing = None
        if existing is not None:
            if self.held(existing):
                return False
            # Failed, stopped, canceled, or its worker died: drop RQ's record of it (and any
            # stale entry of its id in a queue or registry) so it can be enqueued afresh.
            existing.delete()
        try:
            self._queues[kind].enqueue(
                JOB_FUNCTIONS[kind],
                game_id,
                version,
                job_id=ident,
                job_timeout=self._timeouts[kind],
                result_ttl=0,
                failure_ttl=24 * 3600,
                unique=True,
            )
        except DuplicateJobError:  # someone enqueued it meanwhile: it is queued once
            return False
        return True


_automation: Automation | None = None


def install(automation: Automation) -> None:
    """Make ``automation`` run this process's jobs (the worker does it once, at start)."""
    global _automation
    _automation = automation


def _installed() -> Automation:
    if _automation is None:
        raise RuntimeError("no Automation installed: jobs run inside `floe worker`")
    return _automation


def draw_random(game_id: str, version: int) -> int:
    """RQ job: make the draw game ``game_id`` awaits at ``version`` (or nothing, if stale)."""
    return _installed().resolve_draw(game_id, version)


def bot_turn(game_id: str, version: int) -> bool:
    """RQ job: the move of the bot seat to act at ``version`` (nothing, if stale)."""
    return _installed().play_bot(game_id, version)


def tournament_game_over(game_id: str, version: int) -> bool:
    """RQ job: tournament game ``game_id`` ended at ``version``; advance its tournament."""
    return _installed().tournament_game_over(game_id, version)
