"""The Ice Breakers team plan: sound routes, a plan every bot agrees on, and who moves.

The plan lives in the game's package (``domain.games.ice_breakers.plan``) and reaches the
generic bots only as the ``Planner`` of the game's bundle.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from domain.ai import bot_to_move
from domain.engine import play, rng
from domain.engine.types import GameState, SeatInfo
from domain.games import GAMES
from domain.games.ice_breakers.actions import EndTurn, Pass
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.geometry import HARBORS, is_adjacent
from domain.games.ice_breakers.plan import (
    RESCUE_PLAN,
    next_step,
    power_options,
    remaining_cost,
    route_home,
    turn_start,
)
from tests.support.bots import SEED, new_game, positions

GAME = GAMES["ice-breakers"]
RULES = GAME.rules


def plan_positions(
    seats: int, game_id: str, **options: Any
) -> Iterator[GameState[IceBreakersBoard]]:
    """Every position of a game played by the plan alone (every seat on the team), the
    final one included."""
    state = new_game("ice-breakers", seats, game_id, **options)
    team = frozenset(range(seats))
    while not state.over:
        draw = RULES.pending_draw(state.board)
        if draw is not None:
            outcome = rng.draw(
                SEED, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
            )
            state = play.resolve_draw_step(RULES, state, outcome)[1]
            continue
        yield state
        step = next_step(state.board, team)
        assert step is not None, "with every seat on the team, the plan always has a step"
        state = play.step(RULES, state, *step)[1]
    yield state


def plan_game(seats: int, game_id: str, **options: Any) -> GameState[IceBreakersBoard]:
    *_, final = plan_positions(seats, game_id, **options)
    return final


def test_routes_home_are_paths_that_cost_their_ice() -> None:
    routes = 0
    for state in positions("ice-breakers", 3, "routes"):
        board = state.board
        for ship in board.ships:
            route = route_home(board, ship)
            cells = (board.ships[ship], *route.cells)
            assert cells[-1] == HARBORS[ship]
            assert all(is_adjacent(a, b) for a, b in itertools.pairwise(cells))
            assert route.cost == sum(board.pieces[c] for c in cells if board.is_ice(c))
            routes += 1
        if routes > 200:
            break
    assert routes > 200


def test_the_plan_brings_every_ship_home_in_intro_games() -> None:
    outcomes = [plan_game(seats, f"intro-{i}", intro=True) for i in range(10) for seats in (2, 4)]
    assert all(state.board.success for state in outcomes)


def _with_bots(state: GameState[Any], bots: list[str | None]) -> GameState[Any]:
    seats = tuple(SeatInfo(i, f"p{i}", bot) for i, bot in enumerate(bots))
    return dataclasses.replace(state, created=dataclasses.replace(state.created, seats=seats))


def _chip_in_position() -> GameState[Any]:
    """A turn with the Power card down where a seat other than the active one may boost."""
    for state in plan_positions(3, "chip-in"):
        board = state.board
        others = [s for s in play.to_act(RULES, state) if s != board.current]
        if board.power is not None and not board.waiting and others:
            return state
    raise AssertionError("no position where another seat may chip in")


@pytest.mark.parametrize("strength", ["mcts", "greedy"])
def test_a_turn_driven_by_the_plan_moves_the_seat_the_plan_names(strength: str) -> None:
    state = _chip_in_position()
    driver = state.board.current
    step = next_step(state.board, frozenset(range(3)))
    assert step is not None
    assert bot_to_move(GAME, _with_bots(state, [strength] * 3)) == step[0]
    assert step[0] == driver or step[1].type == "boost"


def test_plan_bots_keep_their_cards_on_a_persons_turn_but_random_ones_chip_in() -> None:
    state = _chip_in_position()
    driver = state.board.current
    helpers = [s for s in play.to_act(RULES, state) if s != driver]
    for strength in ("mcts", "greedy"):
        person_drives: list[str | None] = [strength] * 3
        person_drives[driver] = None
        assert bot_to_move(GAME, _with_bots(state, person_drives)) is None
    random_helps = [None if seat == driver else "random" for seat in range(3)]
    assert bot_to_move(GAME, _with_bots(state, random_helps)) == helpers[0]


def test_the_bundle_carries_the_plan() -> None:
    assert GAME.bot.planner is RESCUE_PLAN


def test_the_driver_is_the_giver_while_cards_wait_else_the_active_player() -> None:
    seen = set()
    for state in plan_positions(3, "drivers"):
        board = state.board
        expected = board.giver if board.waiting else board.current
        assert RESCUE_PLAN.driver(board) == expected
        seen.add(bool(board.waiting))
    assert seen == {False, True}


def test_alternatives_are_the_openings_only_when_there_is_a_choice() -> None:
    compared = 0
    for state in plan_positions(3, "openings"):
        board = state.board
        seat = board.current
        assert not RESCUE_PLAN.alternatives(board, seat, EndTurn())
        if board.phase != "play" or board.power is not None or board.waiting:
            continue
        planned = turn_start(board, seat)
        options = power_options(board, seat)
        offered = RESCUE_PLAN.alternatives(board, seat, planned)
        if planned in options and len(options) > 1:
            assert list(offered) == options and Pass() in offered
            compared += 1
        else:
            assert not offered
    assert compared > 3


def test_playouts_score_ships_home_then_the_cost_of_the_rest() -> None:
    final = plan_game(2, "score", intro=True)
    board = final.board
    assert board.success
    assert RESCUE_PLAN.playout_score(board) == 10.0 * len(board.delivered) + 50.0
    start = next(s for s in plan_positions(2, "score-start") if s.board.ships)
    cost = remaining_cost(start.board)
    assert RESCUE_PLAN.playout_score(start.board) == pytest.approx(-0.01 * cost)
