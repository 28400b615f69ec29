"""The checks every game's parsers start with, so all games refuse alike.

Actions (HTTP 400): ``unknown_action_type``, ``unexpected_field``, ``missing_field``; the
games' own field checks add ``invalid_field`` (``int_pair`` for coordinates). A game states
its actions once, as an ``ActionTable``, which parses them. Setup (HTTP 400):
``player_count``, ``unknown_option``, ``invalid_option``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, NamedTuple, Protocol, TypeVar

from domain.engine.errors import InvalidSetup, MalformedAction


def action_type(data: Mapping[str, Any], fields: Mapping[str, frozenset[str]]) -> str:
    """The action's ``type`` once it names a known action with exactly its fields."""
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in fields:
        raise MalformedAction(
            "unknown_action_type", f"action type must be one of {sorted(fields)}, not {kind!r}"
        )
    expected = fields[kind]
    extra = set(data) - expected - {"type"}
    if extra:
        raise MalformedAction("unexpected_field", f"{kind} takes no field {sorted(extra)[0]!r}")
    missing = expected - set(data)
    if missing:
        raise MalformedAction("missing_field", f"{kind} needs the field {sorted(missing)[0]!r}")
    return kind


class Typed(Protocol):
    """An action class: its ``type`` is the action's JSON ``type``."""

    type: ClassVar[str]


A = TypeVar("A", bound=Typed)
#: Reads a field's JSON value into the action's, or raises ``MalformedAction``
#: (``invalid_field``); it is handed the field's key, for the message.
FieldReader = Callable[[Any, str], Any]


class Field(NamedTuple):
    """One field of an action's JSON: its ``key``, how to ``read`` it, and the ``attribute``
    of the action it fills when that is not named as the key (``from`` fills ``source``)."""

    key: str
    read: FieldReader
    attribute: str = ""


class ActionTable(Generic[A]):
    """A game's actions as its JSON states them: each action class (its ``type`` names it)
    with its fields, in the order ``parse`` reads them, so the first field that is off is
    the one a refusal names."""

    def __init__(self, *actions: tuple[type[A], Sequence[Field]]) -> None:
        self._actions = {cls.type: (cls, tuple(fields)) for cls, fields in actions}
        if len(self._actions) != len(actions):
            raise ValueError("two action classes of one type")
        #: The fields each action type takes besides ``type``.
        self.fields = {
            kind: frozenset(field.key for field in fields)
            for kind, (_, fields) in self._actions.items()
        }
        #: Every action type, as events name them.
        self.types = frozenset(self._actions)

    def parse(self, data: Mapping[str, Any]) -> A:
        """The action ``data`` names, or ``MalformedAction`` naming the first field that is off."""
        cls, fields = self._actions[action_type(data, self.fields)]
        return cls(**{f.attribute or f.key: f.read(data[f.key], f.key) for f in fields})


#: How far from the origin a parsed coordinate may lie: far beyond any board, small enough
#: that no one can make the rules work on huge integers.
COORDINATE_LIMIT = 1000


def int_pair(value: Any, name: str, axes: str = "x, y") -> tuple[int, int]:
    """A coordinate pair ``[a, b]`` of integers (not ``true``), each within the limit.

    ``axes`` names the two numbers in the error message: ``must be a pair of integers [x, y]``.
    """
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(type(v) is int and -COORDINATE_LIMIT <= v <= COORDINATE_LIMIT for v in value)
    ):
        return (value[0], value[1])
    raise MalformedAction("invalid_field", f"{name} must be a pair of integers [{axes}]")


def check_setup(
    game: str, given: Mapping[str, Any], known: frozenset[str], seats: int, low: int, high: int
) -> None:
    """Refuse a player count outside ``low..high`` and any option the game does not know.

    Unknown options are refused, never ignored, so a typo cannot fall back to a default.
    """
    if not low <= seats <= high:
        raise InvalidSetup("player_count", f"{game} is for {low} to {high} players")
    unknown = set(given) - known
    if unknown:
        raise InvalidSetup("unknown_option", f"{game} has no option {sorted(unknown)[0]!r}")


def int_option(given: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    """An integer option in ``low..high`` (``true`` is not an integer)."""
    value = given.get(name, default)
    if type(value) is not int or not low <= value <= high:
        raise InvalidSetup("invalid_option", f"{name} must be an integer {low}..{high}")
    return value


def bool_option(given: Mapping[str, Any], name: str, default: bool) -> bool:
    value = given.get(name, default)
    if not isinstance(value, bool):
        raise InvalidSetup("invalid_option", f"{name} must be true or false")
    return value
