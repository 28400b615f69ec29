"""The job queue: how the service hands the workers what a game waits for.

A draw, a bot move or a tournament advance is an item named by the deterministic job id
``<kind>-<game_id>-<version>``. Enqueueing adds it to its queue's backlog
(``service.jobs.backlog``): one script, one round trip, idempotent per id (an item pending, or
claimed by a live worker, is not added again; a queue never holds one id twice). The items
are run by drains (``service.jobs.drains``): RQ jobs with JSON arguments (never a pickle),
each of which runs many items, so RQ's own bookkeeping is paid per drain, not per item. The
same script says when the queue needs another drain; then the RQ job ``drain-<queue>-<n>``
is enqueued on the queue's RQ queue.

Draws and bot moves have a queue each, ``floe:draws`` and ``floe:bots``; a worker listens to
them in that order, and a drain takes draws first too, so a draw, which people wait for, never
waits behind a bot's thinking. The bots' queue is fair (``Fairness``): each bot move waits in
its game's line (``service.jobs.lines``: one per creator, the organizer's first), the lines
are served in turn, and a line whose bots thought more than ``bot_seconds_per_creator`` in the
last minute is passed over while another waits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from service.games.follow_ups import JobKind
from service.jobs.backlog import Backlog, Fairness
from service.jobs.drains import IDLE_SECONDS, LIFE_SECONDS
from service.jobs.lines import LineOf
from service.jobs.timers import Timers
from service.redis.keys import KeyPattern

DRAWS = "floe:draws"
BOTS = "floe:bots"
#: The queue of each kind. A tournament's advance (a finished game's round may start the
#: next) and a timeout (once its timer is due, ``service.jobs.timers``) are quick and people
#: wait for them, so they share the draws' queue.
QUEUE_NAMES: Mapping[JobKind, str] = MappingProxyType(
    {"draw": DRAWS, "bot": BOTS, "tournament": DRAWS, "timeout": DRAWS}
)
#: Every queue, in the order a worker takes from them, and the most items a drain claims from
#: each at once (bot moves one by one: a drain has at most two bots thinking, for two lines).
BATCHES: Mapping[str, int] = MappingProxyType({DRAWS: 16, BOTS: 1})
#: RQ looks the drain's function up by this name; it is stored in RQ's queue, never in events.
DRAIN_FUNCTION = "service.jobs.drains.run_drain"
#: A bot move's deadline, beyond the bot's own bound (``Settings.bot_move_seconds``): the
#: search stops itself first, so the deadline is only for code that never checks.
BOT_DEADLINE_MARGIN_SECONDS = 60
#: A draw's (or a tournament advance's) deadline.
DRAW_DEADLINE_SECONDS = 180
#: How long RQ keeps a failed drain job (with its traceback) in its failed registry.
FAILURE_TTL_SECONDS = 24 * 3600
#: The window a line's thinking time is counted over (it decays by e^(-age/window)).
BUDGET_WINDOW_SECONDS = 60.0


def job_id(kind: JobKind, game_id: str, version: int) -> str:
    return f"{kind}-{game_id}-{version}"


def parse_job_id(item: str) -> tuple[JobKind, str, int]:
    """``job_id``'s inverse: ``bot-1f2e-7`` -> ("bot", "1f2e", 7)."""
    prefix, rest = item.split("-", 1)
    game_id, version = rest.rsplit("-", 1)
    for kind in QUEUE_NAMES:
        if kind == prefix:
            return kind, game_id, int(version)
    raise ValueError(f"not a job id: {item!r}")


#: The liveness key a running worker keeps renewed (``service.jobs.worker``).
alive_key = KeyPattern("floe:worker:<id>:alive")


def item_deadline(kind: JobKind, bot_move_seconds: float) -> int:
    """The deadline of one item, in whole seconds: a bot move's stays well above the bot's
    bound (rounded up, plus ``BOT_DEADLINE_MARGIN_SECONDS``); a worker that finds an item
    past it ends (``service.jobs.deadlines``)."""
    if kind == "bot":
        return math.ceil(bot_move_seconds) + BOT_DEADLINE_MARGIN_SECONDS
    return DRAW_DEADLINE_SECONDS


def drain_timeout(bot_move_seconds: float) -> int:
    """RQ's timeout of a drain job: its life, an idle wait and its longest item, plus a
    margin. Only a net: an item stuck past its own deadline ends the worker first."""
    longest = max(item_deadline("bot", bot_move_seconds), DRAW_DEADLINE_SECONDS)
    return math.ceil(LIFE_SECONDS + IDLE_SECONDS) + longest + BOT_DEADLINE_MARGIN_SECONDS


class RqJobQueue:
    """The ``JobQueue`` on the backlog and RQ: items for the drains, one queue per kind.

    ``line_of`` names the line of a game's bot moves (``CreatorLines.line_of``; None: every
    bot move in one line, first come, first served); ``bot_seconds_per_creator`` is a line's
    thinking budget per ``BUDGET_WINDOW_SECONDS`` (0: none)."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        bot_move_seconds: float = 60.0,
        bot_seconds_per_creator: float = 0.0,
        line_of: LineOf | None = None,
    ) -> None:
        fairness = Fairness(frozenset({BOTS}), bot_seconds_per_creator, BUDGET_WINDOW_SECONDS)
        self.backlog = Backlog(client, fairness)
        self.timers = Timers(client)
        self.bot_move_seconds = bot_move_seconds
        self.line_of = line_of
        self._queues = {
            name: Queue(name, connection=client, serializer=JSONSerializer) for name in BATCHES
        }

    def enqueue(self, kind: JobKind, game_id: str, version: int, *, due: int | None = None) -> bool:
        """Add the item unless it is pending or a live worker runs it; True when added.
        With ``due`` (epoch seconds), arm its timer instead: it is added once due."""
        if due is not None:
            self.timers.arm(game_id, job_id(kind, game_id, version), due)
            return True
        return self.add_now(job_id(kind, game_id, version))

    def add_now(self, item: str) -> bool:
        """Add ``item`` (a job id) to its queue's backlog now (a timer that came due)."""
        kind, game_id, _ = parse_job_id(item)
        name = QUEUE_NAMES[kind]
        line = self.line_of(game_id) if kind == "bot" and self.line_of is not None else None
        added = self.backlog.add(name, item, line)
        if added.drain is not None:
            self.enqueue_drain(name, added.drain)
        return added.added

    def ensure_drain(self, name: str) -> str | None:
        """Enqueue a drain for queue ``name`` if items wait there and it needs one."""
        drain = self.backlog.need_drain(name)
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

    def deadline_of(self, item: str) -> int:
        """The deadline of ``item`` (a job id), in seconds."""
        return item_deadline(parse_job_id(item)[0], self.bot_move_seconds)
