"""Deadlines for the items a drain runs: RQ's job timeout, per item, in any thread.

A drain job (``service.jobs.drain``) runs its items on a few threads. Each item gets the bound
its own RQ job used to have: past it, RQ's ``JobTimeoutException`` is raised inside the
item's thread (a bot's search stops itself first, so this is only a net for code that never
checks). Signals reach only the main thread, so the exception is set on the item's thread
by one watchdog thread (``PyThreadState_SetAsyncExc``, as RQ's own ``TimerDeathPenalty``
does); like RQ's alarm it interrupts Python code, not a call blocked inside C.

An item that finishes just as its deadline passes counts as finished: an exception set but
not yet raised is cleared as the item leaves (``PyThreadState_SetAsyncExc(thread, NULL)``),
so it can never surface later in code that is not the item's.
"""

from __future__ import annotations

import ctypes
import heapq
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rq.timeouts import JobTimeoutException


def _set_async_exc(thread: int, exception: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread), ctypes.py_object(exception) if exception else None
    )


class Watchdog:
    """Raises ``JobTimeoutException`` in a thread whose deadline passed (one thread for all)."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._changed = threading.Condition()
        self._armed: dict[int, int] = {}  # token -> the thread it guards
        self._fired: set[int] = set()
        self._due: list[tuple[float, int]] = []
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None

    @contextmanager
    def deadline(self, seconds: float) -> Iterator[None]:
        """Raise ``JobTimeoutException`` in the block once ``seconds`` have passed."""
        token = self._arm(seconds)
        try:
            try:
                yield
            finally:
                self._disarm(token)
        except JobTimeoutException:
            with self._changed:
                self._armed.pop(token, None)
                self._fired.discard(token)
            raise

    def _arm(self, seconds: float) -> int:
        with self._changed:
            token = next(self._tokens)
            self._armed[token] = threading.get_ident()
            heapq.heappush(self._due, (self._monotonic() + seconds, token))
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="deadlines", daemon=True)
                self._thread.start()
            self._changed.notify()
            return token

    def _disarm(self, token: int) -> None:
        with self._changed:
            if self._armed.pop(token, None) is None and token in self._fired:
                self._fired.discard(token)
                _set_async_exc(threading.get_ident(), None)  # set, not raised yet: finished

    def _watch(self) -> None:
        with self._changed:
            while True:
                while self._due and self._due[0][1] not in self._armed:
                    heapq.heappop(self._due)  # disarmed meanwhile
                if not self._due:
                    self._changed.wait()
                    continue
                at, token = self._due[0]
                left = at - self._monotonic()
                if left > 0:
                    self._changed.wait(left)
                    continue
                heapq.heappop(self._due)
                thread = self._armed.pop(token)
                self._fired.add(token)
                _set_async_exc(thread, JobTimeoutException)
