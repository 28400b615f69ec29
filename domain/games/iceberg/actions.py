"""Iceberg's actions as small value types that print and parse themselves.

Parsing only checks shape (400 territory); whether the action is allowed is the rules' job.
A position is ``{"square": [sx, sy]}`` or ``{"tile": [tx, ty]}``; any pair of integers parses,
and the rules say whether it is on the board.

>>> parse_action({"type": "move", "from": {"square": [3, 3]}, "to": {"tile": [1, 2]}})
Move(source=Pos(kind='square', x=3, y=3), target=Pos(kind='tile', x=1, y=2))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from domain.engine.errors import MalformedAction
from domain.engine.parsing import ActionTable, Field, int_pair
from domain.engine.types import JSON
from domain.games.iceberg.geometry import Pos, Square, Tile


@dataclass(frozen=True, slots=True)
class PlaceStart:
    square: Square
    type: ClassVar[str] = "place_start"

    def to_json(self) -> JSON:
        return {"type": self.type, "square": list(self.square)}


@dataclass(frozen=True, slots=True)
class Play:
    target: Pos
    type: ClassVar[str] = "play"

    def to_json(self) -> JSON:
        return {"type": self.type, "to": self.target.to_json()}


@dataclass(frozen=True, slots=True)
class Move:
    source: Pos
    target: Pos
    type: ClassVar[str] = "move"

    def to_json(self) -> JSON:
        return {"type": self.type, "from": self.source.to_json(), "to": self.target.to_json()}


@dataclass(frozen=True, slots=True)
class Flip:
    tile: Tile
    type: ClassVar[str] = "flip"

    def to_json(self) -> JSON:
        return {"type": self.type, "tile": list(self.tile)}


@dataclass(frozen=True, slots=True)
class Roll:
    type: ClassVar[str] = "roll"

    def to_json(self) -> JSON:
        return {"type": self.type}


@dataclass(frozen=True, slots=True)
class RemoveTile:
    tile: Tile
    type: ClassVar[str] = "remove_tile"

    def to_json(self) -> JSON:
        return {"type": self.type, "tile": list(self.tile)}


@dataclass(frozen=True, slots=True)
class KeepGroup:
    tile: Tile
    type: ClassVar[str] = "keep_group"

    def to_json(self) -> JSON:
        return {"type": self.type, "tile": list(self.tile)}


IcebergAction = PlaceStart | Play | Move | Flip | Roll | RemoveTile | KeepGroup


def _position(value: Any, name: str) -> Pos:
    if isinstance(value, Mapping) and len(value) == 1:
        ((kind, xy),) = value.items()
        if kind in ("square", "tile"):
            x, y = int_pair(xy, f"{name}.{kind}")
            return Pos(kind, x, y)
    raise MalformedAction(
        "invalid_field", f'{name} must be {{"square": [sx, sy]}} or {{"tile": [tx, ty]}}'
    )


ACTIONS: ActionTable[IcebergAction] = ActionTable(
    (PlaceStart, [Field("square", int_pair)]),
    (Play, [Field("to", _position, "target")]),
    (Move, [Field("from", _position, "source"), Field("to", _position, "target")]),
    (Flip, [Field("tile", int_pair)]),
    (Roll, []),
    (RemoveTile, [Field("tile", int_pair)]),
    (KeepGroup, [Field("tile", int_pair)]),
)
#: The action ``data`` names, or ``MalformedAction`` naming the first field that is off.
parse_action = ACTIONS.parse
