"""Wake whoever waits for a game's next event, from one subscription per process.

Live streams and ``?wait=`` answers wait for a game's next event. Waiting in ``XREAD BLOCK``
would hold a Redis connection per waiter, and thousands of idle streams would need thousands
of connections. Instead the append and create scripts publish ``<events key> <version>`` on
one channel; each process subscribes once and wakes only the waiters of that game, who then
read the stream themselves.

The append script's message also carries the events it stored (store/append.lua), published
in the same script as their XADD, so they reach the subscriber after the same fsync an
append's answer waits for: they are what a read would return. A waiter may take them
instead of reading (``Heard``), which costs a live stream no read per move; it may only when
every ring since it last looked carried its events and none was dropped. Anything else is
no worse than before: the waiter reads the stream after a wake-up whose events it cannot
take and at least every ``recheck_seconds``, so a message lost while the subscription was
down costs that much latency, never an event.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import redis

from domain.engine.log import StoredEvent
from service.store import codec

log = logging.getLogger(__name__)

#: The channel the store's scripts publish every new head on.
CHANNEL = "floe:appended"
#: How long a subscriber that lost its connection waits before subscribing again.
RESUBSCRIBE_SECONDS = 1.0


#: The most events a waiter keeps between two looks; past them it reads (it fell behind).
MAX_HEARD = 64


@dataclass(frozen=True, slots=True)
class Heard:
    """What the rings since a waiter last looked said: whether any came, the events they
    carried, and whether every one carried its events with none dropped (``carried``).
    Only a complete hearing (``rung and carried``) may stand in for a read."""

    rung: bool
    events: tuple[StoredEvent, ...]
    carried: bool

    @property
    def complete(self) -> bool:
        return self.rung and self.carried


@dataclass(eq=False, slots=True)
class Watch:
    """One waiter's doorbell: set by a signal for its game, cleared before each read."""

    recheck_seconds: float
    _bell: threading.Event = field(default_factory=threading.Event)
    #: Guards the two below against a ring landing while ``wait`` takes them.
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _events: list[StoredEvent] = field(default_factory=list)
    _carried: bool = True

    def ring(self, events: Sequence[StoredEvent] | None = None) -> None:
        """Wake the waiter; ``events``: those the append stored (None: not carried)."""
        with self._lock:
            if events is None or len(self._events) + len(events) > MAX_HEARD:
                self._events, self._carried = [], False
            elif self._carried:
                self._events.extend(events)
        self._bell.set()

    def wait(self, seconds: float) -> Heard:
        """Return on a signal, or after ``seconds`` (at most ``recheck_seconds``), with what
        the rings since the last wait carried (a wait that timed out heard nothing whole).

        The bell is cleared on the way out, before the caller reads the stream: a signal
        that lands after the clear rings again, and one before it is covered by the read
        (or by the events handed over with the clear).
        """
        rung = self._bell.wait(max(0.0, min(seconds, self.recheck_seconds)))
        with self._lock:
            self._bell.clear()
            heard = Heard(rung, tuple(self._events), self._carried)
            self._events, self._carried = [], True
        return heard


class AppendSignals:
    """The process's one subscription to every game's appends, and the waiters it wakes."""

    def __init__(self, client: redis.Redis, *, recheck_seconds: float = 5.0) -> None:
        self._client = client
        self._recheck = recheck_seconds
        self._lock = threading.Lock()
        self._watches: dict[str, set[Watch]] = {}
        self._listening_pid: int | None = None

    @contextmanager
    def watch(self, events_key: str) -> Iterator[Watch]:
        """A doorbell for the stream ``events_key``, registered before the caller reads it."""
        watch = Watch(self._recheck)
        with self._lock:
            self._watches.setdefault(events_key, set()).add(watch)
            self._listen_locked()
        try:
            yield watch
        finally:
            with self._lock:
                watches = self._watches.get(events_key)
                if watches is not None:
                    watches.discard(watch)
                    if not watches:
                        del self._watches[events_key]

    def waiting(self) -> int:
        """How many waiters are registered (for tests and health figures)."""
        with self._lock:
            return sum(len(watches) for watches in self._watches.values())

    def _listen_locked(self) -> None:
        """Start this process's listener unless it runs (a forked child starts its own)."""
        pid = os.getpid()
        if self._listening_pid != pid:
            self._listening_pid = pid
            threading.Thread(target=self._listen, name="floe-appends", daemon=True).start()

    def _listen(self) -> None:
        """Subscribe until nobody waits; after a lost connection, ring everyone and retry."""
        while True:
            try:
                if self._listen_while_watched():
                    return
            except Exception as error:  # never die: the waiters would fall back to rechecks
                log.warning("append signals lost their subscription: %r", error)
            self._ring_all()  # whatever was appended meanwhile: everyone reads again
            if self._stop_if_unwatched():
                return
            threading.Event().wait(RESUBSCRIBE_SECONDS)

    def _stop_if_unwatched(self) -> bool:
        """Mark the listener stopped when nobody waits (the next watch starts another)."""
        with self._lock:
            if self._watches:
                return False
            self._listening_pid = None
            return True

    def _listen_while_watched(self) -> bool:
        """Relay messages; True once a quiet ``recheck`` passes with no waiter left."""
        pubsub = self._client.pubsub()  # type: ignore[no-untyped-call]
        try:
            pubsub.subscribe(CHANNEL)
            while True:
                message = pubsub.get_message(timeout=self._recheck)
                if message is None:
                    if self._stop_if_unwatched():
                        return True
                elif message["type"] == "subscribe":
                    self._ring_all()  # appends made before the subscription took effect
                elif message["type"] == "message":
                    self._ring(message["data"])
        finally:
            pubsub.close()

    def _ring(self, data: bytes | str) -> None:
        """Ring the waiters of the message's key, handing them the events it carries."""
        raw = data.encode() if isinstance(data, str) else data
        head, _, body = raw.partition(b"\n")
        events_key = head.rsplit(b" ", 1)[0].decode()
        with self._lock:
            watches = list(self._watches.get(events_key, ()))
        if not watches:
            return
        events = carried(body)
        for watch in watches:
            watch.ring(events)

    def _ring_all(self) -> None:
        with self._lock:
            watches = [w for group in self._watches.values() for w in group]
        for watch in watches:
            watch.ring()


def carried(body: bytes) -> list[StoredEvent] | None:
    """The events an append's message carries after its first line, one per line (None: it
    carries none, or they cannot be read: the waiters read the stream)."""
    if not body:
        return None
    try:
        return [StoredEvent.from_json(codec.decode(line)) for line in body.split(b"\n")]
    except (ValueError, RecursionError, KeyError, TypeError):
        log.warning("append signals: a message's events could not be read; reading the stream")
        return None
