"""The registry of games Floe hosts: wire name -> Rules."""

from __future__ import annotations

from typing import Any

from domain.engine.rules import Rules
from domain.games.arktia import ARKTIA
from domain.games.ice_breakers import ICE_BREAKERS
from domain.games.iceberg import ICEBERG

GAMES: dict[str, Rules[Any]] = {game.name: game for game in (ARKTIA, ICEBERG, ICE_BREAKERS)}
