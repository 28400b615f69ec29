"""SVG pictures: seat colours and the few element builders every game's ``svg.py`` uses.

Output is deterministic text (attributes in the order given, coordinates at most two
decimals), so the same view always renders byte-identically.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from xml.sax.saxutils import escape, quoteattr

#: Fixed colour per seat (0 red, 1 blue, 2 green, 3 orange), and for neutral pieces.
SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e")
NEUTRAL = "#9e9e9e"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
HEADER = 34  # height of the header band every picture starts with


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


def el(tag: str, attrs: Mapping[str, object], content: str = "") -> str:
    """One element; ``attrs`` are quoted here, ``content`` must already be markup."""
    parts = "".join(
        f" {k.rstrip('_').replace('_', '-')}={quoteattr(_attr(v))}" for k, v in attrs.items()
    )
    return f"<{tag}{parts}>{content}</{tag}>" if content else f"<{tag}{parts}/>"


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
