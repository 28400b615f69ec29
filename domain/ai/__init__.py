"""Policies for bot seats: pure functions of a seat's view and its own random stream.

Game-agnostic: every policy plays any game through its ``Game`` bundle
(``domain.engine.game``), so a new game needs nothing here. A ``Budget`` bounds a decision
in time; past it the search raises ``BotTimedOut`` and no move is chosen (``budget.py``).
"""

from domain.ai.budget import UNBOUNDED, BotTimedOut, Budget
from domain.ai.decision import PLAN_FOLLOWERS, Decision, team_of
from domain.ai.playouts import PlayoutSettings
from domain.ai.policy import (
    POLICIES,
    GreedyPolicy,
    MctsPolicy,
    Policy,
    RandomPolicy,
    bot_to_move,
    policies,
)

__all__ = [
    "PLAN_FOLLOWERS",
    "POLICIES",
    "UNBOUNDED",
    "BotTimedOut",
    "Budget",
    "Decision",
    "GreedyPolicy",
    "MctsPolicy",
    "PlayoutSettings",
    "Policy",
    "RandomPolicy",
    "bot_to_move",
    "policies",
    "team_of",
]
