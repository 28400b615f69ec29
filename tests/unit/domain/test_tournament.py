"""Tournament pairings, standings and commitments: the pure functions an auditor reruns."""

from __future__ import annotations

import hashlib
import itertools
import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import pytest

from domain.tournament import (
    GameResult,
    Round,
    Table,
    game_points,
    round_robin,
    standings,
    swiss_round,
    tournament_commitment,
)
from domain.tournament.audit import pairing_problems, standing_problems
from domain.tournament.plan import MAX_GAMES, Plan, PlanError, PlayedRound
from domain.tournament.rounds import berger_round_robin, seat_history
from domain.tournament.standings import as_json_number, points_of


def test_the_commitment_is_the_hash_of_the_slot_commitments_in_order() -> None:
    slots = [hashlib.sha256(bytes([n]) * 32).hexdigest() for n in range(3)]
    expected = hashlib.sha256("".join(slots).encode("ascii")).hexdigest()
    assert tournament_commitment(slots) == expected
    assert tournament_commitment(list(reversed(slots))) != expected


@pytest.mark.parametrize("schedule", [round_robin, berger_round_robin])
@pytest.mark.parametrize("players", range(2, 13))
def test_a_round_robin_meets_every_pair_once_with_first_seats_balanced(
    schedule: Callable[[int], list[Round]], players: int
) -> None:
    rounds = schedule(players)
    assert len(rounds) == players - 1 + players % 2
    met = Counter(frozenset(t.players) for r in rounds for t in r.tables)
    assert set(met) == {frozenset(p) for p in itertools.combinations(range(players), 2)}
    assert set(met.values()) == {1}
    for r in rounds:
        seated = [p for t in r.tables for p in t.players] + list(r.byes)
        assert sorted(seated) == list(range(players))  # everyone once a round
    byes = Counter(p for r in rounds for p in r.byes)
    assert byes == (Counter(range(players)) if players % 2 else Counter())
    firsts = Counter(t.players[0] for r in rounds for t in r.tables)
    seconds = Counter(t.players[1] for r in rounds for t in r.tables)
    assert all(abs(firsts[p] - seconds[p]) <= 1 for p in range(players)), (firsts, seconds)


def test_the_first_swiss_round_follows_the_players_order() -> None:
    assert swiss_round(6, 2, {}, [], []) == Round((Table((0, 1)), Table((2, 3)), Table((4, 5))), ())
    first = swiss_round(7, 3, {}, [], [])
    assert first == Round((Table((0, 1, 2)), Table((3, 4, 5))), (6,))


def play_swiss(players: int, size: int, rounds: int, seed: int) -> list[Round]:
    """A swiss tournament with random winners, round after round."""
    rng = random.Random(seed)
    results: list[GameResult] = []
    played: list[Round] = []
    for _ in range(rounds):
        points = points_of(players, results, [p for r in played for p in r.byes])
        tables = [frozenset(t.players) for r in played for t in r.tables]
        byes = [p for r in played for p in r.byes]
        current = swiss_round(players, size, points, tables, byes)
        played.append(current)
        for table in current.tables:
            results.append(GameResult(table.players, (rng.randrange(len(table.players)),)))
    return played


@pytest.mark.parametrize(("players", "size"), [(64, 2), (63, 2), (30, 3), (32, 4), (9, 2)])
def test_a_swiss_never_repeats_a_table_and_gives_each_bye_once(players: int, size: int) -> None:
    for seed in range(3):
        rounds = play_swiss(players, size, 6, seed)
        tables = [frozenset(t.players) for r in rounds for t in r.tables]
        assert len(tables) == len(set(tables)), "a table repeated"
        byes = [p for r in rounds for p in r.byes]
        assert len(byes) == len(set(byes)) == 6 * (players % size)
        for r in rounds:
            assert all(len(t.players) == size for t in r.tables)
            seated = [p for t in r.tables for p in t.players] + list(r.byes)
            assert sorted(seated) == list(range(players))


