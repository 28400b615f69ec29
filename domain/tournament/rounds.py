"""Who meets whom: the round robin's fixed schedule, and each swiss round from the results.

Players are numbered ``0..n-1`` in the order the tournament listed them. Both functions are
deterministic, so anyone holding the earlier results computes the same tables.

**Round robin** (tables of 2): the circle method. With an odd count a stand-in makes the count
even, and whoever meets it has a bye. Player ``n'-1`` (``n'`` the even count) stays put while
the others rotate one place a round; in each round table ``i`` pairs positions ``i`` and
``n'-1-i``. First seats are balanced: of players ``a < b``, ``a`` sits first exactly when
``a + b`` is odd, so over the tournament nobody sits first more than once more than second.

**Swiss** (tables of ``k``, 2 to 4): players are ranked by points (most first), ties by
their number. ``n mod k`` players sit out with a bye (worth a point), chosen from the bottom of
the ranking among those who never had one. The rest are grouped in rank order: the best
ranked player not yet seated takes the first ``k-1`` players below them, in rank order, that
make a table nobody has sat at before (the same set of players); when no such table lets every
other player be seated the same way, the search backtracks to the next choice. Only when no
grouping at all avoids a repeated table are tables simply taken in rank order. Seats at a table
follow the ranking.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

#: Tables a swiss search may try before it settles for rank order (keeps a pathological
#: round bounded; deterministic, so every implementation stops at the same point).
SEARCH_LIMIT = 100_000


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a round: its players in seat order."""

    players: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """A round's tables in table order, and the players with a bye."""

    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()


def round_robin(players: int) -> list[Round]:
    """Every pair of ``players`` meets once, at tables of 2 (``players`` ≥ 2)."""
    if players < 2:
        raise ValueError("a round robin needs at least two players")
    count = players + players % 2  # a stand-in (number ``players``) when odd
    others = list(range(count - 1))
    fixed = count - 1
    rounds = []
    for _ in range(count - 1):
        positions = [*others, fixed]
        tables: list[Table] = []
        byes: list[int] = []
        for i in range(count // 2):
            a, b = sorted((positions[i], positions[count - 1 - i]))
            if b == players:  # the stand-in: a bye
                byes.append(a)
                continue
            tables.append(Table((a, b) if (a + b) % 2 == 1 else (b, a)))
        rounds.append(Round(tuple(tables), tuple(byes)))
        others = [others[-1], *others[:-1]]
    return rounds


def rank(points: Mapping[int, Fraction], players: int) -> list[int]:
    """Players by points, most first; ties by their number."""
    return sorted(range(players), key=lambda p: (-points.get(p, Fraction(0)), p))


def swiss_round(
    players: int,
    table_size: int,
    points: Mapping[int, Fraction],
    past_tables: Collection[frozenset[int]],
    past_byes: Collection[int],
) -> Round:
    """The next swiss round, given each player's points and every table and bye so far."""
    if not 2 <= table_size <= 4 or players < table_size:
        raise ValueError(
            f"a swiss round needs 2..4 seats a table and at least {table_size} players"
        )
    order = rank(points, players)
    leftover = players % table_size
    byes: list[int] = []
    for player in reversed(order):
        if len(byes) == leftover:
            break
        if player not in past_byes:
            byes.append(player)
    for player in reversed(order):  # everyone had a bye: the lowest ranked again
        if len(byes) == leftover:
            break
        if player not in byes:
            byes.append(player)
    seated = [p for p in order if p not in byes]
    seen = {frozenset(t) for t in past_tables}
    grouping = _without_repeats(seated, table_size, seen)
    if grouping is None:
        grouping = [tuple(seated[i : i + table_size]) for i in range(0, len(seated), table_size)]
    tables = tuple(Table(group) for group in grouping)
    return Round(tables, tuple(sorted(byes, key=order.index)))


def _without_repeats(
    seated: Sequence[int], size: int, seen: Collection[frozenset[int]]
) -> list[tuple[int, ...]] | None:
    """Tables of ``size`` in rank order, none a table seen before; None if there is none."""
    budget = [SEARCH_LIMIT]

    def search(remaining: list[int]) -> Iterator[list[tuple[int, ...]]]:
        if not remaining:
            yield []
            return
        head, rest = remaining[0], remaining[1:]
        for companions in itertools.combinations(rest, size - 1):
            budget[0] -= 1
            if budget[0] < 0:
                return
            table = (head, *companions)
            if frozenset(table) in seen:
                continue
            left = [p for p in rest if p not in companions]
            for tail in search(left):
                yield [table, *tail]

    return next(search(list(seated)), None)
