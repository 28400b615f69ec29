"""``floe replay step``: walk through a game's versions in the terminal.

``screen`` draws one frame as plain lines (pure, so tests need no terminal); ``run`` is the
curses loop, which only maps keys to versions and paints what ``screen`` returns.
"""

from __future__ import annotations

import contextlib
import curses
import json
import os
import re
from collections.abc import Mapping
from typing import Any

from domain.games import GAMES
from replay.timeline import Timeline

HELP = "<-/-> or h/l step  Home/End ends  g go to version  q quit"
#: Escape sequences a terminal may send that curses does not know for this TERM.
SEQUENCES = {
    "[C": "right",
    "OC": "right",
    "[D": "left",
    "OD": "left",
    "[H": "home",
    "OH": "home",
    "[1~": "home",
    "[7~": "home",
    "[F": "end",
    "OF": "end",
    "[4~": "end",
    "[8~": "end",
}
KEYS = {
    curses.KEY_RIGHT: "right",
    ord("l"): "right",
    curses.KEY_LEFT: "left",
    ord("h"): "left",
    curses.KEY_HOME: "home",
    curses.KEY_END: "end",
    ord("g"): "goto",
    ord("q"): "quit",
    curses.KEY_RESIZE: "redraw",
}


def compact(data: Any) -> str:
    """Event data as short one-line JSON."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def outcome_line(timeline: Timeline, version: int) -> str:
    """Whose turn it is, or how the game ended."""
    state = timeline.state(version)
    if state.outcome is not None:
        winners = ", ".join(timeline.seat_name(w) for w in state.outcome.winners) or "nobody"
        scores = " ".join(f"{s}:{p}" for s, p in sorted(state.outcome.scores.items()))
        parts = [f"over: winners {winners}"]
        parts += [f"scores {scores}"] if scores else []
        parts += [compact(dict(state.outcome.extra))] if state.outcome.extra else []
        return "  ".join(parts)
    acting = timeline.to_act(version)
    if acting:
        return "to act: " + ", ".join(timeline.seat_name(s) for s in acting)
    return f"to act: nobody ({timeline.status(version)})"


def event_lines(timeline: Timeline, version: int) -> list[str]:
    """The event that made ``version``: type, actor, time, and its data."""
    stored: Mapping[str, Any] = timeline.event(version)
    who = timeline.seat_name(stored.get("actor"))
    return [
        f"event {version}: {stored.get('type')} by {who} at {stored.get('at')}",
        f"  data {compact(stored.get('data'))}",
    ]


def header(timeline: Timeline, version: int) -> str:
    """The first line: version N/M (first, so a narrow terminal keeps it), game, status."""
    return (
        f"version {version}/{timeline.last}  {timeline.game_id} ({timeline.game})  "
        f"status {timeline.status(version)}"
    )


def screen(
    timeline: Timeline,
    version: int,
    width: int,
    height: int,
    *,
    prompt: str | None = None,
    colour: bool = False,
) -> list[str]:
    """The frame for ``version``: at most ``height`` lines of at most ``width`` characters.

    With ``colour`` the board carries ANSI seat colours and lines are left whole: the painter
    clips them by visible width.

    The header, event and turn come first and the key help (or the ``g`` prompt) last; the
    board fills what is left and is cut off when the terminal is too small.
    """
    if width <= 0 or height <= 0:
        return []
    top = [
        header(timeline, version),
        *event_lines(timeline, version),
        outcome_line(timeline, version),
        "",
    ]
    board = GAMES[timeline.game].text(timeline.view(version), colour)
    bottom = f"go to version (1-{timeline.last}): {prompt}_" if prompt is not None else HELP
    body = (top + board)[: max(0, height - 1)]
    lines = [*body, bottom] if height > 1 else [bottom]
    return lines if colour else [line[:width] for line in lines]


def _read_sequence(window: Any) -> str:
    """The rest of an escape sequence curses passed through as a bare ESC."""
    window.timeout(50)
    chars = ""
    try:
        while len(chars) < 4:
            key = window.getch()
            if key < 0:
                break
            chars += chr(key)
            if chars in SEQUENCES or chr(key).isalpha() or chr(key) == "~":
                break
    finally:
        window.timeout(-1)
    return SEQUENCES.get(chars, "")


def _paint(window: Any, lines: list[str]) -> None:
    """Draw the frame, turning the pictures' ANSI seat colours into curses colour pairs."""
    window.clear()  # a full repaint each frame: simple, and fine at human speed
    width = window.getmaxyx()[1]
    for row, line in enumerate(lines):
        column, attr = 0, 0
        for index, part in enumerate(_ANSI.split(line)):
            if index % 2:
                attr = _attribute(part)
                continue
            part = part[: max(0, width - column)]
            if not part:
                continue
            # the bottom-right cell cannot be written without scrolling: curses complains
            with contextlib.suppress(curses.error):
                window.addstr(row, column, part, attr)
            column += len(part)
    window.refresh()


_ANSI = re.compile(r"\x1b\[([0-9;]*)m")
_PAIRS = {"31": 1, "34": 2, "32": 3, "33": 4}


def _attribute(code: str) -> int:
    if code in _PAIRS and curses.has_colors():
        return curses.color_pair(_PAIRS[code]) | curses.A_BOLD
    return curses.A_DIM if code == "2" else 0


def _start_colours() -> bool:
    """Seat colours as in ``show``: 0 red, 1 blue, 2 green, 3 yellow (when the terminal can)."""
    if not curses.has_colors():
        return False
    curses.start_color()
    with contextlib.suppress(curses.error):
        curses.use_default_colors()
    colours = (curses.COLOR_RED, curses.COLOR_BLUE, curses.COLOR_GREEN, curses.COLOR_YELLOW)
    for pair, colour in enumerate(colours, start=1):
        with contextlib.suppress(curses.error):
            curses.init_pair(pair, colour, -1)
    return True


def _ask_version(window: Any, timeline: Timeline, version: int) -> int:
    """Read digits after ``g`` until Enter (jump) or Escape (stay)."""
    typed = ""
    while True:
        height, width = window.getmaxyx()
        _paint(window, screen(timeline, version, width, height, prompt=typed))
        key = window.getch()
        if key in (10, 13, curses.KEY_ENTER):
            return timeline.clamp(int(typed)) if typed else version
        if key == 27:
            return version
        if key in (curses.KEY_BACKSPACE, 127, 8):
            typed = typed[:-1]
        elif 48 <= key <= 57 and len(typed) < 9:
            typed += chr(key)


def _loop(window: Any, timeline: Timeline, start: int) -> None:
    with contextlib.suppress(curses.error):  # a terminal that cannot hide its cursor
        curses.curs_set(0)
    window.keypad(True)
    colour = _start_colours()
    version = timeline.clamp(start)
    while True:
        height, width = window.getmaxyx()
        _paint(window, screen(timeline, version, width, height, colour=colour))
        key = window.getch()
        action = KEYS.get(key, "")
        if key == 27:
            action = _read_sequence(window)
        if action == "quit":
            return
        if action == "right":
            version = timeline.clamp(version + 1)
        elif action == "left":
            version = timeline.clamp(version - 1)
        elif action == "home":
            version = 1
        elif action == "end":
            version = timeline.last
        elif action == "goto":
            version = _ask_version(window, timeline, version)


def run(timeline: Timeline, start: int | None = None) -> None:
    """Show ``timeline`` interactively from version ``start`` (default: the first)."""
    os.environ.setdefault("ESCDELAY", "50")  # a lone Esc need not wait a second
    curses.wrapper(_loop, timeline, 1 if start is None else start)
