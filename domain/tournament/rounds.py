"""Who meets whom: the round robin's fixed schedule, and each swiss round from the results.

Players are numbered ``0..n-1`` in the order the tournament listed them (players entered
later by a director take the next numbers). Both functions are deterministic, so anyone
holding the earlier results computes the same tables.

**Round robin** (tables of 2): the circle method. With an odd count a stand-in makes the count
even, and whoever meets it has a bye. Player ``n'-1`` (``n'`` the even count) stays put while
the others rotate one place a round; in each round table ``i`` pairs positions ``i`` and
``n'-1-i``. First seats are balanced: of players ``a < b``, ``a`` sits first exactly when
``a + b`` is odd, so over the tournament nobody sits first more than once more than second
(rules version 1; it can seat a player first many rounds running). From rules version 2 a
round robin follows FIDE's Berger tables instead (``berger_round_robin``): the same counts
of firsts and seconds to within one, and never three games running in one seat.

**Swiss** (tables of ``k``, 2 to 4), step by step, given the *ranking* of the players to pair
(best first; ``swiss_round`` ranks by points, ties by number, unless handed an ``order``, as
``Plan.next_round`` does, see ``domain.tournament.plan``):

1. **Byes.** ``n mod k`` players sit out with a bye (worth a point): the lowest ranked who
   never had one (when everyone had one, the lowest ranked again). At tables of 2, if no
   grouping of step 2 exists with that bye, the next player up without a bye is tried, and so
   on (once everyone has had one, every player from the bottom up): a player never has a
   second bye while someone has had none.
2. **Tables.** The rest are grouped in rank order: the best ranked player not yet seated takes
   the first ``k-1`` players below them, in rank order (their combinations in lexicographic
   order of rank), that make a table nobody has sat at before (the same set of players); when no
   such table lets every other player be seated the same way, the search backtracks to the next
   choice. At tables of 2 a table is also dropped, once counted as tried, when it leaves an
   unseated player who has met every other unseated player. The search tries at most
   ``SEARCH_LIMIT`` tables for each bye tried. At tables of 2, when rounds are still to come
   after this one (``rounds_left``), a grouping is taken only if it passes the *look-ahead*: the
   active players, none meeting a player they met before or in this grouping, can still play
   ``rounds_left`` more rounds of tables of 2 with no pair meeting twice, each such round's bye
   (odd count) going to a player who has had none (anyone, once all have had one). The
   look-ahead is a depth-first search in player numbers: future byes in increasing number, or
   without byes the lowest numbered player's opponent increasing from round to round; in a round
   the lowest numbered unpaired player takes the lowest numbered possible opponent first (with
   the same drop as above); a branch is cut when some player has fewer players left to meet than
   rounds to play (one fewer when they may still have a bye; this cut only when the count is
   even, or at least as many players have had no bye as rounds are to play). All the checks of a
   round share ``LOOKAHEAD_LIMIT`` tried tables; once they are spent every grouping passes. The
   first grouping (over the byes in their order) that passes is ``G0``; when none does, the
   first without a repeat, ignoring the look-ahead; only when no grouping at all avoids a
   repeated table are the tables simply taken in rank order (with the first bye), ``k`` at a
   time, and step 3 is skipped.
3. **Seat balance** (tables of 2, with the earlier seats known). A player *must sit first* when
   their last two games were both in the second seat, or their second seats already outnumber
   their first seats by 2 or more; *must sit second* likewise the other way round (their last
   two games in the first seat, or first seats ahead by 2 or more). A table's *conflicts* are
   the fewest of these musts that one of its two seat orders breaks. When ``G0`` has conflicts,
   other groupings *of the same groups* are searched: groupings without a repeated table whose
   tables pair the same points as ``G0``'s (the multiset of the tables' pairs of points is
   ``G0``'s: a player of 2 points may meet another player of 2 points, or whoever ``G0``'s
   tables of 2 points against 1 allow, and so on). The score values linked by ``G0``'s tables
   fall into independent parts (two values are in one part when a table of ``G0`` pairs them);
   each part is searched on its own, its players in rank order, exactly as in step 2 (the best
   ranked unseated player takes companions in rank order, backtracking), skipping any table
   whose pair of points is used up, and pruning a branch as soon as its conflicts (counted so
   far, plus the least the players left must still make: of ``r`` left, ``m`` who must sit first
   make at least ``m - r/2``, and the same for second) reach those of the best grouping found; a
   grouping found must also pass the look-ahead when ``G0`` had to (with the other parts as
   chosen so far, parts taken in the order of their best ranked players). The part keeps the
   first grouping found with the fewest conflicts (``G0``'s own, unless one with fewer turns
   up), stopping at once at none, or after ``SEAT_SEARCH_LIMIT`` tried tables.
4. **Seats.** At a table of 2 the seat order breaks the fewest musts; between orders equal on
   that, the player who has had fewer first seats sits first; between those, the better ranked.
   At tables of 3 or 4 seats follow the ranking. Without earlier seats (``swiss_round`` called
   without ``seats``) nobody must sit anywhere, all have had no first seat, so step 3 changes
   nothing and seats follow the ranking.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

#: Tables a swiss search may try before it settles for rank order (keeps a pathological
#: round bounded; deterministic, so every implementation stops at the same point).
SEARCH_LIMIT = 100_000
#: Tables the seat balance's search may try in one part before it keeps the best found so far.
SEAT_SEARCH_LIMIT = 20_000
#: Tables the look-ahead may try in one round, over all its checks, before it lets any pass.
LOOKAHEAD_LIMIT = 20_000


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


def berger_round_robin(players: int) -> list[Round]:
    """Every pair of ``players`` meets once, at tables of 2, by FIDE's Berger tables (rules
    version 2): nobody sits first more than once more than second, nor three games running
    in one seat.

    With ``n`` players numbered 1 to ``n`` (``n`` even: with an odd count a stand-in ``n``
    makes it even, and whoever meets it has a bye), round ``r``'s order of the others is
    ``s_r, s_r + 1, ...`` (counted round 1 to ``n - 1``), where ``s_1 = 1`` and each next
    round starts ``n / 2`` further on. The first of that order meets ``n``, first in odd
    rounds and second in even ones; then the second meets the last, the third the last but
    one, and so on, the earlier of each pair sitting first. Player ``k`` here is number
    ``k - 1`` of the tournament."""
    if players < 2:
        raise ValueError("a round robin needs at least two players")
    n = players + players % 2
    half = n // 2
    start = 0  # s_r - 1
    rounds: list[Round] = []
    for number in range(1, n):
        order = [(start + i) % (n - 1) for i in range(n - 1)]
        fixed = n - 1
        pairs = [(fixed, order[0]) if number % 2 == 0 else (order[0], fixed)]
        pairs += [(order[i], order[n - 1 - i]) for i in range(1, half)]
        tables = tuple(Table(pair) for pair in pairs if players not in pair)
        byes = tuple(sorted(a + b - players for a, b in pairs if players in (a, b)))
        rounds.append(Round(tables, byes))
        start = (start + half) % (n - 1)
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
    *,
    order: Sequence[int] | None = None,
    seats: Mapping[int, Sequence[int]] | None = None,
    rounds_left: int = 0,
) -> Round:
    """The next swiss round, given each player's points and every table and bye so far.

    ``order``: the players to pair, best first (default: all ``players`` by points, ties by
    number). ``seats``: each player's seat (0 first, 1 second, ...) in each of their earlier
    games, oldest first, for the seat balance at tables of 2 (default: none known).
    ``rounds_left``: how many rounds come after this one, for the look-ahead at tables of 2
    (default 0: none)."""
    ranking = rank(points, players) if order is None else list(order)
    if not 2 <= table_size <= 4 or len(ranking) < table_size:
        raise ValueError(
            f"a swiss round needs 2..4 seats a table and at least {table_size} players"
        )
    options = _bye_options(ranking, table_size, past_byes)
    seen = {frozenset(t) for t in past_tables}
    lookahead = None
    if table_size == 2 and rounds_left > 0:
        lookahead = _Lookahead(ranking, seen, past_byes, rounds_left)
    chosen: tuple[tuple[int, ...], list[tuple[int, ...]]] | None = None
    accept: Callable[[list[tuple[int, ...]]], bool] | None = None
    for check in ([lookahead] if lookahead else []) + [None]:
        for byes in options:
            seated = [p for p in ranking if p not in byes]
            accept = None if check is None else functools.partial(check, byes=byes)
            grouping = _without_repeats(seated, table_size, seen, accept)
            if grouping is not None:
                chosen = byes, grouping
                break
        if chosen is not None:
            break
    history = _History(seats or {}, {p: i for i, p in enumerate(ranking)})
    if chosen is None:
        byes = options[0]
        seated = [p for p in ranking if p not in byes]
        grouping = [tuple(seated[i : i + table_size]) for i in range(0, len(seated), table_size)]
    else:
        byes, grouping = chosen
        seated = [p for p in ranking if p not in byes]
        if table_size == 2 and seats:
            grouping = _balanced(grouping, seated, seen, points, history, accept)
    tables = tuple(Table(history.seated(group)) for group in grouping)
    position = {p: i for i, p in enumerate(ranking)}
    return Round(tables, tuple(sorted(byes, key=position.__getitem__)))


def _bye_options(
    ranking: Sequence[int], table_size: int, past_byes: Collection[int]
) -> list[tuple[int, ...]]:
    """The byes to try, in order (step 1 of the module docstring)."""
    leftover = len(ranking) % table_size
    fresh = [p for p in reversed(ranking) if p not in past_byes]
    if leftover == 0:
        return [()]
    if table_size == 2:  # each player without a bye in turn, from the bottom
        return [(p,) for p in fresh] or [(p,) for p in reversed(ranking)]
    byes = fresh[:leftover]  # the lowest ranked without one, then the lowest ranked again
    byes += [p for p in reversed(ranking) if p not in byes][: leftover - len(byes)]
    return [tuple(byes)]


class _OutOfSteps(Exception):
    pass


class _Lookahead:
    """Whether a grouping of tables of 2 leaves the remaining rounds playable without a
    repeated table (step 2 of the module docstring): one budget of ``LOOKAHEAD_LIMIT`` tried
    tables for every check of the round; once it is spent every grouping passes."""

    def __init__(
        self,
        players: Sequence[int],
        seen: Collection[frozenset[int]],
        past_byes: Collection[int],
        rounds_left: int,
    ) -> None:
        self.players = sorted(players)
        self.everyone = frozenset(players)
        self.met = _opponents(seen)
        self.past_byes = set(past_byes)
        self.rounds_left = rounds_left
        self.steps = LOOKAHEAD_LIMIT

    def __call__(self, grouping: list[tuple[int, ...]], *, byes: tuple[int, ...]) -> bool:
        if self.steps <= 0:
            return True
        met = _with(self.met, grouping)
        try:
            return self._rounds(self.rounds_left, met, self.past_byes | set(byes), -1)
        except _OutOfSteps:
            return True

    def _rounds(self, left: int, met: _Met, had: set[int], floor: int) -> bool:
        """Whether ``left`` more rounds can be played: each round's bye (odd count) to a player
        who has had none, in increasing number from round to round (to anyone once all have
        had one); with no bye, the lowest numbered player's opponent increasing."""
        if left == 0:
            return True
        players = self.players
        odd = len(players) % 2 == 1
        fresh = [p for p in players if p not in had]
        if not odd or len(fresh) >= left:
            for p in players:
                need = left - 1 if odd and p not in had else left
                if len(self.everyone - met.get(p, _NONE)) - 1 < need:
                    return False
        if odd:
            candidates = [p for p in fresh if p > floor] if fresh else list(players)
            for bye in candidates:
                rest = [p for p in players if p != bye]
                for pairs in self._matchings(rest, met, -1):
                    after = _with(met, pairs)
                    if self._rounds(left - 1, after, had | {bye}, bye if fresh else -1):
                        return True
            return False
        for pairs in self._matchings(players, met, floor):
            if self._rounds(left - 1, _with(met, pairs), had, pairs[0][1]):
                return True
        return False

    def _matchings(
        self, players: list[int], met: _Met, floor: int
    ) -> Iterator[list[tuple[int, int]]]:
        """Every way to pair ``players`` with no pair in ``met`` (the first player's partner
        above ``floor``), the lowest numbered unpaired player taking partners in order."""
        if not players:
            yield []
            return
        head, rest = players[0], players[1:]
        for partner in rest:
            if partner <= floor:
                continue
            self.steps -= 1
            if self.steps < 0:
                raise _OutOfSteps
            if partner in met.get(head, _NONE):
                continue
            left = [p for p in rest if p != partner]
            if _stranded(left, met):
                continue
            for tail in self._matchings(left, met, -1):
                yield [(head, partner), *tail]


