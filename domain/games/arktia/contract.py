"""Arktia's contract: its actions, state, pending decisions, outcome and refusals as JSON
Schema, what ``actions.py``, ``view.py`` and ``rules.py`` accept and answer.

Plain data (``domain.engine.game.Contract``); the API's spec names every schema after the
game (``ArktiaState``, ``ArktiaMove``). Options are declared in ``info.py``.
"""

from __future__ import annotations

from domain.engine.game import Contract, ref
from domain.engine.types import JSON

ACTIONS: dict[str, JSON] = {
    "place": {
        "description": (
            "A moogloo of `size` from the reserve (during the neutral phase, from "
            "the seat's neutral reserve) onto the empty `tile`."
        ),
        "type": "object",
        "required": ["type", "size", "tile"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "place"},
            "size": ref("Size"),
            "tile": ref("Hex"),
        },
        "example": {"type": "place", "size": "D", "tile": [0, 1]},
    },
    "move": {
        "description": (
            "The `unit` of the stack on `from` in a straight line to `to`. Units: a"
            " lone piece moves as `all`; from A (D+G): `G` or `all`; from B (T+D): "
            "`D` or `all`; from C (T around G): `T` or `all`; from D (T+D+G): `G`, "
            "`DG` or `all`."
        ),
        "type": "object",
        "required": ["type", "from", "unit", "to"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "move"},
            "from": ref("Hex"),
            "unit": {"type": "string", "enum": ["G", "DG", "T", "D", "all"]},
            "to": ref("Hex"),
        },
        "example": {"type": "move", "from": [0, 0], "unit": "all", "to": [2, 0]},
    },
    "keep_group": {
        "description": (
            "Answers a pending tie (pending `keep_group`): the group of `colour` "
            "holding `tile` stays, the others leave the board."
        ),
        "type": "object",
        "required": ["type", "colour", "tile"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "keep_group"},
            "colour": ref("Colour"),
            "tile": ref("Hex"),
        },
    },
    "melt": {
        "description": ("Answers a pending melt: the empty border `tile` leaves the board."),
        "type": "object",
        "required": ["type", "tile"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "melt"}, "tile": ref("Hex")},
    },
    "retire": {
        "description": "The seat ends its game (not during the opening).",
        "type": "object",
        "required": ["type"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "retire"}},
    },
}

PENDING: dict[str, JSON] = {
    "keep_group": {
        "type": "object",
        "description": (
            "A colour split into equally heavy groups: `seat` picks the group that "
            "stays with `keep_group` naming `colour` and any tile of that group. "
            "`queued` lists the colours of further ties to settle after this one "
            "(seats ascending, then neutral)."
        ),
        "required": ["type", "seat", "colour", "groups", "queued"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "keep_group"},
            "seat": ref("Seat"),
            "colour": ref("Colour"),
            "groups": {
                "type": "array",
                "minItems": 2,
                "items": {"type": "array", "minItems": 1, "items": ref("Hex")},
            },
            "queued": {"type": "array", "items": ref("Colour")},
        },
    },
    "melt": {
        "type": "object",
        "description": (
            "The seat began its turn with an empty reserve and must melt one of "
            "`tiles` (empty border tiles whose loss keeps the continent whole) with"
            " `melt`."
        ),
        "required": ["type", "seat", "tiles"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "melt"},
            "seat": ref("Seat"),
            "tiles": {"type": "array", "minItems": 1, "items": ref("Hex")},
        },
    },
}

STATE: JSON = {
    "type": "object",
    "description": (
        "The whole Arktia position (every viewer sees the same). Lists of tiles"
        " are sorted by `[q, r]`."
    ),
    "required": ["phase", "turn", "turn_limit", "current", "tiles", "holes", "stacks", "players"],
    "additionalProperties": False,
    "properties": {
        "phase": {
            "type": "string",
            "enum": ["neutral", "round1", "round2", "play", "over"],
            "description": (
                "`neutral`: placing the neutral moogloos (2 players, or 3 with "
                "`neutrals_3p`); `round1`, `round2`: the two opening placements; "
                "`play`: regular turns; `over`."
            ),
        },
        "turn": {
            "type": "integer",
            "minimum": 0,
            "description": (
                "Turns taken so far (places, moves and retires; answers do not count)."
            ),
        },
        "turn_limit": {"type": "integer", "minimum": 1, "maximum": 1000000},
        "current": {
            "description": "The seat whose turn it is; null once the game is over.",
            "oneOf": [ref("Seat"), {"type": "null"}],
        },
        "tiles": {
            "type": "array",
            "description": "The ice tiles still in play.",
            "items": ref("Hex"),
        },
        "holes": {
            "type": "array",
            "description": "Tiles of the starting board that have melted.",
            "items": ref("Hex"),
        },
        "stacks": {"type": "array", "description": "Every occupied tile.", "items": ref("Stack")},
        "players": {
            "type": "array",
            "description": "One entry per seat, in seat order.",
            "minItems": 2,
            "maxItems": 4,
            "items": ref("Player"),
        },
    },
}

OUTCOME: JSON = {
    "type": "object",
    "description": (
        "Arktia's outcome; the highest score wins, equal highest scores share the win."
    ),
    "required": ["winners", "scores"],
    "additionalProperties": False,
    "properties": {
        "winners": {"type": "array", "minItems": 1, "items": ref("Seat")},
        "scores": {
            "type": "object",
            "propertyNames": {"pattern": "^[0-9]+$"},
            "additionalProperties": {"type": "integer", "minimum": 0},
        },
    },
}

