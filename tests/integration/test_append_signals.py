"""Waiting for a game's next event: one subscription per process, no connection per waiter.

The waits here are long (60 s) and the periodic recheck longer (120 s), so a waiter that
returns with its event within half its wait was woken by the append's signal: nothing else
could have (and half a minute is plenty for a signal, even on a busy machine).

An append's message carries its events only while the message as published, every space
escaped ``\\u0020`` (six bytes for one), stays within ``MESSAGE_CAP``: a log of spaces under
the cap as stored would otherwise be published at six times it.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import redis

from domain.engine.canonical import canonical_json
from domain.engine.log import StoredEvent, seal
from domain.engine.types import Event
from service.games.queries import handed_over
from service.store.appends import CHANNEL, AppendSignals, Watch
from service.store.events import Appended, RedisEventStore, events_key
from tests.support.store import create_first
from tests.support.waiting import PROMPTLY, wait_until

LONG_MS = 60_000
AT = "2026-01-01T00:00:00Z"
#: The most bytes an append's message may be published with (store/append.lua).
MESSAGE_CAP = 64 * 1024


def create_game(store: RedisEventStore) -> str:
    return create_first(store, secrets.token_hex(8)).game_id


def append_one(store: RedisEventStore, game_id: str) -> None:
    head = store.read(game_id)[-1]
    events = seal(
        game_id,
        [Event("retire", 0, {"action": {"type": "retire"}})],
        first_version=head.version + 1,
        prev_hash=head.hash,
        at=AT,
        command_id=None,
    )
    assert isinstance(store.append(events), Appended)


@pytest.fixture
def signals(redis_client: redis.Redis) -> Iterator[AppendSignals]:
    yield AppendSignals(redis_client, recheck_seconds=120)


def _waiter(
    store: RedisEventStore, game_id: str, after: int, got: dict[str, list[StoredEvent]]
) -> threading.Thread:
    def wait() -> None:
        got[game_id] = store.wait(game_id, after=after, block_ms=LONG_MS)

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    return thread


def test_a_waiter_is_woken_by_an_append_made_through_another_client(
    redis_client: redis.Redis, redis_url: str, signals: AppendSignals
) -> None:
    waiting_store = RedisEventStore(redis_client, signals)
    writer = RedisEventStore(redis.Redis.from_url(redis_url))
    game_id = create_game(writer)
    got: dict[str, list[StoredEvent]] = {}
    thread = _waiter(waiting_store, game_id, 1, got)
    wait_until(lambda: signals.waiting() == 1, PROMPTLY, "the waiter to register")
    append_one(writer, game_id)
    thread.join(timeout=LONG_MS / 1000 / 2)  # half the wait: only the signal is this fast
    assert not thread.is_alive()
    assert [e.version for e in got[game_id]] == [2]
    assert signals.waiting() == 0


def test_two_hundred_waiters_wait_on_a_pool_of_four_connections(redis_url: str) -> None:
    """Four connections in all (a blocking pool, as ``bootstrap.connect`` makes): one is the
    subscription, three serve the reads. A waiter that held a connection would starve the
    rest, and the test would time out."""
    pool = redis.BlockingConnectionPool.from_url(redis_url, max_connections=4, timeout=PROMPTLY)
    client = redis.Redis(connection_pool=pool)
    signals = AppendSignals(client, recheck_seconds=120)
    store = RedisEventStore(client, signals)
    writer = RedisEventStore(redis.Redis.from_url(redis_url))
    games = [create_game(writer) for _ in range(200)]
    got: dict[str, list[StoredEvent]] = {}
    threads = [_waiter(store, game_id, 1, got) for game_id in games]
    wait_until(lambda: signals.waiting() == 200, PROMPTLY, "200 waiters to register")
    for game_id in games:
        append_one(writer, game_id)
    for thread in threads:
        thread.join(timeout=LONG_MS / 1000 / 2)
    assert sorted(got) == sorted(games)
    assert all([e.version for e in events] == [2] for events in got.values())


def test_a_lost_subscription_loses_no_event(
    redis_client: redis.Redis, redis_url: str, signals: AppendSignals
) -> None:
    """Kill the subscriber's connection, append while it is gone: the waiter still gets it."""
    store = RedisEventStore(redis_client, signals)
    admin = redis.Redis.from_url(redis_url)
    writer = RedisEventStore(admin)
    game_id = create_game(writer)
    got: dict[str, list[StoredEvent]] = {}
    thread = _waiter(store, game_id, 1, got)
    wait_until(lambda: signals.waiting() == 1, PROMPTLY, "the waiter to register")
    wait_until(
        lambda: admin.pubsub_numsub("floe:appended")[0][1] >= 1, PROMPTLY, "the subscription"
    )
    admin.client_kill_filter(_type="pubsub")
    append_one(writer, game_id)
    thread.join(timeout=LONG_MS / 1000 / 2)
    assert not thread.is_alive()
    assert [e.version for e in got[game_id]] == [2]


def test_a_wait_with_nothing_appended_returns_empty_at_its_deadline(
    redis_client: redis.Redis,
) -> None:
    store = RedisEventStore(redis_client, AppendSignals(redis_client, recheck_seconds=0.05))
    game_id = create_game(store)
    assert store.wait(game_id, after=1, block_ms=200) == []
    assert [e.version for e in store.wait(game_id, after=0, block_ms=200)] == [1]


