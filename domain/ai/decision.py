"""What a bot is asked: one decision, as a value every policy and search takes whole."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.ai.budget import UNBOUNDED, Budget
from domain.engine import play
from domain.engine.game import Game
from domain.engine.rng import DrawStream
from domain.engine.rules import Action
from domain.engine.types import GameState


@dataclass(frozen=True, slots=True)
class Decision:
    """An action for ``seat`` (in ``to_act``) to take in ``state`` of ``game``, drawn from
    ``stream`` (the bot's own ``bot-<seat>`` derivation) and decided within ``budget``."""

    game: Game[Any]
    state: GameState[Any]
    seat: int
    stream: DrawStream
    budget: Budget = UNBOUNDED

    def legal_actions(self, encode: play.ActionKey = play.canonical_bytes) -> list[Action]:
        """The seat's legal actions, in the order ``encode`` writes them."""
        return play.legal_actions(self.game.rules, self.state, self.seat, encode=encode)

    def planned(self) -> Action | None:
        """The team plan's next action when the plan names this seat (None in a game
        without a plan, or when the plan wants nothing of this seat now)."""
        planner = self.game.bot.planner
        if planner is None:
            return None
        step = planner.next_step(self.state.board, team_of(self.state))
        return step[1] if step is not None and step[0] == self.seat else None


#: Strengths that follow a game's team plan (and so agree on who acts next).
PLAN_FOLLOWERS = frozenset({"greedy", "mcts"})


def team_of(state: GameState[Any]) -> frozenset[int]:
    """The seats that follow the team plan: its ``greedy`` and ``mcts`` bots (every seat,
    when no seat is marked a bot, as in a game the domain plays by itself)."""
    seats = state.created.seats
    if not any(info.bot for info in seats):
        return frozenset(info.seat for info in seats)
    return frozenset(info.seat for info in seats if info.bot in PLAN_FOLLOWERS)
