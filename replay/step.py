"""``floe replay step``: walk through a game's versions in the terminal.

``frame`` lays out one frame as lines (pure, so tests need no terminal); ``run`` is the
curses loop, which only maps keys to versions and scroll offsets and paints what ``frame``
returns.

A frame keeps the header, the banner (why some versions cannot be shown, or that the log is
incomplete), the event (in words too when it is a resignation, a timeout or an organizer's
decision), whose turn it is and, for a game with a clock, every seat's clock at the top, and
the key help at the bottom; the board gets the rows between. A board taller or wider than
that scrolls (Up/Down or j/k a row, PgUp/PgDn a page, < and > half a screen sideways), with a
line above it saying which rows and columns are in view, so nothing is lost on a small
terminal.
"""

from __future__ import annotations

import contextlib
import curses
import json
import os
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.engine.clock import iso
from domain.engine.departures import DECISION, RESIGN, TIMEOUT
from domain.games import GAMES
from domain.pictures.words import who_wins
from replay.timeline import Timeline, printable

HELP = "<-/-> h/l step  Home/End  g go to  Up/Dn j/k PgUp/PgDn scroll  < > pan  q quit"
#: The key help on screens too narrow for ``HELP``: the first that fits.
SHORT_HELPS = (
    "h/l step  j/k PgUp/PgDn scroll  < > pan  g go to  q quit",
    "h/l step j/k scroll < > pan q quit",
    "h/l j/k < > g q quit",
)
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
    "[A": "up",
    "OA": "up",
    "[B": "down",
    "OB": "down",
    "[5~": "pageup",
    "[6~": "pagedown",
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
    curses.KEY_UP: "up",
    ord("k"): "up",
    curses.KEY_DOWN: "down",
    ord("j"): "down",
    curses.KEY_PPAGE: "pageup",
    curses.KEY_NPAGE: "pagedown",
    ord("<"): "pan left",
    ord(","): "pan left",
    ord(">"): "pan right",
    ord("."): "pan right",
}


def compact(data: Any) -> str:
    """Event data as short one-line JSON."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def outcome_line(timeline: Timeline, version: int) -> str:
    """Whose turn it is, or how the game ended; then the seats that have left, and how."""
    state = timeline.state(version)
    gone = timeline.departures(version)
    left = "  left: " + ", ".join(f"{timeline.seat_name(s)} {how}" for s, how in gone.items())
    left = left if gone else ""
    if state.outcome is not None:
        winners = ", ".join(timeline.seat_name(w) for w in state.outcome.winners) or "nobody"
        scores = " ".join(f"{s}:{p}" for s, p in sorted(state.outcome.scores.items()))
        parts = [f"over: winners {winners}"]
        parts += [f"scores {scores}"] if scores else []
        parts += [compact(dict(state.outcome.extra))] if state.outcome.extra else []
        return "  ".join(parts) + left
    acting = timeline.to_act(version)
    if acting:
        return "to act: " + ", ".join(timeline.seat_name(s) for s in acting) + left
    return f"to act: nobody ({timeline.status(version)})" + left


def duration(seconds: int) -> str:
    """Seconds as a clock shows them: ``0:30``, ``12:05``, ``1:00:00``."""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def clock_line(timeline: Timeline, version: int) -> str | None:
    """Every seat's clock at ``version`` (None for a game without a clock), as the API's
    ``clock`` gives it: what the seat had at its turn's start (or after its last action)
    and, for a seat to act, its deadline: the last second at which it may still act."""
    clocks = timeline.state(version).clocks
    if clocks is None:
        return None
    acting = timeline.to_act(version)  # none once over, whatever the clocks last held
    spec = clocks.spec
    if spec.kind == "per_move":
        kind = f"per move, {duration(spec.allowance_s)} a turn"
    else:
        kind = f"fischer, {duration(spec.allowance_s)} + {spec.increment_s}s a move"
    seats = []
    for seat, clock in enumerate(clocks.seats):
        text = f"{timeline.seat_name(seat)} {duration(clock.remaining_s)} left"
        if clock.deadline is not None and seat in acting:
            text += f", to act by {iso(clock.deadline)}"
        seats.append(text)
    return f"clocks ({kind}): " + "; ".join(seats)


def event_words(timeline: Timeline, version: int) -> str | None:
    """A resignation, a timeout or an organizer's decision in words (``seat 1 (bo) timed
    out``); None for any other event, which its type and data say well enough."""
    stored: Mapping[str, Any] = timeline.event(version)
    kind, data = stored.get("type"), stored.get("data")
    data = data if isinstance(data, Mapping) else {}
    if kind == RESIGN:
        return f"{timeline.seat_name(stored.get('actor'))} resigned"
    if kind == TIMEOUT:
        return f"{timeline.seat_name(data.get('seat'))} timed out"
    if kind != DECISION:
        return None
    reason = data.get("reason")
    if data.get("decision") == "forfeit":
        return f"the organizer forfeited {timeline.seat_name(data.get('seat'))}: {reason}"
    winners = data.get("winners")
    names = [timeline.seat_name(w) for w in winners] if isinstance(winners, list) else []
    result = who_wins(names, nobody="nobody wins", shared="win")
    return f"the organizer decided the result: {result} ({reason})"


def event_lines(timeline: Timeline, version: int) -> list[str]:
    """The event that made ``version``: type, actor, time, what it means in words when its
    data alone would not say (a resignation, a timeout, a decision), and its data."""
    stored: Mapping[str, Any] = timeline.event(version)
    who = timeline.seat_name(stored.get("actor"))
    words = event_words(timeline, version)
    return [
        f"event {version}: {stored.get('type')} by {who} at {stored.get('at')}",
        *([f"  {words}"] if words is not None else []),
        f"  data {compact(stored.get('data'))}",
    ]


def header(timeline: Timeline, version: int) -> str:
    """The first line: version N/M (first, so a narrow terminal keeps it), game, status."""
    return (
        f"version {version}/{timeline.last}  {timeline.game_id} ({timeline.game})  "
        f"status {timeline.status(version)}"
    )


@dataclass(frozen=True, slots=True)
class Frame:
    """One screenful: its lines; the board's first row and column in view (the scroll offsets
    asked for, pulled into range); ``page``, how many board rows the screen holds; and the
    whole board's size, ``rows`` by ``wide`` visible characters."""

    lines: list[str]
    top: int = 0
    left: int = 0
    page: int = 0
    rows: int = 0
    wide: int = 0


