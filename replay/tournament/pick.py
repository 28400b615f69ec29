"""One game out of a tournament export, for ``floe replay show`` and ``step``.

A tournament export holds many logs, and a board shows one: the reader names it (by id, or
by round and table) and gets that game's lines, stepped exactly as a single game's export.
The manifest is only read for the list of games; a manifest too broken to read still lets
the logs be named by id (the audit, ``floe replay verify``, says what is wrong with it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from replay.source import BadLine, parse_line
from replay.tournament.logs import split_runs
from replay.tournament.manifest import read_manifest
from replay.tournament.wrong import quote


class NoGameChosen(ValueError):
    """The game named is not in the export, or none was named; the message lists them."""


@dataclass(frozen=True, slots=True)
class Choice:
    """Which game to show: ``game_id``, or ``round`` and ``table`` (None: not chosen)."""

    game_id: str | None = None
    round: int | None = None
    table: int | None = None

    @property
    def made(self) -> bool:
        return self.game_id is not None or self.round is not None or self.table is not None


def game_lines(lines: Sequence[str], choice: Choice) -> list[str]:
    """The lines of the chosen game's log (``lines[0]`` is the manifest); ``NoGameChosen``
    when none is chosen, or the choice names no game of the export."""
    listed = _listed(lines[0])
    runs = {run.game_id: run for run in split_runs(lines[1:]) if run.game_id is not None}
    game_id = choice.game_id
    if choice.round is not None or choice.table is not None:
        if choice.round is None or choice.table is None or game_id is not None:
            why = "--round and --table go together, without --game"
            raise NoGameChosen(f"{why}; {_menu(listed, list(runs))}")
        place = (choice.round, choice.table)
        found = [g for g, (r, t, _) in listed.items() if (r, t) == place]
        if not found:
            raise NoGameChosen(
                f"no game at round {place[0]} table {place[1]}; {_menu(listed, list(runs))}"
            )
        game_id = found[0]
    if game_id is None:
        raise NoGameChosen(f"a tournament export holds many games; {_menu(listed, list(runs))}")
    if game_id not in runs:
        where = "listed, but its log is not in the export" if game_id in listed else "not in it"
        raise NoGameChosen(f"game {quote(game_id, 40)} is {where}; {_menu(listed, list(runs))}")
    return runs[game_id].lines


#: A listed game: (round, table, players' names), by game id.
Listing = dict[str, tuple[int, int, str]]


def _listed(first: str) -> Listing:
    """The games the manifest lists ({} when it cannot be read)."""
    try:
        manifest, _ = read_manifest(parse_line(first))
    except BadLine:
        return {}
    if manifest is None:
        return {}
    everyone = manifest.everyone
    names = [quote(name, 40) for name, _ in everyone]
    return {
        game.game_id: (
            game.round,
            game.table,
            ", ".join(names[p] if p < len(names) else f"player {p}" for p in game.players),
        )
        for round_ in manifest.rounds
        for game in round_.games
    }


def _menu(listed: Listing, logs: Sequence[str]) -> str:
    """What to choose from: each listed game's round, table, id and players, then any log
    the manifest does not list."""
    rows = [f"round {r} table {t}  game {g}  {who}" for g, (r, t, who) in listed.items()]
    rows += [f"game {quote(g, 40)} (not listed)" for g in logs if g not in listed]
    games = "\n".join(f"  {row}" for row in rows) if rows else "  (none)"
    return f"choose one with --game GAME_ID (or --round R --table T):\n{games}"
