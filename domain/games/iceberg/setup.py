"""Iceberg's options for rules version 1, read as ``INFO`` (``info.py``) declares them.

``game_created`` records the options as the organizer gave them; the rules version pins the
defaults, so a game created today folds the same way after the defaults change. Unknown
options are refused so a typo never silently falls back to a default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.games.iceberg.info import INFO


@dataclass(frozen=True, slots=True)
class IcebergOptions:
    idle_turn_limit: int  # 0 = no limit


def read_options(given: Mapping[str, Any], seats: int) -> IcebergOptions:
    """The effective options for ``seats`` players; ``InvalidSetup`` names what is wrong."""
    return IcebergOptions(idle_turn_limit=INFO.read_options(given, seats)["idle_turn_limit"])
