"""Build Arktia positions by hand for rule examples: the regular phase, any stacks."""

from __future__ import annotations

from typing import Any

from domain.engine import play
from domain.engine.types import Event, GameCreated, GameState, SeatInfo
from domain.games.arktia import ARKTIA
from domain.games.arktia.actions import parse_action
from domain.games.arktia.board import ArktiaBoard, Player
from domain.games.arktia.hexes import BOARD_36, Hex
from domain.games.arktia.stacks import Stack

NEUTRAL = -1


def created(seats: int = 2, **options: Any) -> GameCreated:
    return GameCreated(
        game="arktia",
        rules_version="1",
        options=options,
        seats=tuple(SeatInfo(i, f"p{i}") for i in range(seats)),
        seed_commitment="0" * 64,
    )


def position(
    stacks: dict[Hex, Stack],
    *,
    seats: int = 3,
    current: int = 0,
    reserves: dict[int, tuple[int, int, int]] | None = None,
    tiles: frozenset[Hex] = BOARD_36,
    turns: int = 20,
    turn_limit: int = 300,
) -> GameState[ArktiaBoard]:
    """A regular-phase position with ``current`` to move (reserves default to 1 of each)."""
    reserves = reserves or {}
    players = tuple(
        Player(reserve=reserves.get(seat, (1, 1, 1)), neutrals=(0, 0, 0)) for seat in range(seats)
    )
    board = ArktiaBoard(
        shape=tiles,
        tiles=tiles,
        stacks=dict(stacks),
        players=players,
        schedule=(),
        step=0,
        current=current,
        turns=turns,
        turn_limit=turn_limit,
        melt_due=sum(players[current].reserve) == 0,
    )
    return GameState(game_id="t", version=50, created=created(seats), board=board)


def act(state: GameState[Any], seat: int, action: dict[str, Any]) -> GameState[Any]:
    """Decide and apply ``action`` (raising the rules' error when it is refused)."""
    for event in play.decide(ARKTIA, state, seat, parse_action(action)):
        state = play.apply(ARKTIA, state, event)
    return state


def events_of(state: GameState[Any], seat: int, action: dict[str, Any]) -> list[Event]:
    return play.decide(ARKTIA, state, seat, parse_action(action))


def legal(state: GameState[Any], seat: int) -> list[dict[str, Any]]:
    return [a.to_json() for a in play.legal_actions(ARKTIA, state, seat)]


def g(colour: int) -> Stack:
    return Stack(g=colour)


def d(colour: int) -> Stack:
    return Stack(d=colour)


def t(colour: int) -> Stack:
    return Stack(t=colour)
