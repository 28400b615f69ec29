"""The per-process caches (folded states, game metadata) stay within their byte budget.

Games on the largest board the rules allow (200 tiles) are created and played through the
service on the test Redis; the caches' own estimates are checked after every step, eviction
order is checked on the cache itself, and an evicted game must serve exactly as before.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from domain.engine import play
from domain.engine.types import GameCreated, GameState, SeatInfo
from domain.games import GAMES
from domain.games.arktia.setup import MAX_BOARD_TILES
from service.bootstrap import Floe, build
from service.caching.sizes import ENTRY_OVERHEAD, deep_size
from service.games.access import Viewer
from service.games.commands import CreateGame, NewPlayer, PlayAction
from service.games.repository import CATALOG_SHARE
from service.games.state_cache import SNAPSHOT_EVERY, Head, StateCache
from service.settings import Settings
from tests.support.boards import hexagonish

GAME = "arktia"
PLAYERS = (NewPlayer("Ada"), NewPlayer("Bo"), NewPlayer("Cy"), NewPlayer("Di"))
KIB = 1024


BIG = {"board": hexagonish(MAX_BOARD_TILES)}


def floe_with(redis_client: redis.Redis, cache_bytes: int) -> Floe:
    return build(Settings(cache_bytes=cache_bytes), redis_client=redis_client)


def create(floe: Floe, options: dict[str, Any] | None = None) -> str:
    command = CreateGame(GAME, PLAYERS, options if options is not None else BIG)
    return floe.commands.create(command, Viewer()).id


def play_moves(floe: Floe, game_id: str, moves: int, rng: random.Random) -> None:
    """``moves`` random legal actions, each by the seat to act, through the command path."""
    meta = floe.repository.meta(game_id)
    for _ in range(moves):
        state = floe.repository.latest(meta)
        seats = play.to_act(meta.rules, state)
        if not seats:
            return
        seat = seats[0]
        actions = [a for a in play.legal_actions(meta.rules, state, seat) if a.type != "retire"]
        action = rng.choice(actions).to_json()
        command = PlayAction(seat, action, state.version, f"c{state.version}")
        floe.commands.play(meta, command)


def within_budget(floe: Floe) -> None:
    states, catalog = floe.repository.states, floe.repository.catalog
    assert 0 <= states.bytes <= states.max_bytes
    assert 0 <= catalog.bytes <= catalog.max_bytes


def test_the_caches_never_exceed_their_budget_and_keep_the_newest(
    redis_client: redis.Redis,
) -> None:
    budget = 1024 * KIB
    floe = floe_with(redis_client, budget)
    states = floe.repository.states
    assert states.max_bytes + floe.repository.catalog.max_bytes == budget
    assert floe.repository.catalog.max_bytes == budget // CATALOG_SHARE
    rng = random.Random(13)
    made: list[str] = []
    for number in range(60):
        made.append(create(floe))
        within_budget(floe)
        if number % 5 == 0:
            play_moves(floe, made[-1], 40, rng)  # heads grow as pieces go down
            within_budget(floe)
    cached = states.games()
    per_game = states.bytes / len(cached)
    assert per_game > 30 * KIB, "a 200-tile state is honestly counted (about 40 KB and more)"
    assert 10 < len(cached) < 40, "the budget, not a count, decides how many stay"
    assert cached == made[-len(cached) :], "the newest stay, in the order they were used"
    assert states.bytes > states.max_bytes - 2 * per_game, "and the budget is used"


def test_eviction_is_least_recently_used() -> None:
    rules = GAMES[GAME].rules
    seats = tuple(SeatInfo(i, f"p{i}") for i in range(4))

    def state(game_id: str) -> GameState[Any]:
        created = GameCreated(GAME, rules.rules_version, BIG, seats, "0" * 64)
        return play.new_game(rules, game_id, created)

    one = deep_size(Head(state("a"), "h")) + ENTRY_OVERHEAD
    cache = StateCache(max_bytes=3 * one + one // 2)  # room for three games
    for game_id in "abc":
        cache.advance(game_id, Head(state(game_id), "h"))
    assert cache.games() == ["a", "b", "c"]
    assert cache.head("a") is not None  # reading a game uses it
    cache.advance("d", Head(state("d"), "h"))
    assert cache.games() == ["c", "a", "d"], "b, the least recently used, went"
    assert cache.bytes == 3 * one
    assert cache.nearest("c", 1) is None  # a snapshot lookup uses it too
    cache.advance("e", Head(state("e"), "h"))
    assert cache.games() == ["d", "c", "e"]
    big = state("f")
    for version in (SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY):
        cache.snapshot(GameState("f", version, big.created, big.board))
    assert cache.games() == ["e", "f"], "snapshots count: two went to make room"
    assert cache.bytes <= cache.max_bytes


def test_a_game_bigger_than_the_whole_budget_is_not_kept(redis_client: redis.Redis) -> None:
    floe = floe_with(redis_client, 16 * KIB * CATALOG_SHARE // (CATALOG_SHARE - 1))
    game_id = create(floe)
    assert floe.repository.states.games() == []
    assert floe.repository.states.bytes == 0
    play_moves(floe, game_id, 5, random.Random(1))  # still plays, from the store each time
    assert floe.repository.latest(floe.repository.meta(game_id)).version == 6


def test_an_evicted_game_still_serves_correctly_from_redis(redis_client: redis.Redis) -> None:
    floe = floe_with(redis_client, 512 * KIB)
    rng = random.Random(7)
    first = create(floe)
    play_moves(floe, first, 30, rng)
    meta = floe.repository.meta(first)
    seen = [floe.queries.view(meta, Viewer(), version) for version in (1, 10, 31)]
    while first in floe.repository.states.games():
        create(floe)
    fresh = floe_with(redis_client, 512 * KIB)  # another process, nothing cached
    for floe_now in (floe, fresh):
        meta = floe_now.repository.meta(first)
        assert [floe_now.queries.view(meta, Viewer(), v) for v in (1, 10, 31)] == seen
    play_moves(floe, first, 5, rng)  # and it plays on from where the store says it is
    assert floe.repository.latest(floe.repository.meta(first)).version == 36
    assert first in floe.repository.states.games()
    within_budget(floe)


def test_deep_size_counts_each_object_once_and_follows_slots() -> None:
    @dataclass(frozen=True, slots=True)
    class Pair:
        left: Any
        right: Any

    blob = "x" * 10_000
    assert deep_size((blob, blob)) < deep_size((blob, "y" * 10_000))
    assert deep_size(Pair(blob, None)) > 10_000
    assert deep_size({"k": [blob]}) > 10_000
    rules = GAMES[GAME].rules
    seats = tuple(SeatInfo(i, f"p{i}") for i in range(4))
    small = play.new_game(rules, "s", GameCreated(GAME, rules.rules_version, {}, seats, "0" * 64))
    big = play.new_game(rules, "b", GameCreated(GAME, rules.rules_version, BIG, seats, "0" * 64))
    assert deep_size(big) > 4 * deep_size(small)


def test_the_budget_setting() -> None:
    assert Settings().cache_bytes == Settings.from_env({}).cache_bytes == 256 * 1024 * KIB
    assert Settings.from_env({"FLOE_CACHE_BYTES": "1048576"}).cache_bytes == 1024 * KIB
    for bad in ("0", "-5", "lots"):
        with pytest.raises(ValueError, match="FLOE_CACHE_BYTES"):
            Settings.from_env({"FLOE_CACHE_BYTES": bad})
