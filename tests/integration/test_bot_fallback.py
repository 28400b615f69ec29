"""A bot whose policy fails still moves: the game never stalls on a bot's bug."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from domain.ai import POLICIES
from domain.engine import play
from domain.engine.game import Game
from domain.engine.rng import DrawStream
from domain.engine.rules import Action
from domain.engine.types import GameState
from service.access import Viewer
from service.bootstrap import build
from service.commands import CreateGame, NewPlayer
from service.follow_ups import JobKind
from service.settings import Settings
from service.store import RedisEventStore


class BrokenPolicy:
    """Crashes, or answers an action the rules refuse."""

    def __init__(self, how: str) -> None:
        self.name = f"broken-{how}"
        self.how = how

    def choose(
        self, game: Game[Any], state: GameState[Any], seat: int, stream: DrawStream
    ) -> Action:
        if self.how == "crash":
            raise RuntimeError("a bug in the bot")
        return game.rules.parse_action({"type": "retire"})  # not legal in Arktia's opening


class RecordingQueue:
    """A job queue that only records: the test runs the bot's job itself."""

    def __init__(self) -> None:
        self.jobs: list[tuple[JobKind, str, int]] = []

    def enqueue(self, kind: JobKind, game_id: str, version: int) -> None:
        self.jobs.append((kind, game_id, version))


@pytest.mark.parametrize("how", ["crash", "illegal"])
def test_a_failing_bot_plays_a_random_legal_action_instead(
    redis_client: redis.Redis, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    queue = RecordingQueue()
    floe = build(
        Settings(),
        redis_client=redis_client,
        jobs=queue,
        policies={**POLICIES, "greedy": BrokenPolicy(how)},
    )
    players = (NewPlayer("bot", "greedy"), NewPlayer("ann"))
    game_id = floe.commands.create(CreateGame("arktia", players), Viewer()).id
    assert queue.jobs == [("bot", game_id, 1)], "the bot's first move was enqueued"
    meta = floe.repository.meta(game_id)
    before = floe.repository.latest(meta)
    legal = play.legal_actions(meta.rules, before, 0)
    assert floe.automation.play_bot(game_id, 1) is True
    after = floe.repository.latest(meta)
    assert after.version == 2
    (stored,) = RedisEventStore(redis_client).read(game_id, after=1)
    assert stored.actor == 0 and stored.command_id == "bot-1"
    assert meta.rules.parse_action(stored.data["action"]) in legal
    assert "plays random" in caplog.text
