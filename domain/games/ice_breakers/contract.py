"""Ice Breakers' contract: its actions, state, pending decisions, outcome, draws and refusals
as JSON Schema, what ``actions.py``, ``view.py``, ``checks.py`` and ``rules.py`` accept and
answer.

Plain data (``domain.engine.game.Contract``); the API's spec names every schema after the
game (``IceBreakersState``, ``IceBreakersMoveShip``). Options are declared in ``info.py``.
"""

from __future__ import annotations

from domain.engine.game import Contract, ref
from domain.engine.types import JSON

ACTIONS: dict[str, JSON] = {
    "play_power": {
        "description": ("The active seat plays a Power `card` from its hand (once per turn)."),
        "type": "object",
        "required": ["type", "card"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "play_power"}, "card": ref("CardRef")},
        "example": {"type": "play_power", "card": "c09"},
    },
    "boost": {
        "description": (
            "Any seat in `to_act` adds a B1 (+1) or, on a Power 5 or 7, an R3 (+3) "
            "from its hand, once the Power card is down."
        ),
        "type": "object",
        "required": ["type", "card"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "boost"}, "card": ref("CardRef")},
    },
    "cash_ab2": {
        "description": (
            "An AB2 leaves the game and the seat draws up to 2 cards from the "
            "discard pile (`ab2` draws by a worker: 202 without `wait`, unless the "
            "pile is empty); the drawn cards then wait for that seat to `give` "
            "them. The active seat may cash before or after its Power card; other "
            "seats only after it."
        ),
        "type": "object",
        "required": ["type", "card"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "cash_ab2"}, "card": ref("CardRef")},
    },
    "clear": {
        "description": (
            "The active seat turns the ice piece on `cell` to water, paying its value."
        ),
        "type": "object",
        "required": ["type", "cell"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "clear"}, "cell": ref("XY")},
        "example": {"type": "clear", "cell": [3, 1]},
    },
    "move_ship": {
        "description": (
            "The active seat moves `ship` along `path`, the cells it enters in "
            "order (not its start), each orthogonally next to the one before, all "
            "water or harbors; entering its own harbor delivers it (the path must "
            "end there)."
        ),
        "type": "object",
        "required": ["type", "ship", "path"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "move_ship"},
            "ship": {
                "type": "integer",
                "minimum": -1000,
                "maximum": 1000,
                "description": (
                    "The ship's number (1..12); one not in play is 422 `unknown_ship`."
                ),
            },
            "path": {"type": "array", "minItems": 1, "maxItems": 200, "items": ref("XY")},
        },
        "example": {"type": "move_ship", "ship": 2, "path": [[3, 0], [3, 1]]},
    },
    "give": {
        "description": (
            "The giver hands a waiting `card` (a delivery's reward, or an AB2 draw)"
            " to seat `to`, itself included."
        ),
        "type": "object",
        "required": ["type", "card", "to"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "give"},
            "card": ref("CardRef"),
            "to": ref("SeatRef"),
        },
    },
    "end_turn": {
        "description": "The active seat ends its turn (after its Power card).",
        "type": "object",
        "required": ["type"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "end_turn"}},
    },
    "pass": {
        "description": "The active seat ends its turn without a Power card.",
        "type": "object",
        "required": ["type"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": "pass"}},
    },
}

PENDING: dict[str, JSON] = {
    "give": {
        "type": "object",
        "required": ["type", "seat", "cards"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "give"},
            "seat": ref("Seat"),
            "cards": {
                "type": "array",
                "description": "The cards waiting to be given.",
                "minItems": 1,
                "maxItems": 32,
                "uniqueItems": True,
                "items": ref("Card"),
            },
        },
    },
    "ab2_draw": {
        "type": "object",
        "required": ["type", "seat", "draws_left"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "ab2_draw"},
            "seat": ref("Seat"),
            "draws_left": {"type": "integer", "minimum": 1, "maximum": 2},
        },
    },
}

