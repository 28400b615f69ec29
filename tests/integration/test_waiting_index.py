"""The sweeper reads only the games not over (the live index ``floe:live``), never every game.

Real Redis; the store the sweep reads through is a real ``RedisEventStore`` wrapped to note
which games' records it asks for, so a test can say that no finished game was read.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import redis

from domain.ai import POLICIES
from domain.engine import play
from domain.engine.status import GameStatus
from service.bootstrap import Floe, build
from service.games.access import Viewer
from service.games.commands import CreateGame, NewPlayer, PlayAction
from service.jobs.backlog import Backlog, pending_key
from service.jobs.handlers import MISSING_GRACE_SECONDS, Automation
from service.jobs.queue import BATCHES, RqJobQueue, job_id
from service.jobs.sweeper import Sweeper
from service.settings import Settings
from service.store.events import LIVE_GAMES, GameRecord, RedisEventStore


class ReadingStore(RedisEventStore):
    """A real store that notes the ids each ``records`` call asks for."""

    def __init__(self, client: redis.Redis) -> None:
        super().__init__(client)
        self.read_ids: list[str] = []

    def records(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        self.read_ids.extend(game_ids)
        return super().records(game_ids)


class StepClock:
    """A monotonic clock a test moves on by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def floe(redis_url: str, redis_client: redis.Redis) -> Floe:
    return build(
        Settings(redis_url=redis_url, live_games_per_creator=0, bot_games_per_creator=0),
        redis_client=redis_client,
    )


def automation(floe: Floe, store: RedisEventStore, clock: StepClock | None = None) -> Automation:
    """The sweeper's automation on ``floe``'s parts, reading through ``store``."""
    return Automation(floe.repository, store, floe.jobs, POLICIES, monotonic=clock or StepClock())


def sweeper(floe: Floe, automation: Automation) -> Sweeper:
    assert isinstance(floe.jobs, RqJobQueue)
    return Sweeper(automation, floe.jobs, floe.queue_redis, 0.2)


def bot_game(floe: Floe) -> str:
    """A game whose first move is a bot's: it waits on a worker."""
    players = (NewPlayer("bot", "random"), NewPlayer("ann"))
    return floe.commands.create(CreateGame("arktia", players), Viewer()).id


def finished_game(floe: Floe) -> str:
    """A game of two people played to its end: the seat to act retires once it may (after
    the opening), and plays its first legal action until then."""
    players = (NewPlayer("ann"), NewPlayer("bob"))
    game_id = floe.commands.create(CreateGame("arktia", players), Viewer()).id
    meta = floe.repository.meta(game_id)
    state = floe.repository.latest(meta)
    while not state.over:
        seat = play.to_act(meta.rules, state)[0]
        actions = play.legal_actions(meta.rules, state, seat)
        action = next((a for a in actions if a.type == "retire"), actions[0]).to_json()
        floe.commands.play(meta, PlayAction(seat, action, state.version, f"c{state.version}"))
        state = floe.repository.latest(meta)
    return game_id


def live(redis_client: redis.Redis) -> set[str]:
    members = redis_client.smembers(LIVE_GAMES)
    return {m.decode() if isinstance(m, bytes) else str(m) for m in members}


def test_a_game_is_live_from_its_creation_and_leaves_the_index_when_over(
    floe: Floe, redis_client: redis.Redis
) -> None:
    waiting = bot_game(floe)
    assert live(redis_client) == {waiting}
    ended = finished_game(floe)
    record = floe.store.record(ended)
    assert record is not None and record.status == GameStatus.OVER
    assert live(redis_client) == {waiting}, "the finished game left the index"
    assert redis_client.zcard("floe:games") == 2, "both stay listed"


def test_a_sweep_reads_only_the_live_games(floe: Floe, redis_client: redis.Redis) -> None:
    ended = {finished_game(floe) for _ in range(6)}
    waiting = {bot_game(floe) for _ in range(3)}
    store = ReadingStore(redis_client)
    reads = automation(floe, store)
    jobs = set(reads.waiting_jobs())
    assert jobs == {("bot", game_id, 1) for game_id in waiting}
    assert set(store.read_ids) == waiting, "no finished game was read"
    store.read_ids.clear()
    assert list(reads.waiting_timers()) == []  # no clocks here
    assert set(store.read_ids) == waiting
    # A whole sweep: its repair slice may read any game, its waiting reads only live ones.
    store.read_ids.clear()
    swept = sweeper(floe, reads)
    swept.sweep()
    repair_reads = len(ended) + len(waiting)  # one slice covers this small floe:games
    assert len(store.read_ids) == repair_reads + 2 * len(waiting)
    assert set(store.read_ids) - ended == waiting


