"""The job queue: what the service hands the workers, and the RQ jobs a worker runs.

A draw, a bot move or a tournament advance is an item named by the deterministic job id
``<kind>-<game_id>-<version>``. Enqueueing adds it to its queue's backlog
(``service.jobs.backlog``): one script, one round trip, idempotent per id (an item pending, or
claimed by a live worker, is not added again; a queue never holds one id twice). The items
are worked by drain jobs (``service.jobs.drain``): RQ jobs, with JSON arguments (never a pickle),
each of which runs many items, so RQ's own bookkeeping is paid per drain, not per item. The
same script says when the queue needs another drain; then an RQ job ``drain-<queue>-<n>``
is enqueued on the queue's RQ queue.

Draws and bot moves have their queues, ``floe:draws`` and ``floe:bots``; a worker listens to
them in that order (RQ takes from the first non-empty queue), and a drain takes draws first
too, so a draw, which blocks people, never waits behind bot thinking. ``floe`` is the single
queue of earlier versions: workers still listen to it, last, and the per-item job functions
of earlier versions (``draw_random``, ``bot_turn``, ``tournament_game_over``) still run the
jobs left in it.

The job functions are thin: they hand the work to the worker process's ``Automation`` and
``Drainer``, which ``service.jobs.worker`` installs when it starts, built by ``service.bootstrap``
like every other part of Floe.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from service.games.follow_ups import JobKind
from service.jobs.backlog import Backlog
from service.jobs.drain import DRAW_BATCH, IDLE_SECONDS, LIFE_SECONDS, Drainer
from service.jobs.handlers import Automation

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
#: How many items of each queue a drain claims at once (the queues with a backlog).
BATCHES: dict[str, int] = {QUEUE_NAMES["draw"]: DRAW_BATCH, QUEUE_NAMES["bot"]: 1}
#: RQ looks job functions up by these names; they are stored in the queue, never in events.
DRAIN_FUNCTION = "service.jobs.queue.drain"
#: The per-item job functions of earlier versions (jobs they left queued still run).
JOB_FUNCTIONS: dict[JobKind, str] = {
    "draw": "service.jobs.queue.draw_random",
    "bot": "service.jobs.queue.bot_turn",
    "tournament": "service.jobs.queue.tournament_game_over",
}
#: A bot move's deadline, beyond the bot's own bound (``Settings.bot_move_seconds``): the
#: search stops itself first, so the deadline is only a net for code that never checks.
BOT_JOB_MARGIN_SECONDS = 60
#: A draw's (or a tournament advance's) deadline: RQ's default job timeout.
DRAW_TIMEOUT_SECONDS = 180
#: How long RQ keeps a failed drain job (with its traceback) in its failed registry.
FAILURE_TTL_SECONDS = 24 * 3600


def queue(client: redis.Redis, name: str = LEGACY_QUEUE_NAME) -> Queue:
    return Queue(name, connection=client, serializer=JSONSerializer)


def worker_queues(client: redis.Redis, *, draws_only: bool = False) -> list[Queue]:
    """The queues a worker listens to, draws first (only draws: a worker kept for them)."""
    names = (QUEUE_NAMES["draw"],) if draws_only else WORKER_QUEUES
    return [queue(client, name) for name in names]


def job_id(kind: JobKind, game_id: str, version: int) -> str:
    return f"{kind}-{game_id}-{version}"


def parse_job_id(item: str) -> tuple[JobKind, str, int]:
    """``job_id``'s inverse: ``bot-1f2e-7`` -> ("bot", "1f2e", 7)."""
    kind, rest = item.split("-", 1)
    game_id, version = rest.rsplit("-", 1)
    if kind not in QUEUE_NAMES:
        raise ValueError(f"not a job id: {item!r}")
    return kind, game_id, int(version)


def alive_key(worker_name: str) -> str:
    """The liveness key a running worker keeps renewed (``service.jobs.worker``)."""
    return f"floe:worker:{worker_name}:alive"


