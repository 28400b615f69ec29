"""Ice Breakers' actions as small value types that print and parse themselves.

Parsing only checks shape (400 territory); whether the action is allowed is the rules' job.
A card is any short string (the rules say whether it is a card and in hand); a cell is a pair
of integers; a path is a non-empty list of cells.

>>> parse_action({"type": "move_ship", "ship": 3, "path": [[4, 0], [5, 0]]})
MoveShip(ship=3, path=((4, 0), (5, 0)))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from domain.engine.errors import MalformedAction
from domain.engine.parsing import ActionTable, Field, int_pair
from domain.engine.types import JSON
from domain.games.ice_breakers.geometry import Cell

MAX_PATH = 200


@dataclass(frozen=True, slots=True)
class PlayPower:
    card: str
    type: ClassVar[str] = "play_power"

    def to_json(self) -> JSON:
        return {"type": self.type, "card": self.card}


@dataclass(frozen=True, slots=True)
class Boost:
    card: str
    type: ClassVar[str] = "boost"

    def to_json(self) -> JSON:
        return {"type": self.type, "card": self.card}


@dataclass(frozen=True, slots=True)
class CashAb2:
    card: str
    type: ClassVar[str] = "cash_ab2"

    def to_json(self) -> JSON:
        return {"type": self.type, "card": self.card}


@dataclass(frozen=True, slots=True)
class Clear:
    cell: Cell
    type: ClassVar[str] = "clear"

    def to_json(self) -> JSON:
        return {"type": self.type, "cell": list(self.cell)}


@dataclass(frozen=True, slots=True)
class MoveShip:
    ship: int
    path: tuple[Cell, ...]
    type: ClassVar[str] = "move_ship"

    def to_json(self) -> JSON:
        return {"type": self.type, "ship": self.ship, "path": [list(c) for c in self.path]}


@dataclass(frozen=True, slots=True)
class Give:
    card: str
    to: int
    type: ClassVar[str] = "give"

    def to_json(self) -> JSON:
        return {"type": self.type, "card": self.card, "to": self.to}


@dataclass(frozen=True, slots=True)
class EndTurn:
    type: ClassVar[str] = "end_turn"

    def to_json(self) -> JSON:
        return {"type": self.type}


@dataclass(frozen=True, slots=True)
class Pass:
    type: ClassVar[str] = "pass"

    def to_json(self) -> JSON:
        return {"type": self.type}


IceBreakersAction = PlayPower | Boost | CashAb2 | Clear | MoveShip | Give | EndTurn | Pass


def _card(value: Any, name: str) -> str:
    if isinstance(value, str) and 0 < len(value) <= 16:
        return value
    raise MalformedAction("invalid_field", f"{name} must be a card id such as 'c07'")


def _int(value: Any, name: str) -> int:
    if type(value) is int and -1000 <= value <= 1000:
        return value
    raise MalformedAction("invalid_field", f"{name} must be an integer")


def _path(value: Any, name: str) -> tuple[Cell, ...]:
    if not isinstance(value, list) or not 0 < len(value) <= MAX_PATH:
        raise MalformedAction(
            "invalid_field", f"{name} must be a list of 1 to {MAX_PATH} cells [[x, y], ...]"
        )
    return tuple(int_pair(cell, "each path cell") for cell in value)


ACTIONS: ActionTable[IceBreakersAction] = ActionTable(
    (PlayPower, [Field("card", _card)]),
    (Boost, [Field("card", _card)]),
    (CashAb2, [Field("card", _card)]),
    (Clear, [Field("cell", int_pair)]),
    (MoveShip, [Field("ship", _int), Field("path", _path)]),
    (Give, [Field("card", _card), Field("to", _int)]),
    (EndTurn, []),
    (Pass, []),
)
#: The action ``data`` names, or ``MalformedAction`` naming the first field that is off.
parse_action = ACTIONS.parse