STATE: JSON = {
    "type": "object",
    "description": (
        "The whole Ice Breakers position; every viewer sees the same (hands are"
        " open). The Ice Report stack's order is the one secret: only the "
        "exposed `forecast` card and the count `reports_face_down` show until "
        "the game is over, then `report_stack` too."
    ),
    "required": [
        "phase",
        "intro",
        "current",
        "turns",
        "passes_in_a_row",
        "channels",
        "destinations",
        "ships",
        "delivered",
        "row",
        "discard",
        "hands",
        "forecast",
        "reports_face_down",
        "turn",
        "pending",
    ],
    "additionalProperties": False,
    "properties": {
        "phase": {
            "type": "string",
            "enum": ["pieces", "ships", "reports_upper", "reports_lower", "deck", "play", "over"],
            "description": (
                "`pieces`, `ships`, `reports_upper`, `reports_lower`, `deck`: that "
                "setup draw is pending (status `awaiting_random`); `play`: turns; "
                "`over`."
            ),
        },
        "intro": {"type": "boolean", "description": "The introductory game (option `intro`)."},
        "current": {
            "description": ("The active seat during `play`; null during setup and once over."),
            "oneOf": [ref("Seat"), {"type": "null"}],
        },
        "turns": {
            "type": "integer",
            "minimum": 0,
            "description": "Turns completed (ended by `end_turn` or `pass`).",
        },
        "passes_in_a_row": {
            "type": "integer",
            "minimum": 0,
            "maximum": 4,
            "description": ("Turns passed in a row; as many as there are seats ends the season."),
        },
        "channels": {
            "type": "array",
            "description": (
                "The 66 channel spaces with their piece, row-major (`y`, then `x`); "
                "empty until the `pieces` draw."
            ),
            "maxItems": 66,
            "items": ref("Channel"),
        },
        "destinations": {
            "type": "array",
            "description": "The 12 destinations, by number.",
            "minItems": 12,
            "maxItems": 12,
            "items": ref("Destination"),
        },
        "ships": {
            "type": "array",
            "description": "The ships in play (12, or 6 in the intro), by number.",
            "minItems": 6,
            "maxItems": 12,
            "items": ref("Ship"),
        },
        "delivered": {
            "type": "array",
            "description": "Ships delivered during play, in delivery order.",
            "maxItems": 12,
            "uniqueItems": True,
            "items": ref("ShipNumber"),
        },
        "row": {
            "type": "array",
            "description": "The small-destination row, front first (empty in the intro).",
            "maxItems": 8,
            "uniqueItems": True,
            "items": ref("Card"),
        },
        "discard": {
            "description": "The discard pile, oldest first.",
            "$ref": "#/components/schemas/IceBreakersCards",
        },
        "hands": {
            "type": "array",
            "description": "Every seat's hand, in seat order (open hands).",
            "minItems": 2,
            "maxItems": 4,
            "items": ref("Hand"),
        },
        "forecast": {
            "description": (
                "The exposed Ice Report card once dealt (`play`, `over`); null before."
            ),
            "oneOf": [ref("Report"), {"type": "null"}],
        },
        "reports_face_down": {
            "description": "Ice Report cards still face down once dealt; null before.",
            "oneOf": [{"type": "integer", "minimum": 0, "maximum": 19}, {"type": "null"}],
        },
        "report_stack": {
            "type": "array",
            "description": ("The whole Ice Report stack from the top; only once the game is over."),
            "minItems": 20,
            "maxItems": 20,
            "items": ref("Report"),
        },
        "turn": ref("Turn"),
        "pending": {
            "description": ("The cards or draws owed now (as the view's `pending`), or null."),
            "oneOf": [ref("Pending"), {"type": "null"}],
        },
    },
    "allOf": [
        {
            "if": {"required": ["phase"], "properties": {"phase": {"const": "play"}}},
            "then": {"properties": {"current": ref("Seat")}},
            "else": {"properties": {"current": {"type": "null"}, "pending": {"type": "null"}}},
        },
        {
            "if": {"required": ["phase"], "properties": {"phase": {"enum": ["play", "over"]}}},
            "then": {
                "properties": {
                    "channels": {"minItems": 66},
                    "forecast": ref("Report"),
                    "reports_face_down": {"type": "integer"},
                }
            },
            "else": {
                "properties": {"forecast": {"type": "null"}, "reports_face_down": {"type": "null"}}
            },
        },
        {
            "if": {"required": ["phase"], "properties": {"phase": {"const": "pieces"}}},
            "then": {"properties": {"channels": {"maxItems": 0}}},
        },
        {
            "if": {"required": ["phase"], "properties": {"phase": {"const": "over"}}},
            "then": {"required": ["report_stack"]},
            "else": {"not": {"required": ["report_stack"]}},
        },
    ],
}

