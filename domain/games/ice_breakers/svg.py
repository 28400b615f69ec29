"""Ice Breakers as SVG: the 13×10 channel map, numbered harbors and ships, then the cards.

Ice cells are light blue and water cells dark blue, each with its value; every other cell is
land. Ship *n* sails for harbor *n*; a pinned ship (on ice) gets a red outline and a pin mark.
Only the exposed forecast is shown, and the whole report stack only when the view has it.

Drawn from the view JSON only (never the board), so it shows nothing the viewer may not
see; the bundle exports it as ``GAME.svg``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain.pictures.svg import HEADER, document, el, group, seat_colour, text

WIDTH, HEIGHT = 13, 10  # the fixed map's size in cells
CELL = 44.0
MARGIN = 16.0
ROW = 19.0
WRAP = 80  # characters per panel line
ICE, WATER, LAND = "#d6eef8", "#1d5a86", "#cdbb8e"


def _cell_xy(cell: Any) -> tuple[float, float]:
    return (MARGIN + int(cell[0]) * CELL, HEADER + MARGIN + int(cell[1]) * CELL)


def _channel(channel: Mapping[str, Any]) -> str:
    x, y = _cell_xy(channel["cell"])
    water = channel["side"] == "water"
    parts = [
        el(
            "rect",
            {
                "x": x + 1,
                "y": y + 1,
                "width": CELL - 2,
                "height": CELL - 2,
                "rx": 3,
                "fill": WATER if water else ICE,
                "stroke": "#7fb2cf",
            },
        ),
        text(
            x + 6,
            y + 15,
            channel["value"],
            class_="value",
            font_size=12,
            font_weight="bold",
            fill="#ffffff" if water else "#1d5a86",
        ),
    ]
    return group(f"cell {'water' if water else 'ice'}", parts)


def _harbor(dest: Mapping[str, Any]) -> str:
    x, y = _cell_xy(dest["harbor"])
    done = bool(dest["delivered"])
    large = dest["size"] == "large"
    parts = [
        el(
            "rect",
            {
                "x": x + 1,
                "y": y + 1,
                "width": CELL - 2,
                "height": CELL - 2,
                "rx": 3,
                "fill": "#b7b7b7" if done else "#f4e1b0",
                "stroke": "#7a5b1e",
                "stroke_width": 3 if large else 1.5,
            },
        ),
        text(
            x + 4,
            y + 13,
            f"H{dest['destination']}",
            class_="harbor-number",
            font_size=11,
            font_weight="bold",
            fill="#5a4312",
        ),
    ]
    if dest["cards"]:
        parts.append(
            text(
                x + CELL - 4,
                y + CELL - 4,
                f"{len(dest['cards'])} cards",
                font_size=9,
                text_anchor="end",
                fill="#5a4312",
            )
        )
    cls = f"harbor{' large' if large else ''}{' delivered' if done else ''}"
    return group(cls, parts, data_destination=dest["destination"])


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
                el(
                    "circle",
                    {
                        "cx": cx,
                        "cy": cy,
                        "r": radius,
                        "fill": "#ffd54f",
                        "stroke": "#c62828" if pinned else "#222222",
                        "stroke_width": 3 if pinned else 1.5,
                    },
                ),
                text(
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
                parts.append(
                    el(
                        "circle",
                        {
                            "class": "pin",
                            "cx": cx + radius - 1,
                            "cy": cy - radius + 1,
                            "r": 3.5,
                            "fill": "#c62828",
                        },
                    )
                )
            cls = f"ship{' pinned' if pinned else ''}"
            out.append(group(cls, parts, data_ship=ship["ship"]))
    return out


def _card(card: Mapping[str, Any]) -> str:
    return f"P{card['value']}" if card["kind"] == "power" else str(card["kind"])


def _cards(cards: Iterable[Mapping[str, Any]]) -> str:
    return " ".join(_card(c) for c in cards) or "—"


def _report(report: Iterable[int]) -> str:
    values = list(report)
    return "{" + ",".join(str(v) for v in values) + "}" if values else "mild"


def _wrap(line: str) -> list[str]:
    rows: list[str] = []
    while len(line) > WRAP:
        cut = line.rfind(" ", 0, WRAP)
        cut = cut if cut > 0 else WRAP
        rows.append(line[:cut])
        line = "    " + line[cut:].lstrip()
    return [*rows, line]


def _panel_lines(state: Mapping[str, Any]) -> list[tuple[str, object]]:
    turn = state["turn"]
    lines: list[tuple[str, object]] = [
        (
            f"phase {state['phase']}{' (intro)' if state.get('intro') else ''} · turns "
            f"{state['turns']} · passes in a row {state['passes_in_a_row']}",
            None,
        )
    ]
    if state.get("forecast") is not None:
        lines.append(
            (
                f"forecast {_report(state['forecast'])} (water with these values freezes)"
                f" · reports face down {state['reports_face_down']}",
                None,
            )
        )
    power = _card(turn["power"]) if turn.get("power") else "—"
    lines.append(
        (
            f"this turn: power {power} · boosts {_cards(turn['boosts'])} · points "
            f"{turn['points']} · spent {turn['spent']} · left {turn['left']}",
            None,
        )
    )
    for hand in state["hands"]:
        mark = "▶ " if hand["seat"] == state.get("current") else ""
        lines.append((f"{mark}seat {hand['seat']}: {_cards(hand['cards'])}", hand["seat"]))
    lines.append((f"row: {_cards(state['row'])} · discard {len(state['discard'])}", None))
    delivered = ", ".join(str(s) for s in state["delivered"]) or "none"
    lines.append((f"delivered ships: {delivered}", None))
    pending = state.get("pending")
    if pending:
        what = (
            f"{pending['draws_left']} AB2 draw(s) left"
            if pending["type"] == "ab2_draw"
            else f"to give: {_cards(pending['cards'])}"
        )
        lines.append((f"seat {pending['seat']} owes: {what}", None))
    if "report_stack" in state:
        stack = " ".join(_report(r) for r in state["report_stack"])
        lines.append((f"report stack: {stack}", None))
    return lines


def _panel(state: Mapping[str, Any], top: float) -> tuple[list[str], float]:
    out: list[str] = []
    y = top
    for line, seat in _panel_lines(state):
        for i, row in enumerate(_wrap(line)):
            if seat is not None and i == 0:
                out.append(
                    el(
                        "rect",
                        {
                            "x": MARGIN,
                            "y": y - 10,
                            "width": 10,
                            "height": 10,
                            "fill": seat_colour(seat),
                        },
                    )
                )
            out.append(
                text(
                    MARGIN + (14 if seat is not None else 0),
                    y,
                    row,
                    font_size=12,
                    class_="hand" if seat is not None else "info",
                )
            )
            y += ROW
    return out, y


def render(state: Mapping[str, Any], title: str) -> str:
    """The SVG for an Ice Breakers view."""
    body = [
        el(
            "rect",
            {
                "class": "land",
                "x": MARGIN,
                "y": HEADER + MARGIN,
                "width": WIDTH * CELL,
                "height": HEIGHT * CELL,
                "fill": LAND,
            },
        )
    ]
    body.extend(_channel(c) for c in state["channels"])
    body.extend(_harbor(d) for d in state["destinations"])
    body.extend(_ships(state["ships"]))
    panel, bottom = _panel(state, HEADER + 2 * MARGIN + HEIGHT * CELL + 6)
    body.extend(panel)
    return document(WIDTH * CELL + 2 * MARGIN, bottom + MARGIN, title, body)