#: Who each player has met (tables of 2).
_Met = Mapping[int, frozenset[int]]
_NONE: frozenset[int] = frozenset()


def _opponents(tables: Iterable[Collection[int]]) -> dict[int, frozenset[int]]:
    """Who each player has sat with, from ``tables``."""
    met: dict[int, set[int]] = {}
    for table in tables:
        for p in table:
            met.setdefault(p, set()).update(q for q in table if q != p)
    return {p: frozenset(others) for p, others in met.items()}


def _with(met: _Met, tables: Iterable[Sequence[int]]) -> dict[int, frozenset[int]]:
    """``met`` and the players of ``tables`` meeting each other."""
    after = dict(met)
    for table in tables:
        for p in table:
            after[p] = after.get(p, _NONE) | {q for q in table if q != p}
    return after


def _stranded(players: Sequence[int], met: _Met) -> bool:
    """Whether one of ``players`` has met every other one (tables of 2: nobody to pair with)."""
    if len(players) < 2:
        return False
    left = frozenset(players)
    return any(len(left - met.get(p, _NONE)) == 1 for p in players)


def seat_history(rounds: Iterable[Round]) -> dict[int, list[int]]:
    """Each player's seat in each of their games of ``rounds``, in round order."""
    history: dict[int, list[int]] = {}
    for round_ in rounds:
        for table in round_.tables:
            for seat, player in enumerate(table.players):
                history.setdefault(player, []).append(seat)
    return history


