"""What results are worth: points per game, byes, the tie-breaks, and the standings.

**Points.** A game gives 1 point to a sole winner, ``1/k`` to each of ``k`` winners, and 0 to
everyone else (a game nobody wins gives nothing). A bye is worth 1. Points are exact
fractions, so ``1/3 + 1/3 + 1/3`` is 1 on every machine. A director's correction
(``domain.tournament.decisions.Correct``) replaces a game's winners for everything below; the
game's log is untouched.

**Contributions.** Everything below is computed from the *final* points, the points every
player has once every counted game and bye is added (at the moment the standings are made).
For a player ``p`` each game gives one *opponent contribution* per other player at its table
(at a table of ``k`` players, ``k-1`` of them): that opponent's final points. Each bye is a
game against one virtual opponent whose points are ``p``'s own final points (FIDE's rule for a
bye), so it gives one contribution equal to ``p``'s final points, whatever the table size.
A round a player missed (entered late, or withdrawn) is no game and gives nothing.

**Tie-breaks** (each a fraction; more is better):

- ``buchholz``: the sum of ``p``'s contributions.
- ``buchholz_cut1``: ``buchholz`` minus the lowest single contribution (0 with none).
- ``median_buchholz``: ``buchholz`` minus the highest and the lowest contribution; with fewer
  than 3 contributions it is ``buchholz_cut1`` (only the lowest is cut; 0 with none).
- ``sonneborn_berger``: the sum over ``p``'s games of the points ``p`` scored in that game
  (1, ``1/k`` for a shared win, 0) times the sum of the final points of the other players at
  the table; a bye adds 1 times ``p``'s own final points (its virtual opponent's).
- ``direct_encounter``: take the group of players equal to ``p`` on points and on every
  tie-break listed before this one (``p`` included). If the group has 2 or more players and
  every two of them sat together at a counted game at least once, ``p``'s value is the points
  ``p`` scored in the games where ``p`` sat with at least one other member of the group;
  otherwise (alone, or two members never met) it is 0 for everyone in the group.
- ``wins``: how many counted games ``p`` won: being among a game's winners is a win (a shared
  win too); a bye is not a win; a game nobody won is nobody's win.

**Order.** Standings are ordered by points, then by the tie-breaks in the order asked
(default ``DEFAULT_TIEBREAKS``: Buchholz cut 1, Sonneborn-Berger, direct encounter, wins),
most first. Players equal on all of them share a place, written ``"3-4"`` (a single place is
``"3"``); names never decide anything. Within a shared place rows are listed by player number,
which is only the listing order, not a ranking.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from domain.tournament.decisions import Correct, Decision, Enter

#: Every tie-break a tournament may list, by name.
TIEBREAKS = (
    "buchholz",
    "buchholz_cut1",
    "median_buchholz",
    "sonneborn_berger",
    "direct_encounter",
    "wins",
)
#: The tie-breaks of a tournament that names none, in order.
DEFAULT_TIEBREAKS: tuple[str, ...] = (
    "buchholz_cut1",
    "sonneborn_berger",
    "direct_encounter",
    "wins",
)


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game of the tournament: its players in seat order, and the winning seats.

    ``round`` and ``table`` (from 1) say where it was played, so a director's correction can
    find it; 0 when unknown (no correction then applies to it)."""

    players: tuple[int, ...]
    winners: tuple[int, ...]
    round: int = 0
    table: int = 0


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of the standings. ``buchholz`` is the plain Buchholz (whether or not it is one
    of the tie-breaks); ``tiebreaks`` holds the values of the tie-breaks used, in their order;
    ``place`` is ``"1"``, or ``"3-4"`` for a place shared by two or more players."""

    player: int
    name: str
    points: Fraction
    buchholz: Fraction
    place: str = ""
    tiebreaks: tuple[Fraction, ...] = ()


def game_points(result: GameResult) -> dict[int, Fraction]:
    """Each player's points from one game."""
    won = [result.players[seat] for seat in result.winners]
    share = Fraction(1, len(won)) if won else Fraction(0)
    return {p: (share if p in won else Fraction(0)) for p in result.players}


