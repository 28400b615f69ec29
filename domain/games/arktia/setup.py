"""Arktia's options for rules version 1, read as ``INFO`` (``info.py``) declares them.

``game_created`` records the options as the organizer gave them; the rules version pins the
defaults, so a game created today folds the same way after the defaults change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.engine.errors import InvalidSetup
from domain.games.arktia.hexes import BOARD_24, BOARD_27, BOARD_36, Hex, is_connected
from domain.games.arktia.info import INFO, MAX_BOARD_TILES, MAX_COORDINATE

__all__ = ["MAX_BOARD_TILES", "ArktiaOptions", "read_options"]


@dataclass(frozen=True, slots=True)
class ArktiaOptions:
    board: frozenset[Hex]
    neutrals: bool
    turn_limit: int


def read_options(given: Mapping[str, Any], seats: int) -> ArktiaOptions:
    """The effective options for ``seats`` players; ``InvalidSetup`` names what is wrong."""
    values = INFO.read_options(given, seats)
    neutrals = seats == 2 or (seats == 3 and values["neutrals_3p"])
    in_play = 9 * seats + (3 * seats if neutrals else 0)
    board = _board(values["board"], in_play)
    return ArktiaOptions(board=board, neutrals=neutrals, turn_limit=values["turn_limit"])


def _board(given: Any, in_play: int) -> frozenset[Hex]:
    if given is None:
        return {24: BOARD_24, 27: BOARD_27}.get(in_play, BOARD_36)
    if not isinstance(given, list) or not all(
        isinstance(t, list)
        and len(t) == 2
        and all(type(v) is int and abs(v) <= MAX_COORDINATE for v in t)
        for t in given
    ):
        raise InvalidSetup(
            "invalid_option",
            f"board must be a list of [q, r] integer pairs, each within ±{MAX_COORDINATE}",
        )
    if len(given) > MAX_BOARD_TILES:
        raise InvalidSetup(
            "invalid_option",
            f"board may hold at most {MAX_BOARD_TILES} tiles; this one lists {len(given)}",
        )
    tiles = frozenset((t[0], t[1]) for t in given)
    if len(tiles) != len(given):
        raise InvalidSetup("invalid_option", "board lists a tile twice")
    if len(tiles) < in_play:
        raise InvalidSetup(
            "invalid_option", f"board needs at least {in_play} tiles for the moogloos in play"
        )
    if not is_connected(tiles):
        raise InvalidSetup("invalid_option", "board must be connected")
    return tiles
