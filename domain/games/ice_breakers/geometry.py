"""The Ice Breakers map [recon, option ``map``] as data: cells, harbors and channel spaces.

A 13 × 10 grid; a cell (x, y) is navigable when x % 3 == 0 or y % 3 == 0, except four land
cells. Of the 78 navigable cells 12 are harbors (never iced, no piece) and 66 are channel
spaces, numbered row-major (y, then x) for the ``pieces`` deal.
"""

from __future__ import annotations

from collections.abc import Mapping

Cell = tuple[int, int]

WIDTH = 13
HEIGHT = 10
LAND: frozenset[Cell] = frozenset({(6, 1), (6, 2), (6, 4), (6, 5)})

#: Destination number -> its harbor cell.
HARBORS: Mapping[int, Cell] = {
    1: (1, 0),
    2: (4, 0),
    3: (8, 0),
    4: (12, 1),
    5: (0, 5),
    6: (5, 3),
    7: (7, 6),
    8: (12, 4),
    9: (0, 8),
    10: (4, 9),
    11: (8, 9),
    12: (11, 9),
}
HARBOR_AT: Mapping[Cell, int] = {cell: dest for dest, cell in HARBORS.items()}
#: Large destinations give 3 Coast Guard cards; the others are small.
LARGE: frozenset[int] = frozenset({2, 3, 6, 8})
ALL_SHIPS: tuple[int, ...] = tuple(range(1, 13))
INTRO_SHIPS: tuple[int, ...] = (2, 3, 5, 6, 8, 9)


def _navigable(x: int, y: int) -> bool:
    return (x % 3 == 0 or y % 3 == 0) and (x, y) not in LAND


NAVIGABLE: frozenset[Cell] = frozenset(
    (x, y) for y in range(HEIGHT) for x in range(WIDTH) if _navigable(x, y)
)
#: Channel spaces in row-major order (y, then x): space i gets piece ``outcome[i]``.
CHANNELS: tuple[Cell, ...] = tuple(
    (x, y)
    for y in range(HEIGHT)
    for x in range(WIDTH)
    if (x, y) in NAVIGABLE and (x, y) not in HARBOR_AT
)
CHANNEL_SET: frozenset[Cell] = frozenset(CHANNELS)


def _neighbours(cell: Cell) -> tuple[Cell, ...]:
    x, y = cell
    steps = ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
    return tuple(c for c in steps if c in NAVIGABLE)


NEIGHBOURS: Mapping[Cell, tuple[Cell, ...]] = {cell: _neighbours(cell) for cell in NAVIGABLE}

assert len(NAVIGABLE) == 78 and len(CHANNELS) == 66
assert all(cell in NAVIGABLE for cell in HARBOR_AT)


def is_adjacent(a: Cell, b: Cell) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
