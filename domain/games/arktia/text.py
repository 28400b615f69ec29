"""Arktia as an ASCII hex map: two text rows per hex row, offset by half a cell per row.

A stack reads bottom to top as size and seat pairs, ``T1D0G2`` (sizes G, D, T; seats by
number, ``n`` neutral); ``.`` is an empty tile and ``~~`` a melted hole. Under each hex stands
its ``q,r``, the ``[q, r]`` actions name it by. Seats are named, the last move and the outcome
are said in words, and every line fits 80 columns.

Drawn from the scene only (the view, never the board), for ``floe replay show`` and
``step``; the bundle exports it as ``GAME.text``. The words (``describe``, ``ENDED``…) are
shared with ``svg.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.engine.game import Scene
from domain.pictures.text import caption, paint
from domain.pictures.words import humanize, move_line, outcome_line, pair, wrap_all

CELL = 8  # characters per hex; rows shift by half of it
SIZE_NAMES = {"T": "Torus", "D": "Diskus", "G": "Globus"}
#: The sizes, largest first, as people read them.
SIZE_WORDS = (
    ("T", "Torus (large ring)"),
    ("D", "Diskus (medium disc)"),
    ("G", "Globus (small ball)"),
)
PHASES = {
    "neutral": "neutral pieces are placed",
    "round1": "opening round 1",
    "round2": "opening round 2",
    "play": "play",
    "over": "game over",
}
#: Why a seat's game ended (the view's ``ended`` codes), in words.
ENDED = {
    "no_action": "out: could neither place nor move",
    "cannot_melt": "out: had to melt, but no tile could melt",
    "too_few": "out: one or no moogloo left on the board",
    "retired": "retired",
    "turn_limit": "stopped at the turn limit",
}
UNITS = {"G": "its Globus", "DG": "its Diskus and Globus", "T": "its Torus", "D": "its Diskus"}


def colour_name(scene: Scene, colour: object) -> str:
    """A piece colour as people say it: a seat's name, or ``neutral``."""
    return "neutral" if colour == "neutral" else scene.name(colour)


def describe(scene: Scene, action: Mapping[str, Any]) -> str | None:
    """An Arktia action in words, naming tiles as the action does: ``place T at [0, 0]``
    (None for a type it has no words for: ``move_line`` says its type)."""
    kind = action.get("type")
    if kind == "place":
        size = str(action.get("size"))
        return f"place {size} ({SIZE_NAMES.get(size, size)}) at {pair(action['tile'])}"
    if kind == "move":
        unit = str(action.get("unit"))
        what = "the whole stack" if unit == "all" else UNITS.get(unit, humanize(unit))
        return f"move {what} from {pair(action['from'])} to {pair(action['to'])}"
    if kind == "keep_group":
        whose = colour_name(scene, action.get("colour"))
        return f"keep the {whose} group at {pair(action['tile'])}"
    if kind == "melt":
        return f"melt {pair(action['tile'])}"
    if kind == "retire":
        return "retire"
    return None


def moved_tiles(scene: Scene) -> set[tuple[int, int]]:
    """The tiles the last move names (placed on, moved from and to, kept, melted)."""
    if scene.move is None:
        return set()
    action = scene.move.action
    return {
        (int(action[key][0]), int(action[key][1]))
        for key in ("tile", "from", "to")
        if isinstance(action.get(key), list) and len(action[key]) == 2
    }


def last_move(scene: Scene) -> str | None:
    return move_line(scene, lambda action: describe(scene, action))


def result(scene: Scene) -> str | None:
    return outcome_line(scene)


def _code(stack: Mapping[str, Any]) -> str:
    return "".join(
        f"{p['size']}{'n' if p['colour'] == 'neutral' else p['colour']}" for p in stack["pieces"]
    )


def _map(scene: Scene, colour: bool) -> list[str]:
    state = scene.view
    tiles = {(t[0], t[1]) for t in state["tiles"]}
    holes = {(t[0], t[1]) for t in state["holes"]}
    stacks = {(s["tile"][0], s["tile"][1]): s for s in state["stacks"]}
    moved = moved_tiles(scene)
    shape = tiles | holes
    if not shape:
        return ["(no tiles)"]
    xmin = min(2 * q + r for q, r in shape)
    lines = []
    for r in sorted({r for _, r in shape}):
        cells = sorted((2 * q + r - xmin, q) for q, rr in shape if rr == r)
        line, label, width = "", "", 0
        for x, q in cells:
            column = x * CELL // 2
            line += " " * (column - width)
            label += " " * (column - width)
            stack = stacks.get((q, r))
            if (q, r) in holes:
                body = "~~".center(CELL - 2)
            elif stack is None:
                body = ".".center(CELL - 2)
            else:
                body = _code(stack).center(CELL - 2)
            ends = "<>" if (q, r) in moved else "[]" if (q, r) in tiles else "  "
            cell = f"{ends[0]}{body}{ends[1]}"
            line += paint(cell, stack["controller"] if stack else None, colour)
            label += f"{q},{r}".center(CELL)
            width = column + CELL
        lines += [f"  {line}".rstrip(), f"  {label}".rstrip()]
    return lines


def _players(scene: Scene, colour: bool) -> list[str]:
    state = scene.view
    lines = []
    for p in state["players"]:
        seat = p["seat"]
        mark = ">" if seat == state.get("current") else " "
        reserve = " ".join(f"{k}{p['reserve'].get(k, 0)}" for k in ("T", "D", "G"))
        line = (
            f"{mark} {paint(scene.name(seat), seat, colour)} ({seat}): score {p['score']};"
            f" on board {p['on_board']}; reserve {reserve}"
        )
        if any(p["neutral_reserve"].values()):
            neutral = " ".join(f"{k}{p['neutral_reserve'].get(k, 0)}" for k in ("T", "D", "G"))
            line += f"; neutral reserve {neutral}"
        line += f"; kept {p['kept']}, lost {p['lost']}, melted {p['melted']}"
        if p.get("ended"):
            line += f"; {ENDED.get(p['ended'], humanize(p['ended']))}"
        lines.append(line)
    return lines


def render(scene: Scene, colour: bool) -> list[str]:
    """Lines picturing an Arktia scene."""
    state = scene.view
    current = state.get("current")
    phase = PHASES.get(state["phase"], humanize(state["phase"]))
    head = f"Arktia: {phase}, turn {state['turn']} of {state['turn_limit']}"
    if current is not None and state["phase"] != "over":
        head += ", to move: " + paint(scene.name(current), current, colour)
    lines = [head, *caption(result(scene), last_move(scene))]
    lines += ["", *_map(scene, colour), ""]
    lines += [
        "key: under each hex its q,r (actions name it [q, r]); < > the last move;",
        "  . empty tile; ~~ melted hole; a stack reads bottom to top as size + seat",
        f"  (n neutral): T1D0 is {scene.name(1)}'s Torus with {scene.name(0)}'s Diskus on it",
        "sizes: " + ", ".join(f"{size} {words}" for size, words in SIZE_WORDS),
    ]
    lines += _players(scene, colour)
    return wrap_all(lines)
