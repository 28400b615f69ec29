"""Iceberg's contract: its actions, state, pending decisions, outcome, draws and refusals as
JSON Schema, what ``actions.py``, ``view.py`` and ``rules.py`` accept and answer.

Plain data (``domain.engine.game.Contract``); the API's spec names every schema after the
game (``IcebergState``, ``IcebergMove``). Options are declared in ``info.py``.
"""

from __future__ import annotations

from domain.engine.game import Contract, ref
from domain.engine.types import JSON

ACTIONS: dict[str, JSON] = {
    "place_start": {
        "description": (
            "The starting coin onto one of the free starting squares (3,3), (6,3), "
            "(6,6), (3,6); each seat in turn, before anything else."
        ),
        "type": "object",
        "required": ["type", "square"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "place_start"}, "square": ref("XY")},
        "example": {"type": "place_start", "square": [3, 3]},
    },
    "play": {
        "description": "A coin from hand onto the free position `to`.",
        "type": "object",
        "required": ["type", "to"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "play"}, "to": ref("Position")},
        "example": {"type": "play", "to": {"square": [0, 0]}},
    },
    "move": {
        "description": ("The seat's coin on `from` one orthogonal step to the free position `to`."),
        "type": "object",
        "required": ["type", "from", "to"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "move"},
            "from": ref("Position"),
            "to": ref("Position"),
        },
        "example": {"type": "move", "from": {"square": [6, 6]}, "to": {"square": [7, 6]}},
    },
    "flip": {
        "description": (
            "Turn the face-down `tile` (with an open side) face-up, bumping its coins."
        ),
        "type": "object",
        "required": ["type", "tile"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "flip"}, "tile": ref("XY")},
    },
    "roll": {
        "description": (
            "Roll the die; a worker draws it (the answer is 202 without `wait`). A "
            "match removes a face-up tile; several matches owe `remove_tile`, a "
            "split into tied largest groups owes `keep_group`."
        ),
        "type": "object",
        "required": ["type"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "roll"}},
    },
    "remove_tile": {
        "description": "Answers a pending `remove_tile`: which matching `tile` goes.",
        "type": "object",
        "required": ["type", "tile"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "remove_tile"}, "tile": ref("XY")},
    },
    "keep_group": {
        "description": ("Answers a pending `keep_group`: the tied group holding `tile` stays."),
        "type": "object",
        "required": ["type", "tile"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "keep_group"}, "tile": ref("XY")},
    },
}

PENDING: dict[str, JSON] = {
    "remove_tile": {
        "type": "object",
        "description": (
            "The `die` matched several face-up `tiles`; `seat` removes one with `remove_tile`."
        ),
        "required": ["type", "seat", "die", "tiles"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "remove_tile"},
            "seat": ref("Seat"),
            "die": {"type": "integer", "minimum": 0, "maximum": 5},
            "tiles": {"type": "array", "minItems": 2, "items": ref("TileXY")},
        },
    },
    "keep_group": {
        "type": "object",
        "description": (
            "The iceberg split into equally large biggest `groups` (smaller ones "
            "are gone already); `seat` names any tile of the group that stays with "
            "`keep_group`. Each group's tiles are sorted."
        ),
        "required": ["type", "seat", "groups"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "keep_group"},
            "seat": ref("Seat"),
            "groups": {
                "type": "array",
                "minItems": 2,
                "items": {"type": "array", "minItems": 1, "items": ref("TileXY")},
            },
        },
    },
}

