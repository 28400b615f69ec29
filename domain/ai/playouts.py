"""A team plan's open choices, settled by sampled playouts (the ``mcts`` bot of plan games).

In a game with a team plan (``game.bot.planner``), the bots follow the plan, a pure function
of the public board. Where the plan offers alternatives to its own step (say, how to open a
turn), ``choose_by_playouts`` plays every alternative out to the end in sampled
worlds (hidden parts guessed again by ``worlds.sample_world``, chance sampled), with the plan
playing every seat, and keeps the alternative whose playouts score best on average
(``planner.playout_score``). All alternatives share the same worlds (common random numbers),
so they are compared on the same luck. Bounded by the number of playouts; a time ``Budget``
(``budget.py``), checked at every step of every playout, only ever stops the search with
``BotTimedOut``, so time never chooses the option.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.ai.budget import UNBOUNDED, Budget
from domain.ai.decision import Decision
from domain.ai.generator import SplitMix64
from domain.ai.worlds import sample_world
from domain.engine import play
from domain.engine.game import Game, Planner
from domain.engine.rules import Action
from domain.engine.types import GameState


@dataclass(frozen=True, slots=True)
class PlayoutSettings:
    #: Sampled worlds each alternative is played out in.
    playouts: int = 8
    #: A safety net: a playout stops after this many actions (a game is far shorter).
    max_actions: int = 5_000


def choose_by_playouts(
    decision: Decision,
    planner: Planner[Any],
    team: frozenset[int],
    planned: Action,
    options: Sequence[Action],
    generator: SplitMix64,
    settings: PlayoutSettings,
) -> Action:
    """The option among ``options`` (which the deciding seat may take now) whose playouts
    score best.

    Ties keep the plan's own step ``planned``, then the earlier option. ``BotTimedOut`` once
    the decision's budget runs out: nothing is chosen then.
    """
    game, state, seat, budget = decision.game, decision.state, decision.seat, decision.budget
    worlds = [
        (sample_world(game, state, generator), generator.next64()) for _ in range(settings.playouts)
    ]

    def value(option: Action) -> float:
        total = 0.0
        for world, chance_seed in worlds:
            budget.check()
            after = play.step(game.rules, world, seat, option)[1]
            total += _playout(game, planner, after, team, SplitMix64(chance_seed), settings, budget)
        return total

    scored = [
        (value(option), option == planned, -rank, option) for rank, option in enumerate(options)
    ]
    return max(scored, key=lambda entry: entry[:3])[3]


def _playout(
    game: Game[Any],
    planner: Planner[Any],
    state: GameState[Any],
    team: frozenset[int],
    generator: SplitMix64,
    settings: PlayoutSettings,
    budget: Budget = UNBOUNDED,
) -> float:
    """How well the game ends from ``state`` with the plan playing every seat."""
    rules = game.rules
    everyone = frozenset(range(len(state.created.seats))) | team
    check = budget.check
    for _ in range(settings.max_actions):
        check()  # raises past the deadline: a cut-short playout is never scored
        if state.over:
            break
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = generator.draw(draw.kind, draw.n)
            state = play.resolve_draw_step(rules, state, outcome)[1]
            continue
        step = planner.next_step(state.board, everyone)
        if step is None:
            break
        state = play.step(rules, state, step[0], step[1])[1]
    return planner.playout_score(state.board)
