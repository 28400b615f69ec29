"""RQ jobs: the queue the service fills and the two job functions a worker runs.

A job carries only ``(game_id, version)`` as JSON (never a pickle) and has the deterministic
id ``<kind>-<game_id>-<version>``. The job functions are thin: they hand the job to the
worker process's ``Automation``, which ``service.worker`` installs when it starts, built by
``service.bootstrap`` like every other part of Floe.
"""

from __future__ import annotations

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from service.automation import Automation
from service.follow_ups import JobKind

QUEUE_NAME = "floe"
#: RQ looks job functions up by these names; they are stored in the queue, never in events.
JOB_FUNCTIONS: dict[JobKind, str] = {
    "draw": "service.jobs.draw_random",
    "bot": "service.jobs.bot_turn",
}


def queue(client: redis.Redis) -> Queue:
    return Queue(QUEUE_NAME, connection=client, serializer=JSONSerializer)


def job_id(kind: JobKind, game_id: str, version: int) -> str:
    return f"{kind}-{game_id}-{version}"


class RqJobQueue:
    """The ``JobQueue`` on RQ: draws and bot moves for the workers."""

    def __init__(self, client: redis.Redis) -> None:
        self._queue = queue(client)

    def enqueue(self, kind: JobKind, game_id: str, version: int) -> None:
        self._queue.enqueue(
            JOB_FUNCTIONS[kind],
            game_id,
            version,
            job_id=job_id(kind, game_id, version),
            result_ttl=0,
            failure_ttl=24 * 3600,
        )


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
