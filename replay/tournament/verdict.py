"""What a tournament audit answers, and how the answer prints: ``GameVerdict`` and
``TournamentVerdict``, for one game and for the set (a problem found while reading the
export is ``replay.tournament.wrong.Wrong``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.tournament.standings import Standing, as_json_number
from replay.tournament.summary import Applied, CrossRow, crosstable_lines, unsigned_line
from replay.verify import Status, Verdict


@dataclass(frozen=True, slots=True)
class GameVerdict:
    """One game of the export: where the manifest lists it, and what the audits found.

    ``verdict`` is ``replay.verify``'s on the game's log alone; ``problems`` are what the
    tournament's checks found wrong with the game (its place, seed, seats, claimed outcome),
    each ``"where: why"``. ``round``/``table`` are None for a log the manifest does not list;
    ``lines`` (first, last) is None for a listed game with no log in the export.
    """

    game_id: str | None
    round: int | None
    table: int | None
    lines: tuple[int, int] | None
    verdict: Verdict
    problems: tuple[str, ...] = ()

    @property
    def status(self) -> Status:
        return "failed" if self.problems else self.verdict.status

    @property
    def name(self) -> str:
        """``round 2 table 3 (game <id>)``, or ``game <id> (line N)`` for an unlisted log."""
        if self.round is not None:
            return f"round {self.round} table {self.table} (game {self.game_id})"
        line = f"line {self.lines[0]}" if self.lines is not None else "no line"
        return line if self.game_id is None else f"game {self.game_id} ({line})"

    def __str__(self) -> str:
        verdict = self.verdict
        where, why = "", ""
        if verdict.status == "failed":
            where = "" if verdict.version is None else f" at version {verdict.version}"
            why = f": {verdict.reason}"
        elif self.problems:
            first = self.problems[0].removeprefix(f"{self.name}: ")
            more = len(self.problems) - 1
            why = f": {first}" + (f" (and {more} more)" if more else "")
        return f"{self.name}: {self.status}{where}{why} ({verdict.events} events)"

    def to_json(self) -> dict[str, Any]:
        unsigned = self.verdict.unsigned
        return {
            "round": self.round,
            "table": self.table,
            "game_id": self.game_id,
            "lines": None if self.lines is None else list(self.lines),
            "status": self.status,
            "events": self.verdict.events,
            "version": self.verdict.version,
            "reason": self.verdict.reason,
            "problems": list(self.problems),
            "unsigned_seats": None if unsigned is None else list(unsigned),
        }


@dataclass(frozen=True, slots=True)
class TournamentVerdict:
    """The audit's answer for a tournament export: one status for the set, each game's
    verdict, every problem found (each ``"where: why"``), the checks that could not be made
    (``unchecked``: a result they need is not verified, or no roster was committed) and the
    standings recomputed from the verified games. ``cancelled``: the manifest lists a cancel
    decision (the tournament ended with the rounds it had); ``rules_version``: the rules it
    was audited with; ``crosstable`` and ``decisions``: what the audit recomputed and applied,
    for a reader (``replay.tournament.summary``); ``unsigned_players``: who played a person's
    seat without a public key (their moves rest on the host's word)."""

    status: Status
    games: tuple[GameVerdict, ...]
    problems: tuple[str, ...]
    standings: tuple[Standing, ...]
    tournament_id: str | None = None
    rounds: int = 0
    planned_rounds: int | None = None
    unchecked: tuple[str, ...] = ()
    file: str | None = None
    cancelled: bool = False
    rules_version: str | None = None
    #: The tie-breaks the standings were made with, in order (none at rules version 1).
    tiebreaks: tuple[str, ...] = ()
    crosstable: tuple[CrossRow, ...] = ()
    decisions: tuple[Applied, ...] = ()

    @property
    def name(self) -> str:
        tournament = None if self.tournament_id is None else f"tournament {self.tournament_id}"
        if self.file is None:
            return tournament or "tournament"
        return self.file if tournament is None else f"{self.file} ({tournament})"

    @property
    def unsigned_players(self) -> tuple[CrossRow, ...]:
        """The crosstable's rows of the players who sat at an unsigned seat of some game
        (``Verdict.unsigned``), in player order."""
        unsigned = {(g.round, g.table): g.verdict.unsigned or () for g in self.games}
        return tuple(
            row
            for row in self.crosstable
            if any(c.seat in unsigned.get((c.round, c.table), ()) for c in row.rounds)
        )

    @property
    def reason(self) -> str | None:
        """Why the set is not ok, in a few words (None when it is)."""
        if self.status == "failed":
            count = len(self.problems)
            return f"{count} problem{'s' * (count != 1)}"
        if self.status == "incomplete":
            waiting = sum(g.status == "incomplete" for g in self.games)
            parts = [f"{waiting} game{'s' * (waiting != 1)} not over"] if waiting else []
            if self.planned_rounds is not None and self.rounds < self.planned_rounds:
                left = self.planned_rounds - self.rounds
                parts.append(f"{left} round{'s' * (left != 1)} not yet made")
            return ", ".join(parts) or None
        return None

    def __str__(self) -> str:
        why = "" if self.reason is None else f": {self.reason}"
        planned = "?" if self.planned_rounds is None else str(self.planned_rounds)
        count = len(self.games)
        size = f"{count} game{'s' * (count != 1)}, {self.rounds} of {planned} rounds"
        if self.cancelled:
            size += ", cancelled"
        return f"{self.name}: {self.status}{why} ({size})"

    def report(self) -> list[str]:
        """The human report: each game's verdict, the recomputed standings, every problem and
        unchecked part, the unsigned players, the verdict on the set (one line each); then the
        crosstable and each decision applied, when the manifest could be read."""
        prefix = "" if self.file is None else f"{self.file} "
        lines = [f"{prefix}{game}" for game in self.games]
        lines.append(f"{prefix}standings, recomputed from the verified games:")
        lines += ["  " + row for row in standings_table(self.standings, self.tiebreaks)]
        lines += [f"{prefix}problem: {problem}" for problem in self.problems]
        lines += [f"{prefix}not checked: {part}" for part in self.unchecked]
        unsigned = unsigned_line(self.unsigned_players)
        lines += [] if unsigned is None else [f"{prefix}{unsigned}"]
        lines.append(str(self))
        if self.crosstable:
            lines.append(f"{prefix}crosstable, from the verified games and the corrections:")
            lines += ["  " + row for row in crosstable_lines(self.crosstable)]
        lines += [f"{prefix}{decision.text}" for decision in self.decisions]
        return lines

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "tournament_id": self.tournament_id,
            "status": self.status,
            "reason": self.reason,
            "rounds": self.rounds,
            "planned_rounds": self.planned_rounds,
            "cancelled": self.cancelled,
            "rules_version": self.rules_version,
            "games": [g.to_json() for g in self.games],
            "problems": list(self.problems),
            "unchecked": list(self.unchecked),
            "standings": [
                {
                    # Version 1 numbered the rows; a later version's place may be shared.
                    "place": place if self.rules_version == "1" or not s.place else s.place,
                    "player": s.player,
                    "name": s.name,
                    "points": as_json_number(s.points),
                    "buchholz": as_json_number(s.buchholz),
                    **({"tiebreaks": self._tiebreaks(s)} if self.tiebreaks else {}),
                }
                for place, s in enumerate(self.standings, start=1)
            ],
            "crosstable": [row.to_json() for row in self.crosstable],
            "decisions": [decision.recorded for decision in self.decisions],
            "unsigned_players": [row.player for row in self.unsigned_players],
        }

    def _tiebreaks(self, standing: Standing) -> dict[str, str]:
        return {
            name: as_json_number(value)
            for name, value in zip(self.tiebreaks, standing.tiebreaks, strict=False)
        }


def standings_table(rows: Sequence[Standing], tiebreaks: Sequence[str] = ()) -> list[str]:
    """``place  name  points  Buchholz`` and a column per tie-break, one aligned line per
    player (and the header). A place shared by equal players reads ``3-4``."""
    table = [("place", "name", "points", "Buchholz", *tiebreaks)] + [
        (
            s.place or str(place),
            s.name,
            as_json_number(s.points),
            as_json_number(s.buchholz),
            *(as_json_number(v) for v in s.tiebreaks[: len(tiebreaks)]),
        )
        for place, s in enumerate(rows, start=1)
    ]
    widths = [max(len(row[i]) for row in table if i < len(row)) for i in range(len(table[0]))]
    lines = []
    for row in table:
        cells = [
            cell.ljust(width) if column == 1 else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        lines.append("  ".join(cells).rstrip())
    return lines
