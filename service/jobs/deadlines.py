"""Deadlines for the items a worker runs: an item past its own is stuck, and ends its worker.

A bot's search stops itself within its budget and a draw takes milliseconds, so an item still
running past its deadline (``service.jobs.queue.item_deadline``, far above the bot's budget)
is code that never checks: a bug. Python cannot stop a thread from outside, and an exception
forced into one can surface anywhere, so the worker does not try: one watching thread finds
the item past its deadline and calls ``on_stuck`` with it. The worker's ``on_stuck`` logs it,
records the failure of a bot move, and ends the process with ``STUCK_EXIT_STATUS``; what else
it held is added again by the sweeper once its liveness lapses, and ``floe run`` starts
another worker in its place.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: How a worker that found an item stuck past its deadline exits (``EX_SOFTWARE``: a bug).
STUCK_EXIT_STATUS = 70
#: How often the watching thread looks (an item's deadline is a minute or more).
CHECK_SECONDS = 0.5


class Deadlines:
    """Watches the deadline of every item running in this process, from one thread."""

    def __init__(
        self,
        seconds_of: Callable[[str], float],
        on_stuck: Callable[[str], object],
        *,
        monotonic: Callable[[], float] = time.monotonic,
        check_seconds: float = CHECK_SECONDS,
    ) -> None:
        self._seconds_of = seconds_of
        self._on_stuck = on_stuck
        self._monotonic = monotonic
        self._check_seconds = check_seconds
        self._lock = threading.Lock()
        self._running: dict[int, tuple[float, str]] = {}  # token -> (deadline, item)
        self._tokens = itertools.count()
        self._watcher: threading.Thread | None = None

    @contextmanager
    def watch(self, item: str) -> Iterator[None]:
        """Run the block as ``item``: past the item's deadline, ``on_stuck(item)`` is called."""
        token = next(self._tokens)
        deadline = self._monotonic() + self._seconds_of(item)
        with self._lock:
            self._running[token] = (deadline, item)
            if self._watcher is None:
                self._watcher = threading.Thread(target=self._watch, name="deadlines", daemon=True)
                self._watcher.start()
        try:
            yield
        finally:
            with self._lock:
                self._running.pop(token, None)

    def _watch(self) -> None:
        while True:
            time.sleep(self._check_seconds)
            now = self._monotonic()
            with self._lock:
                stuck = [t for t, (deadline, _) in self._running.items() if deadline <= now]
                items = [self._running.pop(token)[1] for token in stuck]
            for item in items:  # each at most once (``on_stuck`` normally never returns)
                self._on_stuck(item)
