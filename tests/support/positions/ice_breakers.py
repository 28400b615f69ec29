"""Build Ice Breakers positions by hand for rule examples, and play them through the engine."""

from __future__ import annotations

from typing import Any

from domain.engine import play
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, GameState, SeatInfo
from domain.games.ice_breakers import ICE_BREAKERS
from domain.games.ice_breakers.actions import parse_action
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.geometry import CHANNELS, Cell


def created(seats: int = 2, **options: Any) -> GameCreated:
    return GameCreated(
        game="ice-breakers",
        rules_version="1",
        options=options,
        seats=tuple(SeatInfo(i, f"p{i}") for i in range(seats)),
        seed_commitment="0" * 64,
    )


def fresh(seats: int = 2, **options: Any) -> GameState[Any]:
    """Version 1: nothing drawn yet."""
    return play.fold(
        ICE_BREAKERS, "g", [Event(GAME_CREATED, SYSTEM, created(seats, **options).to_json())]
    )


def rotation(n: int) -> list[int]:
    """A derangement: the harbor of the i-th ship in play gets the (i+1)-th."""
    return [(i + 1) % n for i in range(n)]


def new_game(
    seats: int = 2,
    *,
    upper: list[int] | None = None,
    lower: list[int] | None = None,
    deck: list[int] | None = None,
    **options: Any,
) -> GameState[Any]:
    """A game past its five setup draws: identity shuffles and a rotation of the ships."""
    state = fresh(seats, **options)
    board: IceBreakersBoard = state.board
    state = draw(state, list(range(66)))
    state = draw(state, rotation(len(board.in_play)))
    state = draw(state, upper if upper is not None else list(range(13)))
    state = draw(state, lower if lower is not None else list(range(5)))
    n = 32 - 2 * seats
    return draw(state, deck if deck is not None else list(range(n)))


def draw(state: GameState[Any], outcome: int | list[int]) -> GameState[Any]:
    for event in play.resolve_draw(ICE_BREAKERS, state, outcome):
        state = play.apply(ICE_BREAKERS, state, event)
    return state


def act(state: GameState[Any], seat: int, action: dict[str, Any]) -> GameState[Any]:
    return play.step(ICE_BREAKERS, state, seat, parse_action(action))[1]


def position(state: GameState[Any], **changes: Any) -> GameState[Any]:
    """``state`` with some board fields replaced (a hand-built position)."""
    board: IceBreakersBoard = state.board
    return GameState(state.game_id, state.version, state.created, board._replace(**changes))


def board_of(state: GameState[Any]) -> IceBreakersBoard:
    board: IceBreakersBoard = state.board
    return board


def all_ice(value: int = 4) -> dict[Cell, int]:
    """Every channel space holds ice of ``value``."""
    return dict.fromkeys(CHANNELS, value)


def legal(state: GameState[Any], seat: int) -> list[dict[str, Any]]:
    return [a.to_json() for a in play.legal_actions(ICE_BREAKERS, state, seat)]
