"""What a tournament audit shows a reader beyond its checks: the crosstable it recomputed and
the director's decisions it applied.

The crosstable comes from what the audit established, never from the manifest's claims: the
results the verified logs reach, with every ``correct`` decision applied as the recomputed
standings apply it, so a reader sees why each player has the points the audit gives them.

**The crosstable, as text**: one row per player (number, name, points), then one compact cell
per round made:

- ``W 3``: won alone against player 3; ``D 3``: shared the win (a draw at a table of two:
  ``1/k`` of a point to each of ``k`` winners); ``L 3``: lost, or nobody won (no point);
- at a table of three or four, every opponent, in seat order: ``W 3,5``;
- ``? 3``: no verified result (the game is not over, or its log fails the audit);
- a trailing ``*``: a director's correction decided the result (``W 3*``);
- ``bye``: sat the round out (1 point); ``-``: not in the round (entered later, withdrawn).

**Unsigned players, as text**: ``players 0 (Ada) and 3 (Di) unsigned: their moves rest on the
host's word``: those who sat at a person's seat with no public key in some game (the audit
cannot tell their moves from the host's; a bot's are re-derived).

**A decision, as text**: ``decision 2 (withdraw) after round 1: player 3 (Di) withdrawn —
"Ill."``,
where ``after round N`` means made once ``N`` rounds were paired (so it applies from round
``N + 1``; ``before round 1`` when none were). A ``correct`` names the game, its round and
table, and its winners (seat, player and name); an ``enter`` the new player's number and name.

As JSON, a crosstable row is ``{"player", "name", "points", "rounds"}``, a round
``{"round", "game_id", "table", "seat", "opponents", "result", "points", "corrected"}`` in the
words of the service's crosstable (``result``: ``won``, ``shared``, ``lost``, ``bye``,
``playing``, ``absent``) and ``unverified`` for a log that fails the audit; a decision is as
the manifest records it.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from domain.tournament.decisions import Correct, Enter, Withdraw
from domain.tournament.standings import GameResult, as_json_number, game_points
from replay.verify import unsigned_words

if TYPE_CHECKING:
    from replay.tournament.manifest import Listed, Manifest, Recorded

#: A game's place in the tournament: (round, table).
Place = tuple[int, int]
Result = Literal["won", "shared", "lost", "bye", "playing", "unverified", "absent"]
#: A name is shown at most this long (a hostile manifest may hold megabytes).
MAX_NAME = 40
#: The text cell's letter for a result at a table.
LETTERS: Mapping[str, str] = {
    "won": "W",
    "shared": "D",
    "lost": "L",
    "playing": "?",
    "unverified": "?",
}
#: The crosstable's last line.
KEY = (
    "W won, D shared the win, L lost (or nobody won), against the players numbered; "
    "? no verified result; * corrected; - not in the round"
)


@dataclass(frozen=True, slots=True)
class Cell:
    """One player's round: where they sat (None for a bye or a round they were not in), whom
    they met, how it went and what it gave them (None without a verified result)."""

    round: int
    result: Result
    game_id: str | None = None
    table: int | None = None
    seat: int | None = None
    opponents: tuple[int, ...] = ()
    points: Fraction | None = None
    corrected: bool = False

    def __str__(self) -> str:
        if self.result == "bye":
            return "bye"
        if self.result == "absent":
            return "-"
        cell = f"{LETTERS[self.result]} {','.join(map(str, self.opponents))}"
        return cell + "*" if self.corrected else cell

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "game_id": self.game_id,
            "table": self.table,
            "seat": self.seat,
            "opponents": list(self.opponents),
            "result": self.result,
            "points": None if self.points is None else as_json_number(self.points),
            "corrected": self.corrected,
        }


@dataclass(frozen=True, slots=True)
class CrossRow:
    """A player's row of the crosstable: their points and each round made."""

    player: int
    name: str
    points: Fraction
    rounds: tuple[Cell, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "points": as_json_number(self.points),
            "rounds": [cell.to_json() for cell in self.rounds],
        }


@dataclass(frozen=True, slots=True)
class Applied:
    """A decision the audit applied: as the manifest records it, and in words."""

    recorded: dict[str, Any]
    text: str


