"""Recompute a tournament's pairings and standings from its results: what an audit checks.

Given the format, the players and what happened in each round (its tables and byes, and the
winners of each game), every round's tables must be the ones the format makes from the rounds
before, and the published standings the ones the results give. Each disagreement is reported
with where it is; an empty list means the tournament followed its rules.

Every check uses the rules of the plan's version (``Plan.rules_version``): a tournament is
always audited with the rules it was run with, so an export made under rules version 1 verifies
as it did when it was made.

A director's decisions (``domain.tournament.decisions``) are part of the rules: each round is
recomputed with the decisions made before it was paired, the standings with all of them.

A published standing is compared on what it states: its player, name, points and Buchholz
always; its ``place`` and ``tiebreaks`` when it has them (a standing read from a document that
does not publish them leaves them empty, and they are not checked).
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.tournament.decisions import Decision, DecisionError
from domain.tournament.plan import Plan, PlayedRound, check_decision
from domain.tournament.rounds import Round
from domain.tournament.standings import Standing


def pairing_problems(
    plan: Plan, played: Sequence[PlayedRound], decisions: Sequence[Decision] = ()
) -> list[str]:
    """Where the rounds' tables or byes differ from what the plan makes of the results (and
    of the decisions made before each round was paired)."""
    problems: list[str] = []
    for number, this in enumerate(played, start=1):
        if number > plan.rounds:
            problems.append(f"round {number}: the tournament has {plan.rounds} rounds")
            break
        try:
            expected = plan.next_round(played[: number - 1], decisions)
        except DecisionError as error:  # a decision the plan's rules do not take
            problems.append(f"round {number}: {error.code}: {error.message}")
            break
        if this.round != expected:
            problems.append(
                f"round {number}: tables {_show(this.round)} are not the format's {_show(expected)}"
            )
    return problems


def decision_problems(
    plan: Plan,
    names: Sequence[str],
    rounds: Sequence[Round],
    decisions: Sequence[Decision],
) -> list[str]:
    """Which decisions could not have been taken when they say they were: each is checked
    (``check_decision``) against the rounds paired by then and the decisions before it."""
    problems: list[str] = []
    for index, decision in enumerate(decisions):
        if decision.rounds_paired > len(rounds):
            problems.append(
                f"decision {decision.seq}: made with {decision.rounds_paired} rounds paired, "
                f"where {len(rounds)} are"
            )
            continue
        paired = rounds[: decision.rounds_paired]
        try:
            check_decision(plan, names, paired, decisions[:index], decision)
        except DecisionError as error:
            problems.append(f"decision {decision.seq}: {error.code}: {error.message}")
    return problems


def standing_problems(
    plan: Plan,
    names: Sequence[str],
    played: Sequence[PlayedRound],
    published: Sequence[Standing],
    *,
    decisions: Sequence[Decision] = (),
) -> list[str]:
    """Where published standings differ from the ones the results give with the plan's rules
    (``played``: each round's tables and byes, with the winners of its games)."""
    results = [r for n, this in enumerate(played, start=1) for r in this.results(n)]
    byes = [p for this in played for p in this.round.byes]
    try:
        computed = plan.standings(names, results, byes, decisions)
    except DecisionError as error:
        return [f"the standings: {error.code}: {error.message}"]
    return compare_standings(published, computed)


def compare_standings(published: Sequence[Standing], computed: Sequence[Standing]) -> list[str]:
    """Where ``published`` differs from ``computed`` (module docstring), place by place."""
    problems = []
    for place, (shown, right) in enumerate(zip(published, computed, strict=False), start=1):
        if not _agrees(shown, right):
            problems.append(f"standing {place}: {_row(shown)} should be {_row(right)}")
    if len(published) != len(computed):
        problems.append(f"{len(published)} standings published, {len(computed)} players")
    return problems


def _agrees(shown: Standing, right: Standing) -> bool:
    """Whether a published standing states what the computed one does (module docstring)."""
    return (
        (shown.player, shown.name, shown.points, shown.buchholz)
        == (right.player, right.name, right.points, right.buchholz)
        and shown.place in ("", right.place)
        and shown.tiebreaks in ((), right.tiebreaks)
    )


def _show(round_: Round) -> str:
    tables = " ".join("(" + ",".join(map(str, t.players)) + ")" for t in round_.tables)
    byes = f" bye {','.join(map(str, round_.byes))}" if round_.byes else ""
    return tables + byes


def _row(standing: Standing) -> str:
    row = (
        f"{standing.name} (player {standing.player}) with points {standing.points} and "
        f"Buchholz {standing.buchholz}"
    )
    if standing.place:
        row += f", place {standing.place}"
    if standing.tiebreaks:
        row += f", tie-breaks {' '.join(map(str, standing.tiebreaks))}"
    return row