def item_timeout(kind: JobKind, bot_move_seconds: float) -> int:
    """The deadline of one item, in whole seconds: a bot move's stays above the bot's bound
    (rounded up, plus ``BOT_JOB_MARGIN_SECONDS``); draws keep RQ's default."""
    if kind == "bot":
        return math.ceil(bot_move_seconds) + BOT_JOB_MARGIN_SECONDS
    return DRAW_TIMEOUT_SECONDS


def drain_timeout(bot_move_seconds: float) -> int:
    """RQ's timeout of a drain job: its life, an idle wait, and its longest item, plus RQ's
    margin; only a net (each item has its own deadline)."""
    longest = max(item_timeout("bot", bot_move_seconds), DRAW_TIMEOUT_SECONDS)
    return math.ceil(LIFE_SECONDS + IDLE_SECONDS) + longest + BOT_JOB_MARGIN_SECONDS


class RqJobQueue:
    """The ``JobQueue`` on the backlog and RQ: items for the drains, one queue per kind."""

    def __init__(self, client: redis.Redis, *, bot_move_seconds: float = 60.0) -> None:
        self._client = client
        self.backlog = Backlog(client)
        self.bot_move_seconds = bot_move_seconds
        self._queues = {name: queue(client, name) for name in BATCHES}

    def enqueue(self, kind: JobKind, game_id: str, version: int) -> bool:
        """Add the item unless it is pending or a live worker runs it; True when added."""
        name = QUEUE_NAMES[kind]
        added = self.backlog.add(name, job_id(kind, game_id, version))
        if added.drain is not None:
            self.enqueue_drain(name, added.drain)
        return added.added

    def ensure_drain(self, name: str) -> str | None:
        """Enqueue a drain for queue ``name`` if items wait there and it needs one."""
        drain = self.backlog.add(name, "").drain
        if drain is not None:
            self.enqueue_drain(name, drain)
        return drain

    def enqueue_drain(self, name: str, drain: str) -> None:
        """Push the RQ job of drain ``drain`` (an id the backlog registered) on ``name``."""
        self._queues[name].enqueue(
            DRAIN_FUNCTION,
            name,
            drain,
            job_id=drain,
            job_timeout=drain_timeout(self.bot_move_seconds),
            result_ttl=0,
            failure_ttl=FAILURE_TTL_SECONDS,
        )

    def timeout_of(self, item: str) -> int:
        """The deadline of ``item`` (a job id), in seconds."""
        return item_timeout(parse_job_id(item)[0], self.bot_move_seconds)


def run_item(
    automation: Automation, item: str, thought: Callable[[], None] = lambda: None
) -> object:
    """Do what the item ``<kind>-<game>-<version>`` names (nothing, if it is stale);
    ``thought``: called once a bot has decided (``Automation.play_bot``)."""
    kind, game_id, version = parse_job_id(item)
    if kind == "draw":
        return automation.resolve_draw(game_id, version)
    if kind == "bot":
        return automation.play_bot(game_id, version, thought)
    return automation.tournament_game_over(game_id, version)


_automation: Automation | None = None
_drainer: Drainer | None = None


def install(automation: Automation, drainer: Drainer | None = None) -> None:
    """Make ``automation`` (and ``drainer``) run this process's jobs (the worker does it
    once, at start)."""
    global _automation, _drainer
    _automation = automation
    _drainer = drainer


def _installed() -> Automation:
    if _automation is None:
        raise RuntimeError("no Automation installed: jobs run inside `floe worker`")
    return _automation


def drain(queue_name: str, drain_id: str) -> int:
    """RQ job: work the backlog of this worker's queues (``service.jobs.drain``); items run."""
    if _drainer is None:
        raise RuntimeError("no Drainer installed: drain jobs run inside `floe worker`")
    return _drainer.drain(queue_name, drain_id)


def draw_random(game_id: str, version: int) -> int:
    """RQ job of earlier versions: the draw game ``game_id`` awaits at ``version``."""
    return _installed().resolve_draw(game_id, version)


def bot_turn(game_id: str, version: int) -> bool:
    """RQ job of earlier versions: the move of the bot seat to act at ``version``."""
    return _installed().play_bot(game_id, version)


def tournament_game_over(game_id: str, version: int) -> bool:
    """RQ job of earlier versions: tournament game ``game_id`` ended; advance it."""
    return _installed().tournament_game_over(game_id, version)
