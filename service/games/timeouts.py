"""Recording the timeouts a game's clocks owe: the worker's timer and a late action both land
here, so a timeout is written the same way whoever notices it first.

Every seat whose deadline has passed by ``at`` gets its ``timeout``, ascending, in one
conditional append after the head they were decided against: racing timers, a sweeper and
a late player all decide the same events for the same version, and only the first append
lands (the others find the stream moved on and write nothing).
"""

from __future__ import annotations

from typing import Any

from domain.engine import play
from domain.engine.clock import epoch_seconds
from domain.engine.types import SYSTEM, Event, GameState
from service.games.catalog import GameMeta
from service.games.follow_ups import JobQueue, enqueue_next
from service.games.repository import GameRepository, Recorded
from service.games.state_cache import Head


def due_timeouts(
    meta: GameMeta, state: GameState[Any], at: str
) -> tuple[list[Event], GameState[Any]]:
    """The ``timeout`` events owed at ``at`` (none if no deadline has passed), with the
    state after them; they stop at the one that ends the game."""
    events: list[Event] = []
    while not state.over and state.clocks is not None:
        overdue = state.clocks.overdue(epoch_seconds(at))
        if not overdue:
            break
        made, state = play.time_out(meta.rules, state, overdue[0], at)
        events += made
    return events, state


def record_timeouts(
    repository: GameRepository, jobs: JobQueue, meta: GameMeta, head: Head, at: str
) -> Recorded | None:
    """Append the timeouts owed at ``at`` after ``head``; None when none is owed or the
    stream has moved on (someone else recorded them, or something else happened first)."""
    events, after = due_timeouts(meta, head.state, at)
    if not events:
        return None
    result = repository.append(meta, head, events, after, seat=SYSTEM, command_id=None, at=at)
    if not isinstance(result, Recorded):
        return None
    enqueue_next(jobs, meta.bundle, meta.game_id, result.state, result.status)
    return result
