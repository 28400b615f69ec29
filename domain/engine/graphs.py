"""Connected groups of cells on any board, and the cells that hold them together, so every
game finds its groups the same way.

Boards of hexes and boards of squares differ only in who a cell's neighbours are, so the
search takes the neighbour function and each game keeps only its geometry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Set
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


def articulation_points(cells: Iterable[C], neighbours: Callable[[C], Iterable[C]]) -> frozenset[C]:
    """The cells whose removal splits their group into more groups (cut vertices).

    One depth-first pass (Hopcroft–Tarjan), kept on an explicit stack so a long board never
    meets the recursion limit: linear in cells and their links, where removing each cell and
    asking ``is_connected`` again is quadratic. ``neighbours`` must be symmetric (``b`` is a
    neighbour of ``a`` exactly when ``a`` is of ``b``); cells outside ``cells`` are ignored.
    A group of one or two cells has none; a cell alone in its group is never one.
    """
    inside = cells if isinstance(cells, Set) else set(cells)
    order: dict[C, int] = {}  # when the search first reached each cell
    low: dict[C, int] = {}  # the earliest cell reachable from its subtree by one back link
    cuts: set[C] = set()
    for root in inside:
        if root in order:
            continue
        order[root] = low[root] = len(order)
        root_children = 0
        # (cell, the cell the search came from, the neighbours still to look at)
        stack: list[tuple[C, C, Iterator[C]]] = [(root, root, iter(neighbours(root)))]
        while stack:
            cell, parent, pending = stack[-1]
            for nb in pending:
                if nb not in inside:
                    continue
                if nb not in order:
                    order[nb] = low[nb] = len(order)
                    stack.append((nb, cell, iter(neighbours(nb))))
                    break
                if nb != parent and order[nb] < low[cell]:
                    low[cell] = order[nb]
            else:
                stack.pop()
                if cell is root:
                    continue
                if low[cell] < low[parent]:
                    low[parent] = low[cell]
                if parent is root:
                    root_children += 1
                elif low[cell] >= order[parent]:
                    cuts.add(parent)
        if root_children > 1:
            cuts.add(root)
    return frozenset(cuts)
