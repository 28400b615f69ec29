"""The registry of games Floe hosts: wire name -> ``Game`` bundle.

This is the one place outside a game's own package that names games. Everything else (the
bots, the service, the replay tools) looks a game up here by the name its ``game_created``
event records and works through the bundle's fields. A game that lives elsewhere (a plugin)
joins with ``register`` or ``load_game_module``.
"""

from __future__ import annotations

import importlib
from typing import Any

from domain.engine.game import Game
from domain.games import arktia, ice_breakers, iceberg

GAMES: dict[str, Game[Any]] = {
    game.name: game for game in (arktia.GAME, iceberg.GAME, ice_breakers.GAME)
}


def register(game: Game[Any]) -> None:
    """Host ``game`` under its rules' name.

    Registering the same bundle again does nothing; a different bundle under a name already
    taken is refused with ``ValueError``, so a plugin can never shadow a hosted game.
    """
    known = GAMES.get(game.name)
    if known is game:
        return
    if known is not None:
        raise ValueError(f"a different game is already registered as {game.name!r}")
    GAMES[game.name] = game


def load_game_module(name: str) -> Game[Any]:
    """Import the module ``name`` (e.g. ``"tests.support.pig"``), register its ``GAME``
    bundle and return it."""
    module = importlib.import_module(name)
    game = getattr(module, "GAME", None)
    if not isinstance(game, Game):
        raise ValueError(f"module {name!r} exports no GAME bundle")
    register(game)
    return game
