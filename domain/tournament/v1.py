"""Tournament rules version 1: the swiss pairing and the standings as the first tournaments
were run (commit 1b50e23), kept unchanged so that those tournaments mean what they meant.

A tournament records the rules it is run with (``Plan.rules_version``; a stored tournament or an
export that names none is version 1), and every pairing and standing of it, by the service or
by an audit, is made with that version's rules. **Nothing here may change**: a change of what a
tournament means is a new version, beside this one (``domain.tournament.plan``).

What version 1 is (the current version's differences are in ``rounds``, ``standings`` and
``plan``):

- **Plan.** No late entries, no ratings, no tie-break list, no director's decisions
  (withdraw, enter, correct); a swiss may have more rounds than its players can play without a
  repeated table (the rounds then repeat tables).
- **Round robin**: the circle method, ``domain.tournament.rounds.round_robin`` (unchanged since
  version 1, and shared; ``tests/unit/domain/test_tournament_versions.py`` pins its schedules).
- **Swiss** (tables of ``k``, 2 to 4): players are ranked by points (most first), ties by
  their number. ``n mod k`` players sit out with a bye (worth a point), chosen from the bottom of
  the ranking among those who never had one. The rest are grouped in rank order: the best
  ranked player not yet seated takes the first ``k-1`` players below them, in rank order, that
  make a table nobody has sat at before (the same set of players); when no such table lets every
  other player be seated the same way, the search backtracks to the next choice. Only when no
  grouping at all avoids a repeated table are tables simply taken in rank order. Seats at a table
  follow the ranking.
- **Points**: as now (``domain.tournament.standings.game_points``, shared): 1 to a sole winner,
  ``1/k`` to each of ``k`` winners, 0 otherwise; a bye is worth 1.
- **Standings**: a player's **Buchholz** is the sum, over every game they sat at, of each
  opponent's final points (a bye has no opponent and adds nothing). Standings are ordered by
  points (most first), then Buchholz (most first), then name, then the player's number; no
  shared places, no other tie-break.

The functions below are version 1's, word for word (only their docstrings are new);
``bench.pairings`` measures the current pairings against them.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction

from domain.tournament.rounds import Round, Table, round_robin
from domain.tournament.standings import GameResult, Standing, game_points

#: This module's version, as a plan and a manifest write it.
VERSION = "1"

#: Tables a swiss search may try before it settles for rank order (keeps a pathological
#: round bounded; deterministic, so every implementation stops at the same point).
SEARCH_LIMIT = 100_000


def points_of(
    players: int, results: Iterable[GameResult], byes: Iterable[int]
) -> dict[int, Fraction]:
    """Every player's points from the games and the byes so far."""
    points = {p: Fraction(0) for p in range(players)}
    for result in results:
        for player, gained in game_points(result).items():
            points[player] += gained
    for player in byes:
        points[player] += 1
    return points


def standings(
    names: Sequence[str], results: Sequence[GameResult], byes: Iterable[int]
) -> list[Standing]:
    """The table of standings after ``results`` and ``byes``, best first."""
    points = points_of(len(names), results, byes)
    buchholz = {p: Fraction(0) for p in range(len(names))}
    for result in results:
        for player in result.players:
            buchholz[player] += sum(
                (points[o] for o in result.players if o != player), start=Fraction(0)
            )
    rows = [Standing(p, names[p], points[p], buchholz[p]) for p in range(len(names))]
    return sorted(rows, key=lambda s: (-s.points, -s.buchholz, s.name, s.player))


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


def next_round(
    format: str,
    players: int,
    table_size: int,
    number: int,
    played: Sequence[tuple[Round, Sequence[GameResult]]],
) -> Round:
    """Round ``number`` of a version 1 tournament (``Plan.next_round``'s body at version 1),
    given each round before it and its games' results."""
    if format == "round_robin":
        return round_robin(players)[number - 1]
    results = [r for _, games in played for r in games]
    byes = [p for this, _ in played for p in this.byes]
    tables = [frozenset(t.players) for this, _ in played for t in this.tables]
    points = points_of(players, results, byes)
    return swiss_round(players, table_size, points, tables, byes)
