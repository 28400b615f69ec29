"""Ice Breakers to the Rescue (Jim Deacove, 2004) as its rules say.

``GAME`` is the whole game as Floe hosts it: rules (declared in ``info.py``: co-operative),
what its bots know (the team plan among it), its pictures and its contract (``contract.json``).
"""

from domain.engine.game import Contract, Game
from domain.games.ice_breakers import svg, text
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.bot import BOT
from domain.games.ice_breakers.rules import ICE_BREAKERS, IceBreakersRules

GAME: Game[IceBreakersBoard] = Game(
    rules=ICE_BREAKERS, bot=BOT, text=text.render, svg=svg.render, contract=Contract.load(__name__)
)

__all__ = ["GAME", "ICE_BREAKERS", "IceBreakersRules"]