# ----- what an append publishes -------------------------------------------------------------


def note(game_id: str, head: StoredEvent, text: str) -> list[StoredEvent]:
    """One event after ``head`` whose data is ``text``."""
    return seal(
        game_id,
        [Event("note", 0, {"text": text})],
        first_version=head.version + 1,
        prev_hash=head.hash,
        at=AT,
        command_id=None,
    )


def published_size(game_id: str, head: StoredEvent, text: str) -> int:
    """The bytes of the message that carries the note ``text`` after ``head``: its first
    line, then the event as stored with each space escaped (six bytes)."""
    [event] = note(game_id, head, text)
    stored = canonical_json(event.to_json()).encode()
    first_line = f"{events_key(game_id)} {head.version + 1}\n".encode()
    return len(first_line) + len(stored.replace(b" ", b"\\u0020"))


@contextmanager
def published(client: redis.Redis) -> Iterator[Callable[[], bytes]]:
    """A subscription of the test's own to the appends channel, subscribed before the
    ``with`` body runs: it yields a function that returns the next message published."""
    pubsub = client.pubsub()  # type: ignore[no-untyped-call]
    try:
        pubsub.subscribe(CHANNEL)
        assert pubsub.get_message(timeout=PROMPTLY)["type"] == "subscribe"

        def next_message() -> bytes:
            message = pubsub.get_message(timeout=PROMPTLY)
            assert message is not None and message["type"] == "message", message
            data: bytes = message["data"]
            return data

        yield next_message
    finally:
        pubsub.close()


@contextmanager
def listening(signals: AppendSignals, game_id: str) -> Iterator[Watch]:
    """A waiter of ``game_id`` whose subscription is made (its first ring is heard)."""
    with signals.watch(events_key(game_id)) as watch:
        assert watch.wait(PROMPTLY).rung, "the subscription rings every waiter once made"
        yield watch


def test_an_event_of_spaces_is_published_within_the_cap_and_still_reaches_its_listeners(
    redis_client: redis.Redis, redis_url: str, signals: AppendSignals
) -> None:
    """Just under 64 KiB as stored, nearly all spaces: escaped, it would be published at
    about six times the cap. The message is the head alone, and the listeners read."""
    store = RedisEventStore(redis_client, signals)
    writer = RedisEventStore(redis.Redis.from_url(redis_url))
    game_id = create_game(writer)
    [head] = writer.read(game_id)
    overhead = len(canonical_json(note(game_id, head, "")[0].to_json()).encode())
    [event] = note(game_id, head, "x" + " " * (MESSAGE_CAP - overhead - 1))
    raw = canonical_json(event.to_json()).encode()
    assert MESSAGE_CAP - 16 < len(raw) <= MESSAGE_CAP and raw.count(b" ") > 60_000
    got: dict[str, list[StoredEvent]] = {}
    with listening(signals, game_id) as watch, published(redis_client) as next_message:
        waiter = _waiter(store, game_id, 1, got)
        wait_until(lambda: signals.waiting() == 2, PROMPTLY, "the waiter to register")
        assert isinstance(writer.append([event]), Appended)
        message = next_message()
        heard = watch.wait(PROMPTLY)
        waiter.join(timeout=LONG_MS / 1000 / 2)
    assert len(message) <= MESSAGE_CAP, len(message)
    assert message == f"{events_key(game_id)} 2".encode(), "the head alone: no events"
    assert heard.rung and not heard.complete and handed_over(heard, 1) is None, "so it reads"
    assert not waiter.is_alive()
    assert [e.to_json() for e in got[game_id]] == [event.to_json()]
    assert [e.to_json() for e in store.read(game_id, after=1)] == [event.to_json()]


def test_events_ride_while_the_escaped_message_fits_the_cap_and_not_one_byte_past(
    redis_client: redis.Redis, redis_url: str, signals: AppendSignals
) -> None:
    """A note of spaces whose message, escaped, is exactly the cap is handed over whole; one
    byte more, and the message is the head alone."""
    store = RedisEventStore(redis_client, signals)
    writer = RedisEventStore(redis.Redis.from_url(redis_url))
    game_id = create_game(writer)
    with listening(signals, game_id) as watch, published(redis_client) as next_message:
        for extra, carried in ((0, True), (1, False)):
            head = writer.read(game_id)[-1]
            room = MESSAGE_CAP - published_size(game_id, head, "")
            text = "x" * (room % 6 + extra) + " " * (room // 6)
            assert published_size(game_id, head, text) == MESSAGE_CAP + extra
            [event] = note(game_id, head, text)
            assert isinstance(writer.append([event]), Appended)
            message = next_message()
            heard = watch.wait(PROMPTLY)
            assert len(message) <= MESSAGE_CAP
            handed = handed_over(heard, head.version)
            if carried:
                assert len(message) == MESSAGE_CAP, "the cap itself is within it"
                assert handed is not None, "the events rode: no read"
                assert [e.to_json() for e in handed] == [event.to_json()]
            else:
                assert message == f"{events_key(game_id)} {event.version}".encode()
                assert heard.rung and handed is None, "woken, to read"
            assert [e.to_json() for e in store.read(game_id, after=head.version)] == [
                event.to_json()
            ]
