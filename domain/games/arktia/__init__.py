"""Arktia (Stefan Kögl, 2008) as its published rules specify it.

``GAME`` is the whole game as Floe hosts it: rules (declared in ``info.py``), what its
bots know, its pictures and its contract (``contract.json``).
"""

from domain.engine.game import Contract, Game
from domain.games.arktia import svg, text
from domain.games.arktia.board import ArktiaBoard
from domain.games.arktia.bot import BOT
from domain.games.arktia.rules import ARKTIA, ArktiaRules

GAME: Game[ArktiaBoard] = Game(
    rules=ARKTIA, bot=BOT, text=text.render, svg=svg.render, contract=Contract.load(__name__)
)

__all__ = ["ARKTIA", "GAME", "ArktiaRules"]
