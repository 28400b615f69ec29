"""The checks every game's parsers start with, so all games refuse alike.

Actions (HTTP 400): ``unknown_action_type``, ``unexpected_field``, ``missing_field``; the
games' own field checks add ``invalid_field`` (``int_pair`` for coordinates). Setup (HTTP
400): ``player_count``, ``unknown_option``, ``invalid_option``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
