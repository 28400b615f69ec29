"""A cap on the long requests one client address holds open: live streams and ``?wait=``.

A stream or a wait costs the server almost nothing while it idles (``service/store/appends.py``),
but not nothing: a socket, a greenlet, a waiter. One address may hold ``per_address`` of them
at once, across every API process; the next is refused with 429 ``too_many_streams`` until
one closes. Each hold is a member of a sorted set scored by when it expires, named
``<process>:<nonce>`` after the process that holds it.

A process that dies (SIGKILL, out of memory) never gives its holds back. Each process keeps a
liveness key (``alive_key``, ``ALIVE_MS``) while it holds anything, renewed every
``RENEW_SECONDS`` by a thread of its own; once it dies the key lapses within ``ALIVE_MS``. A
take the cap refuses then looks at the holders' processes and takes again, dropping the
holds of every process whose key is gone: so an address whose streams died with their
process can open streams again some 15 s later, not when their longest life has passed.
That life (``sse_max_seconds`` plus ``GRACE_MS``) still bounds every hold, whatever the
liveness keys say. The liveness keys are read outside the script (each is in a cluster slot
of its own), and only when the cap is reached, so the usual take is still one round trip.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from service.clock import Clock, epoch_seconds
from service.errors import StreamsFull, TooManyStreams
from service.limits.slots import ExpiringSlots
from service.redis.keys import KeyPattern

#: A hold outlives the request it covers by this much before it counts as abandoned.
GRACE_MS = 30_000
#: What a refused client is told to wait before trying again.
RETRY_AFTER_SECONDS = 5
#: How long a holding process's liveness key outlives its last renewal...
ALIVE_MS = 15_000
#: ... renewed this often while the process holds anything.
RENEW_SECONDS = 5.0

log = logging.getLogger(__name__)


def streams_per_process(connections: int) -> int:
    """The long requests one API process keeps room for: three quarters of the connections
    it serves (``FLOE_WEB_CONNECTIONS``), so a quarter is always left for plain requests
    (a health check, a move) however many addresses hold streams."""
    return max(1, connections * 3 // 4)


holds_key = KeyPattern("floe:long-requests:{<id>}")
#: Set while the process ``<id>`` holds slots; gone (lapsed) once it has died.
alive_key = KeyPattern("floe:long-requests:process:{<id>}")


class Hold:
    """One taken slot; ``release`` gives it back (idempotent)."""

    def __init__(self, slots: LongRequestSlots, key: str, member: str) -> None:
        self.key = key
        self.member = member
        self._slots = slots
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._slots.give_back(self)


class ProcessLiveness:
    """This process's liveness key, kept while it holds a slot (``enter`` to ``leave``).

    The key is set before the first hold is taken, so no other process ever sees a hold of a
    live process without its key, and renewed by a daemon thread (a greenlet under gevent)
    that ends when nothing is held.
    """

    def __init__(self, client: redis.Redis, process: str) -> None:
        self.process = process
        self._client = client
        self._lock = threading.Lock()
        self._held = 0
        self._renewing = False
        self._renewed_at = float("-inf")

    def enter(self) -> None:
        """One more hold: the key is there, and kept, until ``leave``."""
        with self._lock:
            self._held += 1
            stale = time.monotonic() - self._renewed_at > RENEW_SECONDS
            start = not self._renewing
            self._renewing = True
            if stale:  # under the lock: a ``leave`` to zero cannot delete it behind us
                try:
                    self._client.set(alive_key(self.process), 1, px=ALIVE_MS)
                except BaseException:
                    self._held -= 1
                    raise
                self._renewed_at = time.monotonic()
        if start:
            threading.Thread(target=self._keep_renewed, name="liveness", daemon=True).start()

    def leave(self) -> None:
        """One hold fewer; the last one takes the key away (a process holding nothing needs
        none, and leaves nothing behind in Redis)."""
        with self._lock:
            self._held = max(0, self._held - 1)
            if self._held:
                return
            self._renewed_at = float("-inf")
            with contextlib.suppress(redis.RedisError):  # else it lapses within ALIVE_MS
                self._client.delete(alive_key(self.process))

    def alive(self, processes: set[str]) -> set[str]:
        """Which of ``processes`` still have their liveness key."""
        ordered = sorted(processes)
        pipe = self._client.pipeline(transaction=False)
        for process in ordered:
            pipe.exists(alive_key(process))
        found = pipe.execute()
        return {process for process, exists in zip(ordered, found, strict=True) if exists}

    def _renew(self) -> bool:
        """Renew the key while something is held; False once nothing is (the thread ends).
        Under the lock, so a renewal never brings back a key the last ``leave`` took away."""
        with self._lock:
            if self._held == 0:
                self._renewing = False
                return False
            self._client.set(alive_key(self.process), 1, px=ALIVE_MS)
            self._renewed_at = time.monotonic()
            return True

    def _keep_renewed(self) -> None:
        failing = False
        while True:
            time.sleep(RENEW_SECONDS)
            try:
                if not self._renew():
                    return
            except redis.RedisError as error:  # Redis away: try again next beat
                if not failing:  # said once per outage, not every beat
                    log.warning("long requests' liveness renewal failed: %s", error)
                failing = True
            else:
                failing = False


class LongRequestSlots:
    """Per-address slots for requests that stay open; ``per_address`` 0 turns the cap off.

    One per process (gunicorn builds the app in each worker): its random ``process`` id tags
    every hold it takes. ``per_process`` (0: no cap) bounds the holds of this process
    whatever their addresses: many addresses, each within its cap, could otherwise take
    every connection the process serves, and nothing else would be answered; past it a
    stream or a wait is 503 ``streams_full`` while plain requests still find room.
    """

    def __init__(
        self, client: redis.Redis, per_address: int, clock: Clock, *, per_process: int = 0
    ) -> None:
        self._slots = ExpiringSlots(client)
        self._per_address = per_address
        self._per_process = per_process
        self._clock = clock
        self.liveness = ProcessLiveness(client, secrets.token_hex(8))
        self._lock = threading.Lock()
        self._here = 0

    @property
    def per_address(self) -> int:
        return self._per_address

    def acquire(self, address: str | None, seconds: float) -> Hold | None:
        """A slot for ``seconds`` at most, or 429 ``too_many_streams`` (the address's cap) or
        503 ``streams_full`` (the process's); None when both caps are off."""
        with self._lock:
            if 0 < self._per_process <= self._here:
                raise StreamsFull(
                    f"this server process holds {self._here} open streams and waits, the most "
                    "it keeps room for; try again shortly",
                    RETRY_AFTER_SECONDS,
                )
            self._here += 1
        try:
            hold = self._acquire(address, seconds)
        except BaseException:
            self._leave_process()
            raise
        if hold is None and self._per_process <= 0:
            self._leave_process()
            return None
        return hold or Hold(self, "", "")  # "": counted in this process only

    def _leave_process(self) -> None:
        with self._lock:
            self._here -= 1

    def _acquire(self, address: str | None, seconds: float) -> Hold | None:
        if self._per_address <= 0:
            return None
        key = holds_key(address or "unknown")
        member = f"{self.liveness.process}:{secrets.token_hex(8)}"
        now_ms = int(1000 * epoch_seconds(self._clock))
        until_ms = now_ms + int(1000 * seconds) + GRACE_MS
        self.liveness.enter()
        try:
            taken = self._take(key, member, now_ms, until_ms)
        except BaseException:
            self.liveness.leave()
            raise
        if not taken:
            self.liveness.leave()
            raise TooManyStreams(
                f"this address already holds {self._per_address} open streams and waits; "
                "close one (or wait for one to end) and try again",
                RETRY_AFTER_SECONDS,
            )
        return Hold(self, key, member)

    def give_back(self, hold: Hold) -> None:
        if not hold.key:
            self._leave_process()
            return
        try:
            self._slots.give_back(hold.key, hold.member)
        finally:
            self.liveness.leave()
            self._leave_process()

    @contextmanager
    def holding(self, address: str | None, seconds: float) -> Iterator[None]:
        """Hold a slot for the body of the ``with``; nothing for ``seconds`` <= 0 (a request
        that will not wait is no long request)."""
        if seconds <= 0:
            yield
            return
        hold = self.acquire(address, seconds)
        try:
            yield
        finally:
            if hold is not None:
                hold.release()

    def _take(self, key: str, member: str, now_ms: int, until_ms: int) -> bool:
        """Take a slot; at the cap, take again without the holds of dead processes."""
        limit = self._per_address
        if self._slots.take(key, member, now_ms=now_ms, until_ms=until_ms, limit=limit):
            return True
        dead = self._holds_of_dead_processes(key)
        return bool(dead) and self._slots.take(
            key, member, now_ms=now_ms, until_ms=until_ms, limit=limit, dropping=dead
        )

    def _holds_of_dead_processes(self, key: str) -> list[str]:
        """The holds of ``key`` whose process's liveness key is gone (a hold not tagged with
        a process at all counts as one whose process is gone)."""
        holds = self._slots.holders(key)
        own = self.liveness.process
        others = {hold.partition(":")[0] for hold in holds} - {own}
        if not others:
            return []
        living = self.liveness.alive(others) | {own}
        return [hold for hold in holds if hold.partition(":")[0] not in living]
