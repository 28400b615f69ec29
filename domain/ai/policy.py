"""Bot policies: ``random`` and ``greedy`` (one move ahead), over the Rules protocol.

A policy sees the game's state only through legal actions and the public heuristics of
``heuristics.py``, and takes its randomness from the stream it is handed: the DESIGN.md
derivation with the label ``bot-<seat>``, which the worker computes and which consumes none
of the game's draws. So the same game, seed and strength give the same moves anywhere.
"""

from __future__ import annotations

from typing import Any, Protocol

from domain.ai.heuristics import HEURISTICS
from domain.engine import play
from domain.engine.rng import DrawStream
from domain.engine.rules import Action, Rules
from domain.engine.types import GameState


class Policy(Protocol):
    name: str

    def choose(
        self, rules: Rules[Any], state: GameState[Any], seat: int, stream: DrawStream
    ) -> Action:
        """One of ``seat``'s legal actions (the seat must be in ``to_act``)."""
        ...


class RandomPolicy:
    """Any legal action, uniformly: the weakest opponent, and a check on the rules."""

    name = "random"

    def choose(
        self, rules: Rules[Any], state: GameState[Any], seat: int, stream: DrawStream
    ) -> Action:
        actions = play.legal_actions(rules, state, seat)
        return actions[stream.uniform(len(actions))]


class GreedyPolicy:
    """The action whose resulting position looks best to the seat; ties broken at random.

    Positions that wait for a draw are judged before the draw, so the bot never peeks at
    an outcome it could not know.
    """

    name = "greedy"

    def choose(
        self, rules: Rules[Any], state: GameState[Any], seat: int, stream: DrawStream
    ) -> Action:
        heuristic = HEURISTICS[rules.name]
        scored = []
        for action in play.legal_actions(rules, state, seat):
            after = play.step(rules, state, seat, action)[1]
            # Handing on: the turn passes, or what follows is a decision the rules force.
            yields = seat not in play.to_act(rules, after) or rules.pending(after.board) is not None
            scored.append((heuristic(after.board, seat), yields, action))
        best = max(score for score, _, _ in scored)
        if best <= heuristic(state.board, seat):
            # Nothing helps: hand the turn on rather than shuffle pieces for ever (a game
            # like Ice Breakers lets the active player move ships as often as it likes).
            handing_on = [entry for entry in scored if entry[1]]
            if handing_on:
                scored = handing_on
                best = max(score for score, _, _ in scored)
        ties = [action for score, _, action in scored if score == best]
        return ties[stream.uniform(len(ties))]


POLICIES: dict[str, Policy] = {policy.name: policy for policy in (RandomPolicy(), GreedyPolicy())}