STATE: JSON = {
    "type": "object",
    "description": (
        "The whole Iceberg position; every viewer sees the same (hands are "
        "public counts, and a tile's value only shows once it is face-up — also"
        " after the game ends, when the unmasked `tiles` event has the layout)."
    ),
    "required": [
        "phase",
        "current",
        "hole",
        "tiles",
        "coins",
        "players",
        "awaiting_die",
        "pending",
        "idle_turns",
        "idle_turn_limit",
    ],
    "additionalProperties": False,
    "properties": {
        "phase": {
            "type": "string",
            "enum": ["deal", "start", "play", "over"],
            "description": (
                "`deal`: the `tiles` shuffle is pending (status `awaiting_random`); "
                "`start`: seats place their starting coins in order; `play`: regular "
                "turns; `over`."
            ),
        },
        "current": {
            "description": (
                "The seat whose turn it is (`start`, `play`); null while dealing and once over."
            ),
            "oneOf": [ref("Seat"), {"type": "null"}],
        },
        "hole": {
            "type": "array",
            "description": "The empty centre position, always `[2, 2]`.",
            "minItems": 2,
            "maxItems": 2,
            "items": {"type": "integer", "const": 2},
        },
        "tiles": {
            "type": "array",
            "description": ("The 24 board positions in deal order (row-major, skipping the hole)."),
            "minItems": 24,
            "maxItems": 24,
            "items": ref("Tile"),
        },
        "coins": {
            "type": "array",
            "description": "Every coin on the board, sorted by position.",
            "maxItems": 24,
            "items": ref("Coin"),
        },
        "players": {
            "type": "array",
            "description": "One entry per seat, in seat order.",
            "minItems": 2,
            "maxItems": 4,
            "items": ref("Player"),
        },
        "awaiting_die": {
            "type": "boolean",
            "description": ("A `roll` was made and its die is pending (status `awaiting_random`)."),
        },
        "pending": {
            "description": ("The choice the roller owes (as the view's `pending`), or null."),
            "oneOf": [ref("Pending"), {"type": "null"}],
        },
        "idle_turns": {
            "type": "integer",
            "minimum": 0,
            "description": "Idle turns in a row so far.",
        },
        "idle_turn_limit": {
            "type": "integer",
            "minimum": 0,
            "maximum": 1000000,
            "description": "The game's `idle_turn_limit` option (0 = off).",
        },
    },
    "allOf": [
        {
            "if": {"required": ["phase"], "properties": {"phase": {"enum": ["start", "play"]}}},
            "then": {"properties": {"current": ref("Seat")}},
            "else": {
                "properties": {
                    "current": {"type": "null"},
                    "awaiting_die": {"const": False},
                    "pending": {"type": "null"},
                }
            },
        },
        {
            "if": {"required": ["phase"], "properties": {"phase": {"const": "deal"}}},
            "then": {
                "properties": {
                    "coins": {"maxItems": 0},
                    "tiles": {"items": {"properties": {"state": {"const": "face_down"}}}},
                }
            },
        },
    ],
}

OUTCOME: JSON = {
    "type": "object",
    "description": (
        "Iceberg's outcome: no points (`scores` is `{}`); `winners` is the one "
        "winner, or every seat sharing a draw."
    ),
    "required": ["winners", "scores"],
    "additionalProperties": False,
    "properties": {
        "winners": {
            "type": "array",
            "minItems": 1,
            "maxItems": 4,
            "uniqueItems": True,
            "items": ref("Seat"),
        },
        "scores": {"type": "object", "maxProperties": 0},
    },
}

DEFINITIONS: dict[str, JSON] = {
    "XY": {
        "type": "array",
        "description": (
            "A pair of integers `[x, y]` as an action names it: a square `[sx, sy]`"
            " (0..9 on the board) or a tile `[tx, ty]` (0..4 on the board, `[2, 2]`"
            " being the hole), `y` growing southward; square `[sx, sy]` lies on "
            "tile `[sx // 2, sy // 2]`. Any integers in −1000..1000 are "
            "well-formed; off the board or in the hole is 422 `off_board`."
        ),
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "integer", "minimum": -1000, "maximum": 1000},
    },
    "Position": {
        "description": (
            'Where a coin stands or goes: `{"square": [sx, sy]}`, a square of a '
            'face-down tile, or `{"tile": [tx, ty]}`, a whole face-up tile. Exactly'
            " one of the two keys."
        ),
        "oneOf": [
            {
                "type": "object",
                "required": ["square"],
                "additionalProperties": False,
                "properties": {"square": ref("XY")},
            },
            {
                "type": "object",
                "required": ["tile"],
                "additionalProperties": False,
                "properties": {"tile": ref("XY")},
            },
        ],
    },
    "TileXY": {
        "type": "array",
        "description": ("A tile of the board, `[tx, ty]` in 0..4, never the hole `[2, 2]`."),
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "integer", "minimum": 0, "maximum": 4},
        "not": {
            "description": "The hole `[2, 2]` (an array of two items both 2).",
            "items": {"const": 2},
        },
    },
    "SquareXY": {
        "type": "array",
        "description": (
            "A square of the board, `[sx, sy]` in 0..9 (on tile `[sx // 2, sy // 2]`)."
        ),
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "integer", "minimum": 0, "maximum": 9},
    },
    "BoardPosition": {
        "description": (
            'A coin\'s position in the state, `{"square": [sx, sy]}` or `{"tile": [tx, ty]}`.'
        ),
        "oneOf": [
            {
                "type": "object",
                "required": ["square"],
                "additionalProperties": False,
                "properties": {"square": ref("SquareXY")},
            },
            {
                "type": "object",
                "required": ["tile"],
                "additionalProperties": False,
                "properties": {"tile": ref("TileXY")},
            },
        ],
    },
    "Suit": {
        "type": "string",
        "enum": ["suns", "moons", "crowns", "arms"],
        "description": "A suit; seat 0 plays suns, 1 moons, 2 crowns, 3 arms.",
    },
    "Seat": {"type": "integer", "minimum": 0, "maximum": 3},
    "Tile": {
        "description": (
            "One board position: its tile's `state` (`face_down`, `face_up` or "
            "`removed`); a face-up tile also shows its `value` (0..5) and `suit`."
        ),
        "oneOf": [
            {
                "type": "object",
                "required": ["tile", "state", "value", "suit"],
                "additionalProperties": False,
                "properties": {
                    "tile": ref("TileXY"),
                    "state": {"type": "string", "const": "face_up"},
                    "value": {"type": "integer", "minimum": 0, "maximum": 5},
                    "suit": ref("Suit"),
                },
            },
            {
                "type": "object",
                "required": ["tile", "state"],
                "additionalProperties": False,
                "properties": {
                    "tile": ref("TileXY"),
                    "state": {"type": "string", "enum": ["face_down", "removed"]},
                },
            },
        ],
    },
    "Coin": {
        "type": "object",
        "required": ["position", "seat", "suit"],
        "additionalProperties": False,
        "properties": {"position": ref("BoardPosition"), "seat": ref("Seat"), "suit": ref("Suit")},
    },
    "Player": {
        "type": "object",
        "required": ["seat", "suit", "hand", "on_board", "out"],
        "additionalProperties": False,
        "properties": {
            "seat": ref("Seat"),
            "suit": ref("Suit"),
            "hand": {
                "type": "integer",
                "minimum": 0,
                "maximum": 6,
                "description": "Coins still in hand (6 at the start).",
            },
            "on_board": {
                "type": "integer",
                "minimum": 0,
                "maximum": 6,
                "description": "The seat's coins on the board.",
            },
            "out": {
                "type": "boolean",
                "description": (
                    "No coin on the board and either an empty hand or no tile left; out "
                    "seats are skipped. Always false while dealing."
                ),
            },
        },
    },
}

