"""Iceberg's options and their defaults for rules version 1.

``game_created`` records the options as the organizer gave them; the rules version pins the
defaults, so a game created today folds the same way after the defaults change. Unknown
options are refused so a typo never silently falls back to a default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.engine.parsing import check_setup, int_option

DEFAULT_IDLE_TURN_LIMIT = 100
MAX_IDLE_TURN_LIMIT = 1_000_000
KNOWN_OPTIONS = frozenset({"idle_turn_limit"})


@dataclass(frozen=True, slots=True)
class IcebergOptions:
    idle_turn_limit: int  # 0 = no limit


def read_options(given: Mapping[str, Any], seats: int) -> IcebergOptions:
    """The effective options for ``seats`` players; ``InvalidSetup`` names what is wrong."""
    check_setup("iceberg", given, KNOWN_OPTIONS, seats, 2, 4)
    limit = int_option(given, "idle_turn_limit", DEFAULT_IDLE_TURN_LIMIT, 0, MAX_IDLE_TURN_LIMIT)
    return IcebergOptions(idle_turn_limit=limit)
