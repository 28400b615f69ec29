"""Plain-text pictures: ANSI seat colours (0 red, 1 blue, 2 green, 3 yellow) for every game's
``text.py``, so seats look the same in every game and in ``floe replay step``.
"""

from __future__ import annotations

SEAT_CODES = ("31", "34", "32", "33")
RESET = "\x1b[0m"


def paint(text: str, seat: object, colour: bool) -> str:
    """``text`` in ``seat``'s colour when ``colour`` is on and ``seat`` is a seat number."""
    if not colour or not isinstance(seat, int) or isinstance(seat, bool):
        return text
    return f"\x1b[{SEAT_CODES[seat % len(SEAT_CODES)]}m{text}{RESET}"


def dim(text: str, code: str, colour: bool) -> str:
    """``text`` with an arbitrary ANSI SGR ``code`` when ``colour`` is on."""
    return f"\x1b[{code}m{text}{RESET}" if colour else text


def caption(outcome: str | None, move: str | None, now: str | None = None) -> list[str]:
    """The lines under a text picture's heading: ``Result:``, ``Last move:`` and ``Now:``,
    each only when there is something to say."""
    said = (("Result", outcome), ("Last move", move), ("Now", now))
    return [f"{label}: {words}" for label, words in said if words]