def test_a_swiss_repeats_a_table_only_when_every_grouping_would() -> None:
    """Four players, tables of two: three rounds hold every distinct pairing; the fourth
    must repeat one, and then takes the tables in rank order."""
    rounds = play_swiss(4, 2, 3, 0)
    assert len({frozenset(t.players) for r in rounds for t in r.tables}) == 6
    *earlier, fourth = play_swiss(4, 2, 4, 0)
    met = {frozenset(t.players) for r in earlier for t in r.tables}
    assert any(frozenset(t.players) in met for t in fourth.tables)
    seated = [p for t in fourth.tables for p in t.players]
    assert sorted(seated) == [0, 1, 2, 3]


@pytest.mark.parametrize("seed", range(20))
def test_a_swiss_round_avoids_repeats_whenever_a_brute_force_can(seed: int) -> None:
    rng = random.Random(seed)
    players = 6
    past = {frozenset(rng.sample(range(players), 2)) for _ in range(rng.randrange(2, 9))}
    points = {p: Fraction(rng.randrange(4)) for p in range(players)}
    chosen = swiss_round(players, 2, points, past, [])
    possible = any(
        all(frozenset(pair) not in past for pair in grouping)
        for grouping in _groupings(list(range(players)))
    )
    repeated = any(frozenset(t.players) in past for t in chosen.tables)
    assert repeated == (not possible)
    assert swiss_round(players, 2, points, past, []) == chosen  # deterministic


def _groupings(players: list[int]) -> list[list[tuple[int, int]]]:
    if not players:
        return [[]]
    head, rest = players[0], players[1:]
    return [
        [(head, other), *tail]
        for other in rest
        for tail in _groupings([p for p in rest if p != other])
    ]


def test_points_buchholz_and_the_order_of_the_standings() -> None:
    names = ["Ada", "Bo", "Cy", "Di"]
    results = [
        GameResult((0, 1), (0,)),  # Ada beats Bo
        GameResult((2, 3), (0, 1)),  # Cy and Di share a win
        GameResult((0, 2), ()),  # nobody wins
    ]
    assert game_points(GameResult((0, 1, 2), (0, 1, 2))) == {p: Fraction(1, 3) for p in range(3)}
    table = standings(names, results, byes=[1])
    assert [(s.name, s.points, s.buchholz) for s in table] == [
        ("Ada", Fraction(1), Fraction(1) + Fraction(1, 2)),  # met Bo (1) and Cy (1/2)
        # met Ada (1); the bye is a virtual opponent with Bo's own final points (1)
        ("Bo", Fraction(1), Fraction(2)),
        ("Cy", Fraction(1, 2), Fraction(1, 2) + Fraction(1)),
        ("Di", Fraction(1, 2), Fraction(1, 2)),
    ]
    assert as_json_number(Fraction(3, 2)) == "3/2" and as_json_number(Fraction(2)) == "2"


def played(rounds: list[Round], seed: int) -> list[PlayedRound]:
    rng = random.Random(seed)
    return [
        PlayedRound(r, tuple((rng.randrange(len(t.players)),) for t in r.tables)) for r in rounds
    ]


def play_swiss_audited(players: int, size: int, rounds: int, seed: int) -> list[PlayedRound]:
    """A swiss played round by round through its plan, each round's winners drawn as it is
    played."""
    rng = random.Random(seed)
    plan = Plan.of("swiss", players, size, rounds)
    history: list[PlayedRound] = []
    for _ in range(rounds):
        current = plan.next_round(history)
        won = tuple((rng.randrange(len(t.players)),) for t in current.tables)
        history.append(PlayedRound(current, won))
    return history


def test_an_honest_tournament_passes_its_audit() -> None:
    names = [f"p{n:02}" for n in range(9)]
    robin = played(berger_round_robin(9), 1)
    assert pairing_problems(Plan.of("round_robin", 9, 2, None), robin) == []
    swiss = play_swiss_audited(9, 2, 4, 2)
    plan = Plan.of("swiss", 9, 2, 4)
    assert pairing_problems(plan, swiss) == []
    results = [r for p in swiss for r in p.results()]
    table = standings(names, results, [b for p in swiss for b in p.round.byes])
    assert standing_problems(plan, names, swiss, table) == []


