"""Pig, the dice game, as a plugin bundle that lives outside ``domain.games``.

It exists to prove that a game is only a ``Game`` bundle: nothing in the engine, the bots or
the pictures needs to know it. Import ``GAME``; registering it is the caller's choice.
"""

from __future__ import annotations

from domain.engine.game import BotKit, Contract, Game, SearchSettings
from tests.support.pig.board import PigBoard
from tests.support.pig.pictures import svg, text
from tests.support.pig.rules import PIG, PigRules

__all__ = ["GAME", "PIG", "PigBoard", "PigRules", "heuristic"]


def heuristic(board: PigBoard, seat: int) -> float:
    """Own score (plus the turn total at stake, on one's own turn) minus the best opponent.

    Points at risk count at face value: simple, and the search corrects for the risk.
    """
    own = board.scores[seat] + (board.turn_total if board.current == seat else 0)
    best = max(points for other, points in enumerate(board.scores) if other != seat)
    return float(own - best)


GAME: Game[PigBoard] = Game(
    rules=PIG,
    bot=BotKit(
        heuristic=heuristic,
        search=SearchSettings(iterations=200),
        sample_world=None,  # nothing is hidden
    ),
    text=text,
    svg=svg,
    contract=Contract.load(__name__),
)
