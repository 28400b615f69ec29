"""Ice Breakers as SVG: the 13×10 channel map, numbered harbors and ships, then the cards.

Ice cells are light blue and water cells dark blue, each with its value; every other cell is
land. Ship *n* sails for harbor *n*; a pinned ship (on ice) gets a red outline and a pin mark.
Only the exposed forecast is shown, and the whole report stack only when the view has it.
Column numbers (x) run along the top and row numbers (y) down the left, so a cell reads
``[x, y]`` as actions name it; the cells the last move names (a cleared cell, a ship's path)
are outlined in ``MARK``. Under the map: the outcome, the last move, what is owed, and each
seat by name with its cards as chips (``Power 7`` over the small id actions use, ``c12``).

Places a person may tap carry ``data-pick`` (``draw.pick``): every navigable cell its
``[x, y]``, every ship ``{"ship": n}``, every card chip ``{"card": id}`` and, while cards
wait to be given, one chip per seat ``{"to": seat}``. Hands are open, so every seat's hand
is drawn the same for every viewer.

Drawn from the scene only (the view, never the board), so it shows nothing the viewer may
not see; the bundle exports it as ``GAME.svg``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain.engine.game import Scene
from domain.games.ice_breakers.geometry import NAVIGABLE
from domain.games.ice_breakers.text import (
    PHASES,
    card,
    cards,
    kind,
    last_move,
    moved_cells,
    pending_words,
    report,
    result,
    where,
)
from domain.pictures import svg as draw
from domain.pictures.words import humanize

WIDTH, HEIGHT = 13, 10  # the fixed map's size in cells
CELL = 44.0
MARGIN = 16.0
AXIS = 22.0  # room for the column and row numbers
ICE, WATER, LAND = "#d6eef8", "#1d5a86", "#cdbb8e"
CHIP_W, CHIP_H, CHIP_GAP = 108.0, 40.0, 8.0  # a card chip, and the room between chips
#: A card chip's ink per kind (its fill is white).
INKS = {"power": "#1d5a86", "R3": "#2e7d32", "B1": "#00796b", "AB2": "#6a1b9a"}
#: What the picture's signs mean, under the seats.
KEY = (
    "Light: ice (its value) · dark: water (the value a forecast re-freezes) · sand: land"
    " · Hn: ship n's harbor (a badge: cards waiting there) · a red ring: a ship pinned"
    " in ice · cells are [x, y]"
)


def _cell_xy(cell: Any) -> tuple[float, float]:
    return (MARGIN + AXIS + int(cell[0]) * CELL, draw.HEADER + MARGIN + AXIS + int(cell[1]) * CELL)


def _square(x: float, y: float, fill: str, stroke: str, **attrs: Any) -> str:
    """A cell's rounded square, 1 inside the cell at (``x``, ``y``)."""
    return draw.rect(x + 1, y + 1, CELL - 2, CELL - 2, rx=3, fill=fill, stroke=stroke, **attrs)


def _spots() -> list[str]:
    """An unpainted square on every navigable cell, carrying its ``[x, y]``: a cleared
    cell shows nothing, yet a ship may sail there."""
    out = []
    for cell in sorted(NAVIGABLE):
        x, y = _cell_xy(cell)
        mark = draw.pick(list(cell))
        out.append(
            draw.rect(x, y, CELL, CELL, class_="spot", fill="#ffffff", fill_opacity=0, **mark)
        )
    return out


def _channel(channel: Mapping[str, Any]) -> str:
    x, y = _cell_xy(channel["cell"])
    water = channel["side"] == "water"
    parts = [
        _square(x, y, WATER if water else ICE, "#7fb2cf"),
        draw.text(
            x + 6,
            y + 15,
            channel["value"],
            class_="value",
            font_size=12,
            font_weight="bold",
            fill="#ffffff" if water else "#1d5a86",
        ),
    ]
    cls = f"cell {'water' if water else 'ice'}"
    return draw.group(cls, parts, **draw.pick([int(c) for c in channel["cell"]]))


