"""The game logs after a tournament export's manifest, split into one run per game.

Each run is audited on its own by ``replay.verify``; a line that is not usable JSON stays in
the run it is in, and that game's audit fails it there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from replay.source import BadLine, parse_line
from replay.verify import Verdict, audit_lines, verify


@dataclass(slots=True)
class Run:
    """Consecutive lines of one game: its events as parsed, and its raw lines.

    A line that is not usable JSON, or JSON that names no game, belongs to the run it is in;
    the game's own audit fails it there.
    """

    game_id: str | None
    first: int  # the file's line number of the run's first line
    last: int
    lines: list[str] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)
    bad: int | None = None  # the file's line number of the first unusable line, if any

    def audit(self, bot_replay: bool = True) -> Verdict:
        """``replay.verify``'s verdict on this log alone (``bot_replay``: its bots' moves made
        again)."""
        if self.bad is None:
            return verify(self.events, bot_replay=bot_replay)
        verdict, _ = audit_lines(self.lines, bot_replay=bot_replay)
        relative = f"line {self.bad - self.first + 1} "  # audit_lines counts from the run
        if verdict.reason is not None and verdict.reason.startswith(relative):
            reason = f"line {self.bad} " + verdict.reason.removeprefix(relative)
            return replace(verdict, reason=reason)
        return verdict


def split_runs(lines: Sequence[str], first: int = 2) -> list[Run]:
    """The lines after the manifest as runs of one game each (``first``: the line number of
    ``lines[0]``). Blank lines are skipped, as in a single game's export."""
    runs: list[Run] = []
    for number, line in enumerate(lines, start=first):
        if not line.strip():
            if runs:
                runs[-1].lines.append(line)
            continue
        try:
            event: Any = parse_line(line)
        except BadLine:
            event = None
            if not runs:
                runs.append(Run(None, number, number))
            if runs[-1].bad is None:
                runs[-1].bad = number
        else:
            game_id = event.get("game_id") if isinstance(event, dict) else None
            if isinstance(game_id, str) and (not runs or runs[-1].game_id != game_id):
                runs.append(Run(game_id, number, number))
            elif not runs:
                runs.append(Run(None, number, number))
        run = runs[-1]
        run.lines.append(line)
        run.last = number
        if run.bad is None:
            run.events.append(event)
    return runs
