"""Build Iceberg positions by hand for rule examples, and play them through the engine."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain.engine import play
from domain.engine.types import (
    GAME_CREATED,
    RANDOM,
    SYSTEM,
    Event,
    GameCreated,
    GameState,
    SeatInfo,
)
from domain.games.iceberg import ICEBERG
from domain.games.iceberg.actions import parse_action
from domain.games.iceberg.board import IcebergBoard
from domain.games.iceberg.geometry import DEAL_ORDER, Pos, Tile

#: The identity deal: board position i (row-major, skipping the hole) holds tile i, value i % 6.
IDENTITY = list(range(24))


def created(seats: int = 2, **options: Any) -> GameCreated:
    return GameCreated(
        game="iceberg",
        rules_version="1",
        options=options,
        seats=tuple(SeatInfo(i, f"p{i}") for i in range(seats)),
        seed_commitment="0" * 64,
    )


def new_game(seats: int = 2, deal: list[int] | None = None, **options: Any) -> GameState[Any]:
    """A fresh game, dealt with ``deal`` (the identity by default) unless ``deal`` is empty."""
    state = play.fold(
        ICEBERG, "g", [Event(GAME_CREATED, SYSTEM, created(seats, **options).to_json())]
    )
    if deal == []:
        return state
    return draw(state, IDENTITY if deal is None else deal)


def started(seats: int = 2, deal: list[int] | None = None, **options: Any) -> GameState[Any]:
    """A game past the starting coins: seat i placed on the i-th start square in rules order."""
    state = new_game(seats, deal, **options)
    for seat, sq in enumerate([[3, 3], [6, 3], [6, 6], [3, 6]][:seats]):
        state = act(state, seat, {"type": "place_start", "square": sq})
    return state


def value_layout(values: Mapping[Tile, int]) -> dict[Tile, int]:
    """The identity layout with some tiles given chosen values (tile ids may then repeat)."""
    layout = {tile: k for tile, k in zip(DEAL_ORDER, IDENTITY, strict=True)}
    for tile, value in values.items():
        layout[tile] = 6 * (layout[tile] // 6) + value
    return layout


def sq(x: int, y: int) -> Pos:
    return Pos("square", x, y)


def tl(x: int, y: int) -> Pos:
    return Pos("tile", x, y)


def position(
    coins: Mapping[Pos, int],
    *,
    seats: int = 2,
    current: int = 0,
    face_up: Iterable[Tile] = (),
    removed: Iterable[Tile] = (),
    values: Mapping[Tile, int] | None = None,
    hands: tuple[int, ...] | None = None,
    idle: int = 0,
    idle_limit: int = 100,
) -> GameState[IcebergBoard]:
    """A regular-turn position with ``current`` to act (hands default to 3 coins each)."""
    present = frozenset(DEAL_ORDER) - frozenset(removed)
    board = IcebergBoard(
        seats=seats,
        idle_limit=idle_limit,
        phase="play",
        layout=value_layout(values or {}),
        present=present,
        face_up=frozenset(face_up) & present,
        coins=dict(coins),
        hands=hands if hands is not None else (3,) * seats,
        current=current,
        idle=idle,
    )
    return GameState(game_id="t", version=40, created=created(seats), board=board)


def act(state: GameState[Any], seat: int, action: Mapping[str, Any]) -> GameState[Any]:
    """Decide and apply ``action`` (raising the rules' error when it is refused)."""
    for event in play.decide(ICEBERG, state, seat, parse_action(action)):
        state = play.apply(ICEBERG, state, event)
    return state


def draw(state: GameState[Any], outcome: Any) -> GameState[Any]:
    """Record the outcome of the draw the game awaits, as the worker would."""
    pending = ICEBERG.pending_draw(state.board)
    assert pending is not None, "no draw is pending"
    data = {"label": pending.label, "kind": pending.kind, "n": pending.n, "outcome": outcome}
    state = play.apply(ICEBERG, state, Event(RANDOM, SYSTEM, data))
    result = ICEBERG.outcome(state.board)
    if result is not None:  # the service appends game_over after a random event that ends it
        state = play.apply(ICEBERG, state, play.game_over_event(result))
    return state


def roll(state: GameState[Any], seat: int, die: int) -> GameState[Any]:
    return draw(act(state, seat, {"type": "roll"}), die)


def legal(state: GameState[Any], seat: int) -> list[dict[str, Any]]:
    return [a.to_json() for a in play.legal_actions(ICEBERG, state, seat)]


def coins_of(state: GameState[Any]) -> dict[Pos, int]:
    return dict(state.board.coins)