def frame(
    timeline: Timeline,
    version: int,
    width: int,
    height: int,
    *,
    prompt: str | None = None,
    colour: bool = False,
    top: int = 0,
    left: int = 0,
) -> Frame:
    """The frame for ``version``: at most ``height`` lines of at most ``width`` visible
    characters (with ``colour``, the board's ANSI seat colours do not count).

    The header comes first, then the banner, the event and whose turn it is, wrapped to the
    width; the key help (or the ``g`` prompt) comes last. The board gets the rows between,
    from board row ``top`` and column ``left``; when it does not fit, the line above it says
    which rows and columns are in view. On a screen too small for everything the top part
    gives up lines (the event data first, the header last) so the board keeps half of it.
    """
    if width <= 0 or height <= 0:
        return Frame([])
    bottom = next((h for h in (HELP, *SHORT_HELPS) if len(h) <= width), SHORT_HELPS[-1])
    if prompt is not None:
        bottom = f"go to version (1-{timeline.last}): {prompt}_"
    if height == 1:
        return Frame([bottom[:width]])
    board = GAMES[timeline.game].text(timeline.scene(version), colour)
    board = [printable(line) for line in board]
    rows = height - 1
    fixed = _top_lines(timeline, version, width, max(1, rows - min(len(board) + 1, rows // 2)))
    page = max(0, rows - len(fixed) - 1)
    wide = max((_visible(line) for line in board), default=0)
    top = max(0, min(top, len(board) - page))
    left = max(0, min(left, wide - width))
    if page == 0:
        return Frame([*fixed[:rows], bottom[:width]], top, left, 0, len(board), wide)
    ruler = ""
    if len(board) > page or wide > width:
        ruler = _ruler(top, min(len(board), top + page), len(board), left, width, wide)[:width]
    view = [_cut(line, left, width) for line in board[top : top + page]]
    return Frame([*fixed, ruler, *view, bottom[:width]], top, left, page, len(board), wide)


def _top_lines(timeline: Timeline, version: int, width: int, budget: int) -> list[str]:
    """Header, banner, event, turn and clocks, wrapped to ``width``, in at most ``budget``
    lines."""
    event, *words, data = map(printable, event_lines(timeline, version))
    clocks = clock_line(timeline, version)
    sections = {  # the later ones give up lines first when there is no room for all
        "header": [printable(header(timeline, version))[:width]],
        "banner": [
            wrapped
            for line in timeline.banner
            for wrapped in _wrap(printable(f"!! {line}"), width, indent="   ")
        ],
        "event": [row for line in (event, *words) for row in _wrap(line, width, indent="  ")],
        "turn": _wrap(printable(outcome_line(timeline, version)), width),
        "clocks": [] if clocks is None else _wrap(printable(clocks), width, indent="  "),
        "data": _chunk(data, width, indent="    "),
    }
    left = budget
    for name, lines in sections.items():
        kept = lines[: max(0, left)]
        if len(kept) < len(lines) and kept:
            kept[-1] = kept[-1][: max(0, width - 1)] + "…"
        sections[name] = kept
        left -= len(kept)
    order = ("header", "banner", "event", "data", "turn", "clocks")
    return [line for name in order for line in sections[name]]


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width``, breaking long words (compact JSON has no spaces)."""
    if len(text) <= width:
        return [text]
    indent = indent if len(indent) < width else ""
    return textwrap.wrap(
        text, width, subsequent_indent=indent, break_on_hyphens=False, drop_whitespace=False
    ) or [""]


def _chunk(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` cut into lines of ``width``, the later ones indented (for compact JSON)."""
    indent = indent if len(indent) < width // 2 else ""
    lines, text = [text[:width]], text[width:]
    while text:
        lines.append(indent + text[: width - len(indent)])
        text = text[width - len(indent) :]
    return lines


def _ruler(first: int, end: int, rows: int, left: int, width: int, wide: int) -> str:
    """Which part of the board is in view, and the keys that move it (shorter when narrow:
    ``rows 1-16/33 cols 1-40/80``)."""
    last = min(wide, left + width)
    parts, short = [], []
    if end - first < rows:
        parts.append(f"rows {first + 1}-{end} of {rows} (Up/Dn PgUp/PgDn)")
        short.append(f"rows {first + 1}-{end}/{rows}")
    if width < wide:
        parts.append(f"columns {left + 1}-{last} of {wide} (< >)")
        short.append(f"cols {left + 1}-{last}/{wide}")
    full = "-- board " + ", ".join(parts) + " --"
    return full if len(full) <= width else " ".join(short)


def _visible(line: str) -> int:
    return len(_ANSI.sub("", line))


def _cut(line: str, start: int, width: int) -> str:
    """Visible columns ``start`` to ``start + width`` of ``line``, ANSI colours kept."""
    out, column, active = [], 0, ""
    for index, part in enumerate(_ANSI.split(line)):
        if index % 2:
            active = "" if part in ("", "0") else part
            if column >= start:
                out.append(f"\x1b[{part}m")
            continue
        begin, end = max(0, start - column), max(0, start + width - column)
        piece = part[begin:end]
        if piece and column < start and active:
            out.append(f"\x1b[{active}m")  # the colour in force where the cut begins
        out.append(piece)
        column += len(part)
        if column >= start + width:
            break
    text = "".join(out)
    return text + "\x1b[0m" if "\x1b[" in text and not text.endswith("\x1b[0m") else text


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


def _ask_version(window: Any, timeline: Timeline, version: int, top: int, left: int) -> int:
    """Read digits after ``g`` until Enter (jump) or Escape (stay)."""
    typed = ""
    while True:
        height, width = window.getmaxyx()
        shown = frame(timeline, version, width, height, prompt=typed, top=top, left=left)
        _paint(window, shown.lines)
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
    top = left = 0  # the board's scroll offsets, kept while stepping
    while True:
        height, width = window.getmaxyx()
        shown = frame(timeline, version, width, height, colour=colour, top=top, left=left)
        top, left = shown.top, shown.left
        _paint(window, shown.lines)
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
            version = _ask_version(window, timeline, version, top, left)
        elif action in ("up", "down", "pageup", "pagedown"):
            page = max(1, shown.page - 1)  # a page less one row, to keep the eye's place
            top = max(0, top + {"up": -1, "down": 1, "pageup": -page, "pagedown": page}[action])
        elif action in ("pan left", "pan right"):
            left = max(0, left + (1 if action == "pan right" else -1) * max(1, width // 2))


def run(timeline: Timeline, start: int | None = None) -> None:
    """Show ``timeline`` interactively from version ``start`` (default: the first)."""
    os.environ.setdefault("ESCDELAY", "50")  # a lone Esc need not wait a second
    curses.wrapper(_loop, timeline, 1 if start is None else start)
