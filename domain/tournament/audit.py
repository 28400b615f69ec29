"""Recompute a tournament's pairings and standings from its results: what an audit checks.

Given the format, the players and what happened in each round (its tables and byes, and the
winners of each game), every round's tables must be the ones the format makes from the rounds
before, and the published standings the ones the results give. Each disagreement is reported
with where it is; an empty list means the tournament followed its rules.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.tournament.plan import Plan, PlayedRound
from domain.tournament.rounds import Round
from domain.tournament.standings import Standing, standings


def pairing_problems(plan: Plan, played: Sequence[PlayedRound]) -> list[str]:
    """Where the rounds' tables or byes differ from what the plan makes of the results."""
    problems: list[str] = []
    for number, this in enumerate(played, start=1):
        if number > plan.rounds:
            problems.append(f"round {number}: the tournament has {plan.rounds} rounds")
            break
        expected = plan.next_round(played[: number - 1])
        if this.round != expected:
            problems.append(
                f"round {number}: tables {_show(this.round)} are not the format's {_show(expected)}"
            )
    return problems


def standing_problems(
    names: Sequence[str], played: Sequence[PlayedRound], published: Sequence[Standing]
) -> list[str]:
    """Where published standings differ from the ones the results give."""
    results = [r for this in played for r in this.results()]
    byes = [p for this in played for p in this.round.byes]
    computed = standings(names, results, byes)
    if list(published) == computed:
        return []
    problems = []
    for place, (shown, right) in enumerate(zip(published, computed, strict=False), start=1):
        if shown != right:
            problems.append(f"standing {place}: {_row(shown)} should be {_row(right)}")
    if len(published) != len(computed):
        problems.append(f"{len(published)} standings published, {len(computed)} players")
    return problems


def _show(round_: Round) -> str:
    tables = " ".join("(" + ",".join(map(str, t.players)) + ")" for t in round_.tables)
    byes = f" bye {','.join(map(str, round_.byes))}" if round_.byes else ""
    return tables + byes


def _row(standing: Standing) -> str:
    return (
        f"{standing.name} (player {standing.player}) with points {standing.points} and "
        f"Buchholz {standing.buchholz}"
    )
