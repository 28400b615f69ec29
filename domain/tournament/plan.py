"""A tournament's shape, fixed at creation: its rules version, its format, its players, the
table size and the rounds; how many players it may grow to (``max_players``), the ratings that
seed its first round, and the tie-breaks of its standings.

**Rules versions.** What a tournament's pairings and standings are depends on the rules it was
created with, and never changes after: ``rules_version`` ``"2"`` (``RULES_VERSION``, every new
plan's) is what this module, ``rounds`` and ``standings`` describe; ``"1"`` is the rules of the
first tournaments, kept word for word in ``domain.tournament.v1`` (no late entries, ratings,
tie-break list nor director's decisions; no refusal of a swiss longer than its field allows;
standings by points, Buchholz without byes, name, number). A tournament stored, or an export
written, without a rules version is version 1. ``Plan.next_round`` and ``Plan.standings`` make
a round and the standings with the plan's version, for the service and for the audit alike.

**Slots.** The plan says how many games the tournament can hold, so every seed it can use is
drawn at creation: one per *slot*, a (round, table) pair, numbered in round order then table
order. Every round has ``max_players // table_size`` slots (``max_players`` is the starting
count unless the plan allows late entries, so a tournament without them numbers its slots as
it always has: ``players // table_size`` a round); a round with fewer tables (players
withdrawn, or not yet entered) uses its first slots, in table order, and leaves the rest
unused. Whoever is left over has a bye.

**Refusals** (``PlanError``, at ``Plan.of``): an unknown rules version; an unknown format;
players outside 2..99; a table size outside 2..4 or above the players; a round robin at tables
other than 2, or with any other count of rounds than its schedule's (``players - 1``,
``players`` when odd), or with late entries or ratings; a swiss with no rounds; a swiss whose
byes could not all go to different players (``rounds × (players mod table_size) > players``); a
swiss with more rounds than its players can play without meeting at a table seen before: each
round holds ``players // table_size`` tables, and ``players`` make ``C(players, table_size)``
different tables at most, so ``rounds × (players // table_size) ≤ C(players, table_size)`` (at
tables of 2: at most ``players - 1`` rounds when ``players`` is even, ``players`` when odd).
That bound is necessary, not sufficient: late in a long swiss the pairings already made can
leave no grouping without a repeat, and then the round repeats tables
(``domain.tournament.rounds``). ``max_players`` below the players or above 99; ``ratings`` not
one whole number per player; an unknown or repeated tie-break; more than ``MAX_GAMES`` slots.
At version 1, ``max_players`` other than the players, ``ratings`` or ``tiebreaks`` are refused,
and a swiss may have more rounds than its field allows without a repeat (version 1's refusals
are the others above).

**The next round** (``Plan.next_round``), from the rounds played and the decisions made
(``domain.tournament.decisions``): only the decisions made before the round is paired count. A
round robin plays FIDE's Berger tables (``berger_round_robin``), except that a withdrawn
player's table becomes a bye for the other player. A swiss pairs the *active* players (listed by
then and not withdrawn) with ``swiss_round``, ranked so: in round 1 by rating when the plan has
ratings (highest first; equal ratings, and players entered before round 1, who have none and
come after the rated ones, by number), else by number; from round 2 on as the standings of the
rounds so far order them (points, then the plan's tie-breaks, with the corrections made by then;
players equal on all of them by number), the withdrawn left out. The seat balance of
``swiss_round`` uses every earlier seat of each player. At version 1: the circle method's
schedule (``round_robin``), or ``v1.swiss_round`` (by points, then number; no decisions).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from domain.tournament import v1
from domain.tournament.decisions import (
    Decision,
    DecisionError,
    Enter,
    Withdraw,
    listed_players,
    made_before,
    withdrawn,
)
from domain.tournament.rounds import Round, Table, berger_round_robin, seat_history, swiss_round
from domain.tournament.standings import (
    DEFAULT_TIEBREAKS,
    GameResult,
    Standing,
    check_tiebreaks,
    corrected,
    points_of,
    ranked,
    standings,
)

Format = Literal["round_robin", "swiss"]
FORMATS: tuple[Format, ...] = ("round_robin", "swiss")

#: Every tournament rules version, oldest first (module docstring).
RULES_VERSIONS = ("1", "2")
#: The rules version of every new plan.
RULES_VERSION = "2"

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

    def results(self, number: int = 0) -> list[GameResult]:
        """Its games' results; ``number``: the round's number, for corrections (0: unknown)."""
        return [
            GameResult(table.players, won, number, index if number else 0)
            for index, (table, won) in enumerate(
                zip(self.round.tables, self.winners, strict=True), start=1
            )
        ]


@dataclass(frozen=True, slots=True)
class Plan:
    format: Format
    players: int
    table_size: int
    rounds: int
    #: The most players the tournament may list with late entries; 0: ``players``.
    max_players: int = 0
    #: Each starting player's rating, by number, to seed round 1 of a swiss; None: by number.
    ratings: tuple[int, ...] | None = None
    #: The standings' tie-breaks, in order; none at version 1 (points, Buchholz, name).
    tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS
    #: The rules the tournament is run with (module docstring).
    rules_version: str = RULES_VERSION

    def __post_init__(self) -> None:
        if self.max_players == 0:
            object.__setattr__(self, "max_players", self.players)

    @classmethod
    def of(
        cls,
        format: str,
        players: int,
        table_size: int,
        rounds: int | None,
        *,
        max_players: int | None = None,
        ratings: Sequence[int] | None = None,
        tiebreaks: Sequence[str] | None = None,
        allow_repeats: bool = False,
        rules_version: str = RULES_VERSION,
    ) -> Plan:
        """The plan, or ``PlanError`` saying what makes it impossible (module docstring).

        ``rules_version``: ``RULES_VERSION`` for a new tournament; for one read back (a stored
        tournament, an export), the version it names, ``"1"`` when it names none.
        ``allow_repeats``: skip the refusal of a swiss with more rounds than its players can
        play without a repeated table (version 1 has no such refusal: a plan made before it
        existed is a version 1 plan, read with ``rules_version="1"``)."""
        if rules_version not in RULES_VERSIONS:
            raise PlanError(
                f"rules_version: unknown tournament rules version {rules_version!r} "
                f"(one of {', '.join(RULES_VERSIONS)})"
            )
        if rules_version == v1.VERSION:
            if max_players not in (None, players):
                raise PlanError("max_players: rules version 1 takes no late entries")
            if ratings is not None:
                raise PlanError("ratings: rules version 1 seeds round 1 by number")
            if tiebreaks is not None:
                raise PlanError("tiebreaks: rules version 1 orders by points, Buchholz, name")
            allow_repeats = True
        if format not in FORMATS:
            raise PlanError(f"format: one of {', '.join(FORMATS)}")
        if not 2 <= players <= MAX_PLAYERS:
            raise PlanError(f"players: a tournament lists 2 to {MAX_PLAYERS} players")
        if not 2 <= table_size <= 4:
            raise PlanError("table_size: 2 to 4 seats")
        if table_size > players:
            raise PlanError(f"table_size: {table_size} seats need as many players")
        most = players if max_players is None else max_players
        if not players <= most <= MAX_PLAYERS:
            raise PlanError(f"max_players: {players} (the players listed) to {MAX_PLAYERS}")
        seeds = None if ratings is None else tuple(ratings)
        if seeds is not None and (
            len(seeds) != players
            or any(isinstance(r, bool) or not isinstance(r, int) for r in seeds)
        ):
            raise PlanError(f"ratings: one whole number for each of the {players} players")
        try:
            order = DEFAULT_TIEBREAKS if tiebreaks is None else check_tiebreaks(tiebreaks)
        except ValueError as error:
            raise PlanError(str(error)) from None
        if rules_version == v1.VERSION:
            order = ()
        if format == "round_robin":
            if table_size != 2:
                raise PlanError("table_size: a round robin is played at tables of 2")
            count = players - 1 + players % 2
            if rounds is not None and rounds != count:
                raise PlanError(f"rounds: a round robin of {players} players has {count} rounds")
            if most != players:
                raise PlanError("max_players: a round robin takes no late entries")
            if seeds is not None:
                raise PlanError("ratings: a round robin's schedule follows the players' order")
            rounds = count
        elif rounds is None or rounds < 1:
            raise PlanError("rounds: a swiss tournament needs 1 or more rounds")
        leftover = players % table_size
        if format == "swiss" and rounds * leftover > players:
            raise PlanError(
                f"rounds: {rounds} rounds give {rounds * leftover} byes, more than the "
                f"{players} players, and nobody may have two"
            )
        tables = players // table_size
        if (
            format == "swiss"
            and not allow_repeats
            and rounds * tables > math.comb(players, table_size)
        ):
            most_rounds = math.comb(players, table_size) // tables
            raise PlanError(
                f"rounds: {players} players at tables of {table_size} can play at most "
                f"{most_rounds} rounds without meeting at the same table twice, not {rounds}"
            )
        plan = cls(format, players, table_size, rounds, most, seeds, order, rules_version)
        if plan.slots > MAX_GAMES:
            raise PlanError(f"this tournament would hold {plan.slots} games, over {MAX_GAMES}")
        return plan

    @property
    def tables_per_round(self) -> int:
        """Slots a round: ``max_players // table_size`` (the most tables a round can have)."""
        return self.max_players // self.table_size

    @property
    def slots(self) -> int:
        """How many games the tournament can hold, so how many seeds it commits to."""
        return self.rounds * self.tables_per_round

    def slot(self, round_: int, table: int) -> int:
        """The slot of ``table`` in ``round_`` (both from 1), from 0."""
        if not (1 <= round_ <= self.rounds and 1 <= table <= self.tables_per_round):
            raise IndexError(f"no round {round_} table {table} in this tournament")
        return (round_ - 1) * self.tables_per_round + (table - 1)

    def next_round(
        self, played: Sequence[PlayedRound], decisions: Sequence[Decision] = ()
    ) -> Round:
        """The tables and byes of the round after ``played`` (given their results), with the
        ``decisions`` made before it is paired (later ones are left out here). The decisions
        are taken as valid (``check_decision``), except that a late entry in a round robin is
        ``DecisionError`` ``not_swiss``, and any decision made before the round at version 1
        ``DecisionError`` ``rules_version``."""
        number = len(played) + 1
        if number > self.rounds:
            raise IndexError(f"this tournament has {self.rounds} rounds")
        known = made_before(decisions, number)
        if self.rules_version == v1.VERSION:
            if known:
                raise DecisionError("rules_version", _NO_DECISIONS)
            before = [(this.round, this.results()) for this in played]
            return v1.next_round(self.format, self.players, self.table_size, number, before)
        gone = withdrawn(known)
        if self.format == "round_robin" and any(isinstance(d, Enter) for d in known):
            raise DecisionError("not_swiss", "only a swiss tournament takes late entries")
        if self.format == "round_robin":
            return _without(berger_round_robin(self.players)[number - 1], gone)
        results = corrected(
            [r for n, this in enumerate(played, start=1) for r in this.results(n)], known
        )
        byes = [p for this in played for p in this.round.byes]
        tables = [frozenset(t.players) for this in played for t in this.round.tables]
        listed = listed_players(self.players, known)
        if number == 1:
            order = self._seeded(p for p in range(listed) if p not in gone)
        else:
            rows = ranked(range(listed), results, byes, self.tiebreaks)
            order = [player for player, _, _ in rows if player not in gone]
        points = points_of(listed, results, byes)
        seats = seat_history(this.round for this in played)
        return swiss_round(
            listed,
            self.table_size,
            points,
            tables,
            byes,
            order=order,
            seats=seats,
            rounds_left=self.rounds - number,
        )

    def standings(
        self,
        names: Sequence[str],
        results: Sequence[GameResult],
        byes: Iterable[int],
        decisions: Sequence[Decision] = (),
    ) -> list[Standing]:
        """The standings after ``results`` and ``byes``, best first, with the plan's rules:
        ``standings.standings`` with the plan's tie-breaks and ``decisions`` (the results'
        ``round`` and ``table`` say which game a correction names), or ``v1.standings`` at
        version 1 (where any decision is ``DecisionError`` ``rules_version``)."""
        if self.rules_version == v1.VERSION:
            if decisions:
                raise DecisionError("rules_version", _NO_DECISIONS)
            return v1.standings(names, results, byes)
        return standings(names, results, byes, tiebreaks=self.tiebreaks, decisions=decisions)

    def _seeded(self, players: Iterable[int]) -> list[int]:
        """Round 1's ranking: by rating, highest first, then by number (unrated last)."""
        ratings = self.ratings
        if ratings is None:
            return sorted(players)
        rated = len(ratings)
        return sorted(players, key=lambda p: (p >= rated, -ratings[p] if p < rated else 0, p))


