"""Pig's contract: its two actions, its state, its outcome, the die and its one refusal as
JSON Schema (``domain.engine.game.Contract``), so a spec built with Pig registered states it
like any hosted game (``PigState``, ``PigRoll``)."""

from __future__ import annotations

from domain.engine.game import Contract, ref
from domain.engine.types import JSON

SEAT: JSON = {"type": "integer", "minimum": 0, "maximum": 3}

ACTIONS: dict[str, JSON] = {
    kind: {
        "description": description,
        "type": "object",
        "required": ["type"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "const": kind}},
    }
    for kind, description in (
        ("roll", "Roll the die once more, risking the turn total (a worker draws it)."),
        ("hold", "Bank the turn total and pass the die."),
    )
}

STATE: JSON = {
    "type": "object",
    "description": "The whole position: Pig hides nothing.",
    "required": [
        "target",
        "scores",
        "current",
        "turn_total",
        "rolling",
        "last_roll",
        "turns",
        "turn_limit",
        "winner",
    ],
    "additionalProperties": False,
    "properties": {
        "target": {"type": "integer", "minimum": 5, "maximum": 100},
        "scores": {"type": "array", "minItems": 2, "maxItems": 4, "items": ref("Points")},
        "current": {"oneOf": [ref("Seat"), {"type": "null"}]},
        "turn_total": ref("Points"),
        "rolling": {"type": "boolean"},
        "last_roll": {"oneOf": [{"type": "integer", "minimum": 1, "maximum": 6}, {"type": "null"}]},
        "turns": {"type": "integer", "minimum": 0},
        "turn_limit": {"type": "integer", "minimum": 1},
        "winner": {"oneOf": [ref("Seat"), {"type": "null"}]},
    },
}

OUTCOME: JSON = {
    "type": "object",
    "description": "The first to the target wins; nobody, after the turn limit.",
    "required": ["winners", "scores"],
    "additionalProperties": False,
    "properties": {
        "winners": {"type": "array", "maxItems": 1, "items": ref("Seat")},
        "scores": {
            "type": "object",
            "propertyNames": {"pattern": "^[0-3]$"},
            "additionalProperties": ref("Points"),
        },
    },
}

CONTRACT = Contract(
    actions=ACTIONS,
    state=STATE,
    pending={},
    outcome=OUTCOME,
    errors={
        "nothing_to_hold": "`hold` with a turn total of 0",
        "unknown_action": "an action the rules do not know",
    },
    draws={
        "die": {
            "description": "A `uniform` of 6 after each `roll`: the face less one. Public.",
            "kind": {"const": "uniform"},
            "n": {"const": 6},
            "outcome": {"type": "integer", "minimum": 0, "maximum": 5},
        }
    },
    definitions={"Seat": SEAT, "Points": {"type": "integer", "minimum": 0}},
    description="Pig hides nothing; each `roll` waits for a worker's draw of the die (202).",
)
