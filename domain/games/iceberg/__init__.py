"""Iceberg (Kenneth Leyhe Sr., 2002) as its published rules specify it.

``GAME`` is the whole game as Floe hosts it: rules (declared in ``info.py``), what its
bots know, its pictures and its contract (``contract.json``).
"""

from domain.engine.game import Contract, Game
from domain.games.iceberg import svg, text
from domain.games.iceberg.board import IcebergBoard
from domain.games.iceberg.bot import BOT
from domain.games.iceberg.rules import ICEBERG, IcebergRules

GAME: Game[IcebergBoard] = Game(
    rules=ICEBERG, bot=BOT, text=text.render, svg=svg.render, contract=Contract.load(__name__)
)

__all__ = ["GAME", "ICEBERG", "IcebergRules"]
