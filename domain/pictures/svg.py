"""SVG pictures: seat colours and the few element builders every game's ``svg.py`` uses.

Output is deterministic text (attributes in the order given, coordinates at most two
decimals), so the same view always renders byte-identically.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from xml.sax.saxutils import escape, quoteattr

from domain.pictures.words import wrap

#: Fixed colour per seat (0 red, 1 blue, 2 green, 3 orange), and for neutral pieces.
SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e")
NEUTRAL = "#9e9e9e"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
HEADER = 34  # height of the header band every picture starts with
#: The last move's highlight: the cells it names are outlined in it (none of the seat colours).
MARK = "#d81b60"
ROW = 19.0  # the height of one 13px line of text


def seat_colour(seat: object) -> str:
    """The fill for a seat number; grey for ``"neutral"`` or anything unknown."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(SEAT_COLOURS):
        return SEAT_COLOURS[seat]
    return NEUTRAL


def num(value: float) -> str:
    """A coordinate as short, stable text (at most two decimals)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attr(value: object) -> str:
    return num(value) if isinstance(value, float) else str(value)


def pick(place: object) -> dict[str, str]:
    """The ``data-pick`` attribute marking a place a person may tap: ``place`` as compact
    JSON with sorted keys, so every game marks places alike and pictures stay byte-stable.

    A place is a pair such as ``[3, 4]`` (an action names it when an equal list appears
    anywhere in it) or an object such as ``{"ship": 7}`` (an action names it when it, or an
    object inside it, has each of the place's keys with that value or a list holding it);
    the game page plays or offers the actions naming what was tapped.

    >>> pick({"square": [3, 4]})
    {'data_pick': '{"square":[3,4]}'}
    """
    return {"data_pick": json.dumps(place, sort_keys=True, separators=(",", ":"))}


def el(tag: str, attrs: Mapping[str, object], content: str = "") -> str:
    """One element; ``attrs`` are quoted here, ``content`` must already be markup."""
    parts = "".join(
        f" {k.rstrip('_').replace('_', '-')}={quoteattr(_attr(v))}" for k, v in attrs.items()
    )
    return f"<{tag}{parts}>{content}</{tag}>" if content else f"<{tag}{parts}/>"


def rect(
    x: float, y: float, width: float, height: float, *, class_: str = "", **attrs: object
) -> str:
    """A ``<rect>``: its class (when given), its box, then ``attrs`` in the order given."""
    head: dict[str, object] = {"class": class_} if class_ else {}
    return el("rect", {**head, "x": x, "y": y, "width": width, "height": height, **attrs})


def circle(cx: float, cy: float, r: float, *, class_: str = "", **attrs: object) -> str:
    """A ``<circle>``: its class (when given), its centre and radius, then ``attrs``."""
    head: dict[str, object] = {"class": class_} if class_ else {}
    return el("circle", {**head, "cx": cx, "cy": cy, "r": r, **attrs})


def marked(x: float, y: float, size: float) -> list[str]:
    """The last move's outline on the square cell of side ``size`` at (``x``, ``y``): a
    dashed line in ``MARK`` over a white halo, both 3 inside the cell."""
    inset = (x + 3, y + 3, size - 6, size - 6)
    return [
        rect(*inset, class_="halo", rx=4, fill="none", stroke="#ffffff", stroke_width=5),
        rect(
            *inset,
            class_="moved",
            rx=4,
            fill="none",
            stroke=MARK,
            stroke_width=3,
            stroke_dasharray="6 3",
        ),
    ]


def text(x: float, y: float, body: object, **attrs: object) -> str:
    """A text element; ``body`` is escaped."""
    base: dict[str, object] = {"x": float(x), "y": float(y)}
    return el("text", {**base, **attrs}, escape(str(body)))


def group(cls: str, children: Iterable[str], **attrs: object) -> str:
    """A ``<g class=...>`` around ``children``."""
    return el("g", {"class": cls, **attrs}, "".join(children))


def document(width: float, height: float, title: str, body: Iterable[str]) -> str:
    """The whole SVG: root, ``<title>``, a white background and the header line."""
    head = [
        el("title", {}, escape(title)),
        el("rect", {"width": "100%", "height": "100%", "fill": "#ffffff"}),
        text(10, 22, title, class_="header", font_size=16, font_weight="bold"),
    ]
    root = {
        "xmlns": "http://www.w3.org/2000/svg",
        "width": num(width),
        "height": num(height),
        "viewBox": f"0 0 {num(width)} {num(height)}",
        "font-family": FONT,
    }
    return el("svg", root, "\n".join([*head, *body])) + "\n"


def fit(width: float, font_size: float = 13) -> int:
    """How many characters of ``font_size`` text fit in ``width`` (a safe average)."""
    return max(20, int(width / (font_size * 0.56)))


def paragraph(
    x: float, top: float, width: float, line: str, font_size: float = 13, **attrs: object
) -> tuple[list[str], float]:
    """``line`` wrapped to ``width``, one text element per row from baseline ``top``; returns
    the elements and the baseline below them."""
    rows = wrap(line, fit(width, font_size), "  ")
    step = font_size * 1.45
    out = [text(x, top + i * step, row, font_size=font_size, **attrs) for i, row in enumerate(rows)]
    return out, top + step * len(rows)


def seat_row(
    swatch: str,
    x: float,
    top: float,
    width: float,
    line: str,
    seat: object,
    *,
    cls: str,
    font_size: float = 13,
) -> tuple[str, float]:
    """A seat's ``line`` wrapped from (``x``, ``top``) beside its ``swatch`` (drawn left of
    ``x``), grouped as ``cls`` for ``seat``; returns the group and the baseline below it."""
    rows, y = paragraph(x, top, width, line, font_size)
    return group(cls, [swatch, *rows], data_seat=seat), y


def footnote(
    x: float, top: float, width: float, line: str, font_size: float
) -> tuple[list[str], float]:
    """A picture's key to its signs: ``line`` in small grey type (see ``paragraph``)."""
    return paragraph(x, top, width, line, font_size, fill="#444444")


def caption(
    x: float,
    top: float,
    width: float,
    *,
    outcome: str | None,
    move: str | None,
    now: str | None = None,
) -> tuple[list[str], float]:
    """How the game ended (bold, class ``outcome``), the last move (class ``last-move``,
    with a key in ``MARK``, the colour its cells are outlined in) and what is owed ``now``
    (class ``pending``), from baseline ``top``; returns the elements and the baseline below
    them (``top`` when there is none of them)."""
    out: list[str] = []
    y = top
    if outcome:
        rows, y = paragraph(x, y, width, outcome, 15, class_="outcome", font_weight="bold")
        out.extend(rows)
        y += 3
    if move:
        key = rect(x, y - 11, 12, 12, fill="none", stroke=MARK, stroke_width=2.5)
        rows, y = paragraph(x + 18, y, width - 18, f"Last move: {move}")
        out.append(group("last-move", [key, *rows]))
    if now:
        rows, y = paragraph(x, y, width, f"Now: {now}", fill="#8a6d00", class_="pending")
        out.extend(rows)
    return out, y
