"""How good a position looks to a seat, from what that seat may see.

Each heuristic reads only public parts of the board (never Iceberg's face-down values nor
Ice Breakers' unexposed reports), so a bot that evaluates the positions its moves lead to
learns nothing a person in its seat could not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.ai.rescue_plan import remaining_cost
from domain.games.arktia.board import ArktiaBoard
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.iceberg.board import IcebergBoard

Heuristic = Callable[[Any, int], float]


def arktia(board: ArktiaBoard, seat: int) -> float:
    """Points ahead of the best opponent (kept pieces, melted tiles, tiles held), counting
    the empty tiles as points still to be won by whoever is still playing.

    Without that share, a lead looks safe to retire on; but the players still in go on
    melting and capturing alone, and a search with a short horizon cannot see how far.
    """
    playing = [p for p in range(board.seats) if board.players[p].ended is None]
    empty = len(board.tiles) - len(board.stacks)
    share = empty / len(playing) if playing else 0.0

    def outlook(player: int) -> float:
        return board.score(player) + (share if player in playing else 0.0)

    others = [outlook(other) for other in range(board.seats) if other != seat]
    return outlook(seat) - max(others, default=0)


def iceberg(board: IcebergBoard, seat: int) -> float:
    """Coins still alive (on the board or in hand), ahead of the best opponent's."""

    def alive(player: int) -> int:
        on_board = sum(1 for owner in board.coins.values() if owner == player)
        return on_board + board.hands[player]

    others = [alive(other) for other in range(board.seats) if other != seat]
    return alive(seat) - max(others, default=0)


def ice_breakers(board: IceBreakersBoard, seat: int) -> float:
    """Co-operative: ships home count most, then what it would cost to bring the rest home,
    less the points still to spend this turn (so spending them well is neutral or better)."""
    return 100.0 * len(board.delivered) - remaining_cost(board) + 0.9 * board.left


HEURISTICS: dict[str, Heuristic] = {
    "arktia": arktia,
    "iceberg": iceberg,
    "ice-breakers": ice_breakers,
}
