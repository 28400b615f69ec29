"""Arktia as an ASCII hex map: one text row per hex row, offset by half a cell per row.

A stack reads bottom to top as size and colour pairs, ``T1D0G2`` (sizes G, D, T; colours
seat numbers, ``n`` neutral); ``.`` is an empty tile and ``~~`` a melted hole.

Drawn from the view JSON only (never the board), for ``floe replay show`` and ``step``; the
bundle exports it as ``GAME.text``.
"""

from __future__ import annotations

from typing import Any

from domain.pictures.text import paint

CELL = 8  # characters per hex; rows shift by half of it


def _code(stack: dict[str, Any]) -> str:
    return "".join(
        f"{p['size']}{'n' if p['colour'] == 'neutral' else p['colour']}" for p in stack["pieces"]
    )


def _map(state: dict[str, Any], colour: bool) -> list[str]:
    tiles = {(t[0], t[1]) for t in state["tiles"]}
    holes = {(t[0], t[1]) for t in state["holes"]}
    stacks = {(s["tile"][0], s["tile"][1]): s for s in state["stacks"]}
    shape = tiles | holes
    if not shape:
        return ["(no tiles)"]
    xmin = min(2 * q + r for q, r in shape)
    lines = []
    for r in sorted({r for _, r in shape}):
        cells = sorted((2 * q + r - xmin, q) for q, rr in shape if rr == r)
        line, width = "", 0
        for x, q in cells:
            column = x * CELL // 2
            line += " " * (column - width)
            stack = stacks.get((q, r))
            if (q, r) in holes:
                body = "~~".center(CELL - 2)
            elif stack is None:
                body = ".".center(CELL - 2)
            else:
                body = _code(stack).center(CELL - 2)
            cell = f"[{body}]" if (q, r) in tiles else f" {body} "
            line += paint(cell, stack["controller"] if stack else None, colour)
            width = column + CELL
        lines.append(f"r{r:+d} {line}".rstrip())
    return lines


def _players(state: dict[str, Any], colour: bool) -> list[str]:
    lines = []
    for p in state["players"]:
        reserve = " ".join(f"{k}{v}" for k, v in p["reserve"].items())
        neutral = " ".join(f"{k}{v}" for k, v in p["neutral_reserve"].items())
        ended = f" ({p['ended']})" if p.get("ended") else ""
        who = paint(f"seat {p['seat']}", p["seat"], colour)
        lines.append(
            f"{who}: score {p['score']}  reserve {reserve}  neutral {neutral}  "
            f"on board {p['on_board']}  kept {p['kept']} lost {p['lost']} "
            f"melted {p['melted']}{ended}"
        )
    return lines


def render(state: dict[str, Any], colour: bool) -> list[str]:
    """Lines picturing an Arktia board view."""
    current = state.get("current")
    head = f"Arktia  phase {state['phase']}  turn {state['turn']}/{state['turn_limit']}"
    if current is not None:
        head += "  current " + paint(f"seat {current}", current, colour)
    legend = "legend: [T1D0G2] stack bottom->top, size G/D/T + seat (n neutral); [ . ] empty;"
    return [head, "", *_map(state, colour), "", legend + "  ~~ hole", *_players(state, colour)]