def points_of(
    players: int, results: Iterable[GameResult], byes: Iterable[int]
) -> dict[int, Fraction]:
    """Every player's points from the games and the byes so far."""
    points = {p: Fraction(0) for p in range(players)}
    for result in results:
        for player, gained in game_points(result).items():
            points[player] = points.get(player, Fraction(0)) + gained
    for player in byes:
        points[player] = points.get(player, Fraction(0)) + 1
    return points


def check_tiebreaks(tiebreaks: Iterable[str]) -> tuple[str, ...]:
    """The tie-breaks as a tuple; ``ValueError`` naming one that is unknown or listed twice."""
    listed = tuple(tiebreaks)
    for name in listed:
        if name not in TIEBREAKS:
            raise ValueError(f"tiebreaks: {name!r} is none of {', '.join(TIEBREAKS)}")
    if len(set(listed)) != len(listed):
        raise ValueError("tiebreaks: each may be listed once")
    return listed


def corrected(results: Iterable[GameResult], decisions: Iterable[Decision]) -> list[GameResult]:
    """``results`` with each correction applied: a ``Correct`` of round ``r``, table ``t``
    replaces the winners of the result with that ``round`` and ``table``; of two corrections
    of one game, the one with the higher ``seq`` (the later one given, when equal) counts."""
    fixes: dict[tuple[int, int], tuple[int, ...]] = {}
    ordered = sorted(enumerate(decisions), key=lambda pair: (pair[1].seq, pair[0]))
    for _, decision in ordered:
        if isinstance(decision, Correct):
            fixes[(decision.round, decision.table)] = decision.winners
    if not fixes:
        return list(results)
    return [
        GameResult(r.players, fixes.get((r.round, r.table), r.winners), r.round, r.table)
        if r.round > 0
        else r
        for r in results
    ]


@dataclass(frozen=True, slots=True)
class _Row:
    player: int
    points: Fraction
    buchholz: Fraction
    tiebreaks: tuple[Fraction, ...]

    @property
    def key(self) -> tuple[Fraction, ...]:
        return (self.points, *self.tiebreaks)


def ranked(
    players: Iterable[int],
    results: Sequence[GameResult],
    byes: Iterable[int],
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
) -> list[tuple[int, tuple[Fraction, ...], Fraction]]:
    """``players`` best first, each as (player, (points, *tie-breaks), Buchholz); equal keys
    by player number. Results are taken as given (corrections already applied)."""
    rows = _rows(sorted(set(players)), results, list(byes), tuple(tiebreaks))
    return [(row.player, row.key, row.buchholz) for row in rows]


