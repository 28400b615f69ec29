"""A director's decisions: withdrawing, entering late, correcting a result; their JSON, their
refusals, and what they do to the next round, the standings and the audit."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction as F
from typing import Any

import pytest

from domain.tournament.audit import decision_problems, pairing_problems, standing_problems
from domain.tournament.decisions import (
    Correct,
    Decision,
    DecisionError,
    Enter,
    Withdraw,
    active_players,
    parse_decision,
    parse_request,
)
from domain.tournament.plan import Plan, PlayedRound, check_decision
from domain.tournament.rounds import Round, Table, berger_round_robin
from domain.tournament.standings import Standing, standings

NAMES = [f"p{n}" for n in range(8)]
#: A game's id (16 lowercase hex digits), as a correction names it.
ID = "9f0c1d2e3a4b5c6d"


def play(
    plan: Plan, decisions: list[Decision], seed: int, rounds: int | None = None
) -> list[PlayedRound]:
    """The tournament round by round with random winners, ``decisions`` applying as made."""
    rng = random.Random(seed)
    played: list[PlayedRound] = []
    for _ in range(plan.rounds if rounds is None else rounds):
        current = plan.next_round(played, decisions)
        won = tuple((rng.randrange(len(t.players)),) for t in current.tables)
        played.append(PlayedRound(current, won))
    return played


def seated(round_: Round) -> set[int]:
    return {p for t in round_.tables for p in t.players}


def test_a_withdrawn_player_is_not_paired_from_the_next_round_on() -> None:
    plan = Plan.of("swiss", 8, 2, 5)
    gone = Withdraw(3, rounds_paired=2, seq=1, reason="ill")
    played = play(plan, [gone], 1)
    assert 3 in seated(played[0].round) and 3 in seated(played[1].round)
    for this in played[2:]:
        assert 3 not in seated(this.round) and 3 not in this.round.byes
        assert len(this.round.tables) == 3 and len(this.round.byes) == 1  # 7 active: one bye
    # The rounds made before the decision are what they were without it.
    assert play(plan, [], 1, rounds=2) == played[:2]
    assert pairing_problems(plan, played, [gone]) == []
    assert pairing_problems(plan, played) != []  # without the decision, round 3 is not right
    table = standings(NAMES, [r for n, p in enumerate(played, 1) for r in p.results(n)], [])
    assert 3 in {s.player for s in table}


def test_a_withdrawal_in_a_round_robin_gives_the_opponents_byes() -> None:
    plan = Plan.of("round_robin", 6, 2, None)
    gone = Withdraw(0, rounds_paired=2, seq=1, reason="left")
    schedule = berger_round_robin(6)
    for number in range(1, 6):
        made = plan.next_round(play(plan, [gone], 2, rounds=number - 1), [gone])
        if number <= 2:
            assert made == schedule[number - 1]
            continue
        [opponent] = [
            p for t in schedule[number - 1].tables if 0 in t.players for p in t.players if p != 0
        ]
        assert made.byes == (opponent,)
        assert list(made.tables) == [t for t in schedule[number - 1].tables if 0 not in t.players]


def test_a_late_entry_is_paired_from_the_next_round_and_scores_nothing_before() -> None:
    plan = Plan.of("swiss", 7, 2, 5, max_players=8)
    assert (plan.tables_per_round, plan.slots) == (4, 20)
    late = Enter(7, "Eve", None, rounds_paired=2, seq=1, reason="arrived late")
    played = play(plan, [late], 3)
    for this in played[:2]:
        assert 7 not in seated(this.round) and 7 not in this.round.byes
        assert len(this.round.tables) == 3 and len(this.round.byes) == 1
    for this in played[2:]:
        assert 7 in seated(this.round) and this.round.byes == ()
        assert len(this.round.tables) == 4
    results = [r for n, p in enumerate(played, 1) for r in p.results(n)]
    byes = [b for p in played for b in p.round.byes]
    table = standings(NAMES[:7], results, byes, decisions=[late])
    eve = next(s for s in table if s.player == 7)
    assert eve.name == "Eve" and eve.points == sum(
        1 for r in results if 7 in r.players and r.players[r.winners[0]] == 7
    )
    assert active_players(7, [late], 2) == list(range(7))
    assert active_players(7, [late], 3) == list(range(8))
    assert pairing_problems(plan, played, [late]) == []


def test_a_correction_changes_the_standings_and_the_pairings_made_after_it() -> None:
    plan = Plan.of("swiss", 8, 2, 4)
    played = play(plan, [], 4, rounds=1)
    first = played[0].round.tables[0]
    loser = 1 - played[0].winners[0][0]
    fix = Correct(1, 1, (loser,), game_id=ID, rounds_paired=1, seq=1, reason="wrong result entered")
    results = [r for n, p in enumerate(played, 1) for r in p.results(n)]
    before = {s.player: s.points for s in standings(NAMES, results, [])}
    after = {s.player: s.points for s in standings(NAMES, results, [], decisions=[fix])}
    assert after[first.players[loser]] == before[first.players[loser]] + 1
    assert after[first.players[1 - loser]] == before[first.players[1 - loser]] - 1
    assert plan.next_round(played, [fix]) != plan.next_round(played)
    # Made once round 2 was paired, it leaves round 2 alone.
    late_fix = Correct(1, 1, (loser,), game_id=ID, rounds_paired=2, seq=1, reason="found later")
    assert plan.next_round(played, [late_fix]) == plan.next_round(played)


def test_the_audit_checks_published_places_and_tiebreaks_only_when_published() -> None:
    plan = Plan.of("swiss", 8, 2, 3)
    played = play(plan, [], 5)
    results = [r for n, p in enumerate(played, 1) for r in p.results(n)]
    table = standings(NAMES, results, [])
    assert standing_problems(plan, NAMES, played, table) == []
    bare = [Standing(s.player, s.name, s.points, s.buchholz) for s in table]
    assert standing_problems(plan, NAMES, played, bare) == []  # a document without places
    wrong = [Standing(s.player, s.name, s.points, s.buchholz, "1", s.tiebreaks) for s in table]
    first = next(i for i, s in enumerate(table, start=1) if s.place != "1")
    assert standing_problems(plan, NAMES, played, wrong)[0].startswith(f"standing {first}:")
    last = table[-1]
    changed = Standing(last.player, last.name, last.points, last.buchholz, last.place, (F(9),))
    forged = [*table[:-1], changed]
    assert standing_problems(plan, NAMES, played, forged)[0].startswith("standing 8:")


# ----- the JSON ------------------------------------------------------------------------------

DECISIONS: list[Decision] = [
    Withdraw(3, rounds_paired=2, seq=1, at="2026-11-27T12:00:00Z", reason="ill"),
    Enter(8, "Eve", "greedy", rounds_paired=1, seq=2, at="2026-11-27T12:01:00Z", reason="late"),
    Enter(9, "Flo", None, rounds_paired=1, seq=3, at="2026-11-27T12:02:00Z", reason="late"),
    Correct(
        2,
        1,
        (0, 1),
        game_id=ID,
        rounds_paired=2,
        seq=4,
        at="2026-11-27T12:03:00Z",
        reason="a draw",
    ),
]
#: The games paired so far, by id: (round, table).
GAMES = {ID: (2, 1), "0123456789abcdef": (1, 2)}


@pytest.mark.parametrize("decision", DECISIONS)
def test_a_decision_reads_back_from_its_json(decision: Decision) -> None:
    assert parse_decision(decision.to_json()) == decision


def test_the_json_of_each_kind() -> None:
    assert DECISIONS[0].to_json() == {
        "decision": "withdraw",
        "player": 3,
        "rounds_paired": 2,
        "seq": 1,
        "at": "2026-11-27T12:00:00Z",
        "reason": "ill",
    }
    assert DECISIONS[3].to_json() == {
        "decision": "correct",
        "game_id": ID,
        "round": 2,
        "table": 1,
        "winners": [0, 1],
        "rounds_paired": 2,
        "seq": 4,
        "at": "2026-11-27T12:03:00Z",
        "reason": "a draw",
    }


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda d: d.pop("game_id"), "missing_field"),
        (lambda d: d.pop("round"), "missing_field"),
        (lambda d: d.update(game_id="9F0C1D2E3A4B5C6D"), "invalid_field"),
        (lambda d: d.update(game_id="9f0c"), "invalid_field"),
        (lambda d: d.update(game_id=12), "invalid_field"),
        (lambda d: d.update(table=0), "invalid_field"),
    ],
)
def test_a_recorded_correction_needs_its_game_id_round_and_table(
    change: Callable[[dict[str, Any]], object], code: str
) -> None:
    recorded = dict(DECISIONS[3].to_json())
    change(recorded)
    with pytest.raises(DecisionError) as refused:
        parse_decision(recorded)
    assert refused.value.code == code


def test_a_directors_request_is_stamped() -> None:
    stamps: dict[str, Any] = {"rounds_paired": 2, "seq": 5, "at": "2026-11-27T13:00:00Z"}
    entered = parse_request(
        {"decision": "enter", "name": "Gil", "reason": "late"},
        next_player=10,
        games=GAMES,
        **stamps,
    )
    assert entered == Enter(10, "Gil", None, reason="late", **stamps)


def test_a_directors_correction_names_the_game_by_id_and_is_located() -> None:
    stamps: dict[str, Any] = {"rounds_paired": 2, "seq": 5, "at": "2026-11-27T13:00:00Z"}
    request = {"decision": "correct", "game_id": "0123456789abcdef", "winners": [1, 0]}
    fixed = parse_request({**request, "reason": "x"}, next_player=10, games=GAMES, **stamps)
    assert fixed == Correct(1, 2, (0, 1), game_id="0123456789abcdef", reason="x", **stamps)
    # Recorded, it reads back with where the game was played.
    assert parse_decision(fixed.to_json()) == fixed
    assert fixed.to_json()["round"] == 1 and fixed.to_json()["table"] == 2


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"game_id": "fedcba9876543210"}, "no_such_game"),  # not paired in this tournament
        ({"game_id": "0123456789ABCDEF"}, "invalid_field"),  # not lowercase
        ({"game_id": "0123456789abcde"}, "invalid_field"),  # 15 digits
        ({"game_id": "0123456789abcdefa"}, "invalid_field"),  # 17
        ({"game_id": None}, "invalid_field"),
        ({"game_id": "0123456789abcdef", "round": 1}, "unexpected_field"),
        ({"game_id": "0123456789abcdef", "table": 2}, "unexpected_field"),
        ({"winners": [0]}, "missing_field"),  # no game_id
    ],
)
def test_a_directors_correction_is_refused_with_a_stable_code(
    body: dict[str, Any], code: str
) -> None:
    request = {"decision": "correct", "winners": [0], "reason": "x", **body}
    with pytest.raises(DecisionError) as refused:
        parse_request(request, rounds_paired=2, seq=1, at="", next_player=8, games=GAMES)
    assert refused.value.code == code


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ([], "invalid_field"),
        ({"decision": "expel", "player": 1, "reason": "x"}, "unknown_decision"),
        ({"decision": "withdraw", "player": 1}, "missing_field"),
        ({"decision": "withdraw", "player": 1, "reason": "x", "seq": 3}, "unexpected_field"),
        ({"decision": "withdraw", "player": -1, "reason": "x"}, "invalid_field"),
        ({"decision": "withdraw", "player": True, "reason": "x"}, "invalid_field"),
        ({"decision": "withdraw", "player": 1, "reason": "  "}, "invalid_field"),
        ({"decision": "withdraw", "player": 1, "reason": "x" * 501}, "invalid_field"),
        ({"decision": "enter", "name": "", "reason": "x"}, "invalid_field"),
        ({"decision": "enter", "name": "A", "bot": 3, "reason": "x"}, "invalid_field"),
        ({"decision": "enter", "player": 9, "name": "A", "reason": "x"}, "unexpected_field"),
        (
            {"decision": "correct", "game_id": ID, "winners": [0, 0], "reason": "x"},
            "invalid_field",
        ),
        ({"decision": "correct", "game_id": ID, "winners": 0, "reason": "x"}, "invalid_field"),
        ({"decision": "correct", "game_id": ID, "winners": [-1], "reason": "x"}, "invalid_field"),
    ],
)
def test_a_malformed_request_is_refused_with_a_stable_code(body: object, code: str) -> None:
    with pytest.raises(DecisionError) as refused:
        parse_request(body, rounds_paired=1, seq=1, at="", next_player=8, games=GAMES)
    assert refused.value.code == code


def test_a_stored_decision_needs_its_stamps() -> None:
    with pytest.raises(DecisionError) as refused:
        parse_decision({"decision": "withdraw", "player": 1, "reason": "x"})
    assert refused.value.code == "missing_field"


# ----- the refusals against the tournament -------------------------------------------------------


def refusal(plan: Plan, rounds: int, before: list[Decision], decision: Decision) -> str | None:
    made = [p.round for p in play(plan, before, 6, rounds=rounds)]
    try:
        check_decision(plan, NAMES[: plan.players], made, before, decision)
    except DecisionError as error:
        return error.code
    return None


def test_entries_are_refused_in_a_round_robin_when_full_and_when_late() -> None:
    swiss = Plan.of("swiss", 6, 2, 5, max_players=7)
    robin = Plan.of("round_robin", 6, 2, None)
    enter = Enter(6, "Eve", rounds_paired=1, seq=1, reason="late")
    assert refusal(swiss, 1, [], enter) is None
    assert refusal(robin, 1, [], enter) == "not_swiss"
    second = Enter(7, "Flo", rounds_paired=1, seq=2, reason="late")
    assert refusal(swiss, 1, [enter], second) == "tournament_full"
    # 5 rounds: entries close once 3 are paired (more than half).
    assert refusal(swiss, 2, [], Enter(6, "Eve", rounds_paired=2, seq=1, reason="x")) is None
    assert refusal(swiss, 3, [], Enter(6, "Eve", rounds_paired=3, seq=1, reason="x")) == "too_late"
    assert refusal(swiss, 1, [], Enter(6, "p0", rounds_paired=1, seq=1, reason="x")) == "name_taken"
    assert (
        refusal(swiss, 1, [], Enter(9, "Eve", rounds_paired=1, seq=1, reason="x"))
        == "not_next_player"
    )


def test_withdrawals_and_corrections_are_checked() -> None:
    plan = Plan.of("swiss", 4, 2, 3)
    out = Withdraw(1, rounds_paired=1, seq=1, reason="x")
    assert refusal(plan, 1, [], out) is None
    assert refusal(plan, 1, [], Withdraw(4, rounds_paired=1, seq=1, reason="x")) == "unknown_player"
    again = Withdraw(1, rounds_paired=1, seq=2, reason="x")
    assert refusal(plan, 1, [out], again) == "already_withdrawn"
    other = Withdraw(2, rounds_paired=1, seq=2, reason="x")
    assert refusal(plan, 1, [out], other) is None  # 2 left: one table
    third = Withdraw(3, rounds_paired=1, seq=3, reason="x")
    assert refusal(plan, 1, [out, other], third) == "too_few_players"
    assert (
        refusal(plan, 1, [], Correct(2, 1, (0,), rounds_paired=1, seq=1, reason="x"))
        == "no_such_game"
    )
    assert (
        refusal(plan, 1, [], Correct(1, 3, (0,), rounds_paired=1, seq=1, reason="x"))
        == "no_such_game"
    )
    assert (
        refusal(plan, 1, [], Correct(1, 1, (2,), rounds_paired=1, seq=1, reason="x"))
        == "unknown_winner"
    )
    assert refusal(plan, 1, [], Correct(1, 1, (), rounds_paired=1, seq=1, reason="x")) is None
    assert (
        refusal(plan, 1, [], Correct(1, 1, (1,), rounds_paired=0, seq=1, reason="x"))
        == "out_of_order"
    )
    assert (
        refusal(plan, 1, [out], Correct(1, 1, (1,), rounds_paired=1, seq=1, reason="x"))
        == "out_of_order"
    )


def test_without_decisions_nothing_changes() -> None:
    plan = Plan.of("swiss", 8, 2, 4)
    played = play(plan, [], 7)
    assert [plan.next_round(played[:n], ()) for n in range(4)] == [p.round for p in played]
    assert [plan.next_round(played[:n]) for n in range(4)] == [p.round for p in played]
    assert Round((Table((0, 1)),)) == Round((Table((0, 1)),), ())


def test_the_audit_names_a_decision_that_could_not_have_been_taken() -> None:
    plan = Plan.of("swiss", 6, 2, 5, max_players=7)
    made = [p.round for p in play(plan, [], 8, rounds=3)]
    fine: list[Decision] = [
        Withdraw(2, rounds_paired=1, seq=1, reason="x"),
        Enter(6, "Eve", rounds_paired=2, seq=2, reason="x"),
    ]
    assert decision_problems(plan, NAMES[:6], made, fine) == []
    late = [*fine[:1], Enter(6, "Eve", rounds_paired=3, seq=2, reason="x")]
    assert decision_problems(plan, NAMES[:6], made, late) == [
        "decision 2: too_late: 3 of 5 rounds are paired: entries close once more than half are"
    ]
    ahead = [Withdraw(2, rounds_paired=4, seq=1, reason="x")]
    assert decision_problems(plan, NAMES[:6], made, ahead)[0].startswith("decision 1: made with 4")
    robin = Plan.of("round_robin", 6, 2, None)
    with pytest.raises(DecisionError) as refused:
        robin.next_round([], [Enter(6, "Eve", rounds_paired=0, seq=1, reason="x")])
    assert refused.value.code == "not_swiss"