def crosstable(
    manifest: Manifest, results: Mapping[Place, tuple[int, ...]], playing: Collection[Place]
) -> tuple[CrossRow, ...]:
    """Every player's row (module docstring), from ``results`` (the winning seats each
    verified log reaches, by place) with the manifest's corrections applied. ``playing``: the
    places of the games not over yet (a game with neither is ``unverified``)."""
    fixes: dict[Place, tuple[int, ...]] = {}
    for decision in sorted(manifest.effects, key=lambda d: d.seq):
        if isinstance(decision, Correct):
            fixes[(decision.round, decision.table)] = decision.winners
    rounds = [r for r in manifest.rounds if r.number <= manifest.plan.rounds]
    rows = []
    for player, (name, _) in enumerate(manifest.everyone):
        cells: list[Cell] = []
        for listed in rounds:
            cell = Cell(listed.number, "absent")
            if player in listed.byes:
                cell = Cell(listed.number, "bye", points=Fraction(1))
            else:
                game = next((g for g in listed.games if player in g.players), None)
                if game is not None:
                    cell = _played(game, player, results, fixes, playing)
            cells.append(cell)
        total = sum((c.points for c in cells if c.points is not None), Fraction(0))
        rows.append(CrossRow(player, name, total, tuple(cells)))
    return tuple(rows)


def _played(
    game: Listed,
    player: int,
    results: Mapping[Place, tuple[int, ...]],
    fixes: Mapping[Place, tuple[int, ...]],
    playing: Collection[Place],
) -> Cell:
    """``player``'s cell for the game they sat at."""
    place = (game.round, game.table)
    seat = game.players.index(player)
    others = tuple(p for p in game.players if p != player)
    cell = Cell(game.round, "unverified", game.game_id, game.table, seat, others)
    if place in results:
        # A correction's seats are checked elsewhere (``unknown_winner``): here only the real ones.
        fixed = fixes.get(place, results[place])
        winners = tuple(w for w in fixed if 0 <= w < len(game.players))
        points = game_points(GameResult(game.players, winners))[player]
        result: Result = "lost"
        if seat in winners:
            result = "won" if len(winners) == 1 else "shared"
        return replace(cell, result=result, points=points, corrected=place in fixes)
    if place in playing:
        return replace(cell, result="playing")
    return cell


def crosstable_lines(rows: Sequence[CrossRow]) -> list[str]:
    """``player  name  points  r1  r2 ...``: one aligned line per player (and the header),
    then the key to the cells."""
    count = max((len(row.rounds) for row in rows), default=0)
    header = ("player", "name", "points", *(f"r{n}" for n in range(1, count + 1)))
    table = [header] + [
        (str(row.player), _name(row.name), as_json_number(row.points), *map(str, row.rounds))
        for row in rows
    ]
    widths = [max(len(row[i]) for row in table if i < len(row)) for i in range(len(header))]
    lines = []
    for row in table:
        cells = [
            cell.rjust(width) if column in (0, 2) else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        lines.append("  ".join(cells).rstrip())
    return [*lines, f"key: {KEY}"]


def unsigned_line(rows: Sequence[CrossRow]) -> str | None:
    """``players 0 (Ada) and 1 (Bo) unsigned: their moves rest on the host's word``: the
    players ``rows`` name (None for nobody)."""
    return unsigned_words([f"{row.player} ({_name(row.name)})" for row in rows], "player")


def applied(manifest: Manifest) -> tuple[Applied, ...]:
    """Every decision the manifest lists, in order, as recorded and in words."""
    return tuple(Applied(d.to_json(), describe(manifest, d)) for d in manifest.decisions)


def describe(manifest: Manifest, decision: Recorded) -> str:
    """A decision in words (module docstring)."""
    paired = decision.rounds_paired
    when = f"after round {paired}" if paired else "before round 1"
    head = f"decision {decision.seq} ({decision.kind}) {when}"
    reason = f" — {json.dumps(decision.reason, ensure_ascii=False)}"
    effect = decision.effect
    if isinstance(effect, Withdraw):
        return f"{head}: {_player(manifest, effect.player)} withdrawn{reason}"
    if isinstance(effect, Enter):
        bot = "" if effect.bot is None else f", bot {_name(effect.bot)}"
        return f"{head}: player {effect.player} ({_name(effect.name)}{bot}) entered{reason}"
    if isinstance(effect, Correct):
        where = (effect.round, effect.table)
        seated = next((g.players for r in manifest.rounds for g in r.games if _at(g) == where), ())
        won = [
            f"{_player(manifest, seated[seat])} at seat {seat}"
            if seat < len(seated)
            else f"seat {seat}"
            for seat in effect.winners
        ]
        winners = ", ".join(won) or "none (nobody won)"
        game = f"game {effect.game_id}, round {effect.round} table {effect.table}"
        return f"{head}: {game}, winners: {winners}{reason}"
    return f"{head}{reason}"


def _at(game: Listed) -> Place:
    return game.round, game.table


def _player(manifest: Manifest, player: int) -> str:
    """``player 3 (Di)``; ``player 9`` for a number nobody holds."""
    everyone = manifest.everyone
    if not 0 <= player < len(everyone):
        return f"player {player}"
    return f"player {player} ({_name(everyone[player][0])})"


def _name(name: str) -> str:
    return name if len(name) <= MAX_NAME else name[: MAX_NAME - 1] + "…"
