"""Iceberg's fixed geometry: a 5×5 grid of tiles around a hole, each tile a 2×2 of squares.

Tiles are ``(tx, ty)`` and squares ``(sx, sy)`` with ``ty``/``sy`` growing southward; square
``(sx, sy)`` lies on tile ``(sx // 2, sy // 2)``. A *position* is a square of a face-down tile
or a whole face-up tile, so it carries its kind. Everything here is a constant or a pure
function of coordinates; which tiles are left, and which face up, is the board's business.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from domain.engine import graphs

Tile = tuple[int, int]
Square = tuple[int, int]
Step = tuple[int, int]

GRID = 5
SQUARES = 2 * GRID
HOLE: Tile = (2, 2)
#: Board positions in the order the ``tiles`` shuffle deals them: row-major, skipping the hole.
DEAL_ORDER: tuple[Tile, ...] = tuple(
    (tx, ty) for ty in range(GRID) for tx in range(GRID) if (tx, ty) != HOLE
)
#: The squares touching the hole's corners diagonally, in the order the rules list them.
START_SQUARES: tuple[Square, ...] = ((3, 3), (6, 3), (6, 6), (3, 6))

NORTH: Step = (0, -1)
EAST: Step = (1, 0)
SOUTH: Step = (0, 1)
WEST: Step = (-1, 0)
STEPS: tuple[Step, ...] = (NORTH, EAST, SOUTH, WEST)

PosKind = Literal["square", "tile"]


@dataclass(frozen=True, slots=True, order=True)
class Pos:
    """Where a coin may stand: ``square`` (of a face-down tile) or ``tile`` (a face-up one)."""

    kind: PosKind
    x: int
    y: int

    @property
    def xy(self) -> tuple[int, int]:
        return (self.x, self.y)

    @property
    def tile(self) -> Tile:
        """The tile this position lies on."""
        return (self.x // 2, self.y // 2) if self.kind == "square" else (self.x, self.y)

    def to_json(self) -> dict[str, list[int]]:
        return {self.kind: [self.x, self.y]}


def square(sx: int, sy: int) -> Pos:
    return Pos("square", sx, sy)


def tile_pos(tile: Tile) -> Pos:
    return Pos("tile", tile[0], tile[1])


def tile_of(sq: Square) -> Tile:
    return (sq[0] // 2, sq[1] // 2)


def on_grid(tile: Tile) -> bool:
    """Inside the 5×5 grid and not the hole (a tile may still have been removed)."""
    return 0 <= tile[0] < GRID and 0 <= tile[1] < GRID and tile != HOLE


def squares_of(tile: Tile) -> tuple[Square, ...]:
    """A tile's four squares NW, NE, SE, SW."""
    x, y = 2 * tile[0], 2 * tile[1]
    return ((x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1))


_PINWHEEL: dict[tuple[int, int], Step] = {(0, 0): NORTH, (1, 0): EAST, (1, 1): SOUTH, (0, 1): WEST}


def bump_step(sq: Square) -> Step:
    """The pinwheel of bumping: NW goes north, NE east, SE south, SW west."""
    return _PINWHEEL[(sq[0] % 2, sq[1] % 2)]


def shift(xy: tuple[int, int], step: Step) -> tuple[int, int]:
    return (xy[0] + step[0], xy[1] + step[1])


def edge_squares(tile: Tile, step: Step) -> tuple[Square, Square]:
    """The two squares of ``tile`` on its side facing ``step`` (where a neighbour enters)."""
    nw, ne, se, sw = squares_of(tile)
    if step == NORTH:
        return (nw, ne)
    if step == EAST:
        return (ne, se)
    if step == SOUTH:
        return (sw, se)
    return (nw, sw)


def neighbours(tile: Tile) -> tuple[tuple[Step, Tile], ...]:
    """Each direction with the grid coordinate beyond that side (maybe off the board)."""
    return tuple((step, shift(tile, step)) for step in STEPS)


def adjacent(tile: Tile) -> tuple[Tile, ...]:
    """The four grid coordinates edge to edge with ``tile`` (maybe off the board)."""
    return tuple(shift(tile, step) for step in STEPS)


def components(tiles: Iterable[Tile]) -> list[frozenset[Tile]]:
    """Groups of edge-connected tiles, ordered by their smallest tile."""
    return [frozenset(group) for group in graphs.components(tiles, adjacent)]
