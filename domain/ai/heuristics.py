"""How good a position looks to a seat, from what that seat may see.

Each heuristic reads only public parts of the board (never Iceberg's face-down values nor
Ice Breakers' unexposed reports), so a bot that evaluates the positions its moves lead to
learns nothing a person in its seat could not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.games.arktia.board import ArktiaBoard
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.geometry import HARBORS
from domain.games.iceberg.board import IcebergBoard

Heuristic = Callable[[Any, int], float]


def arktia(board: ArktiaBoard, seat: int) -> float:
    """Points ahead of the best opponent (kept pieces, melted tiles, tiles held)."""
    others = [board.score(other) for other in range(board.seats) if other != seat]
    return board.score(seat) - max(others, default=0)


def iceberg(board: IcebergBoard, seat: int) -> float:
    """Coins still alive (on the board or in hand), ahead of the best opponent's."""

    def alive(player: int) -> int:
        on_board = sum(1 for owner in board.coins.values() if owner == player)
        return on_board + board.hands[player]

    others = [alive(other) for other in range(board.seats) if other != seat]
    return alive(seat) - max(others, default=0)


def ice_breakers(board: IceBreakersBoard, seat: int) -> float:
    """Co-operative: ships home count most, then how close the others are, unpinned."""
    distance = 0
    pinned = 0
    for ship, cell in board.ships.items():
        harbor = HARBORS[ship]
        distance += abs(cell[0] - harbor[0]) + abs(cell[1] - harbor[1])
        pinned += board.pinned(ship)
    return 100.0 * len(board.delivered) - distance - 3.0 * pinned


HEURISTICS: dict[str, Heuristic] = {
    "arktia": arktia,
    "iceberg": iceberg,
    "ice-breakers": ice_breakers,
}
