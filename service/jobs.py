"""The RQ side: draw jobs, the worker that runs them, and the sweeper that finds lost ones.

A job carries only ``(game_id, version)`` as JSON (never a pickle) and has the deterministic
id ``draw-<game_id>-<version>``. It is idempotent: it records the draw through the same
conditional append as a player's action, so a job that runs twice — or a job for a version
that has moved on — writes nothing. A job lost with its worker is found again by the sweeper,
which re-enqueues any game that stayed awaiting randomness across two sweeps.

The worker is RQ's ``SimpleWorker``: jobs run in the worker process itself, so a draw costs
no fork and the worker's state cache stays warm across jobs.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

import redis
from rq import Queue, SimpleWorker, get_current_job
from rq.serializers import JSONSerializer

from service.clock import utc_now
from service.config import Settings
from service.games import GameService
from service.store import EventStore

QUEUE_NAME = "floe"
DRAW_JOB = "service.jobs.draw_random"
BOT_JOB = "service.jobs.bot_turn"
log = logging.getLogger(__name__)

_services: dict[int, GameService] = {}


def queue(client: redis.Redis) -> Queue:
    return Queue(QUEUE_NAME, connection=client, serializer=JSONSerializer)


def draw_job_id(game_id: str, version: int) -> str:
    return f"draw-{game_id}-{version}"


def draw_enqueuer(client: redis.Redis) -> Callable[[str, int], None]:
    """The ``enqueue_draw`` dependency of the GameService, on ``client``'s Redis."""
    return _enqueuer(client, DRAW_JOB, "draw")


def bot_enqueuer(client: redis.Redis) -> Callable[[str, int], None]:
    """The ``enqueue_bot`` dependency: job ``bot-<game>-<version>``."""
    return _enqueuer(client, BOT_JOB, "bot")


def _enqueuer(client: redis.Redis, function: str, prefix: str) -> Callable[[str, int], None]:
    jobs = queue(client)

    def enqueue(game_id: str, version: int) -> None:
        jobs.enqueue(
            function,
            game_id,
            version,
            job_id=f"{prefix}-{game_id}-{version}",
            result_ttl=0,
            failure_ttl=24 * 3600,
        )

    return enqueue


def service_for(client: redis.Redis) -> GameService:
    """One GameService per connection in this process, so the state cache is reused."""
    key = id(client)
    if key not in _services:
        _services[key] = GameService(
            EventStore(client),
            clock=utc_now,
            organizer_token=None,
            enqueue_draw=draw_enqueuer(client),
            enqueue_bot=bot_enqueuer(client),
        )
    return _services[key]


def draw_random(game_id: str, version: int) -> int:
    """RQ job: make the draw game ``game_id`` awaits at ``version`` (or nothing, if stale)."""
    job = get_current_job()
    assert job is not None, "draw_random runs inside an RQ job"
    _pause_for_fault_tests(job.connection, game_id)
    return service_for(job.connection).resolve_draw(game_id, version)


def bot_turn(game_id: str, version: int) -> bool:
    """RQ job: the move of the bot seat to act at ``version`` (nothing, if stale)."""
    job = get_current_job()
    assert job is not None, "bot_turn runs inside an RQ job"
    client = job.connection

    def decided() -> None:
        _pause_for_fault_tests(client, game_id, "FLOE_FAULT_PAUSE_BOTS", "decided")

    played = service_for(client).play_bot(game_id, version, before_append=decided)
    if played:
        _pause_for_fault_tests(client, game_id, "FLOE_FAULT_PAUSE_BOTS", "written")
    return played


def _pause_for_fault_tests(
    client: redis.Redis, game_id: str, variable: str = "FLOE_FAULT_PAUSE_DRAWS", when: str = "1"
) -> None:
    """Crash tests hold a job mid-flight, to SIGKILL it there, by setting a variable.

    FLOE_FAULT_PAUSE_DRAWS=1 holds a draw job before it draws; FLOE_FAULT_PAUSE_BOTS holds a
    bot job once its move is ``decided`` (chosen, not yet appended) or ``written`` (appended,
    the job not yet finished). The job announces itself on ``floe:fault:{game}:started`` and
    waits (bounded) for a release that never comes; nothing in normal operation sets these.
    """
    if os.environ.get(variable) != when:
        return
    client.rpush(f"floe:fault:{{{game_id}}}:started", os.getpid())
    client.blpop([f"floe:fault:{{{game_id}}}:release"], timeout=60)


class Sweeper:
    """Re-enqueue draws and bot moves that stayed pending across two sweeps (job lost)."""

    def __init__(self, service: GameService, client: redis.Redis) -> None:
        self._service = service
        self._enqueue = {"draw": draw_enqueuer(client), "bot": bot_enqueuer(client)}
        self._seen: set[tuple[str, str, int]] = set()

    def sweep(self) -> list[tuple[str, str, int]]:
        pending = set(self._service.awaiting_follow_ups())
        stuck = sorted(pending & self._seen)
        for kind, game_id, version in stuck:
            log.warning("re-enqueueing the lost %s job of %s at version %d", kind, game_id, version)
            self._enqueue[kind](game_id, version)
        self._seen = pending
        return stuck


def run_worker(settings: Settings, *, burst: bool = False, sweep_seconds: float = 5.0) -> bool:
    """Work the Floe queue until stopped (``burst``: until it is empty), sweeping meanwhile."""
    client = redis.Redis.from_url(settings.redis_url)
    stop = threading.Event()
    if not burst and sweep_seconds > 0:
        sweeper = Sweeper(service_for(client), client)
        threading.Thread(
            target=_sweep_forever, args=(sweeper, sweep_seconds, stop), daemon=True
        ).start()
    worker = SimpleWorker([queue(client)], connection=client, serializer=JSONSerializer)
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
