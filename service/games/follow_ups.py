"""What a game waits for when no person is to act, and the queue that gets it done.

After every append the game may wait on a worker: for a random draw (nobody may act until it
is recorded), for a bot seat's move, or, once a tournament's game is over, for its tournament
to advance. ``next_job`` says which, from the state alone, so the
API, the worker and the sweeper always agree; a ``JobQueue`` carries the job to a worker.
A game with a clock also waits for its next deadline: ``timer_due`` says when its timeout
job is due, and the queue holds it until then (``service.jobs.timers``).
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from domain.ai import bot_to_move
from domain.engine.game import Game
from domain.engine.status import GameStatus
from domain.engine.types import GameState

JobKind = Literal["draw", "bot", "tournament", "timeout"]


class JobQueue(Protocol):
    """Hands ``(game_id, version)`` jobs to the workers; a job for a stale version does
    nothing, so running the same job twice is harmless. ``enqueue`` may say whether it
    pushed the job (False: the queue already held it). ``due``: the epoch second before
    which the job must not run (a timeout's)."""

    def enqueue(
        self, kind: JobKind, game_id: str, version: int, *, due: int | None = None
    ) -> bool | None: ...


def enqueue_next(
    jobs: JobQueue, game: Game[Any], game_id: str, state: GameState[Any], status: GameStatus
) -> None:
    """After an append: hand the workers what the game now waits for, if anything, and
    its next timeout."""
    job = next_job(game, state, status)
    if job is not None:
        jobs.enqueue(job, game_id, state.version)
    due = timer_due(state)
    if due is not None:
        jobs.enqueue("timeout", game_id, state.version, due=due)


def timer_due(state: GameState[Any]) -> int | None:
    """The epoch second the game's next timeout is due at (a second past the earliest
    deadline of a seat to act), or None: no clock, nobody to act, or the game is over."""
    if state.over or state.clocks is None:
        return None
    deadline = state.clocks.next_deadline()
    return None if deadline is None else deadline + 1


def next_job(game: Game[Any], state: GameState[Any], status: GameStatus) -> JobKind | None:
    """The job the game waits for at ``state`` (whose status is ``status``), if any: a
    tournament game that ended waits for its tournament to take note (and maybe start the
    next round)."""
    if status == GameStatus.OVER:
        return "tournament" if state.created.tournament is not None else None
    if status == GameStatus.AWAITING_RANDOM:
        return "draw"
    if status == GameStatus.ACTIVE and bot_to_move(game, state) is not None:
        return "bot"
    return None