def test_a_tampered_pairing_or_standing_fails_the_audit_where_it_is() -> None:
    names = [f"p{n:02}" for n in range(8)]
    swiss = play_swiss_audited(8, 2, 3, 3)
    second = swiss[1].round
    swapped = Round(
        (
            Table((second.tables[0].players[0], second.tables[1].players[0])),
            Table((second.tables[0].players[1], second.tables[1].players[1])),
            *second.tables[2:],
        ),
        second.byes,
    )
    tampered = [swiss[0], PlayedRound(swapped, swiss[1].winners), swiss[2]]
    problems = pairing_problems(Plan.of("swiss", 8, 2, 3), tampered)
    assert problems and problems[0].startswith("round 2:")
    results = [r for p in swiss for r in p.results()]
    table = standings(names, results, [])
    forged = [table[1], table[0], *table[2:]]
    found = standing_problems(Plan.of("swiss", 8, 2, 3), names, swiss, forged)
    assert found and found[0].startswith("standing 1:")


def test_a_plan_counts_its_slots_round_major() -> None:
    plan = Plan.of("swiss", 10, 3, 4)
    assert (plan.tables_per_round, plan.slots) == (3, 12)
    assert [plan.slot(1, 1), plan.slot(1, 3), plan.slot(2, 1), plan.slot(4, 3)] == [0, 2, 3, 11]
    robin = Plan.of("round_robin", 7, 2, None)
    assert (robin.rounds, robin.tables_per_round, robin.slots) == (7, 3, 21)
    with pytest.raises(IndexError):
        plan.slot(5, 1)


@pytest.mark.parametrize(
    ("format", "players", "table_size", "rounds", "words"),
    [
        ("knockout", 8, 2, 3, "format"),
        ("swiss", 1, 2, 3, "players"),
        ("swiss", 100, 2, 3, "players"),
        ("swiss", 8, 5, 3, "table_size"),
        ("swiss", 3, 4, 1, "table_size"),
        ("round_robin", 8, 3, None, "tables of 2"),
        ("round_robin", 8, 2, 3, "has 7 rounds"),
        ("swiss", 8, 2, None, "1 or more"),
        ("swiss", 8, 2, 0, "1 or more"),
        ("swiss", 10, 4, 6, "nobody may have two"),
        ("round_robin", 66, 2, None, str(MAX_GAMES)),
    ],
)
def test_an_impossible_plan_says_why(
    format: str, players: int, table_size: int, rounds: int | None, words: str
) -> None:
    with pytest.raises(PlanError, match=words):
        Plan.of(format, players, table_size, rounds)


def test_the_plan_makes_the_same_rounds_as_the_pairing_functions() -> None:
    """The plan's swiss is ``swiss_round`` handed the standings' order (points, then the
    tie-breaks; round 1 by number) and every earlier seat."""
    robin = Plan.of("round_robin", 6, 2, None)
    berger = berger_round_robin(6)
    assert [robin.next_round(played(berger[:n], 4)) for n in range(5)] == berger
    for players, size, seed in [(11, 3, 5), (10, 2, 6), (9, 2, 7)]:
        plan = Plan.of("swiss", players, size, 4)
        swiss = play_swiss_audited(players, size, 4, seed)
        for n in range(4):
            results = [r for p in swiss[:n] for r in p.results()]
            byes = [b for p in swiss[:n] for b in p.round.byes]
            order = [s.player for s in standings([""] * players, results, byes)]
            expected = swiss_round(
                players,
                size,
                points_of(players, results, byes),
                [frozenset(t.players) for p in swiss[:n] for t in p.round.tables],
                byes,
                order=order,
                seats=seat_history(p.round for p in swiss[:n]),
            )
            assert plan.next_round(swiss[:n]) == expected == swiss[n].round
        with pytest.raises(IndexError):
            plan.next_round(swiss)


def test_a_round_robin_of_rules_version_2_is_fides_berger_table() -> None:
    """FIDE's Berger table for 6 (players 1 to 6 there, 0 to 5 here), and for every size up
    to 40: never three games running in one seat."""
    fide = [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]
    made = [[tuple(p + 1 for p in t.players) for t in r.tables] for r in berger_round_robin(6)]
    assert made == fide
    for players in range(2, 41):
        seats: dict[int, str] = {}
        for r in berger_round_robin(players):
            for table in r.tables:
                for seat, player in enumerate(table.players):
                    seats[player] = seats.get(player, "") + str(seat)
        assert not any("000" in s or "111" in s for s in seats.values()), (players, seats)