class _History:
    """What the seat balance needs of each player: their musts, and their first seats."""

    def __init__(self, seats: Mapping[int, Sequence[int]], position: Mapping[int, int]) -> None:
        self.position = position
        self.firsts: dict[int, int] = {}
        self.must_first: set[int] = set()
        self.must_second: set[int] = set()
        for player, played in seats.items():
            # Tables of 2 only: seat 0 is first, any other seat second.
            firsts = sum(1 for seat in played if seat == 0)
            seconds = len(played) - firsts
            self.firsts[player] = firsts
            last_two = [seat == 0 for seat in played[-2:]]
            if last_two == [False, False] or seconds - firsts >= 2:
                self.must_first.add(player)
            if last_two == [True, True] or firsts - seconds >= 2:
                self.must_second.add(player)

    def broken(self, first: int, second: int) -> int:
        """How many musts the seat order (``first``, ``second``) breaks."""
        return (first in self.must_second) + (second in self.must_first)

    def conflicts(self, a: int, b: int) -> int:
        return min(self.broken(a, b), self.broken(b, a))

    def seated(self, group: tuple[int, ...]) -> tuple[int, ...]:
        """The group in seat order (step 4 of the module docstring)."""
        ranked = tuple(sorted(group, key=self.position.__getitem__))
        if len(ranked) != 2:
            return ranked
        a, b = ranked
        choice = min(
            ((a, b), (b, a)),
            key=lambda pair: (self.broken(*pair), self.firsts.get(pair[0], 0), pair != (a, b)),
        )
        return choice