OUTCOME: JSON = {
    "type": "object",
    "description": (
        "Ice Breakers' co-operative outcome: `winners` is every seat on a "
        "complete success (every ship in play delivered), `[]` otherwise; no "
        "points (`scores` is `{}`); `delivered` ships delivered during play "
        "(the intro's six pre-delivered ones not counted), out of `in_play` "
        "(12, or 6 in the intro), in `turns` turns (a turn cut short by the "
        "last delivery counts)."
    ),
    "required": ["winners", "scores", "delivered", "in_play", "turns"],
    "additionalProperties": False,
    "properties": {
        "winners": {"type": "array", "maxItems": 4, "uniqueItems": True, "items": ref("Seat")},
        "scores": {"type": "object", "maxProperties": 0},
        "delivered": {"type": "integer", "minimum": 0, "maximum": 12},
        "in_play": {"type": "integer", "enum": [6, 12]},
        "turns": {"type": "integer", "minimum": 0},
    },
}

DEFINITIONS: dict[str, JSON] = {
    "XY": {
        "type": "array",
        "description": (
            "A cell `[x, y]` as an action names it (`x` 0..12 eastward, `y` 0..9 "
            "southward on the board). Any integers in −1000..1000 are well-formed; "
            "the rules refuse cells off the map (422 `not_a_channel`, "
            "`not_navigable`)."
        ),
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "integer", "minimum": -1000, "maximum": 1000},
    },
    "CardRef": {
        "type": "string",
        "minLength": 1,
        "maxLength": 16,
        "description": (
            "A Coast Guard card id as an action names it, `c01`..`c32`. Any string "
            "of 1..16 characters is well-formed; one that is no card in the seat's "
            "hand is 422 `not_in_hand` (in a `give`, `card_not_waiting`)."
        ),
    },
    "SeatRef": {
        "type": "integer",
        "minimum": -1000,
        "maximum": 1000,
        "description": ("A seat as a `give` names it; one not in the game is 422 `no_such_seat`."),
    },
    "Seat": {"type": "integer", "minimum": 0, "maximum": 3},
    "Cell": {
        "type": "array",
        "description": "A cell of the board, `[x, y]`, `x` in 0..12, `y` in 0..9.",
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "integer", "minimum": 0, "maximum": 12},
    },
    "ShipNumber": {"type": "integer", "minimum": 1, "maximum": 12},
    "Card": {
        "description": (
            "A Coast Guard card: `id` (`c01`..`c32`), `kind` and `value`: c01–c08 "
            "Power 5, c09–c16 Power 7, c17–c22 Power 10, c23–c26 Retrofit `R3` (3),"
            " c27–c30 Bubbler `B1` (1), c31–c32 Auto-Ballast `AB2` (2)."
        ),
        "oneOf": [
            {
                "type": "object",
                "required": ["id", "kind", "value"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": "^c0[1-8]$"},
                    "kind": {"const": "power"},
                    "value": {"const": 5},
                },
            },
            {
                "type": "object",
                "required": ["id", "kind", "value"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": "^c(09|1[0-6])$"},
                    "kind": {"const": "power"},
                    "value": {"const": 7},
                },
            },
            {
                "type": "object",
                "required": ["id", "kind", "value"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": "^c(1[7-9]|2[0-2])$"},
                    "kind": {"const": "power"},
                    "value": {"const": 10},
                },
            },
            {
                "type": "object",
                "required": ["id", "kind", "value"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": "^c2[3-6]$"},
                    "kind": {"const": "R3"},
                    "value": {"const": 3},
                },
            },
            {
                "type": "object",
                "required": ["id", "kind", "value"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": "^c(2[7-9]|30)$"},
                    "kind": {"const": "B1"},
                    "value": {"const": 1},
                },
            },
            {
                "type": "object",
                "required": ["id", "kind", "value"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": "^c3[12]$"},
                    "kind": {"const": "AB2"},
                    "value": {"const": 2},
                },
            },
        ],
    },
    "Cards": {"type": "array", "maxItems": 32, "uniqueItems": True, "items": ref("Card")},
    "Report": {
        "type": "array",
        "description": (
            "An Ice Report card, the water numbers that re-freeze (ascending; `[]` is Mild)."
        ),
        "maxItems": 4,
        "uniqueItems": True,
        "items": {"type": "integer", "minimum": 1, "maximum": 4},
    },
    "Channel": {
        "type": "object",
        "description": ("A channel space and its piece's number, ice or water side up."),
        "required": ["cell", "value", "side"],
        "additionalProperties": False,
        "properties": {
            "cell": ref("Cell"),
            "value": {"type": "integer", "minimum": 1, "maximum": 4},
            "side": {"type": "string", "enum": ["ice", "water"]},
        },
    },
    "Destination": {
        "type": "object",
        "description": (
            "A destination: its `harbor` cell, `size` (`large`: 2, 3, 6, 8), "
            "whether its ship is `in_play`, `delivered` (also true for a "
            "destination not in play) and the reward `cards` still on it."
        ),
        "required": ["destination", "harbor", "size", "in_play", "delivered", "cards"],
        "additionalProperties": False,
        "properties": {
            "destination": ref("ShipNumber"),
            "harbor": ref("Cell"),
            "size": {"type": "string", "enum": ["large", "small"]},
            "in_play": {"type": "boolean"},
            "delivered": {"type": "boolean"},
            "cards": {"type": "array", "maxItems": 3, "uniqueItems": True, "items": ref("Card")},
        },
    },
    "Ship": {
        "type": "object",
        "description": (
            "A ship in play: its `cell` (null once delivered, and before the "
            "`ships` draw), whether it is `delivered`, and `pinned` (on a channel "
            "space showing ice)."
        ),
        "required": ["ship", "cell", "delivered", "pinned"],
        "additionalProperties": False,
        "properties": {
            "ship": ref("ShipNumber"),
            "cell": {"oneOf": [ref("Cell"), {"type": "null"}]},
            "delivered": {"type": "boolean"},
            "pinned": {"type": "boolean"},
        },
    },
    "Hand": {
        "type": "object",
        "required": ["seat", "cards"],
        "additionalProperties": False,
        "properties": {"seat": ref("Seat"), "cards": ref("Cards")},
    },
    "Turn": {
        "type": "object",
        "description": (
            "The turn in progress: the Power card played (null before), the "
            "`boosts` added, `points` (Power plus boosts), `spent` on clearing, and"
            " `left` = points − spent."
        ),
        "required": ["power", "boosts", "points", "spent", "left"],
        "additionalProperties": False,
        "properties": {
            "power": {"oneOf": [ref("Card"), {"type": "null"}]},
            "boosts": ref("Cards"),
            "points": {"type": "integer", "minimum": 0},
            "spent": {"type": "integer", "minimum": 0},
            "left": {"type": "integer", "minimum": 0},
        },
    },
}

