"""Connected groups of cells on any board, so every game finds its groups the same way.

Boards of hexes and boards of squares differ only in who a cell's neighbours are, so the
search takes the neighbour function and each game keeps only its geometry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from typing import Any, TypeVar

C = TypeVar("C", bound=Any)


def components(cells: Iterable[C], neighbours: Callable[[C], Iterable[C]]) -> list[list[C]]:
    """Groups of ``cells`` joined by ``neighbours``, each sorted, in order of their smallest
    cell (cells must be orderable, so the answer never depends on hash order)."""
    remaining = set(cells)
    groups: list[list[C]] = []
    for start in sorted(remaining):
        if start not in remaining:
            continue
        remaining.discard(start)
        group = [start]
        frontier = [start]
        while frontier:
            for nb in neighbours(frontier.pop()):
                if nb in remaining:
                    remaining.discard(nb)
                    group.append(nb)
                    frontier.append(nb)
        groups.append(sorted(group))
    return groups


def is_connected(cells: Set[C], neighbours: Callable[[C], Iterable[C]]) -> bool:
    """True when ``cells`` form one group (an empty set counts as connected).

    Cheaper than ``components`` (no sorting): rule checks ask it for every candidate move.
    """
    if not cells:
        return True
    start = next(iter(cells))
    seen = {start}
    frontier = [start]
    while frontier:
        for nb in neighbours(frontier.pop()):
            if nb in cells and nb not in seen:
                seen.add(nb)
                frontier.append(nb)
    return len(seen) == len(cells)
