"""Ice Breakers' ``mcts``: the team plan, with each turn's opening chosen by sampled playouts.

Inside a turn the bots follow ``rescue_plan`` (a pure function of the public board). The one
choice the plan makes blindly is how to open a turn: which Power card to spend, or whether to
pass and keep it. There the search plays every option out to the end of the season in sampled
worlds — the unexposed Ice Report cards shuffled again (``worlds.sample_world``), Auto-Ballast
draws sampled — with the plan playing every seat, and keeps the option that delivers most on
average. All options share the same worlds (common random numbers), so they are compared on
the same luck. Bounded by the number of playouts, never by wall time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.ai import rescue_plan
from domain.ai.generator import SplitMix64
from domain.ai.worlds import sample_world
from domain.engine import play
from domain.engine.rules import Action, Rules
from domain.engine.types import GameState
from domain.games.ice_breakers.board import IceBreakersBoard


@dataclass(frozen=True, slots=True)
class PlayoutSettings:
    #: Sampled worlds each opening is played out in.
    playouts: int = 8
    #: A safety net: a playout stops after this many actions (a season is far shorter).
    max_actions: int = 5_000


def choose_opening(
    rules: Rules[Any],
    state: GameState[IceBreakersBoard],
    seat: int,
    team: frozenset[int],
    generator: SplitMix64,
    settings: PlayoutSettings,
) -> Action:
    """The opening (a Power card or a pass) whose playouts deliver the most."""
    default = rescue_plan.turn_start(state.board, seat)
    options = rescue_plan.power_options(state.board, seat)
    if default not in options or len(options) == 1:
        return default  # an Auto-Ballast first, or nothing to choose
    worlds = [
        (sample_world(state, generator), generator.next64()) for _ in range(settings.playouts)
    ]

    def value(option: Action) -> float:
        total = 0.0
        for world, chance_seed in worlds:
            after = play.step(rules, world, seat, option)[1]
            total += _playout(rules, after, team, SplitMix64(chance_seed), settings)
        return total

    # Ties keep the plan's own default, then the earlier (smaller) option.
    scored = [
        (value(option), option == default, -rank, option) for rank, option in enumerate(options)
    ]
    return max(scored, key=lambda entry: entry[:3])[3]


def _playout(
    rules: Rules[Any],
    state: GameState[IceBreakersBoard],
    team: frozenset[int],
    generator: SplitMix64,
    settings: PlayoutSettings,
) -> float:
    """How well the season ends from ``state`` with the plan playing: ships home, mostly."""
    everyone = frozenset(range(state.board.seats)) | team
    for _ in range(settings.max_actions):
        if state.over:
            break
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = generator.draw(draw.kind, draw.n)
            state = play.resolve_draw_step(rules, state, outcome)[1]
            continue
        step = rescue_plan.next_step(state.board, everyone)
        if step is None:
            break
        state = play.step(rules, state, step[0], step[1])[1]
    board = state.board
    cost = rescue_plan.remaining_cost(board) if board.ships else 0
    return 10.0 * len(board.delivered) + (50.0 if board.success else 0.0) - 0.01 * cost