ERRORS: dict[str, str] = {
    "give_pending": "cards wait to be given: only `give` now",
    "nothing_to_give": "`give` when no card waits",
    "card_not_waiting": "`give` of a card that is not waiting",
    "no_such_seat": "`give` to a seat not in the game",
    "not_active_player": (
        "`play_power`, `clear`, `move_ship`, `end_turn` or `pass` by a seat "
        "whose turn it is not (or an AB2 cashed by another seat before the "
        "Power card)"
    ),
    "power_already_played": "a second `play_power` this turn, or `pass` after one",
    "no_power_played": ("`boost`, `clear`, `move_ship` or `end_turn` before the Power card"),
    "not_in_hand": ("a card not in the seat's hand (also a string that is no card id)"),
    "not_a_power_card": "`play_power` of a card that is not a Power card",
    "not_a_boost_card": "`boost` of a card that is not a Retrofit or a Bubbler",
    "retrofit_needs_5_or_7": "an R3 on a Power 10",
    "not_an_ab2": "`cash_ab2` of a card that is not an Auto-Ballast",
    "not_a_channel": "`clear` of land, a harbor or a cell off the map",
    "already_water": "`clear` of a piece already showing water",
    "not_enough_points": "`clear` of ice worth more than the points left",
    "unknown_ship": "`move_ship` of a ship not in play",
    "ship_delivered": "`move_ship` of a delivered ship",
    "ship_pinned": "`move_ship` of a ship pinned on ice",
    "not_adjacent": "a path cell not next to the one before",
    "not_navigable": "a path cell on land or off the map",
    "blocked_by_ice": "a path cell showing ice",
    "past_destination": "a path going on after the ship's own harbor",
    "no_move": "a path ending where the ship started",
    "unknown_action": "an action the rules do not know",
}

