"""``mcts``: Monte Carlo tree search over sampled worlds (single-observer IS-MCTS).

Every iteration starts from a fresh *determinization* of the bot's information set
(``worlds.sample_world``): whatever the game hides is guessed from public facts, never read.
One tree is shared by all those worlds; a node is the sequence of actions that reaches it,
and at each node only the children legal in the current world compete (UCB1 on the value of
the seat that moves there). Chance (a die, a card draw) is sampled on the way down. Leaves
are judged by the game's public heuristic (``game.bot.heuristic``) squashed into [0, 1], or
by the outcome when the game is over, which is much cheaper than random playouts and, in
games this short, stronger for the same think time. How hard to think is the game's
``game.bot.search``.

Search is bounded by *iterations*, so the same game, seed and strength give the same move on
any machine. A time ``Budget`` (``budget.py``) is checked before every iteration, but it only
ever stops the search: past its deadline ``choose`` raises ``BotTimedOut`` and plays nothing,
never the move of a truncated tree. For the same reason of determinism, its arithmetic is
only what IEEE 754 rounds exactly (+, −, ×, ÷, √): logarithms come from a table computed in
decimal, and the squash is rational, so no platform's ``libm`` can tip a close comparison.
Its generator is SplitMix64 (``generator.py``) seeded from the bot's ``bot-<seat>``
DrawStream: derived from the game's seed, and consuming none of the game's own draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Context, Decimal
from typing import Any

from domain.ai.budget import UNBOUNDED, Budget
from domain.ai.generator import SplitMix64
from domain.ai.worlds import sample_world
from domain.engine import play
from domain.engine.game import Game, SearchSettings
from domain.engine.rng import DrawStream
from domain.engine.rules import Action
from domain.engine.types import GameState, Outcome

__all__ = ["Search", "SearchSettings", "generator_for", "natural_log", "squash"]


def generator_for(stream: DrawStream) -> SplitMix64:
    """The search's generator, seeded from the bot's own stream (same on every machine)."""
    return SplitMix64.from_stream(stream)


class _Node:
    """Statistics for one action sequence from the root, shared across sampled worlds."""

    __slots__ = ("children", "mover", "order", "state", "total", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover  # the seat whose action led here
        self.children: dict[Action, _Node] = {}
        self.order: list[Action] | None = None  # perfect information: untried, shuffled
        self.state: GameState[Any] | None = None  # perfect information: the position here
        # (the root's is the one being decided, passed in; only children keep theirs)
        self.visits = 0
        self.total = 0.0  # sum of the mover's values


class Search:
    """One decision: build the tree from ``state`` for ``seat`` and return the best action."""

    def __init__(
        self,
        game: Game[Any],
        settings: SearchSettings,
        generator: SplitMix64,
        budget: Budget = UNBOUNDED,
        encode: play.ActionKey = play.canonical_bytes,
    ) -> None:
        self.game = game
        #: How legal actions are put in their canonical order.
        self.encode = encode
        self.rules = game.rules
        self.settings = settings
        self.generator = generator
        #: Checked before every iteration; past its deadline the search raises ``BotTimedOut``.
        self.budget = budget
        self.heuristic = game.bot.heuristic
        #: Perfect information and no chance: replaying the same moves reaches the same
        #: position, so nodes keep their positions instead of replaying them in every world.
        self.keep_states = game.info.deterministic

    def choose(self, state: GameState[Any], seat: int) -> Action:
        """The best action after all the iterations; ``BotTimedOut`` past the budget."""
        actions = play.legal_actions(self.rules, state, seat, encode=self.encode)
        if len(actions) == 1:
            return actions[0]
        root = _Node(mover=seat)
        check = self.budget.check
        for _ in range(self.settings.iterations):
            check()  # raises past the deadline: a truncated tree is never played
            self._iterate(root, sample_world(self.game, state, self.generator))
        # The most visited action is the most trusted; ties go to the better mean, then to
        # the canonical order of the legal-action list.
        rank = {action: i for i, action in enumerate(actions)}

        def preference(item: tuple[Action, _Node]) -> tuple[int, float, int]:
            action, node = item
            return (node.visits, node.total / max(node.visits, 1), -rank[action])

        return max(root.children.items(), key=preference)[0]

    # ----- one iteration ------------------------------------------------------------------

    def _iterate(self, root: _Node, world: GameState[Any]) -> None:
        node, path = root, [root]
        while not world.over:
            seat = play.to_act(self.rules, world)[0]
            child, world, fresh = self._descend(node, world, seat)
            node = child
            path.append(node)
            if fresh:
                break
        values = self._values(world)
        for visited in path:
            visited.visits += 1
            visited.total += values[visited.mover]

    def _descend(
        self, node: _Node, world: GameState[Any], seat: int
    ) -> tuple[_Node, GameState[Any], bool]:
        """The child to follow from ``node`` in ``world``; ``fresh`` when just expanded."""
        if self.keep_states:
            if node.order is None:
                node.order = self._shuffled(self._legal(world, seat))
            if node.order:
                action = node.order.pop()
                child = node.children[action] = _Node(mover=seat)
                child.state = self._advance(world, seat, action)
                return child, child.state, True
            action, child = self._best(node, node.children)
            assert child.state is not None
            return child, child.state, False
        legal = self._legal(world, seat)
        untried = [action for action in legal if action not in node.children]
        if untried:
            action = untried[self.generator.randrange(len(untried))]
            child = node.children[action] = _Node(mover=seat)
            return child, self._advance(world, seat, action), True
        action, child = self._best(node, {action: node.children[action] for action in legal})
        return child, self._advance(world, seat, action), False

    def _legal(self, world: GameState[Any], seat: int) -> list[Action]:
        """Legal actions in a fixed order: ``repr`` is cheaper than the API's canonical JSON
        and, like it, never depends on hash order, so every machine searches alike."""
        return sorted(self.rules.legal_actions(world.board, seat), key=repr)

    def _best(self, node: _Node, children: dict[Action, _Node]) -> tuple[Action, _Node]:
        log_visits = natural_log(max(node.visits, 1))
        c = self.settings.exploration
        best: tuple[Action, _Node] | None = None
        best_score = -math.inf
        for action, child in children.items():
            score = child.total / child.visits + c * math.sqrt(log_visits / child.visits)
            if score > best_score:
                best, best_score = (action, child), score
        assert best is not None
        return best

    def _advance(self, world: GameState[Any], seat: int, action: Action) -> GameState[Any]:
        """The world after ``action`` and any chance that follows it, sampled here."""
        world = play.step(self.rules, world, seat, action)[1]
        while not world.over:
            draw = self.rules.pending_draw(world.board)
            if draw is None:
                break
            outcome = self.generator.draw(draw.kind, draw.n)
            world = play.resolve_draw_step(self.rules, world, outcome)[1]
        return world

    def _shuffled(self, actions: Sequence[Action]) -> list[Action]:
        order = list(actions)
        self.generator.shuffle(order)
        return order

    def _values(self, world: GameState[Any]) -> list[float]:
        """Each seat's value of ``world`` in [0, 1]."""
        seats = len(world.created.seats)
        if world.outcome is not None:
            return _outcome_values(world.outcome, seats)
        scale = self.settings.scale
        return [squash(self.heuristic(world.board, seat), scale) for seat in range(seats)]


