"""Bot policies — ``random``, ``greedy`` (one move ahead) and ``mcts`` — and which bot moves.

A policy plays any game through its ``Game`` bundle: legal actions from ``game.rules``, the
game's public heuristic, search settings and world sampler from ``game.bot``, and, in a
co-operative game, the team plan ``game.bot.planner``. It takes its randomness from the
stream it is handed: the docs/reference/format.md derivation with the label ``bot-<seat>``,
which the worker computes and which consumes none of the game's draws. So the same game, seed and
strength give the same moves anywhere.

A policy may also be handed a time ``Budget`` (``budget.py``). The searches check it as they
go and raise ``BotTimedOut`` once it runs out, rather than answer with less thought: a bound
decides only whether a move is made, never which one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import Any

from domain.ai.budget import UNBOUNDED, Budget
from domain.ai.decision import PLAN_FOLLOWERS, Decision, team_of
from domain.ai.mcts import Search, generator_for
from domain.ai.playouts import PlayoutSettings, choose_by_playouts
from domain.engine import play
from domain.engine.game import Game
from domain.engine.rng import DrawStream
from domain.engine.rules import Action
from domain.engine.types import GameState


class Policy(ABC):
    """A bot strength, known by ``name``. The workers call ``choose``; each strength
    implements ``decide``, which is handed the same question as one ``Decision``."""

    name: str

    def choose(
        self,
        game: Game[Any],
        state: GameState[Any],
        seat: int,
        stream: DrawStream,
        budget: Budget = UNBOUNDED,
    ) -> Action:
        """One of ``seat``'s legal actions (the seat must be in ``to_act``).

        ``BotTimedOut`` when ``budget`` runs out first: then no action is chosen at all.
        """
        return self.decide(Decision(game, state, seat, stream, budget))

    @abstractmethod
    def decide(self, decision: Decision) -> Action:
        """``choose``'s answer, for the decision as one value."""


@dataclass(frozen=True)
class RandomPolicy(Policy):
    """Any legal action, uniformly: the weakest opponent, and a check on the rules.

    ``encode``: how legal actions are put in their canonical order (the service hands in a
    faster encoder of the same bytes)."""

    encode: play.ActionKey = play.canonical_bytes
    name = "random"

    def decide(self, decision: Decision) -> Action:
        actions = decision.legal_actions(self.encode)
        return actions[decision.stream.uniform(len(actions))]


@dataclass(frozen=True)
class GreedyPolicy(Policy):
    """The action whose resulting position looks best to the seat; ties broken at random.

    Positions that wait for a draw are judged before the draw, so the bot never peeks at
    an outcome it could not know. In a game with a team plan, one action of lookahead
    cannot see what the plan sees several actions ahead, so ``greedy`` follows the plan
    whenever it names this seat, with the plan's own choices and no search.
    """

    encode: play.ActionKey = play.canonical_bytes
    name = "greedy"

    def decide(self, decision: Decision) -> Action:
        planned = decision.planned()
        return one_ply(decision, self.encode) if planned is None else planned


def one_ply(decision: Decision, encode: play.ActionKey = play.canonical_bytes) -> Action:
    """The action whose resulting position looks best to the deciding seat
    (``GreedyPolicy``'s own judgement, without the team plan)."""
    rules, state, seat = decision.game.rules, decision.state, decision.seat
    heuristic = decision.game.bot.heuristic
    scored = []
    for action in decision.legal_actions(encode):
        decision.budget.check()
        after = play.step(rules, state, seat, action)[1]
        # Handing on: the turn passes, or what follows is a decision the rules force.
        yields = seat not in play.to_act(rules, after) or rules.pending(after.board) is not None
        scored.append((heuristic(after.board, seat), yields, action))
    best = max(score for score, _, _ in scored)
    if best <= heuristic(state.board, seat):
        # Nothing helps: hand the turn on rather than shuffle pieces for ever (a game
        # may let the active player move as often as it likes).
        handing_on = [entry for entry in scored if entry[1]]
        if handing_on:
            scored = handing_on
            best = max(score for score, _, _ in scored)
    ties = [action for score, _, action in scored if score == best]
    return ties[decision.stream.uniform(len(ties))]


class MctsPolicy(Policy):
    """The strongest bot: tree search over sampled worlds (``mcts.py``); in a game with a
    team plan, the plan, with its open choices compared by sampled playouts (``playouts.py``).

    ``iterations`` overrides every game's own ``game.bot.search.iterations`` (None keeps
    them); ``playouts`` says how many playouts settle a plan's choice.
    """

    name = "mcts"

    def __init__(
        self,
        iterations: int | None = None,
        playouts: PlayoutSettings | None = None,
        encode: play.ActionKey = play.canonical_bytes,
    ) -> None:
        self.iterations = iterations
        self.playouts = PlayoutSettings() if playouts is None else playouts
        self.encode = encode

    def decide(self, decision: Decision) -> Action:
        # Seeded first, always: what the stream gives anything after depends on it.
        generator = generator_for(decision.stream)
        game, state = decision.game, decision.state
        planner = game.bot.planner
        if planner is None:
            settings = game.bot.search
            if self.iterations is not None:
                settings = replace(settings, iterations=self.iterations)
            search = Search(game, settings, generator, decision.budget, self.encode)
            return search.choose(state, decision.seat)
        planned = decision.planned()
        if planned is None:
            # Asked out of turn (the plan wants nothing of this seat now): one move ahead.
            return one_ply(decision, self.encode)
        options = planner.alternatives(state.board, decision.seat, planned)
        if not options:
            return planned
        return choose_by_playouts(
            decision, planner, team_of(state), planned, options, generator, self.playouts
        )


def bot_to_move(game: Game[Any], state: GameState[Any]) -> int | None:
    """The bot seat whose move the game waits for now, if any.

    Usually the first bot seat in ``to_act``. In a game with a team plan several seats may
    act at once (say, anyone may chip in a card); when a bot that follows the
    plan drives play (``planner.driver``), the plan names who acts, and such bots never
    spend cards on a turn a person or a ``random`` bot drives. ``random`` bots chip in
    whenever they can.
    """
    if state.over:
        return None
    bots = {info.seat: info.bot for info in state.created.seats if info.bot}
    candidates = [seat for seat in play.to_act(game.rules, state) if seat in bots]
    planner = game.bot.planner
    if not candidates or planner is None:
        return candidates[0] if candidates else None
    board = state.board
    if bots.get(planner.driver(board)) in PLAN_FOLLOWERS:
        step = planner.next_step(board, team_of(state))
        return step[0] if step is not None and step[0] in candidates else None
    others = [seat for seat in candidates if bots[seat] not in PLAN_FOLLOWERS]
    return others[0] if others else None


def policies(encode: play.ActionKey = play.canonical_bytes) -> dict[str, Policy]:
    """Every strength, listing legal actions in the order ``encode`` writes."""
    every: tuple[Policy, ...] = (
        RandomPolicy(encode),
        GreedyPolicy(encode),
        MctsPolicy(encode=encode),
    )
    return {policy.name: policy for policy in every}


POLICIES: dict[str, Policy] = policies()
