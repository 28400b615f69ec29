"""Tournament rules versions: version 1 (``domain.tournament.v1``) makes exactly the pairings,
standings and plan refusals of the first tournaments (commit 1b50e23), so an export made then
verifies now; version 2 is every new plan's; decisions are version 2's only.

The digests below were computed by running the same seeded events through commit 1b50e23's
``domain/tournament`` (``git show 1b50e23:domain/tournament/plan.py`` and its siblings, the
package renamed) and frozen here: if version 1's code changes what a single event makes, a
digest changes.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from domain.tournament import v1
from domain.tournament.audit import pairing_problems, standing_problems
from domain.tournament.decisions import DecisionError, Withdraw
from domain.tournament.plan import RULES_VERSION, Plan, PlanError, PlayedRound, check_decision
from domain.tournament.rounds import Round, Table, round_robin
from domain.tournament.standings import GameResult, Standing, game_points

#: sha256 of ``events(400)`` played at commit 1b50e23 (the module docstring).
EVENTS_DIGEST = "a39b6b450714a563a7767f310d8a95afbf5c4895ff808da670a0c5b2d2cc6683"
#: sha256 of ``refusals()`` at commit 1b50e23: every plan it made, and every refusal's words.
REFUSALS_DIGEST = "7c83aca72821856b8e465ecd0bdb6cb59991b77330ba0f4d62656e12eec689a9"

Shape = tuple[str, int, int, int | None, int]


def shapes(count: int) -> list[Shape]:
    """Events of every kind version 1 allowed: swiss at tables of 2 to 4 (more rounds than a
    field allows without repeats included), round robins."""
    rng = random.Random("tournament rules version 1")
    out: list[Shape] = []
    for _ in range(count):
        kind = rng.choice(["swiss", "swiss", "swiss", "round_robin"])
        if kind == "round_robin":
            players = rng.randint(2, 14)
            out.append(("round_robin", players, 2, None, rng.getrandbits(32)))
            continue
        size = rng.choice([2, 2, 3, 4])
        players = rng.randint(size, 22)
        leftover = players % size
        most = players // leftover if leftover else 12
        rounds = rng.randint(1, min(12, most))
        out.append(("swiss", players, size, rounds, rng.getrandbits(32)))
    return out


def winners(rng: random.Random, seats: int) -> tuple[int, ...]:
    draw = rng.random()
    if draw < 0.85:
        return (rng.randrange(seats),)
    if draw < 0.95:
        return tuple(sorted(rng.sample(range(seats), 2)))
    return ()


def play(shape: Shape) -> list[dict[str, Any]]:
    """One event at version 1: each round's tables, byes and winners, and the standings after
    it (names drawn so that they disagree with the numbers' order)."""
    format_, players, size, rounds, seed = shape
    rng = random.Random(seed)
    letters = [chr(65 + i % 26) + chr(97 + (i * 7) % 26) for i in range(players)]
    names = rng.sample(letters, players)
    plan = Plan.of(format_, players, size, rounds, rules_version="1")
    played: list[PlayedRound] = []
    record = []
    for _ in range(plan.rounds):
        current = plan.next_round(played)
        won = tuple(winners(rng, len(t.players)) for t in current.tables)
        played.append(PlayedRound(current, won))
        results = [
            GameResult(t.players, w)
            for p in played
            for t, w in zip(p.round.tables, p.winners, strict=True)
        ]
        rows = plan.standings(names, results, [b for p in played for b in p.round.byes])
        record.append(
            {
                "tables": [list(t.players) for t in current.tables],
                "byes": list(current.byes),
                "winners": [list(w) for w in won],
                "standings": [[s.player, s.name, str(s.points), str(s.buchholz)] for s in rows],
            }
        )
    return record


def refusals(of: Callable[..., Plan]) -> tuple[str, int]:
    out: list[Any] = []
    for format_ in ("swiss", "round_robin", "knockout"):
        for players in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 16, 33, 64, 65, 66, 99, 100):
            for size in (1, 2, 3, 4, 5):
                for rounds in (None, -1, 0, 1, 2, 3, 4, 5, 7, 9, 12, 20, 40, 64, 65, 99, 300, 1000):
                    try:
                        plan = of(format_, players, size, rounds)
                        shown = [plan.format, plan.players, plan.table_size, plan.rounds]
                        out.append([*shown, plan.tables_per_round, plan.slots])
                    except PlanError as error:
                        out.append(str(error))
    return hashlib.sha256(json.dumps(out).encode()).hexdigest(), len(out)


def test_version_1_makes_every_pairing_and_standing_of_the_first_tournaments() -> None:
    digest = hashlib.sha256()
    for shape in shapes(400):
        digest.update(json.dumps(play(shape)).encode())
    assert digest.hexdigest() == EVENTS_DIGEST


def test_version_1_accepts_and_refuses_the_plans_the_first_tournaments_did() -> None:
    of = Plan.of
    assert refusals(lambda *a: of(*a, rules_version="1")) == (REFUSALS_DIGEST, 5130)


