"""Words every picture shares: seat names, coordinates, the last move, the outcome, wrapping.

Pictures speak to people: seats by name, cells as ``[x, y]`` exactly as actions write them,
and never a raw code such as ``cannot_melt`` (a game maps its codes to words; ``humanize`` is
the fallback). Everything here reads a ``Scene`` only, so it knows nothing of any game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for its type only: at run time this package needs the standard library
    from domain.engine.game import Scene

DASH = "\u2013"  # the en dash between scores: "Ann wins 7–5"
WIDTH = 80  # columns of every text picture line
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def pair(xy: Sequence[Any]) -> str:
    """A cell, hex, tile or square as actions write it: ``[1, -2]``."""
    return "[" + ", ".join(str(v) for v in xy) + "]"


def listing(items: Iterable[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = list(items)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def humanize(code: object) -> str:
    """A code as words (``cannot_melt`` -> ``cannot melt``): the fallback for unknown codes."""
    return str(code).replace("_", " ")


def move_line(scene: Scene, describe: Callable[[Mapping[str, Any]], str | None]) -> str | None:
    """``Bo: place T at [0, 0]``: the action that made this position, in the game's words
    (``describe``; an action it has none for, by its type in words)."""
    if scene.move is None:
        return None
    action = scene.move.action
    said = LEAVING.get(str(action.get("type"))) or describe(action)
    return f"{scene.name(scene.move.seat)}: {said or humanize(action.get('type'))}"


#: How every picture says a seat left (``Scene.move`` of a ``resign``, ``timeout`` or
#: ``forfeit``), whatever the game.
LEAVING = {
    "resign": "resigned",
    "timed_out": "ran out of time",
    "forfeited": "forfeited by the organizer",
}


def pending_line(scene: Scene, say: Callable[[str, Mapping[str, Any]], str | None]) -> str | None:
    """What is owed now (the view's ``pending``) in words, or None when nothing is: ``say``
    is handed the name of the seat that owes it and the pending JSON; for a decision it has
    no words for, ``Bo owes a decision (keep group)``."""
    pending = scene.view.get("pending")
    if not pending:
        return None
    who = scene.name(pending.get("seat"))
    return say(who, pending) or f"{who} owes a decision ({humanize(pending['type'])})"


def _scores(outcome: Mapping[str, Any]) -> dict[int, int]:
    raw = outcome.get("scores") or {}
    return {int(seat): int(points) for seat, points in raw.items()}


def outcome_line(scene: Scene, *, team: bool = False, detail: str = "") -> str | None:
    """How the game ended, or None while it goes on.

    ``Ann wins 7–5``, ``Ann and Bo share the win``, ``Nobody wins``; a co-operative game
    (``team``) says ``The team wins`` or ``The team loses``. ``detail`` follows a colon.
    """
    outcome = scene.outcome
    if outcome is None:
        return None
    winners = [int(w) for w in outcome.get("winners") or []]
    if team:
        head = "The team wins" if winners else "The team loses"
    else:
        head = who_wins([scene.name(w) for w in winners])
    scores = _scores(outcome)
    if scores:
        others = sorted((s for s in scores if s not in winners), key=lambda s: (-scores[s], s))
        order = [w for w in winners if w in scores] + others
        head += " " + DASH.join(str(scores[s]) for s in order)
    return f"{head}: {detail}" if detail else head


def who_wins(
    names: Sequence[str], *, nobody: str = "Nobody wins", shared: str = "share the win"
) -> str:
    """``Ann wins``, ``Ann and Bo share the win``, ``Nobody wins``: who won, as a picture says
    it. ``nobody`` and ``shared`` reword it for inside a sentence (``...: Ann and Bo win``)."""
    if not names:
        return nobody
    if len(names) == 1:
        return f"{names[0]} wins"
    return f"{listing(names)} {shared}"


def score_of(scene: Scene, seat: int) -> int | None:
    """``seat``'s final score, once the game is over and if it keeps scores."""
    if scene.outcome is None:
        return None
    return _scores(scene.outcome).get(seat)


def visible_len(line: str) -> int:
    """The columns ``line`` takes on a terminal (ANSI colour codes take none)."""
    return len(_ANSI.sub("", line))


def _words(line: str) -> list[str]:
    """``line`` split at spaces, but never inside brackets nor before one: ``[1, -2]`` and
    ``c12 (P7)`` stay whole."""
    words, depth, start = [], 0, 0
    plain = _ANSI.sub(lambda m: "\0" * len(m.group()), line)  # colour codes hold no brackets
    for i, char in enumerate(plain):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth = max(0, depth - 1)
        elif char == " " and depth == 0 and not plain.startswith("(", i + 1):
            words.append(line[start:i])
            start = i + 1
    return [*words, line[start:]]


def wrap(line: str, width: int = WIDTH, indent: str = "    ") -> list[str]:
    """``line`` broken at spaces (never inside brackets, so ``[1, -2]`` stays whole) into
    lines of at most ``width`` columns; continuation lines start with ``indent``. A word
    longer than a whole line is cut (plain text only)."""
    if visible_len(line) <= width:
        return [line]
    rows: list[str] = []
    current = ""
    for word in _words(line):
        candidate = f"{current} {word}" if current else word
        if visible_len(candidate) > width and current.strip():
            rows.append(current.rstrip())
            current = indent + word
        else:
            current = candidate
        while visible_len(current) > width and "\x1b" not in current:
            rows.append(current[:width])
            current = indent + current[width:]
    rows.append(current.rstrip())
    return rows


def wrap_all(lines: Iterable[str], width: int = WIDTH, indent: str = "    ") -> list[str]:
    """Every line wrapped to ``width`` columns."""
    return [row for line in lines for row in wrap(line, width, indent)]
