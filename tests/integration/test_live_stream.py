"""A live stream (``GameQueries.live``: the SSE stream's loop and the socket's) on a real Redis.

An append's message on the appends channel carries the events it stored, so a stream that
follows a game reads the store once, not once per move; what it is handed is what a read
returns, spaces in the data included; a message too large to carry its events still wakes
the stream, which then reads. A process whose cache is behind takes the head the events it
was sent lead to from those events (``GameRepository.head_through``), without a read, and
says it cannot when its cache does not join them.
"""

from __future__ import annotations

import queue
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis

from domain.engine import play
from domain.engine.log import StoredEvent, seal
from domain.engine.types import Event
from service.bootstrap import Floe, build
from service.games.access import Viewer
from service.games.catalog import GameMeta
from service.games.commands import CreateGame, NewPlayer, PlayAction
from service.games.queries import LiveBatch, handed_over
from service.settings import Settings
from service.store.appends import AppendSignals, Watch
from service.store.events import RedisEventStore, events_key
from tests.support.store import AT, create_first
from tests.support.waiting import PROMPTLY

MOVES = 12


def a_floe(redis_url: str) -> Floe:
    """One process's Floe: its own caches and its own subscription to the appends."""
    return build(Settings(redis_url=redis_url, live_games_per_creator=0))


def new_game(floe: Floe) -> GameMeta:
    players = (NewPlayer("ann"), NewPlayer("bob"))
    game_id = floe.commands.create(CreateGame("arktia", players), Viewer()).id
    return floe.repository.meta(game_id)


def move(floe: Floe, meta: GameMeta) -> int:
    """The seat to act plays its first legal action; the version it made. ``floe`` made
    every move, so its cached head is the game's (no read)."""
    head = floe.repository.cached_head(meta.game_id)
    assert head is not None
    state = head.state
    [seat] = play.to_act(meta.rules, state)
    action = play.legal_actions(meta.rules, state, seat)[0].to_json()
    command = PlayAction(seat, action, state.version, f"c{state.version}")
    return floe.commands.play(meta, command).version


def xranges(client: redis.Redis) -> int:
    """Stream reads Redis has served so far."""
    return int(client.info("commandstats").get("cmdstat_xrange", {}).get("calls", 0))


@pytest.fixture
def signals(redis_client: redis.Redis) -> Iterator[AppendSignals]:
    """A subscription that is listening: its first watch is rung once it has subscribed."""
    signals = AppendSignals(redis_client, recheck_seconds=120)
    with signals.watch("floe:{warm-up}:events") as first:
        assert first.wait(PROMPTLY).rung, "the subscription rings every waiter once made"
        yield signals


def created(store: RedisEventStore, game_id: str, watch: Watch) -> None:
    """Create the game, and wait for its creation's ring (which carries no events) to pass."""
    create_first(store, game_id)
    assert watch.wait(PROMPTLY).rung


def appended(store: RedisEventStore, game_id: str, data: dict[str, str]) -> list[StoredEvent]:
    head = store.read(game_id)[-1]
    events = seal(
        game_id,
        [Event("note", 0, data)],
        first_version=head.version + 1,
        prev_hash=head.hash,
        at=AT,
        command_id="c",
    )
    store.append(events)
    return events


def test_an_appends_message_hands_over_what_a_read_returns(
    redis_client: redis.Redis, signals: AppendSignals
) -> None:
    store = RedisEventStore(redis_client, signals)
    game_id = secrets.token_hex(8)
    with signals.watch(events_key(game_id)) as watch:
        created(store, game_id, watch)
        appended(store, game_id, {"text": "two  spaces, a \\ and \\u0020 as text, ünïcode"})
        heard = watch.wait(PROMPTLY)
    assert heard.complete
    handed = handed_over(heard, 1)
    assert handed is not None
    assert [e.to_json() for e in handed] == [e.to_json() for e in store.read(game_id, after=1)]


def test_a_message_too_large_to_carry_its_events_still_wakes_the_stream_to_read(
    redis_client: redis.Redis, signals: AppendSignals
) -> None:
    store = RedisEventStore(redis_client, signals)
    game_id = secrets.token_hex(8)
    with signals.watch(events_key(game_id)) as watch:
        created(store, game_id, watch)
        appended(store, game_id, {"text": "x" * 70_000})  # past the script's 64 KiB
        heard = watch.wait(PROMPTLY)
    assert heard.rung, "woken by the append (the recheck is minutes away)"
    assert not heard.complete and handed_over(heard, 1) is None, "so it reads"