def _without_repeats(
    seated: Sequence[int],
    size: int,
    seen: Collection[frozenset[int]],
    accept: Callable[[list[tuple[int, ...]]], bool] | None = None,
) -> list[tuple[int, ...]] | None:
    """Tables of ``size`` in rank order, none a table seen before (and, given ``accept``, the
    first such grouping it accepts); None if there is none."""
    budget = [SEARCH_LIMIT]
    met = _opponents(seen) if size == 2 else {}

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
            if size == 2 and _stranded(left, met):
                continue
            for tail in search(left):
                yield [table, *tail]

    found = search(list(seated))
    if accept is None:
        return next(found, None)
    return next((grouping for grouping in found if accept(grouping)), None)


def _balanced(
    first: list[tuple[int, ...]],
    seated: Sequence[int],
    seen: Collection[frozenset[int]],
    points: Mapping[int, Fraction],
    history: _History,
    accept: Callable[[list[tuple[int, ...]]], bool] | None = None,
) -> list[tuple[int, ...]]:
    """``first`` (G0), or a grouping of the same groups with fewer seat conflicts (step 3);
    with ``accept``, only a grouping it accepts replaces ``first``."""

    def score(p: int) -> Fraction:
        return points.get(p, Fraction(0))

    def pair_of(table: tuple[int, ...]) -> tuple[Fraction, Fraction]:
        low, high = sorted((score(table[0]), score(table[1])))
        return high, low

    if sum(history.conflicts(*table) for table in first) == 0:
        return first
    # The parts: score values linked by G0's tables (a union-find over the values).
    parent: dict[Fraction, Fraction] = {}

    def root(value: Fraction) -> Fraction:
        parent.setdefault(value, value)
        while parent[value] != value:
            value = parent[value]
        return value

    for table in first:
        high, low = (root(value) for value in pair_of(table))
        if high != low:
            parent[high] = low
    values = list(dict.fromkeys(root(score(p)) for p in seated))  # by their best ranked
    chosen = {value: [t for t in first if root(score(t[0])) == value] for value in values}
    for value in values:
        players = [p for p in seated if root(score(p)) == value]

        def accepts(candidate: list[tuple[int, ...]], value: Fraction = value) -> bool:
            if accept is None:
                return True
            others = [t for v, part in chosen.items() if v != value for t in part]
            return accept([*others, *candidate])

        chosen[value] = _search_part(players, chosen[value], seen, pair_of, history, accepts)
    tables = [t for part in chosen.values() for t in part]
    position = {p: i for i, p in enumerate(seated)}
    return sorted(tables, key=lambda t: min(position[p] for p in t))


