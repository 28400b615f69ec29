"""The registry of games Floe hosts: wire name -> Rules."""

from __future__ import annotations

from typing import Any

from domain.engine.rules import Rules
from domain.games.arktia import ARKTIA

GAMES: dict[str, Rules[Any]] = {ARKTIA.name: ARKTIA}
