"""Arktia as SVG: pointy-top hexes, stacks as nested shapes, a legend of each seat's holdings.

Holes are drawn as faint dashed outlines (the ice is gone). A stack shows its pieces nested:
the Torus a ring, the Diskus a disc, the Globus a small ball, each in its owner's colour (grey
for neutral); the hex's thick outline is the controller's colour. Every hex carries its
``q,r`` (actions name it ``[q, r]``); the hexes the last move names are outlined in ``MARK``.
Under the board: the outcome, the last move, each seat by name, and a key to the sizes.

Places a person may tap carry ``data-pick`` (``draw.pick``): every hex and hole, and every
stack, its ``[q, r]``; every size in the key ``{"size": "T"}`` (to pick among a hex's
placements).

Drawn from the scene only (the view, never the board), so it shows nothing the viewer may
not see; the bundle exports it as ``GAME.svg``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

from domain.engine.game import Scene
from domain.games.arktia.text import ENDED, PHASES, SIZE_WORDS, last_move, moved_tiles, result
from domain.pictures import svg as draw
from domain.pictures.words import humanize

R = 44.0  # hex circumradius
MARGIN = 16.0
ROOT3 = math.sqrt(3.0)
#: Piece radius (fraction of R) per size, drawn outer first so smaller ones sit inside.
RADII = {"T": 0.52, "D": 0.36, "G": 0.17}
RING = 0.12  # the Torus ring's width, as a fraction of R
LIFT = 5.0  # pieces sit this far above the hex's centre, to leave room for its q,r
MIN_WIDTH = 640.0


def _centre(q: int, r: int) -> tuple[float, float]:
    return (R * ROOT3 * (q + r / 2.0), R * 1.5 * r)


def _hex_points(cx: float, cy: float, radius: float) -> str:
    corners = (math.radians(60 * i - 30) for i in range(6))
    return " ".join(
        f"{draw.num(cx + radius * math.cos(a))},{draw.num(cy + radius * math.sin(a))}"
        for a in corners
    )


def _piece(cx: float, cy: float, piece: Mapping[str, Any]) -> str:
    size = str(piece["size"])
    colour = draw.seat_colour(piece["colour"])
    radius = RADII.get(size, 0.3) * R
    if size == "T":
        look: dict[str, object] = {"fill": "none", "stroke": colour, "stroke_width": RING * R}
    else:
        look = {"fill": colour, "stroke": "#ffffff", "stroke_width": 1.5}
    return draw.circle(cx, cy, radius, class_=f"piece {size}", **look)


def _stack(cx: float, cy: float, stack: Mapping[str, Any], scene: Scene) -> str:
    order = sorted(stack["pieces"], key=lambda p: -RADII.get(str(p["size"]), 0.0))
    owner = "neutral" if stack["controller"] == "neutral" else scene.name(stack["controller"])
    tip = f"form {stack['form']}, controlled by {owner}"
    return draw.group(
        "stack",
        [draw.el("title", {}, escape(tip)), *(_piece(cx, cy, p) for p in order)],
        data_form=stack["form"],
        **draw.pick([int(stack["tile"][0]), int(stack["tile"][1])]),
    )


def _reserve(counts: Mapping[str, Any]) -> str:
    return " ".join(f"{size}{counts.get(size, 0)}" for size in ("T", "D", "G"))


def _seat_line(scene: Scene, player: Mapping[str, Any]) -> str:
    seat = player["seat"]
    won = scene.outcome is not None and seat in scene.outcome.get("winners", [])
    line = (
        f"{'▶ ' if seat == scene.view.get('current') else ''}{'★ ' if won else ''}"
        f"{scene.name(seat)}:"
        f" score {player['score']} · on board {player['on_board']}"
        f" · reserve {_reserve(player['reserve'])}"
    )
    if any(player["neutral_reserve"].values()):
        line += f" · neutral reserve {_reserve(player['neutral_reserve'])}"
    line += f" · kept {player['kept']} · lost {player['lost']} · melted {player['melted']}"
    if player.get("ended"):
        line += f" · {ENDED.get(player['ended'], humanize(player['ended']))}"
    return line


def _legend(scene: Scene, top: float, width: float) -> tuple[list[str], float]:
    state = scene.view
    phase = PHASES.get(state["phase"], humanize(state["phase"]))
    rows, y = draw.paragraph(
        MARGIN, top, width, f"{phase} · turn {state['turn']} of {state['turn_limit']}"
    )
    for player in state["players"]:
        seat = player["seat"]
        swatch = draw.rect(MARGIN, y - 11, 12, 12, fill=draw.seat_colour(seat))
        line = _seat_line(scene, player)
        row, y = draw.seat_row(swatch, MARGIN + 18, y, width - 18, line, seat, cls="legend")
        rows.append(row)
    return rows, y


def _size_key(top: float) -> tuple[list[str], float]:
    """The three sizes drawn as on the board, named, then what outlines mean."""
    out: list[str] = [draw.text(MARGIN, top, "Sizes:", font_size=13, font_weight="bold")]
    top += 24
    for i, (size, words) in enumerate(SIZE_WORDS):
        x = MARGIN + 200 * i
        cx, cy = x + 12, top - 5
        radius = RADII[size] * 26
        if size == "T":
            look: dict[str, object] = {
                "fill": "none",
                "stroke": "#555555",
                "stroke_width": RING * 26,
            }
        else:
            look = {"fill": "#555555"}
        shape = draw.circle(cx, cy, radius, class_="size-key", **look)
        # a tap on a size picks it among a hex's placements ({"size": "T"} names them)
        hit = draw.rect(x - 2, top - 18, 190, 24, fill="#ffffff", fill_opacity=0)
        label = draw.text(x + 30, top, f"{size} {words}", font_size=13)
        out.append(draw.group("size-pick", [hit, shape, label], **draw.pick({"size": size})))
    y = top + 24
    notes = (
        "grey: neutral · hex outline: who controls it · dashed: melted · q,r: the hex"
        " [q, r] that actions name"
    )
    lines, y = draw.footnote(MARGIN, y, MIN_WIDTH - 2 * MARGIN, notes, 12)
    return [draw.group("size-legend", [*out, *lines])], y


def _label(cx: float, cy: float, q: int, r: int) -> str:
    return draw.text(
        cx,
        cy + 0.66 * R,
        f"{q},{r}",
        class_="coord",
        text_anchor="middle",
        font_size=10,
        fill="#4a6b80",
    )


def render(scene: Scene) -> str:
    """The SVG for an Arktia scene."""
    state = scene.view
    tiles = [(int(t[0]), int(t[1])) for t in state["tiles"]]
    holes = [(int(t[0]), int(t[1])) for t in state["holes"]]
    centres = [_centre(q, r) for q, r in tiles + holes] or [(0.0, 0.0)]
    half_w, half_h = R * ROOT3 / 2, R
    min_x = min(x for x, _ in centres) - half_w
    min_y = min(y for _, y in centres) - half_h
    board_w = max(x for x, _ in centres) + half_w - min_x
    board_h = max(y for _, y in centres) + half_h - min_y
    width = max(board_w + 2 * MARGIN, MIN_WIDTH)
    dx = (width - board_w) / 2 - min_x
    dy = draw.HEADER + MARGIN - min_y

    def at(tile: Any) -> tuple[float, float]:
        x, y = _centre(int(tile[0]), int(tile[1]))
        return (x + dx, y + dy)

    controllers = {(int(s["tile"][0]), int(s["tile"][1])): s["controller"] for s in state["stacks"]}
    body: list[str] = []
    for q, r in holes:
        body.append(
            draw.el(
                "polygon",
                {
                    "class": "hole",
                    "points": _hex_points(*at((q, r)), R - 2),
                    "fill": "none",
                    "stroke": "#c8d6e0",
                    "stroke_dasharray": "4 3",
                    **draw.pick([q, r]),
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
            **draw.pick([q, r]),
        }
        if owner is not None:
            attrs.update(
                {
                    "class": "tile controlled",
                    "stroke": draw.seat_colour(owner),
                    "stroke_width": 3.5,
                    "data_controller": owner,
                }
            )
        body.append(draw.el("polygon", attrs))
    body.extend(_label(*at((q, r)), q, r) for q, r in sorted(tiles + holes))
    for stack in state["stacks"]:
        x, y = at(stack["tile"])
        body.append(_stack(x, y - LIFT, stack, scene))
    body.extend(
        draw.el(
            "polygon",
            {
                "class": "moved",
                "points": _hex_points(*at(tile), R - 6),
                "fill": "none",
                "stroke": draw.MARK,
                "stroke_width": 3,
                "stroke_dasharray": "7 4",
            },
        )
        for tile in sorted(moved_tiles(scene))
        if tile in set(tiles) | set(holes)
    )
    inner = width - 2 * MARGIN
    top = draw.HEADER + 2 * MARGIN + board_h + 10
    said, top = draw.caption(MARGIN, top, inner, outcome=result(scene), move=last_move(scene))
    body.extend(said)
    legend, top = _legend(scene, top + (6 if said else 0), inner)
    body.extend(legend)
    key, top = _size_key(top + 12)
    body.extend(key)
    return draw.document(width, top + MARGIN - 8, scene.title, body)
