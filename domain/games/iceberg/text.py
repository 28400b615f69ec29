"""Iceberg as a 5x5 grid of tiles, each drawn as two text rows.

A face-down tile shows its 2x2 squares (``.`` empty, a digit for a seat's coin); a face-up
tile its value and suit initial over the coins on it; a removed tile is blank; ``()`` the hole.
The axes carry both coordinates actions use: tiles ``[x, y]`` (0-4) and squares ``[x, y]``
(0-9). Seats are named, the last move and the outcome said in words, lines fit 80 columns.

Drawn from the scene only (the view, never the board), for ``floe replay show`` and
``step``; the bundle exports it as ``GAME.text``. The words (``describe``, ``pending_words``…)
are shared with ``svg.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.engine.game import Scene
from domain.pictures.text import caption, paint
from domain.pictures.words import (
    humanize,
    listing,
    move_line,
    outcome_line,
    pair,
    pending_line,
    wrap_all,
)

GRID = 5
WIDTH = 6  # inner characters per tile
PHASES = {
    "deal": "dealing the tiles",
    "start": "placing the starting coins",
    "play": "play",
    "over": "game over",
}


def position(pos: Mapping[str, Any]) -> str:
    """``{"square": [3, 3]}`` as ``square [3, 3]``, ``{"tile": [1, 2]}`` as ``tile [1, 2]``."""
    for kind in ("square", "tile"):
        if isinstance(pos, Mapping) and kind in pos:
            return f"{kind} {pair(pos[kind])}"
    return "?"


def describe(action: Mapping[str, Any]) -> str | None:
    """An Iceberg action in words, naming squares and tiles as the action does (None for a
    type it has no words for: ``move_line`` says its type)."""
    kind = action.get("type")
    if kind == "place_start":
        return f"place a starting coin on square {pair(action['square'])}"
    if kind == "play":
        return f"play a coin onto {position(action['to'])}"
    if kind == "move":
        return f"move a coin from {position(action['from'])} to {position(action['to'])}"
    if kind == "flip":
        return f"flip tile {pair(action['tile'])}"
    if kind == "roll":
        return "roll the die"
    if kind == "remove_tile":
        return f"remove tile {pair(action['tile'])}"
    if kind == "keep_group":
        return f"keep the group with tile {pair(action['tile'])}"
    return None


def moved(scene: Scene) -> set[tuple[str, int, int]]:
    """The squares and tiles the last move names, as ``(kind, x, y)``."""
    if scene.move is None:
        return set()
    action = scene.move.action
    out: set[tuple[str, int, int]] = set()
    if isinstance(action.get("square"), list):
        out.add(("square", int(action["square"][0]), int(action["square"][1])))
    if isinstance(action.get("tile"), list):
        out.add(("tile", int(action["tile"][0]), int(action["tile"][1])))
    for key in ("from", "to"):
        pos = action.get(key)
        for kind in ("square", "tile"):
            if isinstance(pos, Mapping) and isinstance(pos.get(kind), list):
                out.add((kind, int(pos[kind][0]), int(pos[kind][1])))
    return out


def last_move(scene: Scene) -> str | None:
    return move_line(scene, describe)


def result(scene: Scene) -> str | None:
    return outcome_line(scene)


def pending_words(scene: Scene) -> str | None:
    """The choice the roller owes, in words, or None."""
    return pending_line(scene, _owed)


def _owed(who: str, pending: Mapping[str, Any]) -> str | None:
    if pending["type"] == "remove_tile":
        tiles = listing((pair(t) for t in pending["tiles"]), "or")
        return f"{who} rolled {pending['die']} and picks a tile to remove: {tiles}"
    if pending["type"] == "keep_group":
        groups = listing(
            ("group " + ", ".join(pair(t) for t in g) for g in pending["groups"]), "or"
        )
        return f"{who} picks which group stays: {groups}"
    return None


def _coins(state: Mapping[str, Any]) -> dict[tuple[str, int, int], list[int]]:
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


def _cell(tile: Mapping[str, Any] | None, coins: Any, tx: int, ty: int, c: bool) -> list[str]:
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


def _grid(state: Mapping[str, Any], colour: bool) -> list[str]:
    tiles = {(t["tile"][0], t["tile"][1]): t for t in state["tiles"]}
    coins = _coins(state)
    rule = "+" + ("-" * WIDTH + "+") * GRID
    lines = [
        "tile    " + "".join(f"{x:^{WIDTH + 1}}" for x in range(GRID)),
        "square  " + "".join(f"{2 * x:>2}  {2 * x + 1:<2} " for x in range(GRID)),
        "       " + rule,
    ]
    for ty in range(GRID):
        cells = [_cell(tiles.get((tx, ty)), coins, tx, ty, colour) for tx in range(GRID)]
        for row in range(2):
            prefix = f"{ty:>3} {2 * ty + row:>2} " if row == 0 else f"    {2 * ty + row:>2} "
            lines.append(prefix + "|" + "|".join(cell[row] for cell in cells) + "|")
        lines.append("       " + rule)
    return lines


def _players(scene: Scene, colour: bool) -> list[str]:
    state = scene.view
    winners = (scene.outcome or {}).get("winners", [])
    lines = []
    for p in state["players"]:
        seat = p["seat"]
        mark = ">" if seat == state.get("current") else "*" if seat in winners else " "
        out = "; out" if p["out"] else ""
        lines.append(
            f"{mark} {seat} {paint(scene.name(seat), seat, colour)} ({p['suit']}):"
            f" {p['hand']} in hand, {p['on_board']} on the board{out}"
        )
    return lines


def render(scene: Scene, colour: bool) -> list[str]:
    """Lines picturing an Iceberg scene."""
    state = scene.view
    head = f"Iceberg: {PHASES.get(state['phase'], humanize(state['phase']))}"
    if state.get("current") is not None:
        head += ", to move: " + paint(scene.name(state["current"]), state["current"], colour)
    head += f", idle turns {state['idle_turns']} of {state['idle_turn_limit']}"
    if state.get("awaiting_die"):
        head += ", waiting for the die"
    lines = [head, *caption(result(scene), last_move(scene), pending_words(scene))]
    lines += ["", *_grid(state, colour), ""]
    lines += [
        "key: face-down tile: its 4 squares (. empty, a digit: that seat's coin);",
        "  face-up: value + suit (s suns, m moons, c crowns, a arms) over its coins;",
        "  blank: removed; (): the hole; axes: outer numbers are tiles [x, y],",
        "  inner numbers squares [x, y]. Seats (* won, > to move):",
    ]
    lines += _players(scene, colour)
    return wrap_all(lines)
