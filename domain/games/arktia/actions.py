"""Arktia's actions as small value types that print and parse themselves.

Parsing only checks shape (400 territory); whether the action is allowed is the rules' job.

>>> parse_action({"type": "move", "from": [0, 0], "unit": "all", "to": [2, 0]})
Move(source=(0, 0), unit='all', target=(2, 0))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from domain.engine.errors import MalformedAction
from domain.engine.parsing import ActionTable, Field, int_pair
from domain.engine.types import JSON
from domain.games.arktia.hexes import Hex
from domain.games.arktia.stacks import NEUTRAL, SIZES, Colour, Size

UNITS = ("G", "DG", "T", "D", "all")


@dataclass(frozen=True, slots=True)
class Place:
    size: Size
    tile: Hex
    type: ClassVar[str] = "place"

    def to_json(self) -> JSON:
        return {"type": self.type, "size": self.size, "tile": list(self.tile)}


@dataclass(frozen=True, slots=True)
class Move:
    source: Hex
    unit: str
    target: Hex
    type: ClassVar[str] = "move"

    def to_json(self) -> JSON:
        return {
            "type": self.type,
            "from": list(self.source),
            "unit": self.unit,
            "to": list(self.target),
        }


@dataclass(frozen=True, slots=True)
class KeepGroup:
    colour: Colour
    tile: Hex
    type: ClassVar[str] = "keep_group"

    def to_json(self) -> JSON:
        colour: int | str = "neutral" if self.colour == NEUTRAL else self.colour
        return {"type": self.type, "colour": colour, "tile": list(self.tile)}


@dataclass(frozen=True, slots=True)
class Melt:
    tile: Hex
    type: ClassVar[str] = "melt"

    def to_json(self) -> JSON:
        return {"type": self.type, "tile": list(self.tile)}


@dataclass(frozen=True, slots=True)
class Retire:
    type: ClassVar[str] = "retire"

    def to_json(self) -> JSON:
        return {"type": self.type}


ArktiaAction = Place | Move | KeepGroup | Melt | Retire


def trusted_action(data: Mapping[str, Any]) -> ArktiaAction:
    """An action read back from the log, which ``parse_action`` already checked once.

    Folding skips the checks (``evolve`` trusts the log) because a fold reads every event.
    """
    kind = data["type"]
    if kind == "move":
        source, target = data["from"], data["to"]
        return Move((source[0], source[1]), data["unit"], (target[0], target[1]))
    if kind == "place":
        tile = data["tile"]
        return Place(data["size"], (tile[0], tile[1]))
    return parse_action(data)


def _hex(value: Any, name: str) -> Hex:
    return int_pair(value, name, "q, r")


def _size(value: Any, name: str) -> Size:
    if value in SIZES:
        return str(value)
    raise MalformedAction("invalid_field", f"{name} must be one of {list(SIZES)}")


def _unit(value: Any, name: str) -> str:
    if value in UNITS:
        return str(value)
    raise MalformedAction("invalid_field", f"{name} must be one of {list(UNITS)}")


def _colour(value: Any, name: str) -> Colour:
    if value == "neutral":
        return NEUTRAL
    if type(value) is int and 0 <= value < 16:
        return value
    raise MalformedAction("invalid_field", f"{name} must be a seat number or 'neutral'")


ACTIONS: ActionTable[ArktiaAction] = ActionTable(
    (Place, [Field("size", _size), Field("tile", _hex)]),
    (Move, [Field("unit", _unit), Field("from", _hex, "source"), Field("to", _hex, "target")]),
    (KeepGroup, [Field("colour", _colour), Field("tile", _hex)]),
    (Melt, [Field("tile", _hex)]),
    (Retire, []),
)
#: The action ``data`` names, or ``MalformedAction`` naming the first field that is off.
parse_action = ACTIONS.parse
