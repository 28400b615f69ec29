"""Plain-text pictures of a game's JSON view, one renderer per game.

``text(game, state, colour=...)`` takes what ``rules.view`` makes and returns lines; with
``colour`` seats are painted with ANSI codes (0 red, 1 blue, 2 green, 3 yellow).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

SEAT_CODES = ("31", "34", "32", "33")
RESET = "\x1b[0m"

#: Game name -> the module of this package that draws it.
MODULES = {"arktia": "arktia", "iceberg": "iceberg", "ice-breakers": "ice_breakers"}

Renderer = Callable[[dict[str, Any], bool], list[str]]


def paint(text: str, seat: object, colour: bool) -> str:
    """``text`` in ``seat``'s colour when ``colour`` is on and ``seat`` is a seat number."""
    if not colour or not isinstance(seat, int) or isinstance(seat, bool):
        return text
    return f"\x1b[{SEAT_CODES[seat % len(SEAT_CODES)]}m{text}{RESET}"


def dim(text: str, code: str, colour: bool) -> str:
    """``text`` with an arbitrary ANSI SGR ``code`` when ``colour`` is on."""
    return f"\x1b[{code}m{text}{RESET}" if colour else text


def text(game: str, state: dict[str, Any], *, colour: bool) -> list[str]:
    """The lines picturing ``state`` (a ``rules.view`` result) of ``game``."""
    module = MODULES.get(game)
    if module is None:
        raise ValueError(f"no text renderer for game {game!r}")
    renderer: Renderer = import_module(f"replay.text.{module}").render
    return renderer(state, colour)
