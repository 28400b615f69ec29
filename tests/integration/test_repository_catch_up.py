"""``GameRepository`` catching up on many events at once (a cold cache, another process's
moves, an old version): a game without a clock folds them in runs, and reaches, version for
version, the states and snapshots that ``play.apply`` makes event by event; a game with a
clock still goes event by event, its clocks run. On a real Redis server."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
import redis

from domain.engine import play
from domain.engine.clock import ClockSpec, epoch_seconds, iso
from domain.engine.log import seal
from domain.engine.rules import Action
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, GameState, SeatInfo
from domain.games import GAMES
from service.games.catalog import GameMeta
from service.games.repository import RUN_FROM, GameRepository
from service.games.state_cache import SNAPSHOT_EVERY
from service.store.events import Appended, RedisEventStore
from tests.support.store import AT

RULES = GAMES["arktia"].rules
#: Past two snapshots, so runs are cut at both.
LENGTH = 2 * SNAPSHOT_EVERY + 90
#: A bank that grows by four seconds a move (one second each, five back): none runs out.
CLOCK = ClockSpec("fischer", 3600, 5)


class Game:
    """A real Arktia game (random legal moves that do not end it), each event one second
    after the last, and the state ``play.apply`` makes after each: ``states[v - 1]`` is the
    state at version ``v``."""

    def __init__(self, game_id: str, clock: ClockSpec | None, seed: int) -> None:
        seats = (SeatInfo(0, "a"), SeatInfo(1, "b"))
        created = GameCreated(
            "arktia", RULES.rules_version, {"turn_limit": 10_000}, seats, "0" * 64, clock=clock
        )
        start = epoch_seconds(AT)
        self.meta = GameMeta(game_id, "arktia", AT, seats, (None, None))
        self.events: list[tuple[Event, str]] = [
            (Event(GAME_CREATED, SYSTEM, created.to_json()), AT)
        ]
        state = play.new_game(RULES, game_id, created, AT)
        self.states: list[GameState[Any]] = [state]
        chooser = random.Random(seed)
        while len(self.events) < LENGTH:
            at = iso(start + len(self.events))
            [seat] = play.to_act(RULES, state)
            legal = play.legal_actions(RULES, state, seat)
            chooser.shuffle(legal)
            event, state = quiet_step(state, seat, legal, at)
            self.events.append((event, at))
            self.states.append(state)

    def store(self, store: RedisEventStore, upto: int) -> None:
        """Append events up to version ``upto`` after what ``store`` holds, sealed as the
        service seals them (the first made through ``GameRepository.create``)."""
        head = store.read(self.meta.game_id)[-1]
        sealed, prev = [], head.hash
        for version in range(head.version + 1, upto + 1):
            event, at = self.events[version - 1]
            [stored] = seal(
                self.meta.game_id, [event], first_version=version, prev_hash=prev, at=at,
                command_id=f"c{version}",
            )  # fmt: skip
            sealed.append(stored)
            prev = stored.hash
        assert store.append(sealed) == Appended(upto)


def quiet_step(
    state: GameState[Any], seat: int, legal: Sequence[Action], at: str
) -> tuple[Event, GameState[Any]]:
    """The first of ``legal`` that is ``quiet`` and retires no one, so the game goes on (else
    the first that does not end it): its one event and the state after it."""
    fallback: tuple[Event, GameState[Any]] | None = None
    for action in legal:
        events = play.decide(RULES, state, seat, action, at)
        if len(events) > 1:
            continue  # it ends the game
        after = play.apply(RULES, state, events[0], at)
        if quiet(state, after, seat) and events[0].type != "retire":
            return events[0], after
        fallback = fallback or (events[0], after)
    assert fallback is not None, "every action left ends the game"
    return fallback


def quiet(before: GameState[Any], after: GameState[Any], seat: int) -> bool:
    """Nothing taken, no tie, and ``seat``'s reserve not emptied (an empty one makes it melt
    a piece every turn, which soon ends the game)."""
    board = after.board
    return (
        sum(p.kept for p in board.players) == sum(p.kept for p in before.board.players)
        and not board.ties
        and sum(board.players[seat].reserve) > 0
    )


def created(store: RedisEventStore, game: Game) -> GameRepository:
    repository = GameRepository(store, lambda: AT)
    repository.create(game.meta, game.states[0], seed_hex="00" * 32, token_hashes=(None, None))
    return repository


def assert_same(state: GameState[Any], expected: GameState[Any]) -> None:
    """Equal, and alike even where equality does not look (set and dictionary orders)."""
    assert state == expected
    assert repr(state) == repr(expected)


def assert_snapshots(repository: GameRepository, game: Game, upto: int) -> None:
    """A snapshot at each multiple of ``SNAPSHOT_EVERY`` up to ``upto``: the state there."""
    game_id = game.meta.game_id
    assert repository.states.nearest(game_id, SNAPSHOT_EVERY - 1) is None
    for version in range(SNAPSHOT_EVERY, upto + 1, SNAPSHOT_EVERY):
        for asked in (version, min(version + SNAPSHOT_EVERY - 1, upto)):
            kept = repository.states.nearest(game_id, asked)
            assert kept is not None, f"no snapshot at {version}"
            assert_same(kept, game.states[version - 1])


@pytest.fixture(scope="module")
def plain() -> Game:
    return Game("plain", None, seed=3)


@pytest.fixture(scope="module")
def clocked() -> Game:
    return Game("clocked", CLOCK, seed=4)


@pytest.mark.parametrize("which", ["plain", "clocked"])
def test_a_cold_head_is_the_state_and_snapshots_one_by_one_makes(
    redis_client: redis.Redis, which: str, request: pytest.FixtureRequest
) -> None:
    game: Game = request.getfixturevalue(which)
    store = RedisEventStore(redis_client)
    created(store, game)
    game.store(store, LENGTH)
    cold = GameRepository(store, lambda: AT)  # another process: nothing cached
    head = cold.head(game.meta)
    assert_same(head.state, game.states[-1])
    assert (head.state.clocks is not None) == (which == "clocked")
    assert_snapshots(cold, game, LENGTH)


@pytest.mark.parametrize("which", ["plain", "clocked"])
def test_a_head_catches_up_on_any_number_of_events_from_its_cache(
    redis_client: redis.Redis, which: str, request: pytest.FixtureRequest
) -> None:
    game: Game = request.getfixturevalue(which)
    store = RedisEventStore(redis_client)
    repository = created(store, game)
    steps: Sequence[int] = [1, RUN_FROM - 1, RUN_FROM, RUN_FROM + 1, 2, 300, 17, 1, 200, 1]
    version = 1
    for step in steps:
        version += step
        game.store(store, version)
        assert_same(repository.head(game.meta).state, game.states[version - 1])
    assert version > 2 * SNAPSHOT_EVERY
    assert_snapshots(repository, game, version)


@pytest.mark.parametrize("which", ["plain", "clocked"])
def test_an_old_version_refolds_to_the_state_it_was(
    redis_client: redis.Redis, which: str, request: pytest.FixtureRequest
) -> None:
    game: Game = request.getfixturevalue(which)
    store = RedisEventStore(redis_client)
    created(store, game)
    game.store(store, LENGTH)
    versions = [2, RUN_FROM, SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY, SNAPSHOT_EVERY + 3, LENGTH - 1]
    cold = GameRepository(store, lambda: AT)
    for version in versions:  # from the first event: no snapshot yet
        assert_same(cold.state_at(game.meta, version), game.states[version - 1])
    latest = cold.head(game.meta).state
    for version in versions:  # from the snapshots the head's fold kept
        assert_same(cold.state_at(game.meta, version, latest=latest), game.states[version - 1])
