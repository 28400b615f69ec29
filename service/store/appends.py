"""Wake whoever waits for a game's next event, from one subscription per process.

Live streams and ``?wait=`` answers wait for a game's next event. Waiting in ``XREAD BLOCK``
would hold a Redis connection per waiter, and thousands of idle streams would need thousands
of connections. Instead the append and create scripts publish ``<events key> <version>`` on
one channel; each process subscribes once and wakes only the waiters of that game, who then
read the stream themselves.

Nothing here is trusted for correctness: a waiter reads the stream after every wake-up and
at least every ``recheck_seconds``, so a message lost while the subscription was down costs
that much latency, never an event.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import redis

log = logging.getLogger(__name__)

#: The channel the store's scripts publish every new head on.
CHANNEL = "floe:appended"
#: How long a subscriber that lost its connection waits before subscribing again.
RESUBSCRIBE_SECONDS = 1.0


@dataclass(eq=False, slots=True)
class Watch:
    """One waiter's doorbell: set by a signal for its game, cleared before each read."""

    recheck_seconds: float
    _bell: threading.Event = field(default_factory=threading.Event)

    def ring(self) -> None:
        self._bell.set()

    def wait(self, seconds: float) -> None:
        """Return on a signal, or after ``seconds`` (at most ``recheck_seconds``).

        The bell is cleared on the way out, before the caller reads the stream: a signal
        that lands after the clear rings again, and one before it is covered by the read.
        """
        self._bell.wait(max(0.0, min(seconds, self.recheck_seconds)))
        self._bell.clear()


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
        text = data.decode() if isinstance(data, bytes) else data
        events_key = text.rsplit(" ", 1)[0]
        with self._lock:
            watches = list(self._watches.get(events_key, ()))
        for watch in watches:
            watch.ring()

    def _ring_all(self) -> None:
        with self._lock:
            watches = [w for group in self._watches.values() for w in group]
        for watch in watches:
            watch.ring()
