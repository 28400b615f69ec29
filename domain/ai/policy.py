"""Bot policies — ``random``, ``greedy`` (one move ahead) and ``mcts`` — and which bot moves.

A policy sees the game's state only through legal actions, the public heuristics of
``heuristics.py`` and, for search, worlds sampled by ``worlds.py`` in place of everything
hidden. It takes its randomness from the stream it is handed: the DESIGN.md derivation with
the label ``bot-<seat>``, which the worker computes and which consumes none of the game's
draws. So the same game, seed and strength give the same moves anywhere.
"""

from __future__ import annotations

from typing import Any, Protocol

from domain.ai import rescue_plan
from domain.ai.heuristics import HEURISTICS
from domain.ai.mcts import DEFAULTS as SEARCH_DEFAULTS
from domain.ai.mcts import Search, SearchSettings, generator_for
from domain.ai.rescue_search import PlayoutSettings, choose_opening
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
    an outcome it could not know. In Ice Breakers one action of lookahead cannot see that
    clearing ice pays off several actions later, so ``greedy`` follows the team plan
    (``rescue_plan.py``: deliver the cheapest ship, then clear the cheapest routes), with
    the plan's own opening and no search.
    """

    name = "greedy"

    def choose(
        self, rules: Rules[Any], state: GameState[Any], seat: int, stream: DrawStream
    ) -> Action:
        if rules.name == "ice-breakers":
            step = rescue_plan.next_step(state.board, team_of(state))
            if step is not None and step[0] == seat:
                return step[1]
        return self.one_ply(rules, state, seat, stream)

    @staticmethod
    def one_ply(rules: Rules[Any], state: GameState[Any], seat: int, stream: DrawStream) -> Action:
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


class MctsPolicy:
    """The strongest bot: tree search over sampled worlds; in Ice Breakers, the team plan
    with each turn's opening chosen by sampled playouts (``rescue_search.py``)."""

    name = "mcts"

    def __init__(
        self,
        search: dict[str, SearchSettings] | None = None,
        playouts: PlayoutSettings | None = None,
    ) -> None:
        self.search = SEARCH_DEFAULTS if search is None else search
        self.playouts = PlayoutSettings() if playouts is None else playouts

    def choose(
        self, rules: Rules[Any], state: GameState[Any], seat: int, stream: DrawStream
    ) -> Action:
        generator = generator_for(stream)
        if rules.name != "ice-breakers":
            return Search(rules, self.search[rules.name], generator).choose(state, seat)
        team = team_of(state)
        step = rescue_plan.next_step(state.board, team)
        if step is None or step[0] != seat:
            # Asked out of turn (the plan wants nothing of this seat now): one move ahead.
            return GreedyPolicy.one_ply(rules, state, seat, stream)
        if step[1].type in ("play_power", "pass"):
            return choose_opening(rules, state, seat, team, generator, self.playouts)
        return step[1]


#: Ice Breakers strengths that follow the team plan (and so agree on who acts next).
PLAN_FOLLOWERS = frozenset({"greedy", "mcts"})


def team_of(state: GameState[Any]) -> frozenset[int]:
    """The seats that follow the Ice Breakers team plan: its ``greedy`` and ``mcts`` bots
    (every seat, when no seat is marked a bot, as in a game the domain plays by itself)."""
    seats = state.created.seats
    if not any(info.bot for info in seats):
        return frozenset(info.seat for info in seats)
    return frozenset(info.seat for info in seats if info.bot in PLAN_FOLLOWERS)


def bot_to_move(rules: Rules[Any], state: GameState[Any]) -> int | None:
    """The bot seat whose move the game waits for now, if any.

    Usually the first bot seat in ``to_act``. In Ice Breakers several seats may act at once
    (anyone may add a boost card); when a bot that follows the team plan drives the turn,
    the plan names who acts, and such bots never spend cards on a turn a person or a
    ``random`` bot drives. ``random`` bots chip in whenever they can.
    """
    if state.over:
        return None
    bots = {info.seat: info.bot for info in state.created.seats if info.bot}
    candidates = [seat for seat in play.to_act(rules, state) if seat in bots]
    if not candidates or rules.name != "ice-breakers":
        return candidates[0] if candidates else None
    board = state.board
    driver = board.giver if board.waiting else board.current
    if bots.get(driver) in PLAN_FOLLOWERS:
        step = rescue_plan.next_step(board, team_of(state))
        return step[0] if step is not None and step[0] in candidates else None
    others = [seat for seat in candidates if bots[seat] not in PLAN_FOLLOWERS]
    return others[0] if others else None


POLICIES: dict[str, Policy] = {
    policy.name: policy for policy in (RandomPolicy(), GreedyPolicy(), MctsPolicy())
}
