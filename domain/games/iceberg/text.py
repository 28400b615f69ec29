"""Iceberg as a 5x5 grid of tiles, each drawn as two text rows.

A face-down tile shows its 2x2 squares (``.`` empty, a digit for a seat's coin); a face-up
tile its value and suit initial over the coins on it; a removed tile is blank; ``()`` the hole.

Drawn from the view JSON only (never the board), for ``floe replay show`` and ``step``; the
bundle exports it as ``GAME.text``.
"""

from __future__ import annotations

from typing import Any

from domain.pictures.text import paint

GRID = 5
WIDTH = 6  # inner characters per tile


def _coins(state: dict[str, Any]) -> dict[tuple[str, int, int], list[int]]:
    at: dict[tuple[str, int, int], list[int]] = {}
    for coin in state["coins"]:
        ((kind, (x, y)),) = coin["position"].items()
        at.setdefault((kind, x, y), []).append(coin["seat"])
    return at


def _seats(seats: list[int], colour: bool) -> str:
    return "".join(paint(str(s), s, colour) for s in seats)


def _square(coins: dict[tuple[str, int, int], list[int]], x: int, y: int, c: bool) -> str:
    seats = coins.get(("square", x, y), [])
    return _seats(seats, c) if seats else "."


def _cell(tile: dict[str, Any] | None, coins: Any, tx: int, ty: int, c: bool) -> list[str]:
    """The two rows of tile ``(tx, ty)``, each ``WIDTH`` visible characters."""
    if tile is None:
        return ["  ()  ", "  ()  "]
    if tile["state"] == "removed":
        return [" " * WIDTH, " " * WIDTH]
    if tile["state"] == "face_down":
        x, y = 2 * tx, 2 * ty
        top = f" {_square(coins, x, y, c)}  {_square(coins, x + 1, y, c)} "
        bottom = f" {_square(coins, x, y + 1, c)}  {_square(coins, x + 1, y + 1, c)} "
        return [top, bottom]
    seats = coins.get(("tile", tx, ty), [])
    label = f"{tile['value']}{tile['suit'][0]}".center(WIDTH)
    pad = " " * max(0, (WIDTH - len(seats)) // 2)
    below = pad + _seats(seats, c) + " " * max(0, WIDTH - len(pad) - len(seats))
    return [label, below]


def _grid(state: dict[str, Any], colour: bool) -> list[str]:
    tiles = {(t["tile"][0], t["tile"][1]): t for t in state["tiles"]}
    coins = _coins(state)
    rule = "+" + ("-" * WIDTH + "+") * GRID
    lines = ["    " + "".join(f"{x:^{WIDTH + 1}}" for x in range(GRID)), "   " + rule]
    for ty in range(GRID):
        cells = [_cell(tiles.get((tx, ty)), coins, tx, ty, colour) for tx in range(GRID)]
        for row in range(2):
            prefix = f"{ty:>2} " if row == 0 else "   "
            lines.append(prefix + "|" + "|".join(cell[row] for cell in cells) + "|")
        lines.append("   " + rule)
    return lines


def _players(state: dict[str, Any], colour: bool) -> list[str]:
    lines = []
    for p in state["players"]:
        out = "  out" if p["out"] else ""
        who = paint(f"seat {p['seat']}", p["seat"], colour)
        lines.append(f"{who} ({p['suit']}): hand {p['hand']}  on board {p['on_board']}{out}")
    return lines


def render(state: dict[str, Any], colour: bool) -> list[str]:
    """Lines picturing an Iceberg board view."""
    head = f"Iceberg  phase {state['phase']}"
    if state.get("current") is not None:
        head += "  current " + paint(f"seat {state['current']}", state["current"], colour)
    head += f"  idle {state['idle_turns']}/{state['idle_turn_limit']}"
    if state.get("awaiting_die"):
        head += "  awaiting die"
    lines = [head, "", *_grid(state, colour), ""]
    lines.append("legend: face-down: its 4 squares (. empty, digit: a seat's coin);")
    lines.append("  face-up: value + suit (s suns m moons c crowns a arms) over its coins;")
    lines.append("  blank: removed; (): the hole")
    lines.extend(_players(state, colour))
    pending = state.get("pending")
    if pending:
        detail = {k: v for k, v in pending.items() if k not in ("type", "seat")}
        lines.append(f"pending: {pending['type']} by seat {pending['seat']} {detail}")
    return lines
