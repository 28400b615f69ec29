"""Arktia (Stefan Kögl, 2008) as its published rules specify it.

``GAME`` is the whole game as Floe hosts it: rules, what its bots know, and its pictures.
"""

from domain.engine.game import Game
from domain.games.arktia import svg, text
from domain.games.arktia.board import ArktiaBoard
from domain.games.arktia.bot import BOT
from domain.games.arktia.rules import ARKTIA, ArktiaRules

GAME: Game[ArktiaBoard] = Game(rules=ARKTIA, bot=BOT, text=text.render, svg=svg.render)

__all__ = ["ARKTIA", "GAME", "ArktiaRules"]