@contextmanager
def following(floe: Floe, meta: GameMeta) -> Iterator[queue.Queue[LiveBatch]]:
    """A live stream of ``meta`` in a thread, its batches in the queue, for the ``with``."""
    batches: queue.Queue[LiveBatch] = queue.Queue()
    stop = threading.Event()

    def run() -> None:
        live = floe.queries.live(
            meta, 0, over=False, sign=floe.receipts.of_stored, block_ms=lambda: 100
        )
        for batch in live:
            if stop.is_set():
                break
            if batch is not None:
                batches.put(batch)
        live.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield batches
    finally:
        stop.set()
        thread.join(PROMPTLY)  # it looks at ``stop`` every 100 ms


def test_following_a_game_reads_once_and_sends_what_a_read_shows(
    redis_url: str, redis_client: redis.Redis
) -> None:
    mover, watcher = a_floe(redis_url), a_floe(redis_url)  # two processes
    meta = new_game(mover)
    with following(watcher, watcher.repository.meta(meta.game_id)) as batches:
        sent = list(batches.get(timeout=PROMPTLY).stored)  # what the game held: read
        reads = xranges(redis_client)
        for _ in range(MOVES):
            version = move(mover, meta)
            batch = batches.get(timeout=PROMPTLY)
            assert [e.version for e in batch.stored] == [version]
            sent += batch.stored
        reads = xranges(redis_client) - reads
    assert reads <= MOVES // 4, f"{reads} reads for {MOVES} moves: the events were handed over"
    stored = mover.repository.read(meta.game_id)
    assert [e.to_json() for e in sent] == [e.to_json() for e in stored]


def test_the_stream_sends_each_event_as_the_sse_and_a_read_show_it(
    redis_url: str, redis_client: redis.Redis
) -> None:
    floe = a_floe(redis_url)
    meta = new_game(floe)
    with following(floe, meta) as batches:
        shown = list(batches.get(timeout=PROMPTLY).shown)
        for _ in range(3):
            move(floe, meta)
            shown += batches.get(timeout=PROMPTLY).shown
    stored = floe.repository.read(meta.game_id)
    views = floe.queries.shown(meta, stored, game_over=False)
    receipts = floe.receipts.of_stored(stored)
    assert shown == [{**v, "receipt": r} for v, r in zip(views, receipts, strict=True)]


def test_a_process_behind_takes_the_head_from_the_events_it_was_sent(redis_url: str) -> None:
    mover, behind = a_floe(redis_url), a_floe(redis_url)
    meta = new_game(mover)
    at = behind.repository.head(meta).state.version  # what ``behind`` has cached
    for _ in range(2):
        move(mover, meta)
    sent = behind.repository.read(meta.game_id, after=at)
    head = behind.repository.head_through(meta, sent)
    newest = mover.repository.head(meta)
    assert head is not None
    assert (head.state.version, head.hash) == (newest.state.version, newest.hash)
    assert head.state == newest.state
    assert behind.repository.cached_head(meta.game_id) == head, "kept for the next request"
    assert behind.repository.head_through(meta, sent[1:]) == head, "within what it holds"


def test_a_process_whose_cache_does_not_join_the_events_cannot_tell(redis_url: str) -> None:
    mover, behind = a_floe(redis_url), a_floe(redis_url)
    meta = new_game(mover)
    at = behind.repository.head(meta).state.version
    for _ in range(3):
        move(mover, meta)
    gap = behind.repository.read(meta.game_id, after=at + 1)  # version at + 1 missing
    assert behind.repository.head_through(meta, gap) is None
    other = new_game(mover)
    for _ in range(3):
        move(mover, other)
    elsewhere = mover.repository.read(other.game_id)  # another game's chain, as long
    assert len(elsewhere) > at
    assert behind.repository.head_through(meta, elsewhere) is None
    cached = behind.repository.cached_head(meta.game_id)
    assert cached is not None and cached.state.version == at, "nothing was folded"