def _harbor(dest: Mapping[str, Any]) -> str:
    x, y = _cell_xy(dest["harbor"])
    done = bool(dest["delivered"])
    large = dest["size"] == "large"
    parts = [
        _square(
            x, y, "#b7b7b7" if done else "#f4e1b0", "#7a5b1e", stroke_width=3 if large else 1.5
        ),
        draw.text(
            x + 4,
            y + 13,
            f"H{dest['destination']}",
            class_="harbor-number",
            font_size=11,
            font_weight="bold",
            fill="#5a4312",
        ),
    ]
    if dest["cards"]:  # a badge: how many cards wait here
        parts.append(draw.circle(x + CELL - 9, y + 10, 7, fill="#5a4312", stroke="none"))
        parts.append(
            draw.text(
                x + CELL - 9,
                y + 13.5,
                len(dest["cards"]),
                class_="reward-count",
                font_size=10,
                font_weight="bold",
                text_anchor="middle",
                fill="#ffffff",
            )
        )
    cls = f"harbor{' large' if large else ''}{' delivered' if done else ''}"
    xy = [int(c) for c in dest["harbor"]]
    return draw.group(cls, parts, data_destination=dest["destination"], **draw.pick(xy))


def _ships(ships: Iterable[Mapping[str, Any]]) -> list[str]:
    by_cell: dict[tuple[int, int], list[Mapping[str, Any]]] = {}
    for ship in ships:
        if ship["cell"] is not None:
            by_cell.setdefault((int(ship["cell"][0]), int(ship["cell"][1])), []).append(ship)
    out: list[str] = []
    for cell, here in sorted(by_cell.items()):
        x, y = _cell_xy(cell)
        radius = 11.0 if len(here) == 1 else 8.5
        for i, ship in enumerate(here):
            cx = x + CELL / 2 + (i - (len(here) - 1) / 2) * (2 * radius + 1)
            cy = y + CELL / 2 + 5
            pinned = bool(ship["pinned"])
            parts = [
                draw.circle(
                    cx,
                    cy,
                    radius,
                    fill="#ffd54f",
                    stroke="#c62828" if pinned else "#222222",
                    stroke_width=3 if pinned else 1.5,
                ),
                draw.text(
                    cx,
                    cy + 4,
                    ship["ship"],
                    font_size=11 if radius > 10 else 9,
                    font_weight="bold",
                    text_anchor="middle",
                    fill="#222222",
                ),
            ]
            if pinned:
                pin = (cx + radius - 1, cy - radius + 1, 3.5)
                parts.append(draw.circle(*pin, class_="pin", fill="#c62828"))
            cls = f"ship{' pinned' if pinned else ''}"
            mark = draw.pick({"ship": ship["ship"]})
            out.append(draw.group(cls, parts, data_ship=ship["ship"], **mark))
    return out


def _axes() -> list[str]:
    """Column numbers (x) above the map, row numbers (y) left of it."""
    out: list[str] = []
    for x in range(WIDTH):
        cx, top = _cell_xy((x, 0))
        out.append(
            draw.text(cx + CELL / 2, top - 7, x, class_="coord", text_anchor="middle", font_size=11)
        )
    for y in range(HEIGHT):
        left, cy = _cell_xy((0, y))
        out.append(
            draw.text(
                left - 6, cy + CELL / 2 + 4, y, class_="coord", text_anchor="end", font_size=11
            )
        )
    return out