def squash(lead: float, scale: float) -> float:
    """A heuristic lead as a value in (0, 1): 0.5 when level, 0.75 at ``scale`` ahead.

    Rational (a "fast sigmoid"), so exactly rounded by IEEE 754 on every machine.
    """
    return 0.5 + 0.5 * lead / (abs(lead) + scale)


#: ln n, by n, filled as asked. Keyed by n, so searches racing in threads to fill it store
#: the same value at the same key: a list extended by position could store ln 5 at 6 (two
#: threads computing ln 5, both appending), and every later search in the process would
#: then differ from the same search anywhere else.
_LOGS: dict[int, float] = {}


def natural_log(n: int) -> float:
    """ln n for a positive integer, computed in ``decimal`` and rounded once to a float, so
    it is the same on every machine (``math.log`` is only as exact as the platform's libm)."""
    if n <= 1:
        return 0.0
    value = _LOGS.get(n)
    if value is None:
        value = _LOGS[n] = float(_LN_CONTEXT.ln(Decimal(n)))
    return value


_LN_CONTEXT = Context(prec=40)


def _outcome_values(outcome: Outcome, seats: int) -> list[float]:
    winners = outcome.winners
    share = 1.0 / len(winners) if winners else 0.0
    return [share if seat in winners else 0.0 for seat in range(seats)]
