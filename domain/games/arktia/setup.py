"""Arktia's options and their defaults for rules version 1.

``game_created`` records the options as the organizer gave them; the rules version pins the
defaults, so a game created today folds the same way after the defaults change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.engine.errors import InvalidSetup
from domain.engine.parsing import bool_option, check_setup, int_option
from domain.games.arktia.hexes import BOARD_24, BOARD_27, BOARD_36, Hex, is_connected

DEFAULT_TURN_LIMIT = 300
MAX_TURN_LIMIT = 1_000_000
#: The most tiles a ``board`` may hold: over five times the largest default board (36), and
#: the bound on what every rule that looks at the whole continent costs per event.
MAX_BOARD_TILES = 200
#: How far from the origin a ``board``'s coordinates may go.
MAX_COORDINATE = 100
KNOWN_OPTIONS = frozenset({"board", "neutrals_3p", "turn_limit"})


@dataclass(frozen=True, slots=True)
class ArktiaOptions:
    board: frozenset[Hex]
    neutrals: bool
    turn_limit: int


def read_options(given: Mapping[str, Any], seats: int) -> ArktiaOptions:
    """The effective options for ``seats`` players; ``InvalidSetup`` names what is wrong."""
    check_setup("arktia", given, KNOWN_OPTIONS, seats, 2, 4)
    neutrals_3p = bool_option(given, "neutrals_3p", False)
    neutrals = seats == 2 or (seats == 3 and neutrals_3p)
    turn_limit = int_option(given, "turn_limit", DEFAULT_TURN_LIMIT, 1, MAX_TURN_LIMIT)
    in_play = 9 * seats + (3 * seats if neutrals else 0)
    board = _board(given.get("board"), in_play)
    return ArktiaOptions(board=board, neutrals=neutrals, turn_limit=turn_limit)


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
