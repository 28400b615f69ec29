"""Policies for bot seats: pure functions of a seat's view and its own random stream.

Game-agnostic: every policy plays any game through its ``Game`` bundle
(``domain.engine.game``), so a new game needs nothing here.
"""

from domain.ai.playouts import PlayoutSettings
from domain.ai.policy import (
    PLAN_FOLLOWERS,
    POLICIES,
    GreedyPolicy,
    MctsPolicy,
    Policy,
    RandomPolicy,
    bot_to_move,
    team_of,
)

__all__ = [
    "PLAN_FOLLOWERS",
    "POLICIES",
    "GreedyPolicy",
    "MctsPolicy",
    "PlayoutSettings",
    "Policy",
    "RandomPolicy",
    "bot_to_move",
    "team_of",
]