_NO_DECISIONS = "a tournament of rules version 1 takes no withdraw, enter or correct decision"


def _without(round_: Round, gone: set[int]) -> Round:
    """A round robin's round with the withdrawn players out: their opponents have a bye
    (byes by player number)."""
    if not gone:
        return round_
    tables: list[Table] = []
    byes = [p for p in round_.byes if p not in gone]
    for table in round_.tables:
        left = [p for p in table.players if p not in gone]
        if len(left) == len(table.players):
            tables.append(table)
        else:
            byes += left
    return Round(tuple(tables), tuple(sorted(byes)))


def check_decision(
    plan: Plan,
    names: Sequence[str],
    rounds: Sequence[Round],
    decisions: Sequence[Decision],
    decision: Decision,
) -> None:
    """``DecisionError`` unless ``decision`` may be taken now: ``rounds`` are the rounds paired
    so far (``decision.rounds_paired`` of them), ``decisions`` the ones taken before (in
    order), ``names`` the names of the players listed at creation. A tournament of rules
    version 1 (``domain.tournament.v1``) takes none: ``rules_version``."""
    if plan.rules_version == "1":
        raise DecisionError(
            "rules_version",
            f"a tournament of rules version 1 takes no {decision.kind} decision",
        )
    if decision.rounds_paired != len(rounds):
        raise DecisionError(
            "out_of_order",
            f"made with {decision.rounds_paired} rounds paired, where {len(rounds)} are",
        )
    if decisions and (
        decision.seq <= max(d.seq for d in decisions)
        or decision.rounds_paired < max(d.rounds_paired for d in decisions)
    ):
        raise DecisionError("out_of_order", "a decision comes after the ones before it")
    listed = listed_players(plan.players, decisions)
    gone = withdrawn(decisions)
    if isinstance(decision, Withdraw):
        if not 0 <= decision.player < listed:
            raise DecisionError("unknown_player", f"no player {decision.player}")
        if decision.player in gone:
            raise DecisionError("already_withdrawn", f"player {decision.player} is withdrawn")
        if listed - len(gone) - 1 < plan.table_size:
            raise DecisionError(
                "too_few_players",
                f"fewer than {plan.table_size} players would be left to pair",
            )
    elif isinstance(decision, Enter):
        if plan.format != "swiss":
            raise DecisionError("not_swiss", "only a swiss tournament takes late entries")
        if 2 * decision.rounds_paired > plan.rounds:
            raise DecisionError(
                "too_late",
                f"{decision.rounds_paired} of {plan.rounds} rounds are paired: entries close "
                "once more than half are",
            )
        if listed >= plan.max_players:
            raise DecisionError(
                "tournament_full", f"the tournament lists its {plan.max_players} players"
            )
        taken = [*names, *(d.name for d in decisions if isinstance(d, Enter))]
        if decision.name in taken:
            raise DecisionError("name_taken", f"a player is named {decision.name!r}")
        if decision.player != listed:
            raise DecisionError("not_next_player", f"the next player is number {listed}")
    else:
        if not 1 <= decision.round <= len(rounds):
            raise DecisionError("no_such_game", f"round {decision.round} is not paired")
        tables = rounds[decision.round - 1].tables
        if not 1 <= decision.table <= len(tables):
            raise DecisionError(
                "no_such_game", f"round {decision.round} has no table {decision.table}"
            )
        seats = len(tables[decision.table - 1].players)
        if any(not 0 <= seat < seats for seat in decision.winners):
            raise DecisionError("unknown_winner", f"the table has seats 0 to {seats - 1}")
