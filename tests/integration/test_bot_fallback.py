"""A bot whose policy fails still moves: the game never stalls on a bot's bug."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from domain.ai import POLICIES
from domain.engine import play
from domain.engine.rng import DrawStream
from domain.engine.rules import Action, Rules
from domain.engine.types import GameState
from service.access import Viewer
from service.clock import utc_now
from service.games import GameService, NewPlayer
from service.store import EventStore


class BrokenPolicy:
    """Crashes, or answers an action the rules refuse."""

    def __init__(self, how: str) -> None:
        self.name = f"broken-{how}"
        self.how = how

    def choose(
        self, rules: Rules[Any], state: GameState[Any], seat: int, stream: DrawStream
    ) -> Action:
        if self.how == "crash":
            raise RuntimeError("a bug in the bot")
        return rules.parse_action({"type": "retire"})  # not legal in Arktia's opening


@pytest.mark.parametrize("how", ["crash", "illegal"])
def test_a_failing_bot_plays_a_random_legal_action_instead(
    redis_client: redis.Redis, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    queued: list[tuple[str, int]] = []
    service = GameService(
        EventStore(redis_client),
        clock=utc_now,
        organizer_token=None,
        enqueue_draw=lambda game_id, version: queued.append((game_id, version)),
        enqueue_bot=lambda game_id, version: queued.append((game_id, version)),
        policies={**POLICIES, "greedy": BrokenPolicy(how)},
    )
    players = [NewPlayer("bot", "greedy"), NewPlayer("ann")]
    created = service.create("arktia", players, {}, None, Viewer())
    game_id = created["id"]
    assert queued == [(game_id, 1)], "the bot's first move was enqueued"
    before = service.latest(game_id)
    legal = play.legal_actions(service.meta(game_id).rules, before, 0)
    assert service.play_bot(game_id, 1) is True
    after = service.latest(game_id)
    assert after.version == 2
    (stored,) = EventStore(redis_client).read(game_id, after=1)
    assert stored.actor == 0 and stored.command_id == "bot-1"
    rules = service.meta(game_id).rules
    assert rules.parse_action(stored.data["action"]) in legal
    assert "plays random" in caplog.text