def _marks(scene: Scene) -> list[str]:
    """Outlines on the cells the last move names, and the ship's course through them."""
    cells = [c for c in moved_cells(scene) if 0 <= c[0] < WIDTH and 0 <= c[1] < HEIGHT]
    out = [mark for cell in cells for mark in draw.marked(*_cell_xy(cell), CELL)]
    if len(cells) > 1:
        points = " ".join(
            f"{_cell_xy(c)[0] + CELL / 2:.1f},{_cell_xy(c)[1] + CELL / 2:.1f}" for c in cells
        )
        out.append(
            draw.el(
                "polyline",
                {
                    "class": "course",
                    "points": points,
                    "fill": "none",
                    "stroke": draw.MARK,
                    "stroke_width": 2,
                    "stroke_opacity": 0.6,
                },
            )
        )
    return out


def _status_lines(state: Mapping[str, Any]) -> list[str]:
    """The phase, the forecast and this turn's Power card: the lines above the hands."""
    phase = PHASES.get(state["phase"], humanize(state["phase"]))
    status = f"{phase}{' (intro)' if state.get('intro') else ''}"
    status += f" · turn {state['turns'] + 1}" if state["phase"] == "play" else ""
    if state.get("passes_in_a_row"):
        status += f" · passes in a row {state['passes_in_a_row']}"
    lines = [status]
    forecast = state.get("forecast")
    if forecast is not None:
        freeze = f"water of {report(forecast)} re-freezes" if forecast else "mild: nothing freezes"
        when = " at the end of this turn" if state["phase"] == "play" else ""
        lines.append(f"Forecast: {freeze}{when} · {state['reports_face_down']} reports face down")
    turn = state["turn"]
    if turn.get("power"):
        lines.append(
            f"This turn: {card(turn['power'])} · boosts {cards(turn['boosts'])}"
            f" · {turn['points']} points, {turn['spent']} spent, {turn['left']} left"
        )
    return lines


def _table_lines(state: Mapping[str, Any]) -> list[str]:
    """The row, the rewards, the ships and (once over) the reports: the lines below."""
    lines = [f"Row: {cards(state['row'])} · discard pile {len(state['discard'])}"]
    waiting = [
        f"H{d['destination']}: {cards(d['cards'])}"
        for d in state["destinations"]
        if d["in_play"] and not d["delivered"] and d["cards"]
    ]
    lines.append(f"Rewards waiting at harbors: {'; '.join(waiting) or 'none'}")
    lines.append("Ships: " + ", ".join(where(s, " (pinned)") for s in state["ships"]))
    if "report_stack" in state:
        stack = " ".join(report(r) for r in state["report_stack"])
        lines.append(f"Ice reports, in order: {stack}")
    return lines


#: A chip's bold words, small words, ink and the place it marks (see ``_chip``).
Chip = tuple[str, str, str, dict[str, Any]]


def _chip(x: float, y: float, words: str, small: str, ink: str, place: dict[str, Any]) -> str:
    """A tappable chip: ``words`` in bold over ``small`` grey text, framed in ``ink``; a
    card's chip (its place names a card) is classed ``card`` and carries its id."""
    parts = [
        draw.rect(x, y, CHIP_W, CHIP_H, rx=6, fill="#ffffff", stroke=ink, stroke_width=2),
        draw.text(
            x + 8, y + 18, words, class_="chip-words", font_size=13, font_weight="bold", fill=ink
        ),
        draw.text(x + 8, y + 33, small, class_="chip-small", font_size=10, fill="#555555"),
    ]
    if "card" in place:
        return draw.group("chip card", parts, data_card=place["card"], **draw.pick(place))
    return draw.group("chip", parts, **draw.pick(place))


def _card(c: Mapping[str, Any]) -> Chip:
    """A card's chip: what it is (``Power 7``) over the id actions name it by (``c12``)."""
    return (kind(c), str(c["id"]), INKS.get(str(c["kind"]), "#333333"), {"card": c["id"]})


def _short(name: str) -> str:
    return name if len(name) <= 13 else name[:12] + "…"