ERRORS: dict[str, str] = {
    "start_pending": "every seat places its starting coin before anything else",
    "setup_over": "`place_start` after the starting coins are down",
    "not_a_start_square": "`place_start` on a square that is not one of the four",
    "decision_pending": "a `remove_tile` / `keep_group` choice is owed first",
    "no_pending_decision": "`remove_tile` / `keep_group` with no such choice owed",
    "not_a_match": "`remove_tile` names a tile that does not show the die",
    "not_in_tied_group": "`keep_group` names a tile outside the tied largest groups",
    "no_coin_in_hand": "`play` with an empty hand",
    "off_board": "a position or tile off the 5 x 5 grid or in the hole",
    "tile_removed": "a position or tile on a removed tile",
    "tile_face_up": "a square of a face-up tile (name the tile instead)",
    "tile_face_down": "a face-down tile as a position (name one of its squares)",
    "occupied": "the target position already holds a coin",
    "no_coin_there": "`move` from a position holding no coin",
    "not_your_coin": "`move` of another player's coin",
    "not_adjacent": "`move` to a position not one orthogonal step away",
    "already_face_up": "`flip` of a face-up tile",
    "no_open_side": "`flip` of a tile with a tile on all four sides",
    "unknown_action": "an action the rules do not know",
}

DRAWS: dict[str, JSON] = {
    "tiles": {
        "description": (
            "A `shuffle` of 24, once, as event 2: board position `i` (row-major, "
            "`ty` then `tx`, skipping the hole) gets tile `outcome[i]`, tile `k` "
            "being suit `k // 6` (suns, moons, crowns, arms) and value `k % 6`. "
            "Secret: `outcome` is null to every viewer until the game ends."
        ),
        "kind": {"const": "shuffle"},
        "n": {"const": 24},
        "outcome": {
            "oneOf": [
                {
                    "type": "array",
                    "minItems": 24,
                    "maxItems": 24,
                    "uniqueItems": True,
                    "items": {"type": "integer", "minimum": 0, "maximum": 23},
                },
                {"type": "null"},
            ]
        },
    },
    "die": {
        "description": ("A `uniform` of 6 after each `roll`: the face 0..5. Public at once."),
        "kind": {"const": "uniform"},
        "n": {"const": 6},
        "outcome": {"type": "integer", "minimum": 0, "maximum": 5},
    },
}

CONTRACT = Contract(
    actions=ACTIONS,
    state=STATE,
    pending=PENDING,
    outcome=OUTCOME,
    errors=ERRORS,
    draws=DRAWS,
    definitions=DEFINITIONS,
    description=(
        "Iceberg hides its tile layout from everyone: the `tiles` draw is shown"
        " with `outcome: null` to every viewer (seats, spectators and the "
        "organizer alike) until the game ends, and a tile's `value` and `suit` "
        "appear in `state` only once it is face-up; the organizer's export, "
        "before the end, is the only unmasked log. A new game is "
        "`awaiting_random` until a worker draws `tiles` (event 2; `?wait=` "
        "waits for it). `roll` is its only action that waits for a draw (the "
        "`die`, public at once): 202 without `wait`. No refusal's message names"
        " the value of a face-down tile."
    ),
)