DEFINITIONS: dict[str, JSON] = {
    "Seat": {"type": "integer", "minimum": 0, "maximum": 15},
    "Hex": {
        "type": "array",
        "description": (
            "A tile in axial coordinates `[q, r]` (pointy-top). The six neighbours "
            "of `[q, r]` are at offsets (+1,0), (+1,−1), (0,−1), (−1,0), (−1,+1), "
            "(0,+1)."
        ),
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "integer", "minimum": -1000, "maximum": 1000},
    },
    "Size": {
        "type": "string",
        "enum": ["G", "D", "T"],
        "description": "Globus (small), Diskus (medium), Torus (large ring).",
    },
    "Colour": {
        "description": 'A seat number, or `"neutral"` for the neutral moogloos.',
        "oneOf": [ref("Seat"), {"type": "string", "enum": ["neutral"]}],
    },
    "Stack": {
        "type": "object",
        "required": ["tile", "form", "controller", "pieces"],
        "additionalProperties": False,
        "properties": {
            "tile": ref("Hex"),
            "form": {
                "type": "string",
                "enum": ["single", "A", "B", "C", "D"],
                "description": "`single`; A = D+G; B = T+D; C = T enclosing G; D = T+D+G.",
            },
            "controller": ref("Colour"),
            "pieces": {
                "type": "array",
                "description": "Bottom to top (in C the G is listed first, inside the T).",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "type": "object",
                    "required": ["size", "colour"],
                    "additionalProperties": False,
                    "properties": {"size": ref("Size"), "colour": ref("Colour")},
                },
            },
        },
    },
    "Reserve": {
        "type": "object",
        "description": (
            "Pieces in reserve by size: exactly the keys `G`, `D` and `T`, each a "
            'count 0..3, e.g. `{"G": 3, "D": 2, "T": 3}`. (Stated as '
            "`propertyNames` and `additionalProperties` rather than one "
            "`properties` entry per size: code generators name a field `D` as `d`, "
            "which some of them, openapi-python-client 0.29 among them, clash with "
            "a variable of their own.)"
        ),
        "required": ["G", "D", "T"],
        "propertyNames": {"enum": ["G", "D", "T"]},
        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 3},
    },
    "Player": {
        "type": "object",
        "required": [
            "seat",
            "reserve",
            "neutral_reserve",
            "on_board",
            "kept",
            "lost",
            "melted",
            "score",
            "ended",
        ],
        "additionalProperties": False,
        "properties": {
            "seat": ref("Seat"),
            "reserve": ref("Reserve"),
            "neutral_reserve": ref("Reserve"),
            "on_board": {
                "type": "integer",
                "minimum": 0,
                "description": "Pieces of this seat's colour on the board.",
            },
            "kept": {
                "type": "integer",
                "minimum": 0,
                "description": ("Points for pieces removed from the board by this seat's actions."),
            },
            "lost": {
                "type": "integer",
                "minimum": 0,
                "maximum": 9,
                "description": (
                    "Pieces of this seat's colour removed from the board (by anyone), so "
                    "that on_board + reserve + lost = 9."
                ),
            },
            "melted": {
                "type": "integer",
                "minimum": 0,
                "description": "Tiles this seat melted (one point each).",
            },
            "score": {
                "type": "integer",
                "minimum": 0,
                "description": "kept + melted + tiles this seat controls now.",
            },
            "ended": {
                "description": (
                    "Why this seat's game ended, or null while it plays: `no_action` (could"
                    " neither place nor move), `cannot_melt`, `too_few` (one piece or none "
                    "left on the board), `retired`, `turn_limit`."
                ),
                "oneOf": [
                    {
                        "type": "string",
                        "enum": ["no_action", "cannot_melt", "too_few", "retired", "turn_limit"],
                    },
                    {"type": "null"},
                ],
            },
        },
    },
}

ERRORS: dict[str, str] = {
    "decision_pending": "a tie or a melt is owed first",
    "no_pending_decision": "`keep_group` or `melt` when nothing is owed",
    "opening": "a move or a retire during the opening",
    "not_in_reserve": "`place` of a size the reserve no longer holds",
    "no_such_tile": "a tile that is not on the board",
    "tile_occupied": "`place` on a tile that is not empty",
    "not_adjacent": "a placement the opening's rule does not allow there",
    "empty_tile": "`move` from a tile where nothing stands",
    "not_your_stack": "`move` of a stack whose top piece is another seat's",
    "invalid_unit": "a `unit` this stack cannot move",
    "not_straight": "a `move` not in a straight line",
    "path_broken": "a `move` crossing a hole or leaving the board",
    "illegal_landing": "a landing the landing table does not allow",
    "splits_own_colour": "a `move` that would remove pieces of the mover's colour",
    "wrong_colour": "`keep_group` of another colour than the tie being settled",
    "not_in_tied_group": "`keep_group` naming a tile outside the tied groups",
    "not_meltable": (
        "`melt` of a tile that is not an empty border tile whose loss keeps the continent whole"
    ),
    "unknown_action": "an action the rules do not know",
}

DRAWS: dict[str, JSON] = {}

CONTRACT = Contract(
    actions=ACTIONS,
    state=STATE,
    pending=PENDING,
    outcome=OUTCOME,
    errors=ERRORS,
    draws=DRAWS,
    definitions=DEFINITIONS,
    description=(
        "Arktia hides nothing (every viewer sees the same `state`) and draws "
        "nothing: its actions always answer 201, and `status` is never "
        "`awaiting_random`."
    ),
)
