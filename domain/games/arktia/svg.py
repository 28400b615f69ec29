"""Arktia as SVG: pointy-top hexes, stacks as nested shapes, a legend of each seat's holdings.

Holes are drawn as faint dashed outlines (the ice is gone). A stack shows its pieces nested:
the Torus a ring, the Diskus a disc, the Globus a small ball, each in its owner's colour (grey
for neutral); the hex's thick outline is the controller's colour.

Drawn from the view JSON only (never the board), so it shows nothing the viewer may not
see; the bundle exports it as ``GAME.svg``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

from domain.pictures.svg import HEADER, document, el, group, num, seat_colour, text

R = 34.0  # hex circumradius
MARGIN = 16.0
ROOT3 = math.sqrt(3.0)
#: Piece radius (fraction of R) per size, drawn outer first so smaller ones sit inside.
RADII = {"T": 0.70, "D": 0.46, "G": 0.22}
LEGEND_ROW = 22.0


def _centre(q: int, r: int) -> tuple[float, float]:
    return (R * ROOT3 * (q + r / 2.0), R * 1.5 * r)


def _hex_points(cx: float, cy: float, radius: float) -> str:
    corners = (math.radians(60 * i - 30) for i in range(6))
    return " ".join(
        f"{num(cx + radius * math.cos(a))},{num(cy + radius * math.sin(a))}" for a in corners
    )


def _piece(cx: float, cy: float, piece: Mapping[str, Any]) -> str:
    size = str(piece["size"])
    colour = seat_colour(piece["colour"])
    radius = RADII.get(size, 0.3) * R
    attrs: dict[str, object] = {"class": f"piece {size}", "cx": cx, "cy": cy, "r": radius}
    if size == "T":
        attrs.update(fill="none", stroke=colour, stroke_width=0.16 * R)
    else:
        attrs.update(fill=colour, stroke="#ffffff", stroke_width=1.5)
    return el("circle", attrs)


def _stack(cx: float, cy: float, stack: Mapping[str, Any]) -> str:
    order = sorted(stack["pieces"], key=lambda p: -RADII.get(str(p["size"]), 0.0))
    tip = f"{stack['form']} controlled by {stack['controller']}"
    return group(
        "stack",
        [el("title", {}, escape(tip)), *(_piece(cx, cy, p) for p in order)],
        data_form=stack["form"],
    )


def _reserve(counts: Mapping[str, Any]) -> str:
    return " ".join(f"{size}{counts.get(size, 0)}" for size in ("G", "D", "T"))


def _legend(state: Mapping[str, Any], top: float) -> list[str]:
    rows = [text(MARGIN, top, f"turn {state['turn']} of {state['turn_limit']}", font_size=13)]
    current = state.get("current")
    for i, player in enumerate(state["players"]):
        y = top + LEGEND_ROW * (i + 1)
        seat = player["seat"]
        line = (
            f"{'▶ ' if seat == current else ''}seat {seat}: reserve {_reserve(player['reserve'])}"
            f" · on board {player['on_board']} · kept {player['kept']} · lost {player['lost']}"
            f" · melted {player['melted']} · score {player['score']}"
        )
        if any(player["neutral_reserve"].values()):
            line += f" · neutral {_reserve(player['neutral_reserve'])}"
        if player.get("ended"):
            line += f" ({player['ended']})"
        swatch = el(
            "rect", {"x": MARGIN, "y": y - 11, "width": 12, "height": 12, "fill": seat_colour(seat)}
        )
        rows.append(group("legend", [swatch, text(MARGIN + 18, y, line, font_size=13)]))
    return rows


def render(state: Mapping[str, Any], title: str) -> str:
    """The SVG for an Arktia view."""
    tiles = [(int(t[0]), int(t[1])) for t in state["tiles"]]
    holes = [(int(t[0]), int(t[1])) for t in state["holes"]]
    centres = [_centre(q, r) for q, r in tiles + holes] or [(0.0, 0.0)]
    half_w, half_h = R * ROOT3 / 2, R
    min_x = min(x for x, _ in centres) - half_w
    min_y = min(y for _, y in centres) - half_h
    board_w = max(x for x, _ in centres) + half_w - min_x
    board_h = max(y for _, y in centres) + half_h - min_y
    dx, dy = MARGIN - min_x, HEADER + MARGIN - min_y

    def at(tile: Any) -> tuple[float, float]:
        x, y = _centre(int(tile[0]), int(tile[1]))
        return (x + dx, y + dy)

    controllers = {(int(s["tile"][0]), int(s["tile"][1])): s["controller"] for s in state["stacks"]}
    body: list[str] = []
    for q, r in holes:
        body.append(
            el(
                "polygon",
                {
                    "class": "hole",
                    "points": _hex_points(*at((q, r)), R - 2),
                    "fill": "none",
                    "stroke": "#c8d6e0",
                    "stroke_dasharray": "4 3",
                },
            )
        )
    for q, r in tiles:
        owner = controllers.get((q, r))
        attrs: dict[str, object] = {
            "class": "tile",
            "points": _hex_points(*at((q, r)), R - 2),
            "fill": "#e6f4fb",
            "stroke": "#9cc3d8",
            "stroke_width": 1.5,
        }
        if owner is not None:
            attrs.update(
                {
                    "class": "tile controlled",
                    "stroke": seat_colour(owner),
                    "stroke_width": 3.5,
                    "data_controller": owner,
                }
            )
        body.append(el("polygon", attrs))
    body.extend(_stack(*at(s["tile"]), s) for s in state["stacks"])
    top = HEADER + 2 * MARGIN + board_h + 8
    body.extend(_legend(state, top))
    width = max(board_w + 2 * MARGIN, 620.0)
    height = top + LEGEND_ROW * len(state["players"]) + MARGIN
    return document(width, height, title, body)
