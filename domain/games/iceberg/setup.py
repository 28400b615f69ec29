"""Iceberg's options and their defaults for rules version 1.

``game_created`` records the options as the organizer gave them; the rules version pins the
defaults, so a game created today folds the same way after the defaults change. Unknown
options are refused so a typo never silently falls back to a default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.engine.errors import InvalidSetup

DEFAULT_IDLE_TURN_LIMIT = 100
MAX_IDLE_TURN_LIMIT = 1_000_000
KNOWN_OPTIONS = frozenset({"idle_turn_limit"})


@dataclass(frozen=True, slots=True)
class IcebergOptions:
    idle_turn_limit: int  # 0 = no limit


def read_options(given: Mapping[str, Any], seats: int) -> IcebergOptions:
    """The effective options for ``seats`` players; ``InvalidSetup`` names what is wrong."""
    if not 2 <= seats <= 4:
        raise InvalidSetup("player_count", "iceberg is for 2 to 4 players")
    unknown = set(given) - KNOWN_OPTIONS
    if unknown:
        raise InvalidSetup("unknown_option", f"iceberg has no option {sorted(unknown)[0]!r}")
    limit = given.get("idle_turn_limit", DEFAULT_IDLE_TURN_LIMIT)
    if type(limit) is not int or not 0 <= limit <= MAX_IDLE_TURN_LIMIT:
        raise InvalidSetup(
            "invalid_option",
            f"idle_turn_limit must be an integer 0..{MAX_IDLE_TURN_LIMIT} (0 = off)",
        )
    return IcebergOptions(idle_turn_limit=limit)