def _rows(
    players: list[int],
    results: Sequence[GameResult],
    byes: list[int],
    tiebreaks: tuple[str, ...],
) -> list[_Row]:
    check_tiebreaks(tiebreaks)
    everyone = set(players) | {p for r in results for p in r.players} | set(byes)
    points = {p: Fraction(0) for p in everyone}
    for result in results:
        for player, share in game_points(result).items():
            points[player] += share
    for player in byes:
        points[player] += 1
    contributions: dict[int, list[Fraction]] = {p: [] for p in everyone}
    berger = {p: Fraction(0) for p in everyone}
    wins = dict.fromkeys(everyone, 0)
    for result in results:
        gained = game_points(result)
        won = {result.players[seat] for seat in result.winners}
        for player in result.players:
            others = [o for o in result.players if o != player]
            contributions[player] += [points[o] for o in others]
            berger[player] += gained[player] * sum((points[o] for o in others), Fraction(0))
            wins[player] += player in won
    for player in byes:
        contributions[player].append(points[player])
        berger[player] += points[player]

    def value(name: str, player: int) -> Fraction:
        mine = contributions[player]
        total = sum(mine, Fraction(0))
        if name == "buchholz":
            return total
        if name == "buchholz_cut1" or (name == "median_buchholz" and len(mine) < 3):
            return total - min(mine) if mine else Fraction(0)
        if name == "median_buchholz":
            return total - min(mine) - max(mine)
        if name == "sonneborn_berger":
            return berger[player]
        return Fraction(wins[player])  # "wins"; direct_encounter is computed by groups

    keys: dict[int, list[Fraction]] = {p: [points[p]] for p in players}
    for name in tiebreaks:
        if name == "direct_encounter":
            groups: dict[tuple[Fraction, ...], list[int]] = {}
            for player in players:
                groups.setdefault(tuple(keys[player]), []).append(player)
            for group in groups.values():
                encounter = _direct_encounter(group, results)
                for player in group:
                    keys[player].append(encounter[player])
        else:
            for player in players:
                keys[player].append(value(name, player))
    rows = [
        _Row(p, points[p], sum(contributions[p], Fraction(0)), tuple(keys[p][1:])) for p in players
    ]
    return sorted(rows, key=lambda row: (tuple(-v for v in row.key), row.player))


def _direct_encounter(group: list[int], results: Sequence[GameResult]) -> dict[int, Fraction]:
    """Each member's points in the games among ``group``, when every two of them met; else 0."""
    zero = dict.fromkeys(group, Fraction(0))
    if len(group) < 2:
        return zero
    members = set(group)
    met: set[frozenset[int]] = set()
    scored = dict(zero)
    for result in results:
        at_table = [p for p in result.players if p in members]
        if len(at_table) < 2:
            continue
        met.update(frozenset((a, b)) for a in at_table for b in at_table if a < b)
        gained = game_points(result)
        for player in at_table:
            scored[player] += gained[player]
    pairs = len(group) * (len(group) - 1) // 2
    return scored if len(met) == pairs else zero


def standings(
    names: Sequence[str],
    results: Sequence[GameResult],
    byes: Iterable[int],
    *,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    decisions: Sequence[Decision] = (),
) -> list[Standing]:
    """The table of standings after ``results`` and ``byes``, best first (module docstring).

    ``names`` are the listed players' names, by number; a player entered by a director
    (``Enter`` among ``decisions``) past the end of ``names`` takes the name it was entered
    with. Corrections among ``decisions`` apply to the results whose round and table they
    name. Withdrawn players stay in the standings with what they scored."""
    everyone = list(names)
    for decision in sorted(decisions, key=lambda d: d.seq):
        if isinstance(decision, Enter) and decision.player == len(everyone):
            everyone.append(decision.name)
    games = corrected(results, decisions)
    rows = _rows(list(range(len(everyone))), games, list(byes), tuple(tiebreaks))
    shown = places([row.key for row in rows])
    return [
        Standing(row.player, everyone[row.player], row.points, row.buchholz, place, row.tiebreaks)
        for row, place in zip(rows, shown, strict=True)
    ]


def places(keys: Sequence[tuple[Fraction, ...]]) -> list[str]:
    """The place of each of ``keys`` (given best first): equal neighbours share one."""
    shown: list[str] = []
    start = 0
    for index in range(len(keys) + 1):
        if index == len(keys) or keys[index] != keys[start]:
            span = index - start
            if span:
                shown += [str(start + 1) if span == 1 else f"{start + 1}-{index}"] * span
            start = index
    return shown


def as_json_number(value: Fraction) -> str:
    """A fraction as the API writes it: an integer, or ``"a/b"`` in lowest terms."""
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def tiebreak_values(standing: Standing, tiebreaks: Sequence[str]) -> Mapping[str, Fraction]:
    """A standing's tie-breaks by name (``tiebreaks``: the ones it was made with)."""
    return dict(zip(tiebreaks, standing.tiebreaks, strict=True))