DRAWS: dict[str, JSON] = {
    "pieces": {
        "description": (
            "A `shuffle` of 66 (event 2): channel space `i` (row-major, `y` then "
            "`x`, harbors left out) gets piece `outcome[i]` (value 1 for k < 20, 2 "
            "for k < 40, 3 for k < 60, else 4), ice side up. Public."
        ),
        "kind": {"const": "shuffle"},
        "n": {"const": 66},
        "outcome": {
            "type": "array",
            "minItems": 66,
            "maxItems": 66,
            "uniqueItems": True,
            "items": {"type": "integer", "minimum": 0, "maximum": 65},
        },
    },
    "ships": {
        "description": (
            "A `derangement` of the ships in play (12, or 6 in the intro; event 3):"
            " the harbor of the i-th ship in play gets the `outcome[i]`-th one. "
            "Public."
        ),
        "kind": {"const": "derangement"},
        "n": {"enum": [6, 12]},
        "outcome": {
            "type": "array",
            "minItems": 6,
            "maxItems": 12,
            "uniqueItems": True,
            "items": {"type": "integer", "minimum": 0, "maximum": 11},
        },
    },
    "reports_upper": {
        "description": (
            "A `shuffle` of 13 (event 4), the cards `[1] [1] [1] [2] [2] [2] [3] "
            "[3] [3] [4] [4] [4] []` (`[]` is Mild) in that order: the top of the "
            "Ice Report stack, in outcome order. Secret until the game ends."
        ),
        "kind": {"const": "shuffle"},
        "n": {"const": 13},
        "outcome": {
            "oneOf": [
                {
                    "type": "array",
                    "minItems": 13,
                    "maxItems": 13,
                    "uniqueItems": True,
                    "items": {"type": "integer", "minimum": 0, "maximum": 12},
                },
                {"type": "null"},
            ]
        },
    },
    "reports_lower": {
        "description": (
            "A `shuffle` of 5 (event 5), the cards `[1, 2] [2, 3] [3, 4] [1, 4] "
            "[]`: below the upper ones, in outcome order, followed by `[1, 2, 3]` "
            "and, last, `[1, 2, 3, 4]` (20 cards in all). Secret until the game "
            "ends."
        ),
        "kind": {"const": "shuffle"},
        "n": {"const": 5},
        "outcome": {
            "oneOf": [
                {
                    "type": "array",
                    "minItems": 5,
                    "maxItems": 5,
                    "uniqueItems": True,
                    "items": {"type": "integer", "minimum": 0, "maximum": 4},
                },
                {"type": "null"},
            ]
        },
    },
    "deck": {
        "description": (
            "A `shuffle` (event 6) of the Coast Guard cards not in the starting "
            "hands (seat `i` starts with `c(01+i)` and `c(09+i)`), in id order (28,"
            " 26 or 24 cards for 2, 3 or 4 players), dealt in outcome order: 3 each"
            " to destinations 2, 3, 6 and 8 (intro: then 1 each to 5 and 9), 8 to "
            "the row (front first; none in the intro), then one at a time to seats "
            "0, 1, 2, ... round-robin. Public."
        ),
        "kind": {"const": "shuffle"},
        "n": {"enum": [24, 26, 28]},
        "outcome": {
            "type": "array",
            "minItems": 24,
            "maxItems": 28,
            "uniqueItems": True,
            "items": {"type": "integer", "minimum": 0, "maximum": 27},
        },
    },
    "ab2": {
        "description": (
            "A `uniform` of the discard pile's size after a `cash_ab2` (pile oldest"
            " first): the card taken; a second `ab2` draw, uniform of the size "
            "left, takes a second card. Public."
        ),
        "kind": {"const": "uniform"},
        "n": {"type": "integer", "minimum": 1, "maximum": 30},
        "outcome": {"type": "integer", "minimum": 0, "maximum": 29},
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
        "Ice Breakers to the Rescue is co-operative: the table wins or loses "
        "together, so it has no tournaments, and several seats may be in "
        "`to_act` at once (once the Power card is down, every other seat "
        "holding a card it may add: a B1, an R3 on a Power 5 or 7, or an AB2). "
        "Hands, rewards, the row and the discard pile are public "
        "(`open_hands`). The order of the Ice Report stack is its one secret: "
        "the `reports_upper` and `reports_lower` draws are shown with `outcome:"
        " null` to every viewer until the game ends, and `state` shows only the"
        " exposed `forecast` card and the count `reports_face_down` (the whole "
        "`report_stack` once over). A new game is `awaiting_random` until a "
        "worker has made the five setup draws (`pieces`, `ships`, "
        "`reports_upper`, `reports_lower`, `deck`: versions 2..6; `?wait=` "
        "waits for them). `cash_ab2` with a non-empty discard pile is its only "
        "action that waits for a draw (one or two `ab2` draws): 202 without "
        "`wait`. No refusal's message names an Ice Report card before it is "
        "exposed."
    ),
)
