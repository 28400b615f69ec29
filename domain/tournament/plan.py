"""A tournament's shape, fixed at creation: its format, players, table size and rounds.

The plan says how many games the tournament can hold, so every seed it can use is drawn at
creation: one per *slot*, a (round, table) pair, numbered in round order then table order.
Every round has the same number of tables (``players // table_size``); the players left over
have a bye. ``next_round`` is the one place the next round's tables come from, for the service
that runs a tournament and for the audit that checks one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from domain.tournament.rounds import Round, round_robin, swiss_round
from domain.tournament.standings import GameResult, points_of

Format = Literal["round_robin", "swiss"]
FORMATS: tuple[Format, ...] = ("round_robin", "swiss")

#: The most players a tournament may list (a player's number is part of their token).
MAX_PLAYERS = 99
#: The most games (slots) a tournament may hold: a round robin of 64 players has 2016.
MAX_GAMES = 2048


class PlanError(ValueError):
    """A tournament that cannot be run as asked; the message says why, for the caller."""


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


@dataclass(frozen=True, slots=True)
class Plan:
    format: Format
    players: int
    table_size: int
    rounds: int

    @classmethod
    def of(cls, format: str, players: int, table_size: int, rounds: int | None) -> Plan:
        """The plan, or ``PlanError`` saying what makes it impossible."""
        if format not in FORMATS:
            raise PlanError(f"format: one of {', '.join(FORMATS)}")
        if not 2 <= players <= MAX_PLAYERS:
            raise PlanError(f"players: a tournament lists 2 to {MAX_PLAYERS} players")
        if not 2 <= table_size <= 4:
            raise PlanError("table_size: 2 to 4 seats")
        if table_size > players:
            raise PlanError(f"table_size: {table_size} seats need as many players")
        if format == "round_robin":
            if table_size != 2:
                raise PlanError("table_size: a round robin is played at tables of 2")
            count = players - 1 + players % 2
            if rounds is not None and rounds != count:
                raise PlanError(f"rounds: a round robin of {players} players has {count} rounds")
            rounds = count
        elif rounds is None or rounds < 1:
            raise PlanError("rounds: a swiss tournament needs 1 or more rounds")
        leftover = players % table_size
        if format == "swiss" and rounds * leftover > players:
            raise PlanError(
                f"rounds: {rounds} rounds give {rounds * leftover} byes, more than the "
                f"{players} players, and nobody may have two"
            )
        plan = cls(format, players, table_size, rounds)
        if plan.slots > MAX_GAMES:
            raise PlanError(f"this tournament would hold {plan.slots} games, over {MAX_GAMES}")
        return plan

    @property
    def tables_per_round(self) -> int:
        return self.players // self.table_size

    @property
    def slots(self) -> int:
        """How many games the tournament can hold, so how many seeds it commits to."""
        return self.rounds * self.tables_per_round

    def slot(self, round_: int, table: int) -> int:
        """The slot of ``table`` in ``round_`` (both from 1), from 0."""
        if not (1 <= round_ <= self.rounds and 1 <= table <= self.tables_per_round):
            raise IndexError(f"no round {round_} table {table} in this tournament")
        return (round_ - 1) * self.tables_per_round + (table - 1)

    def next_round(self, played: Sequence[PlayedRound]) -> Round:
        """The tables and byes of the round after ``played`` (given their results)."""
        number = len(played) + 1
        if number > self.rounds:
            raise IndexError(f"this tournament has {self.rounds} rounds")
        if self.format == "round_robin":
            return round_robin(self.players)[number - 1]
        results = [r for this in played for r in this.results()]
        byes = [p for this in played for p in this.round.byes]
        tables = [frozenset(t.players) for this in played for t in this.round.tables]
        points = points_of(self.players, results, byes)
        return swiss_round(self.players, self.table_size, points, tables, byes)
