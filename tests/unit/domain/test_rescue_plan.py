"""The Ice Breakers team plan: sound routes, a plan every bot agrees on, and who moves."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from domain.ai import bot_to_move
from domain.ai.rescue_plan import next_step, route_home
from domain.engine import play, rng
from domain.engine.types import GameState, SeatInfo
from domain.games import GAMES
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.geometry import HARBORS, is_adjacent
from tests.unit.domain.test_ai import SEED, new_game
from tests.unit.domain.test_worlds import positions

RULES = GAMES["ice-breakers"]


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
    assert bot_to_move(RULES, _with_bots(state, [strength] * 3)) == step[0]
    assert step[0] == driver or step[1].type == "boost"


def test_plan_bots_keep_their_cards_on_a_persons_turn_but_random_ones_chip_in() -> None:
    state = _chip_in_position()
    driver = state.board.current
    helpers = [s for s in play.to_act(RULES, state) if s != driver]
    for strength in ("mcts", "greedy"):
        person_drives: list[str | None] = [strength] * 3
        person_drives[driver] = None
        assert bot_to_move(RULES, _with_bots(state, person_drives)) is None
    random_helps = [None if seat == driver else "random" for seat in range(3)]
    assert bot_to_move(RULES, _with_bots(state, random_helps)) == helpers[0]