def _chips(items: list[Chip], x: float, top: float, width: float) -> tuple[list[str], float]:
    """``items`` as chips in rows from ``top``; returns them and the baseline below them."""
    per = max(1, int((width + CHIP_GAP) // (CHIP_W + CHIP_GAP)))
    step = CHIP_W + CHIP_GAP, CHIP_H + CHIP_GAP
    out = [
        _chip(x + (i % per) * step[0], top + (i // per) * step[1], *item)
        for i, item in enumerate(items)
    ]
    rows = -(-len(items) // per)
    return out, top + rows * step[1] + 12


def _hands(scene: Scene, top: float, width: float) -> tuple[list[str], float]:
    """Each seat by name, then its hand as card chips a tap may pick."""
    state = scene.view
    winners = (scene.outcome or {}).get("winners", [])
    out: list[str] = []
    y = top
    for hand in state["hands"]:
        seat = hand["seat"]
        mark = "▶ " if seat == state.get("current") else "★ " if seat in winners else ""
        held = "holds:" if hand["cards"] else "holds no cards"
        swatch = draw.rect(MARGIN, y - 10, 10, 10, fill=draw.seat_colour(seat))
        rows, y = draw.paragraph(MARGIN + 14, y, width - 14, f"{mark}{scene.name(seat)} {held}")
        chips: list[str] = []
        if hand["cards"]:
            chips, y = _chips([_card(c) for c in hand["cards"]], MARGIN + 14, y - 8, width - 14)
        out.append(draw.group("hand", [swatch, *rows, *chips], data_seat=seat))
    return out, y


def _gifts(scene: Scene, top: float, width: float) -> tuple[list[str], float]:
    """While cards wait to be given: them as chips, then one chip per seat to give to."""
    pending = scene.view.get("pending") or {}
    if pending.get("type") != "give":
        return [], top
    rows, y = draw.paragraph(MARGIN, top, width, "Cards to give out:", font_weight="bold")
    chips, y = _chips([_card(c) for c in pending.get("cards", [])], MARGIN, y - 8, width)
    label, y = draw.paragraph(MARGIN, y, width, "Give to:", font_weight="bold")
    seats: list[Chip] = [
        (_short(scene.name(h["seat"])), "give to", draw.seat_colour(h["seat"]), {"to": h["seat"]})
        for h in scene.view["hands"]
    ]
    targets, y = _chips(seats, MARGIN, y - 8, width)
    return [draw.group("gifts", [*rows, *chips, *label, *targets])], y


def _panel(scene: Scene, top: float, width: float) -> tuple[list[str], float]:
    out, y = draw.caption(
        MARGIN, top, width, outcome=result(scene), move=last_move(scene), now=pending_words(scene)
    )
    y += 6
    for line in _status_lines(scene.view):
        rows, y = draw.paragraph(MARGIN, y, width, line, 12, class_="info")
        out += rows
    for part in (_gifts, _hands):
        drawn, y = part(scene, y + 4, width)
        out += drawn
    for line in _table_lines(scene.view):
        rows, y = draw.paragraph(MARGIN, y, width, line, 12, class_="info")
        out += rows
    rows, y = draw.footnote(MARGIN, y + 4, width, KEY, 11)
    return [*out, *rows], y


def render(scene: Scene) -> str:
    """The SVG for an Ice Breakers scene."""
    state = scene.view
    left, top = _cell_xy((0, 0))
    land = draw.rect(left, top, WIDTH * CELL, HEIGHT * CELL, class_="land", fill=LAND)
    body = [land, *_axes(), *_spots()]
    body.extend(_channel(c) for c in state["channels"])
    body.extend(_harbor(d) for d in state["destinations"])
    body.extend(_ships(state["ships"]))
    body.extend(_marks(scene))
    width = WIDTH * CELL + AXIS + 2 * MARGIN
    panel, bottom = _panel(scene, top + HEIGHT * CELL + MARGIN + 14, width - 2 * MARGIN)
    body.extend(panel)
    return draw.document(width, bottom + MARGIN - 8, scene.title, body)
