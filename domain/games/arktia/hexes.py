"""Hex geometry: axial coordinates, the six directions, boards, connectivity and cut tiles."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from domain.engine import graphs

Hex = tuple[int, int]

#: The six directions in the order the rules list them.
DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


@cache
def neighbours(tile: Hex) -> tuple[Hex, ...]:
    """The six tiles around ``tile`` (cached: folds ask millions of times)."""
    q, r = tile
    return tuple((q + dq, r + dr) for dq, dr in DIRECTIONS)


def rows(spec: Iterable[tuple[int, int, int]]) -> frozenset[Hex]:
    """A board from rows ``(r, q_min, q_max)``, as the rules file writes them."""
    return frozenset((q, r) for r, q_min, q_max in spec for q in range(q_min, q_max + 1))


BOARD_24 = rows([(-2, 0, 3), (-1, -1, 3), (0, -2, 3), (1, -2, 2), (2, -2, 1)])
BOARD_27 = rows([(-2, 0, 3), (-1, -1, 3), (0, -2, 3), (1, -2, 2), (2, -2, 1), (3, -2, 0)])
BOARD_36 = rows(
    [(-3, 1, 3), (-2, 0, 3), (-1, -1, 3), (0, -2, 3), (1, -3, 3), (2, -3, 2), (3, -3, 1)]
)


def components(tiles: Iterable[Hex]) -> list[list[Hex]]:
    """Groups of ``tiles`` joined by adjacency, each sorted, in order of their smallest tile."""
    return graphs.components(tiles, neighbours)


def is_connected(tiles: frozenset[Hex] | set[Hex]) -> bool:
    """True when ``tiles`` form one group (an empty set counts as connected).

    ``graphs.is_connected``'s search, meeting each tile's neighbours by one set operation
    rather than one by one: a fold asks this for every move that may split a colour.
    """
    if not tiles:
        return True
    start = next(iter(tiles))
    seen = {start}
    frontier = [start]
    while frontier:
        fresh = tiles.intersection(neighbours(frontier.pop()))
        fresh -= seen
        seen |= fresh
        frontier.extend(fresh)
    return len(seen) == len(tiles)


def articulation_points(tiles: frozenset[Hex] | set[Hex]) -> frozenset[Hex]:
    """The tiles whose loss would split their group (one linear pass, see ``graphs``)."""
    return graphs.articulation_points(tiles, neighbours)
