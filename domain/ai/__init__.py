"""Policies for bot seats: pure functions of a seat's view and its own random stream."""

from domain.ai.policy import (
    POLICIES,
    GreedyPolicy,
    MctsPolicy,
    Policy,
    RandomPolicy,
    bot_to_move,
)

__all__ = ["POLICIES", "GreedyPolicy", "MctsPolicy", "Policy", "RandomPolicy", "bot_to_move"]