def _search_part(
    players: list[int],
    first: list[tuple[int, ...]],
    seen: Collection[frozenset[int]],
    pair_of: Callable[[tuple[int, ...]], tuple[Fraction, Fraction]],
    history: _History,
    accepts: Callable[[list[tuple[int, ...]]], bool],
) -> list[tuple[int, ...]]:
    """The first grouping of ``players`` (in search order) with the fewest conflicts, among
    those without repeats whose pairs of points are ``first``'s (and that ``accepts``)."""
    best_conflicts = sum(history.conflicts(*table) for table in first)
    best: list[tuple[int, ...]] = first
    if best_conflicts == 0:
        return best
    profile = Counter(pair_of(table) for table in first)
    budget = [SEAT_SEARCH_LIMIT]
    met = _opponents(seen)
    chosen: list[tuple[int, ...]] = []

    def least(remaining: list[int]) -> int:
        half = len(remaining) // 2
        must_first = sum(1 for p in remaining if p in history.must_first)
        must_second = sum(1 for p in remaining if p in history.must_second)
        return max(0, must_first - half, must_second - half)

    def search(remaining: list[int], conflicts: int) -> bool:
        """Search on; True once a grouping without conflicts is found (stop)."""
        nonlocal best, best_conflicts
        if not remaining:
            if not accepts(list(chosen)):
                return False
            best, best_conflicts = list(chosen), conflicts
            return conflicts == 0
        head, rest = remaining[0], remaining[1:]
        for companion in rest:
            budget[0] -= 1
            if budget[0] < 0:
                return True
            table = (head, companion)
            if frozenset(table) in seen:
                continue
            pair = pair_of(table)
            if profile[pair] == 0:
                continue
            left = [p for p in rest if p != companion]
            if _stranded(left, met):
                continue
            cost = conflicts + history.conflicts(head, companion)
            if cost + least(left) >= best_conflicts:
                continue
            profile[pair] -= 1
            chosen.append(table)
            done = search(left, cost)
            chosen.pop()
            profile[pair] += 1
            if done:
                return True
        return False

    search(players, 0)
    return best
