"""The swiss's seat balance, look-ahead and round-1 ratings, and the plans refused at creation
(domain/tournament/rounds.py and plan.py say the rules)."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from domain.tournament.plan import Plan, PlanError, PlayedRound
from domain.tournament.rounds import Round, Table, seat_history, swiss_round


def winners(rng: random.Random) -> tuple[int, ...]:
    draw = rng.random()
    return (0,) if draw < 0.45 else (1,) if draw < 0.9 else (0, 1) if draw < 0.97 else ()


def play(plan: Plan, seed: int) -> list[PlayedRound]:
    rng = random.Random(seed)
    played: list[PlayedRound] = []
    for _ in range(plan.rounds):
        current = plan.next_round(played)
        played.append(PlayedRound(current, tuple(winners(rng) for _ in current.tables)))
    return played


def random_plans(count: int, seed: int) -> list[tuple[Plan, int]]:
    rng = random.Random(seed)
    plans = []
    for _ in range(count):
        players = rng.randint(4, 16)
        most = players - 1 + players % 2
        plans.append((Plan.of("swiss", players, 2, rng.randint(2, most)), rng.getrandbits(32)))
    return plans


def test_swiss_events_within_the_plan_never_repeat_a_table_and_keep_seats_balanced() -> None:
    """Seeded random swiss events at tables of 2, up to the most rounds a plan allows."""
    players_seen = games = unbalanced = third_in_a_row = 0
    for plan, seed in random_plans(120, 1):
        rounds = [p.round for p in play(plan, seed)]
        tables = [frozenset(t.players) for r in rounds for t in r.tables]
        assert len(tables) == len(set(tables)), (plan, seed)
        byes = [p for r in rounds for p in r.byes]
        assert len(byes) == len(set(byes))
        for r in rounds:
            seated = [p for t in r.tables for p in t.players] + list(r.byes)
            assert sorted(seated) == list(range(plan.players))
        for seats in seat_history(rounds).values():
            players_seen += 1
            games += len(seats)
            unbalanced += abs(seats.count(0) - seats.count(1)) > 2
            third_in_a_row += sum(
                seats[i - 2 : i + 1] in ([0, 0, 0], [1, 1, 1]) for i in range(2, len(seats))
            )
    # Only where no grouping of the same groups avoids it (the next test): rare.
    assert unbalanced <= players_seen // 100, (unbalanced, players_seen)
    assert third_in_a_row <= games // 50, (third_in_a_row, games)


def musts(seats: list[int]) -> tuple[bool, bool]:
    """(must sit first, must sit second), as domain/tournament/rounds.py step 3 says."""
    firsts, seconds = seats.count(0), seats.count(1)
    return (
        seats[-2:] == [1, 1] or seconds - firsts >= 2,
        seats[-2:] == [0, 0] or firsts - seconds >= 2,
    )


def conflicts(table: tuple[int, int], history: dict[int, list[int]]) -> int:
    def broken(first: int, second: int) -> int:
        return musts(history.get(first, []))[1] + musts(history.get(second, []))[0]

    a, b = table
    return min(broken(a, b), broken(b, a))


def groupings(players: list[int], seen: set[frozenset[int]]) -> list[list[tuple[int, int]]]:
    if not players:
        return [[]]
    head, rest = players[0], players[1:]
    return [
        [(head, other), *tail]
        for other in rest
        if frozenset((head, other)) not in seen
        for tail in groupings([p for p in rest if p != other], seen)
    ]


@pytest.mark.parametrize("seed", range(40))
def test_a_seat_conflict_is_left_only_when_every_grouping_of_the_same_groups_has_one(
    seed: int,
) -> None:
    """Brute force over every grouping that pairs the same points and repeats no table."""
    rng = random.Random(seed)
    players = rng.choice([6, 8, 10])
    history = {p: [rng.randrange(2) for _ in range(rng.randint(2, 4))] for p in range(players)}
    points = {p: Fraction(rng.randrange(3)) for p in range(players)}
    seen = {frozenset(rng.sample(range(players), 2)) for _ in range(rng.randrange(6))}
    chosen = swiss_round(players, 2, points, seen, [], seats=history)
    assert swiss_round(players, 2, points, seen, [], seats=history) == chosen  # deterministic
    pairs = [(t.players[0], t.players[1]) for t in chosen.tables]
    if not groupings(list(range(players)), seen):
        return  # every grouping repeats a table: rank order, nothing to balance
    assert not any(frozenset(p) in seen for p in pairs)

    def profile(grouping: list[tuple[int, int]]) -> Counter[tuple[Fraction, ...]]:
        return Counter(tuple(sorted((points[a], points[b]))) for a, b in grouping)

    same = [g for g in groupings(list(range(players)), seen) if profile(g) == profile(pairs)]
    fewest = min(sum(conflicts(t, history) for t in g) for g in same)
    assert sum(conflicts((a, b), history) for a, b in pairs) == fewest
    for a, b in pairs:  # the seat order breaks the fewest musts
        assert conflicts((a, b), history) == (musts(history[a])[1] + musts(history[b])[0])


def test_seats_go_to_whoever_had_fewer_first_seats_then_the_ranking() -> None:
    points = {p: Fraction(0) for p in range(4)}
    # 1 has sat first once, 0 never: 0 sits first; 2 and 3 equal: the better ranked (2).
    history = {0: [1], 1: [0], 2: [0], 3: [0]}
    chosen = swiss_round(4, 2, points, [], [], seats=history)
    assert chosen == Round((Table((0, 1)), Table((2, 3))))
    # 0 sat first twice running: they must sit second.
    chosen = swiss_round(4, 2, points, [], [], seats={0: [0, 0], 1: [1, 0]})
    assert chosen.tables[0] == Table((1, 0))


def test_round_one_is_seeded_by_rating_when_given() -> None:
    plain = Plan.of("swiss", 6, 2, 3)
    assert plain.next_round([]) == Round((Table((0, 1)), Table((2, 3)), Table((4, 5))))
    rated = Plan.of("swiss", 6, 2, 3, ratings=[1500, 1800, 1600, 1800, 1200, 1700])
    # 1 and 3 (1800, by number), 5 (1700), 2 (1600), 0 (1500), 4 (1200).
    assert rated.next_round([]) == Round((Table((1, 3)), Table((5, 2)), Table((0, 4))))
    odd = Plan.of("swiss", 5, 2, 3, ratings=[1000, 2000, 1500, 1200, 1900])
    assert odd.next_round([]) == Round((Table((1, 4)), Table((2, 3))), (0,))  # the lowest rated
    # From round 2 on, the standings rank (not the ratings).
    played = play(rated, 3)
    assert rated.next_round(played[:1]) == plain.next_round(
        [PlayedRound(played[0].round, played[0].winners)]
    )


def test_the_slots_are_numbered_as_before_unless_late_entries_are_allowed() -> None:
    assert (Plan.of("swiss", 10, 3, 4).tables_per_round, Plan.of("swiss", 10, 3, 4).slots) == (
        3,
        12,
    )
    assert Plan.of("swiss", 10, 3, 4).max_players == 10
    grown = Plan.of("swiss", 10, 3, 4, max_players=13)
    assert (grown.tables_per_round, grown.slots, grown.slot(2, 4)) == (4, 16, 7)
    assert Plan.of("round_robin", 7, 2, None).slots == 21


@pytest.mark.parametrize(
    ("players", "table_size", "most"),
    [(6, 2, 5), (7, 2, 7), (2, 2, 1), (3, 3, 1), (4, 4, 1), (4, 3, 4), (6, 3, 10), (8, 4, 35)],
)
def test_a_swiss_with_more_rounds_than_its_field_allows_is_refused(
    players: int, table_size: int, most: int
) -> None:
    assert most == math.comb(players, table_size) // (players // table_size)
    assert Plan.of("swiss", players, table_size, most).rounds == most
    words = "nobody may have two" if most * (players % table_size) >= players else "at most"
    with pytest.raises(PlanError, match=words):
        Plan.of("swiss", players, table_size, most + 1)
    # A plan read back from before the refusal (a stored tournament, an old export).
    if words == "at most":
        assert (
            Plan.of("swiss", players, table_size, most + 1, allow_repeats=True).rounds == most + 1
        )


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"max_players": 5}, "max_players"),
        ({"max_players": 100}, "max_players"),
        ({"ratings": [1, 2, 3]}, "ratings"),
        ({"ratings": [1, 2, 3, 4, 5, 6.5]}, "ratings"),
        ({"ratings": [True, 2, 3, 4, 5, 6]}, "ratings"),
        ({"tiebreaks": ["wins", "elo"]}, "elo"),
        ({"tiebreaks": ["wins", "wins"]}, "once"),
    ],
)
def test_a_plans_new_options_are_checked(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(PlanError, match=words):
        Plan.of("swiss", 6, 2, 3, **kwargs)  # type: ignore[arg-type]


def test_a_round_robin_takes_no_late_entries_nor_ratings() -> None:
    with pytest.raises(PlanError, match="late entries"):
        Plan.of("round_robin", 6, 2, None, max_players=8)
    with pytest.raises(PlanError, match="ratings"):
        Plan.of("round_robin", 6, 2, None, ratings=[1] * 6)
    assert Plan.of("round_robin", 6, 2, None, max_players=6).rounds == 5


def test_the_look_ahead_keeps_a_full_length_swiss_free_of_repeats() -> None:
    """Six players, five rounds (every pair once): a greedy choice can leave round 4 or 5 no
    grouping without a repeat; the look-ahead never does."""
    for seed in range(30):
        rounds = [p.round for p in play(Plan.of("swiss", 6, 2, 5), seed)]
        met = Counter(frozenset(t.players) for r in rounds for t in r.tables)
        assert set(met) == {frozenset(p) for p in itertools.combinations(range(6), 2)}