def test_version_1_by_hand_where_the_versions_differ() -> None:
    """Five players, tables of 2, four rounds, the same results asked of both versions: from
    round 2 on version 1 seats by the ranking and pairs by points then number; its standings
    count no Buchholz for a bye and let names break ties (Al before Eve)."""
    old, new = (Plan.of("swiss", 5, 2, 4, rules_version=v) for v in ("1", "2"))
    played: dict[str, list[PlayedRound]] = {"1": [], "2": []}
    for plan in (old, new):
        mine = played[plan.rules_version]
        for n in range(4):
            current = plan.next_round(mine)
            mine.append(PlayedRound(current, tuple(((n + i) % 2,) for i in range(2))))
    shown = [([t.players for t in p.round.tables], p.round.byes) for p in played["1"]]
    assert shown == [
        ([(0, 1), (2, 3)], (4,)),
        ([(0, 3), (4, 1)], (2,)),
        ([(3, 4), (0, 2)], (1,)),
        ([(3, 1), (2, 4)], (0,)),
    ]
    assert [p.round for p in played["2"]][1] == Round((Table((4, 0)), Table((3, 1))), (2,))
    names = ["Eve", "Dan", "Cy", "Bo", "Al"]
    results = [r for n, p in enumerate(played["1"], start=1) for r in p.results(n)]
    byes = [b for p in played["1"] for b in p.round.byes]
    assert old.standings(names, results, byes) == [
        Standing(3, "Bo", Fraction(3), Fraction(9)),
        Standing(2, "Cy", Fraction(3), Fraction(7)),
        Standing(4, "Al", Fraction(2), Fraction(8)),
        Standing(0, "Eve", Fraction(2), Fraction(8)),
        Standing(1, "Dan", Fraction(2), Fraction(7)),
    ]
    assert old.standings(names, results, byes) == v1.standings(names, results, byes)
    assert [s.place for s in new.standings(names, results, byes)] == ["1", "2", "3-4", "3-4", "5"]
    # The audit checks each with its own version: version 1's rounds fail version 2's rules.
    assert pairing_problems(old, played["1"]) == []
    assert pairing_problems(new, played["2"]) == []
    assert pairing_problems(new, played["1"])[0].startswith("round 2: tables (0,3) (4,1)")
    table = old.standings(names, results, byes)
    assert standing_problems(old, names, played["1"], table) == []
    assert standing_problems(new, names, played["1"], table) != []


def test_the_shared_parts_are_version_1s() -> None:
    """Version 1 shares the round robin and the points of a game with version 2: both are
    pinned here as version 1 made them."""
    schedules = json.dumps(
        [
            [[[list(t.players) for t in r.tables], list(r.byes)] for r in round_robin(n)]
            for n in range(2, 17)
        ]
    )
    assert hashlib.sha256(schedules.encode()).hexdigest() == (
        "e2d5346274b9fe3a1220ba9bd337aa186737a68c0d6a7383ef7b94448878042a"
    )
    assert game_points(GameResult((4, 1, 7), (0, 2))) == {
        4: Fraction(1, 2),
        1: Fraction(0),
        7: Fraction(1, 2),
    }
    assert game_points(GameResult((4, 1), ())) == {4: Fraction(0), 1: Fraction(0)}


def test_new_plans_are_version_2_and_an_unknown_version_is_refused() -> None:
    assert RULES_VERSION == "2"
    assert Plan.of("swiss", 6, 2, 3).rules_version == "2"
    assert Plan.of("swiss", 6, 2, 3).tiebreaks != ()
    assert Plan.of("swiss", 6, 2, 3, rules_version="1").tiebreaks == ()
    with pytest.raises(PlanError, match="unknown tournament rules version '3'"):
        Plan.of("swiss", 6, 2, 3, rules_version="3")


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"max_players": 8}, "max_players: rules version 1"),
        ({"ratings": [1] * 6}, "ratings: rules version 1"),
        ({"tiebreaks": ["buchholz"]}, "tiebreaks: rules version 1"),
    ],
)
def test_version_1_takes_none_of_version_2s_options(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(PlanError, match=words):
        Plan.of("swiss", 6, 2, 3, rules_version="1", **kwargs)
    assert Plan.of("swiss", 6, 2, 3, rules_version="1", max_players=6).max_players == 6


def test_version_1_has_no_refusal_of_rounds_that_must_repeat_tables() -> None:
    with pytest.raises(PlanError, match="at most 5 rounds"):
        Plan.of("swiss", 6, 2, 6)
    long = Plan.of("swiss", 6, 2, 6, rules_version="1")
    played: list[PlayedRound] = []
    for _ in range(6):
        current = long.next_round(played)
        played.append(PlayedRound(current, tuple((0,) for _ in current.tables)))
    tables = [frozenset(t.players) for p in played for t in p.round.tables]
    assert len(set(tables)) < len(tables)  # the sixth round repeats tables, as it did
    assert pairing_problems(long, played) == []


def test_version_1_takes_no_decision() -> None:
    plan = Plan.of("swiss", 6, 2, 3, rules_version="1")
    gone = Withdraw(2, rounds_paired=1, seq=1, at="2026-01-01T00:00:00Z", reason="Ill.")
    first = plan.next_round([])
    with pytest.raises(DecisionError) as refused:
        check_decision(plan, [f"p{n}" for n in range(6)], [first], [], gone)
    assert refused.value.code == "rules_version"
    played = [PlayedRound(first, ((0,),) * 3)]
    with pytest.raises(DecisionError):
        plan.next_round(played, [gone])
    with pytest.raises(DecisionError):
        plan.standings(["a"] * 6, played[0].results(1), [], [gone])
    second = plan.next_round(played)
    problems = pairing_problems(plan, [*played, PlayedRound(second, ((0,),) * 3)], [gone])
    assert problems == [
        "round 2: rules_version: a tournament of rules version 1 takes no withdraw, enter or "
        "correct decision"
    ]
