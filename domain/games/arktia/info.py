"""Arktia, declared: its name, seats, information, rules version and options.

Everything else reads these facts from ``INFO``: the rules (``ArktiaRules.info``), setup's
option parsing (``setup.py``), the bots, the service and the API's contract.
"""

from __future__ import annotations

from domain.engine.game import GameInfo, OptionParameter

DEFAULT_TURN_LIMIT = 300
MAX_TURN_LIMIT = 1_000_000
#: The most tiles a ``board`` may hold: over five times the largest default board (36), and
#: the bound on what every rule that looks at the whole continent costs per event.
MAX_BOARD_TILES = 200
#: How far from the origin a ``board``'s coordinates may go.
MAX_COORDINATE = 100
#: The fewest tiles any board needs: one per moogloo of the smallest game (2 players, 9
#: each and 3 neutral each).
MIN_BOARD_TILES = 2 * (9 + 3)

INFO = GameInfo(
    name="arktia",
    title="Arktia",
    summary="Arktia (Stefan Kögl, 2008): moogloos on a melting continent of hexagonal tiles",
    min_seats=2,
    max_seats=4,
    information="perfect",
    play="competitive",
    rules_version="1",
    chance=False,
    options=(
        OptionParameter(
            "board",
            "array",
            None,
            "The board's tiles as [q, r] pairs: connected, at least one per moogloo in play "
            "(9 per player, plus 3 neutral per player with 2 players or with neutrals_3p), at "
            f"most {MAX_BOARD_TILES}; default 24 tiles for 2 players, 27 for 3, 36 for 4 or 3 "
            "with neutrals.",
            schema={
                "uniqueItems": True,
                "minItems": MIN_BOARD_TILES,
                "maxItems": MAX_BOARD_TILES,
                "items": {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 2,
                    "items": {
                        "type": "integer",
                        "minimum": -MAX_COORDINATE,
                        "maximum": MAX_COORDINATE,
                    },
                },
            },
        ),
        OptionParameter(
            "neutrals_3p", "boolean", False, "With 3 players, play with 9 neutral moogloos."
        ),
        OptionParameter(
            "turn_limit",
            "integer",
            DEFAULT_TURN_LIMIT,
            "The game ends after this many turns (places, moves and retires).",
            minimum=1,
            maximum=MAX_TURN_LIMIT,
        ),
    ),
)
