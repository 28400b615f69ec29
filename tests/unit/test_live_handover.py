"""What a live stream may take from its doorbell instead of reading the store: a waiter's
``Watch`` keeps the events the rings carried and says whether they were all of them, and
``handed_over`` takes them only when they are all there is, following on without a gap. And
the socket's hello, loaded through its schema, refused with the codes it always had."""

from __future__ import annotations

from typing import Any

import pytest

from domain.engine.log import GENESIS_HASH, StoredEvent, seal
from domain.engine.types import Event
from service.api.schemas.socket import load_hello
from service.errors import InvalidRequest
from service.games.queries import handed_over
from service.store.appends import MAX_HEARD, Heard, Watch

AT = "2026-11-28T12:00:00Z"


def log_of(count: int) -> list[StoredEvent]:
    """Versions 1..count of one game, chained."""
    events = [Event("note", 0, {"n": n}) for n in range(count)]
    return seal("g", events, first_version=1, prev_hash=GENESIS_HASH, at=AT, command_id="c")


def test_a_watch_hands_over_what_its_rings_carried_once() -> None:
    log = log_of(3)
    watch = Watch(recheck_seconds=60)
    watch.ring(log[:1])
    watch.ring(log[1:])
    heard = watch.wait(0)
    assert heard.complete and heard.events == tuple(log)
    again = watch.wait(0)  # taken: nothing rang since
    assert (again.rung, again.events) == (False, ())
    assert not again.complete


def test_a_ring_without_its_events_or_one_too_many_leaves_the_waiter_reading() -> None:
    log = log_of(MAX_HEARD + 1)
    watch = Watch(recheck_seconds=60)
    watch.ring(log[:1])
    watch.ring()  # a lost subscription's, or a message that carried none
    heard = watch.wait(0)
    assert heard.rung and not heard.complete and heard.events == ()
    watch.ring(log[:MAX_HEARD])
    watch.ring(log[MAX_HEARD:])  # one past what a waiter keeps: it fell behind
    assert not watch.wait(0).complete
    watch.ring(log[:2])
    assert watch.wait(0).complete, "the next look starts afresh"


@pytest.mark.parametrize(
    ("rung", "versions", "carried", "after", "handed"),
    [
        (True, [], True, 2, []),  # rung for nothing new: no read
        (True, [1, 2, 3], True, 1, [2, 3]),  # what was sent already is dropped
        (True, [3, 4], True, 2, [3, 4]),
        (True, [4], True, 2, None),  # a gap: version 3 was not heard
        (True, [3, 5], True, 2, None),
        (True, [3], False, 2, None),  # a ring carried no events
        (False, [], True, 2, None),  # a recheck: nothing heard, so read
    ],
)
def test_events_are_handed_over_only_when_they_are_all_there_is(
    rung: bool, versions: list[int], carried: bool, after: int, handed: list[int] | None
) -> None:
    log = log_of(5)
    heard = Heard(rung, tuple(log[v - 1] for v in versions), carried)
    taken = handed_over(heard, after)
    assert (None if taken is None else [e.version for e in taken]) == handed


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"type": "hello"}, (None, 0)),
        ({"type": "hello", "token": "t", "after": 7}, ("t", 7)),
        ({"type": "hello", "token": None, "after": 0}, (None, 0)),
    ],
)
def test_a_hello_gives_its_token_and_after(message: Any, expected: tuple[str | None, int]) -> None:
    assert load_hello(message) == expected


@pytest.mark.parametrize(
    ("message", "code", "says"),
    [
        ([], "hello_expected", "the first message must be the hello"),
        ({"type": "action"}, "hello_expected", "the first message must be the hello"),
        ({"token": "t"}, "hello_expected", "the first message must be the hello"),
        ({"type": "hello", "colour": "red"}, "invalid_body", "colour"),
        ({"type": "hello", "token": ""}, "invalid_body", "token"),
        ({"type": "hello", "token": 5}, "invalid_body", "token"),
        ({"type": "hello", "after": -1}, "invalid_body", "after"),
        ({"type": "hello", "after": True}, "invalid_body", "after"),
        ({"type": "hello", "after": "3"}, "invalid_body", "after"),
        ({"type": "hello", "after": 2**53 + 1}, "invalid_body", "after"),
    ],
)
def test_a_hello_the_schema_refuses_is_400_with_the_codes_it_had(
    message: Any, code: str, says: str
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        load_hello(message)
    assert refused.value.code == code
    assert says in str(refused.value)
