"""Recompute a tournament's pairings and standings from its results: what an audit checks.

Given the format, the players and what happened in each round (its tables and byes, and the
winners of each game), every round's tables must be the ones the format makes from the rounds
before, and the published standings the ones the results give. Each disagreement is reported
with where it is; an empty list means the tournament followed its rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from domain.tournament.rounds import Round, round_robin, swiss_round
from domain.tournament.standings import GameResult, Standing, points_of, standings

Format = Literal["round_robin", "swiss"]


@dataclass(frozen=True, slots=True)
class PlayedRound:
    """A round as it was played: its tables and byes, and each table's winning seats."""

    round: Round
    winners: tuple[tuple[int, ...], ...]

    def results(self) -> list[GameResult]:
        return [
            GameResult(table.players, won)
            for table, won in zip(self.round.tables, self.winners, strict=True)
        ]


def pairing_problems(
    format: Format, players: int, table_size: int, played: Sequence[PlayedRound]
) -> list[str]:
    """Where the rounds' tables or byes differ from what the format makes of the results."""
    problems: list[str] = []
    schedule = round_robin(players) if format == "round_robin" else None
    results: list[GameResult] = []
    byes: list[int] = []
    tables: list[frozenset[int]] = []
    for number, this in enumerate(played, start=1):
        if schedule is not None:
            if number > len(schedule):
                problems.append(f"round {number}: a round robin of {players} has no such round")
                break
            expected = schedule[number - 1]
        else:
            points = points_of(players, results, byes)
            expected = swiss_round(players, table_size, points, tables, byes)
        if this.round != expected:
            problems.append(
                f"round {number}: tables {_show(this.round)} are not the format's {_show(expected)}"
            )
        results += this.results()
        byes += this.round.byes
        tables += [frozenset(t.players) for t in this.round.tables]
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
        f"{standing.name} (player {standing.player}) {standing.points} points, "
        f"Buchholz {standing.buchholz}"
    )
