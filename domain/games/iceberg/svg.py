"""Iceberg as SVG: a 5×5 field of tiles around the hole, coins in seat colours, hands below.

A face-down tile is drawn as its 2×2 squares and carries no text at all (the view has no
value for it anyway); a face-up tile shows its value and suit; a removed tile is open water.
Coins stand on squares of face-down tiles or, several together, on a face-up tile. The axes
carry both coordinates actions use: tiles (bold, 0-4) and squares (small, 0-9); the squares
and tiles the last move names are outlined in ``MARK``. Under the board: the outcome, the last
move, the choice owed, and each seat by name with its coin colour.

Places a person may tap carry ``data-pick`` (``draw.pick``): every square of a face-down
tile ``{"square": [sx, sy]}``, every tile ``{"tile": [tx, ty]}``, and every coin the place it
stands on, so a coin never hides what is under it. ``roll`` names no place.

Drawn from the scene only (the view, never the board), so it shows nothing the viewer may
not see; the bundle exports it as ``GAME.svg``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.engine.game import Scene
from domain.games.iceberg.text import PHASES, last_move, moved, pending_words, result
from domain.pictures import svg as draw
from domain.pictures.words import humanize

CELL = 44.0  # one square; a tile is 2×2 squares
TILE = 2 * CELL
GRID = 5
MARGIN = 16.0
AXIS = 34.0  # room for the tile and square numbers left of and above the board
WIDTH = 580.0
#: Suit -> the seat that owns it (and so its colour).
SUITS = ("suns", "moons", "crowns", "arms")
SYMBOLS = {"suns": "☀", "moons": "☾", "crowns": "♛", "arms": "⚔"}
SEA = "#2f6f9f"
#: The outline of the tiles a pending choice is between.
GOLD = "#ffd54f"
#: What the picture's signs mean, under the seats.
KEY = (
    "Bold numbers: tiles [x, y] · small numbers: squares [x, y] · face-down tiles show"
    " their 4 squares · gold outline: tiles to choose from"
)


def _origin() -> tuple[float, float]:
    return (MARGIN + AXIS, draw.HEADER + MARGIN + AXIS)


def _corner(tx: int, ty: int) -> tuple[float, float]:
    """The top left corner of tile ``(tx, ty)``."""
    ox, oy = _origin()
    return (ox + tx * TILE, oy + ty * TILE)


def _frame(x: float, y: float, fill: str, stroke: str, width: float, highlight: bool) -> str:
    """A tile's rounded frame, in ``GOLD`` when a pending choice is between tiles."""
    if highlight:
        stroke, width = GOLD, 4
    return draw.rect(
        x + 1, y + 1, TILE - 2, TILE - 2, rx=4, fill=fill, stroke=stroke, stroke_width=width
    )


def _face_down(tx: int, ty: int, highlight: bool) -> str:
    x, y = _corner(tx, ty)
    squares = [
        draw.rect(
            x + dx * CELL + 2,
            y + dy * CELL + 2,
            CELL - 4,
            CELL - 4,
            class_="square",
            rx=3,
            fill="#eef5f9",
            stroke="#b9cfdc",
            **draw.pick({"square": [2 * tx + dx, 2 * ty + dy]}),
        )
        for dy in (0, 1)
        for dx in (0, 1)
    ]
    frame = _frame(x, y, "#d9e8f0", "#8fb3c7", 1.5, highlight)
    return draw.group(
        "tile face-down", [frame, *squares], data_tile=f"{tx},{ty}", **_tile_pick(tx, ty)
    )


def _tile_pick(tx: int, ty: int) -> dict[str, str]:
    return draw.pick({"tile": [tx, ty]})


def _face_up(tile: Mapping[str, Any], highlight: bool) -> str:
    tx, ty = int(tile["tile"][0]), int(tile["tile"][1])
    x, y = _corner(tx, ty)
    suit = str(tile.get("suit", ""))
    colour = draw.seat_colour(SUITS.index(suit)) if suit in SUITS else "#333333"
    value = tile.get("value", "?")
    parts = [
        _frame(x, y, "#ffffff", colour, 2.5, highlight),
        draw.text(
            x + TILE / 2,
            y + 34,
            value,
            class_="value",
            text_anchor="middle",
            font_size=28,
            font_weight="bold",
            fill=colour,
        ),
        draw.text(
            x + TILE / 2,
            y + 50,
            f"{SYMBOLS.get(suit, '')} {suit}",
            class_="suit",
            text_anchor="middle",
            font_size=11,
            fill=colour,
        ),
    ]
    return draw.group("tile face-up", parts, data_tile=f"{tx},{ty}", **_tile_pick(tx, ty))


def _coin(cx: float, cy: float, seat: Any, radius: float, place: object = None) -> str:
    """A coin in ``seat``'s colour; on the board it carries the ``place`` it stands on, so a
    tap on it finds that place (the panel's swatches carry none)."""
    fill = draw.seat_colour(seat)
    marks = {} if place is None else draw.pick(place)
    return draw.circle(
        cx,
        cy,
        radius,
        class_="coin",
        fill=fill,
        stroke="#ffffff",
        stroke_width=2,
        data_seat=seat,
        **marks,
    )


