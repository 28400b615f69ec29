"""Policies for bot seats: pure functions of a seat's view and its own random stream."""

from domain.ai.policy import POLICIES, GreedyPolicy, Policy, RandomPolicy

__all__ = ["POLICIES", "GreedyPolicy", "Policy", "RandomPolicy"]