def test_a_stale_entry_of_a_finished_game_is_dropped_by_the_sweep(
    floe: Floe, redis_client: redis.Redis
) -> None:
    ended = finished_game(floe)
    redis_client.sadd(LIVE_GAMES, ended)  # as if its removal had been lost in a crash
    store = ReadingStore(redis_client)
    assert list(automation(floe, store).waiting_jobs()) == []
    assert store.read_ids == [ended]
    assert live(redis_client) == set()


def test_an_id_naming_no_game_is_dropped_only_after_the_grace(
    floe: Floe, redis_client: redis.Redis
) -> None:
    redis_client.sadd(LIVE_GAMES, "never-made")  # listed, then the creation crashed
    clock = StepClock()
    reads = automation(floe, ReadingStore(redis_client), clock)
    assert list(reads.waiting_jobs()) == []
    clock.now += MISSING_GRACE_SECONDS - 1
    assert list(reads.waiting_jobs()) == []
    assert live(redis_client) == {"never-made"}, "it may be a game being created"
    clock.now += 1
    assert list(reads.waiting_jobs()) == []
    assert live(redis_client) == set()


def test_a_game_the_index_lost_is_found_again_by_the_repair_pass(
    floe: Floe, redis_client: redis.Redis
) -> None:
    ended = [finished_game(floe) for _ in range(5)]
    lost = bot_game(floe)
    kept = bot_game(floe)
    for _ in range(5):
        ended.append(finished_game(floe))
    redis_client.srem(LIVE_GAMES, lost)  # its index write lost (or made before the index)
    reads = automation(floe, ReadingStore(redis_client))
    assert {job[1] for job in reads.waiting_jobs()} == {kept}
    # Slices of 3 over 12 games: one full pass (a few slices: ZSCAN's COUNT is a hint) finds it.
    found: list[str] = []
    for _ in range(12):
        found += reads.repair_live_index(count=3)
        if lost in found:
            break
    assert lost in found
    assert live(redis_client) == {lost, kept}, "only games not over are put back"
    assert {job[1] for job in reads.waiting_jobs()} == {lost, kept}


def test_the_repair_slice_is_bounded_on_a_large_games_index(
    floe: Floe, redis_client: redis.Redis
) -> None:
    # 1,000 ids of finished games (enough for Redis to keep floe:games as a hash table,
    # where ZSCAN's COUNT holds): a slice reads about its count, and a pass visits them all.
    redis_client.zadd("floe:games", {f"old-{n}": n for n in range(1000)})
    store = ReadingStore(redis_client)
    reads = automation(floe, store)
    visited: set[str] = set()
    slices = 0
    while len(visited) < 1000:
        store.read_ids.clear()
        reads.repair_live_index(count=50)
        assert len(store.read_ids) <= 100, "a slice stays near its count"
        visited.update(store.read_ids)
        slices += 1
        assert slices <= 60, "one pass is about 1,000 / 50 slices"
    assert live(redis_client) == set(), "ids with no game are not put back"


def test_a_lost_draw_of_a_live_game_is_still_enqueued_again(
    floe: Floe, redis_client: redis.Redis
) -> None:
    finished_game(floe)
    players = (NewPlayer("ann"), NewPlayer("bob"))
    iceberg = floe.commands.create(CreateGame("iceberg", players), Viewer()).id
    record = floe.store.record(iceberg)
    assert record is not None and record.status == GameStatus.AWAITING_RANDOM
    floe.queue_redis.delete(*(pending_key(queue) for queue in BATCHES))  # the deal's job lost
    swept = sweeper(floe, automation(floe, ReadingStore(redis_client)))
    assert swept.sweep() == [], "waited for across two sweeps before it counts as lost"
    assert swept.sweep() == [("draw", iceberg, record.version)]
    backlog = Backlog(floe.queue_redis)
    assert [item for queue in BATCHES for item in backlog.pending(queue)] == [
        job_id("draw", iceberg, record.version)
    ], "it waits in its queue again"