def _coins(state: Mapping[str, Any]) -> list[str]:
    ox, oy = _origin()
    out: list[str] = []
    on_tile: dict[tuple[int, int], list[Any]] = {}
    for coin in state["coins"]:
        pos = coin["position"]
        if "square" in pos:
            sx, sy = pos["square"]
            cx, cy = ox + (sx + 0.5) * CELL, oy + (sy + 0.5) * CELL
            out.append(_coin(cx, cy, coin["seat"], 13, {"square": [sx, sy]}))
        else:
            on_tile.setdefault((int(pos["tile"][0]), int(pos["tile"][1])), []).append(coin["seat"])
    for (tx, ty), seats in sorted(on_tile.items()):
        for i, seat in enumerate(seats):
            col, row = i % 4, i // 4
            cx = ox + tx * TILE + 17 + col * 18
            cy = oy + ty * TILE + TILE - 14 - row * 16
            out.append(_coin(cx, cy, seat, 8, {"tile": [tx, ty]}))
    return out


def _pending(pending: Mapping[str, Any] | None) -> set[tuple[int, int]]:
    """The tiles a pending choice is between (outlined in ``GOLD``)."""
    if not pending:
        return set()
    if pending["type"] == "remove_tile":
        return {(int(t[0]), int(t[1])) for t in pending["tiles"]}
    return {(int(t[0]), int(t[1])) for g in pending.get("groups", []) for t in g}


def _axes() -> list[str]:
    """Tile numbers (bold) and square numbers (small) above and left of the board."""
    ox, oy = _origin()
    out: list[str] = []
    for i in range(GRID):
        mid = i * TILE + TILE / 2
        bold = {"class_": "coord tile-coord", "font_size": 13, "font_weight": "bold"}
        out.append(draw.text(ox + mid, oy - 22, i, text_anchor="middle", **bold))
        out.append(draw.text(ox - 30, oy + mid + 5, i, text_anchor="middle", **bold))
    for i in range(2 * GRID):
        mid = i * CELL + CELL / 2
        small = {"class_": "coord square-coord", "font_size": 10, "fill": "#4a6b80"}
        out.append(draw.text(ox + mid, oy - 9, i, text_anchor="middle", **small))
        out.append(draw.text(ox - 9, oy + mid + 4, i, text_anchor="end", **small))
    return out


def _marks(scene: Scene) -> list[str]:
    """Outlines on the squares and tiles the last move names."""
    ox, oy = _origin()
    out = []
    for kind, x, y in sorted(moved(scene)):
        size = CELL if kind == "square" else TILE
        if not (0 <= x < 2 * GRID and 0 <= y < 2 * GRID) or (kind == "tile" and max(x, y) >= GRID):
            continue
        out += draw.marked(ox + x * size, oy + y * size, size)
    return out


def _panel(scene: Scene, top: float) -> tuple[list[str], float]:
    state = scene.view
    inner = WIDTH - 2 * MARGIN
    rows, y = draw.caption(
        MARGIN, top, inner, outcome=result(scene), move=last_move(scene), now=pending_words(scene)
    )
    status = (
        f"{PHASES.get(state['phase'], humanize(state['phase']))}"
        f" · idle turns {state['idle_turns']} of {state['idle_turn_limit']}"
    )
    if state.get("awaiting_die"):
        status += " · waiting for the die"
    lines, y = draw.paragraph(MARGIN, y + 6, inner, status)
    rows += lines
    winners = (scene.outcome or {}).get("winners", [])
    for player in state["players"]:
        seat = player["seat"]
        line = (
            f"{'▶ ' if seat == state.get('current') else ''}{'★ ' if seat in winners else ''}"
            f"{scene.name(seat)} ({SYMBOLS.get(player['suit'], '')} {player['suit']}):"
            f" {player['hand']} in hand · {player['on_board']} on the board"
            f"{' · out' if player['out'] else ''}"
        )
        swatch = _coin(MARGIN + 6, y - 5, seat, 6)
        row, y = draw.seat_row(swatch, MARGIN + 18, y, inner - 18, line, seat, cls="hand")
        rows.append(row)
    lines, y = draw.footnote(MARGIN, y + 6, inner, KEY, 12)
    return [*rows, *lines], y


def render(scene: Scene) -> str:
    """The SVG for an Iceberg scene."""
    state = scene.view
    ox, oy = _origin()
    highlight = _pending(state.get("pending"))
    side = GRID * TILE + 12
    body = [draw.rect(ox - 6, oy - 6, side, side, class_="sea", rx=6, fill=SEA), *_axes()]
    hx, hy = _corner(int(state["hole"][0]), int(state["hole"][1]))
    body.append(draw.rect(hx + 4, hy + 4, TILE - 8, TILE - 8, class_="hole", rx=10, fill="#0d2c44"))
    for tile in state["tiles"]:
        xy = (int(tile["tile"][0]), int(tile["tile"][1]))
        if tile["state"] == "face_down":
            body.append(_face_down(*xy, xy in highlight))
        elif tile["state"] == "face_up":
            body.append(_face_up(tile, xy in highlight))
    body.extend(_coins(state))
    body.extend(_marks(scene))
    panel, bottom = _panel(scene, oy + GRID * TILE + MARGIN + 18)
    body.extend(panel)
    return draw.document(WIDTH, bottom + MARGIN - 8, scene.title, body)
