"""Iceberg as SVG: a 5×5 field of tiles around the hole, coins in seat colours, hands below.

A face-down tile is drawn as its 2×2 squares and carries no text at all (the view has no
value for it anyway); a face-up tile shows its value and suit; a removed tile is open water.
Coins stand on squares of face-down tiles or, several together, on a face-up tile.

Drawn from the view JSON only (never the board), so it shows nothing the viewer may not
see; the bundle exports it as ``GAME.svg``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.pictures.svg import HEADER, document, el, group, seat_colour, text

CELL = 44.0  # one square; a tile is 2×2 squares
TILE = 2 * CELL
GRID = 5
MARGIN = 16.0
ROW = 22.0
#: Suit -> the seat that owns it (and so its colour).
SUITS = ("suns", "moons", "crowns", "arms")
SYMBOLS = {"suns": "☀", "moons": "☾", "crowns": "♛", "arms": "⚔"}
SEA = "#2f6f9f"


def _origin() -> tuple[float, float]:
    return (MARGIN, HEADER + MARGIN)


def _face_down(tx: int, ty: int, highlight: bool) -> str:
    ox, oy = _origin()
    x, y = ox + tx * TILE, oy + ty * TILE
    squares = [
        el(
            "rect",
            {
                "class": "square",
                "x": x + dx * CELL + 2,
                "y": y + dy * CELL + 2,
                "width": CELL - 4,
                "height": CELL - 4,
                "rx": 3,
                "fill": "#eef5f9",
                "stroke": "#b9cfdc",
            },
        )
        for dy in (0, 1)
        for dx in (0, 1)
    ]
    frame = el(
        "rect",
        {
            "x": x + 1,
            "y": y + 1,
            "width": TILE - 2,
            "height": TILE - 2,
            "rx": 4,
            "fill": "#d9e8f0",
            "stroke": "#ffd54f" if highlight else "#8fb3c7",
            "stroke_width": 4 if highlight else 1.5,
        },
    )
    return group("tile face-down", [frame, *squares], data_tile=f"{tx},{ty}")


def _face_up(tile: Mapping[str, Any], highlight: bool) -> str:
    tx, ty = int(tile["tile"][0]), int(tile["tile"][1])
    ox, oy = _origin()
    x, y = ox + tx * TILE, oy + ty * TILE
    suit = str(tile.get("suit", ""))
    colour = seat_colour(SUITS.index(suit)) if suit in SUITS else "#333333"
    parts = [
        el(
            "rect",
            {
                "x": x + 1,
                "y": y + 1,
                "width": TILE - 2,
                "height": TILE - 2,
                "rx": 4,
                "fill": "#ffffff",
                "stroke": "#ffd54f" if highlight else colour,
                "stroke_width": 4 if highlight else 2.5,
            },
        ),
        text(
            x + TILE / 2,
            y + 34,
            tile.get("value", "?"),
            class_="value",
            text_anchor="middle",
            font_size=28,
            font_weight="bold",
            fill=colour,
        ),
        text(
            x + TILE / 2,
            y + 50,
            f"{SYMBOLS.get(suit, '')} {suit}",
            class_="suit",
            text_anchor="middle",
            font_size=11,
            fill=colour,
        ),
    ]
    return group("tile face-up", parts, data_tile=f"{tx},{ty}")


def _coin(cx: float, cy: float, seat: Any, radius: float) -> str:
    return el(
        "circle",
        {
            "class": "coin",
            "cx": cx,
            "cy": cy,
            "r": radius,
            "fill": seat_colour(seat),
            "stroke": "#ffffff",
            "stroke_width": 2,
            "data_seat": seat,
        },
    )


def _coins(state: Mapping[str, Any]) -> list[str]:
    ox, oy = _origin()
    out: list[str] = []
    on_tile: dict[tuple[int, int], list[Any]] = {}
    for coin in state["coins"]:
        pos = coin["position"]
        if "square" in pos:
            sx, sy = pos["square"]
            out.append(_coin(ox + (sx + 0.5) * CELL, oy + (sy + 0.5) * CELL, coin["seat"], 13))
        else:
            on_tile.setdefault((int(pos["tile"][0]), int(pos["tile"][1])), []).append(coin["seat"])
    for (tx, ty), seats in sorted(on_tile.items()):
        for i, seat in enumerate(seats):
            col, row = i % 4, i // 4
            cx = ox + tx * TILE + 17 + col * 18
            cy = oy + ty * TILE + TILE - 14 - row * 16
            out.append(_coin(cx, cy, seat, 8))
    return out


def _pending(pending: Mapping[str, Any] | None) -> tuple[set[tuple[int, int]], str]:
    if not pending:
        return set(), ""
    if pending["type"] == "remove_tile":
        tiles = {(int(t[0]), int(t[1])) for t in pending["tiles"]}
        return tiles, f"seat {pending['seat']} picks a tile to remove (die {pending['die']})"
    tiles = {(int(t[0]), int(t[1])) for g in pending["groups"] for t in g}
    return tiles, f"seat {pending['seat']} picks which group stays"


def _panel(state: Mapping[str, Any], top: float, note: str) -> list[str]:
    status = f"phase {state['phase']} · idle turns {state['idle_turns']}/{state['idle_turn_limit']}"
    if state.get("awaiting_die"):
        status += " · awaiting the die"
    rows = [text(MARGIN, top, status, font_size=13)]
    if note:
        rows.append(text(MARGIN, top + ROW, note, font_size=13, fill="#8a6d00"))
    base = top + ROW * (2 if note else 1)
    for i, player in enumerate(state["players"]):
        y = base + ROW * i
        seat = player["seat"]
        line = (
            f"{'▶ ' if seat == state.get('current') else ''}seat {seat} "
            f"({SYMBOLS.get(player['suit'], '')} {player['suit']}): hand {player['hand']}"
            f" · on board {player['on_board']}{' · out' if player['out'] else ''}"
        )
        swatch = _coin(MARGIN + 6, y - 5, seat, 6)
        rows.append(group("hand", [swatch, text(MARGIN + 18, y, line, font_size=13)]))
    return rows


def render(state: Mapping[str, Any], title: str) -> str:
    """The SVG for an Iceberg view."""
    ox, oy = _origin()
    highlight, note = _pending(state.get("pending"))
    body = [
        el(
            "rect",
            {
                "class": "sea",
                "x": ox - 6,
                "y": oy - 6,
                "width": GRID * TILE + 12,
                "height": GRID * TILE + 12,
                "rx": 6,
                "fill": SEA,
            },
        )
    ]
    hx, hy = int(state["hole"][0]), int(state["hole"][1])
    body.append(
        el(
            "rect",
            {
                "class": "hole",
                "x": ox + hx * TILE + 4,
                "y": oy + hy * TILE + 4,
                "width": TILE - 8,
                "height": TILE - 8,
                "rx": 10,
                "fill": "#0d2c44",
            },
        )
    )
    for tile in state["tiles"]:
        xy = (int(tile["tile"][0]), int(tile["tile"][1]))
        if tile["state"] == "face_down":
            body.append(_face_down(*xy, xy in highlight))
        elif tile["state"] == "face_up":
            body.append(_face_up(tile, xy in highlight))
    body.extend(_coins(state))
    top = oy + GRID * TILE + MARGIN + 14
    body.extend(_panel(state, top, note))
    height = top + ROW * (len(state["players"]) + (2 if note else 1)) + MARGIN
    return document(GRID * TILE + 2 * MARGIN + 120, height, title, body)
