"""A worker's bot decides against its cached head, and the append keeps that honest.

A worker that wrote a game's last move has that game's head cached, so the next bot move is
decided without reading the stream (``Automation.play_bot``). If the stream moved on since
(another worker made the move), the append refuses, the head is read afresh, and the job is
found stale: nothing is written twice. If the store lost the event the cache saw (a failover
with ``FLOE_REPLICA_ACKS=0``: the stream entry, the head and the command record), the append
refuses the cached head too, reading the head folds again from what the store holds, and the
move is made against that.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis

from domain.ai import POLICIES
from service.bootstrap import Floe, build
from service.games.access import Viewer
from service.games.commands import CreateGame, NewPlayer
from service.settings import Settings
from service.store.events import RedisEventStore, commands_key, events_key, meta_key


class Recording:
    """A job queue that only records (the test runs the bots' jobs itself)."""

    def __init__(self) -> None:
        self.jobs: list[tuple[str, str, int]] = []

    def enqueue(self, kind: str, game_id: str, version: int, *, due: int | None = None) -> None:
        self.jobs.append((kind, game_id, version))


def worker(redis_client: redis.Redis) -> Floe:
    return build(Settings(), redis_client=redis_client, jobs=Recording(), policies=POLICIES)


def bots_game(floe: Floe) -> str:
    players = (NewPlayer("a", "random"), NewPlayer("b", "random"))
    return floe.commands.create(CreateGame("arktia", players), Viewer()).id


def test_a_move_made_elsewhere_meanwhile_is_not_made_again(redis_client: redis.Redis) -> None:
    mine, other = worker(redis_client), worker(redis_client)
    game_id = bots_game(mine)
    assert mine.automation.play_bot(game_id, 1) is True
    assert mine.repository.cached_head(game_id).state.version == 2  # type: ignore[union-attr]
    # Another worker makes the move at version 2 first: this worker's cache is now behind.
    assert other.automation.play_bot(game_id, 2) is True
    assert mine.automation.play_bot(game_id, 2) is False, "refused, then found stale"
    events = RedisEventStore(redis_client).read(game_id)
    assert [e.command_id for e in events[1:]] == ["bot-1", "bot-2"], "each move once"
    assert mine.repository.cached_head(game_id).state.version == 3  # type: ignore[union-attr]


def test_a_cached_head_the_store_lost_is_refused_folded_again_and_played_on(
    redis_client: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    mine = worker(redis_client)
    game_id = bots_game(mine)
    assert mine.automation.play_bot(game_id, 1) is True
    [created, lost] = RedisEventStore(redis_client).read(game_id)
    # The store loses that move (a failover can), and another worker, whose clock says
    # another time, makes it again: the same version, another event, another hash.
    entries: Any = redis_client.xrange(events_key(game_id), "0-1", "0-1")
    [(_, first)] = entries
    redis_client.delete(events_key(game_id))
    redis_client.xadd(events_key(game_id), first, id="0-1")
    redis_client.hset(meta_key(game_id), mapping={"version": 1, "head": created.hash})
    redis_client.delete(commands_key(game_id))
    later = build(
        Settings(),
        redis_client=redis_client,
        jobs=Recording(),
        clock=lambda: "2031-01-01T00:00:00Z",
    )
    assert later.automation.play_bot(game_id, 1) is True
    [_, kept] = RedisEventStore(redis_client).read(game_id)
    assert kept.version == lost.version == 2 and kept.hash != lost.hash
    cached = mine.repository.cached_head(game_id)
    assert cached is not None and (cached.state.version, cached.hash) == (2, lost.hash)
    # The move at version 2: decided against the cache, refused by the append (its head is
    # not the store's), folded again from the store, and made after the event the store has.
    assert mine.automation.play_bot(game_id, 2) is True
    assert f"game {game_id}: the store lost v2; folding again" in caplog.messages
    events = RedisEventStore(redis_client).read(game_id)
    assert [(e.version, e.command_id) for e in events] == [(1, None), (2, "bot-1"), (3, "bot-2")]
    assert events[1].hash == kept.hash and events[2].prev_hash == kept.hash
