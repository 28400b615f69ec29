"""Drains: RQ jobs that each run many items of the backlog, so RQ's cost is paid per drain,
not per draw or bot move.

A drain runs on a worker and takes from the queues that worker listens to (its lanes), draws
first (several claimed at once), then bot moves (one by one). It runs up to ``threads``
items at once on a small pool: an item mostly waits for Redis, and with ``appendfsync always``
for the fsync of its append, and appends that reach Redis together share one fsync. At most
``THINKERS`` (two) bots think at once, each for a line of its own: the next bot move is
claimed once fewer are thinking (a bot has thought once ``Automation.play_bot``'s
``thought`` is set) and no draw is in flight, and never for a line whose move is being thought
about. So one creator's big search, which cannot be cut short, holds one slot at most, and
another creator's random bot moves in the other meanwhile; two long searches of different
lines share the core (the search is bounded by its iterations, so only its time changes).
Draws are still claimed while bots think. Each item runs under its deadline
(``service.jobs.deadlines``).

Bot moves come from the bots' lines (``service.jobs.backlog``: one per creator, served in
turn). The drain times how long each bot took to decide and charges it to the item's line
(``Backlog.charge``) before the next bot move is claimed, so the next claim already knows
what a big board's search cost: a line over its thinking budget is passed over while another
waits.

With nothing to claim, a listener thread blocks on the worker's doorbell (rung whenever items
are added to a queue the worker listens to) and the drain waits for it, up to
``idle_seconds``, so a steady trickle of items, one client rolling dice say, costs no RQ job
per item; then it leaves, if its queue is still empty (``Backlog.leave_if_empty``). It also
leaves after ``life_seconds``, or when its worker is asked to stop (which rings the doorbell),
naming a successor drain for what is pending (``Backlog.hand_over``); the items in hand are
finished first.

A claim is a lease, held while the worker's liveness key lives: if the worker dies, the
sweeper finds the game still waiting and adds the item again. If an item raises, the drain
fails as an RQ job fails: it claims nothing more, finishes the items in hand, drops the failed
one (the sweeper retries it after two sweeps), hands over what is pending, and the exception
fails the drain job into RQ's failed registry, with its traceback.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from service.jobs.backlog import Backlog, Lane

log = logging.getLogger(__name__)

#: Items a drain runs at once.
THREADS = 8
#: Bots thinking at once in one drain, each for a different line.
THINKERS = 2
#: How long an idle drain waits for more before it leaves.
IDLE_SECONDS = 2.0
#: How long a drain takes new items before it hands over to a successor job.
LIFE_SECONDS = 30.0
#: The longest the listener blocks on the doorbell before it looks whether its drain ended.
LISTEN_SECONDS = 1.0

#: Runs one item: the item (a job id) and what to call once a bot has decided.
RunItem = Callable[[str, Callable[[], None]], object]
#: The deadline an item runs under (``Deadlines.watch``).
WatchItem = Callable[[str], AbstractContextManager[object]]


def _unwatched(item: str) -> AbstractContextManager[object]:
    return contextlib.nullcontext()


@dataclass(frozen=True, slots=True)
class DrainSettings:
    idle_seconds: float = IDLE_SECONDS
    life_seconds: float = LIFE_SECONDS
    threads: int = THREADS
    #: Bots thinking at once, each for a different line.
    thinkers: int = THINKERS


class Drains:
    """Runs the drain jobs of one worker process: its lanes, its pool, its doorbell."""

    def __init__(
        self,
        backlog: Backlog,
        run_item: RunItem,
        enqueue_drain: Callable[[str, str], None],
        worker: str,
        lanes: Sequence[Lane],
        stopping: threading.Event,
        *,
        watch: WatchItem = _unwatched,
        settings: DrainSettings = DrainSettings(),
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backlog = backlog
        self.run_item = run_item
        self.enqueue_drain = enqueue_drain
        self.worker = worker
        self.lanes = list(lanes)
        self.stopping = stopping
        self.watch = watch
        self.settings = settings
        self.monotonic = monotonic
        self.pool = ThreadPoolExecutor(settings.threads, thread_name_prefix="drain")

    def run(self, queue: str, drain: str) -> int:
        """Run items until idle, old, stopped or failed; how many were run."""
        return _DrainRun(self, queue, drain).run()


def run_drain(drains: Drains, queue: str, drain: str) -> int:
    """The drain's RQ job function (``DRAIN_FUNCTION``): the worker's RQ job class hands it
    the worker's ``Drains`` (``service.jobs.worker.DrainJob``); RQ stores only the rest."""
    return drains.run(queue, drain)


@dataclass(eq=False)
class _DrainRun:
    """One drain job's run: its items in flight, those done, and its first failure."""

    drains: Drains
    queue: str
    drain: str
    #: Set when an item finished, a bot decided, or the doorbell rang: claim again.
    progress: threading.Event = field(default_factory=threading.Event)
    #: Set while the last claim found nothing: only then does the listener take the rings
    #: (a busy drain would take those meant for other workers' idle drains).
    starved: threading.Event = field(default_factory=threading.Event)
    in_flight: dict[Future[object], tuple[Lane, str]] = field(default_factory=dict)
    #: The bots thinking now, each with its queue and line ('' for an item of no line).
    thinking: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Items finished whose claims are not released yet (the next claim releases them).
    done: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    failure: BaseException | None = None
    made: int = 0
    ended: bool = False

    def run(self) -> int:
        drains = self.drains
        backlog = drains.backlog
        backlog.running(self.queue, self.drain, drains.worker)
        listener = threading.Thread(target=self._listen, name="doorbell", daemon=True)
        listener.start()
        started = idle_since = drains.monotonic()
        left = abandoned = False
        try:
            while True:
                self.progress.clear()
                if self._collect():
                    idle_since = drains.monotonic()
                if self.failure is not None or drains.stopping.is_set():
                    break
                if drains.monotonic() - started >= drains.settings.life_seconds:
                    break
                if self._claim():
                    idle_since = drains.monotonic()
                    continue
                if self.in_flight:
                    self.progress.wait(LISTEN_SECONDS)
                    continue
                idle = drains.settings.idle_seconds - (drains.monotonic() - idle_since)
                if idle > 0:
                    self.progress.wait(idle)
                    continue
                self._release()
                if backlog.leave_if_empty(self.queue, self.drain):
                    left = True
                    break
                idle_since = drains.monotonic()  # items came meanwhile: take them
        except (SystemExit, KeyboardInterrupt):  # a cold stop: the claims lapse with us
            abandoned = True
            raise
        finally:
            if not abandoned:
                self._finish_in_hand()
            self.ended = True
            self.starved.set()  # the listener, if it waits to listen, ends now ...
            backlog.wake(drains.worker)  # ... and if it is blocked on the doorbell, too
            if not left:
                successor = backlog.hand_over(self.queue, self.drain)
                if successor is not None:
                    drains.enqueue_drain(self.queue, successor)
        elapsed = drains.monotonic() - started
        log.info("%s ran %d items in %.1f s", self.drain, self.made, elapsed)
        if self.failure is not None:
            raise self.failure
        return self.made

    def _claim(self) -> bool:
        """Claim what there is room for (releasing what is done); whether any was.

        A bot move is claimed only while no draw is in flight (draws are taken, and made,
        before any bot move) and fewer than ``thinkers`` bots think, each for a line of its
        own: a long search of one line (a creator's big game) never stops another line's
        bot from moving meanwhile, and a line never has two moves thought about at once."""
        drains = self.drains
        free = drains.settings.threads - len(self.in_flight)
        if free <= 0:
            return False
        quick = any(not lane.thinks for lane, _ in self.in_flight.values())
        held = len(self.thinking) >= drains.settings.thinkers or quick
        lanes = [
            Lane(lane.queue, min(lane.batch, free), lane.thinks)
            for lane in drains.lanes
            if not (lane.thinks and held)
        ]
        if not lanes:
            self.starved.clear()  # only bots wait, and ours thinks: its end will wake us
            return False
        busy = [line for _, line in self.thinking.values()]
        claimed = drains.backlog.take(drains.worker, lanes, self.done, busy=busy)
        self.done = []
        items = claimed.items
        if not items:
            self.starved.set()
            return False
        self.starved.clear()
        lane = next(lane for lane in lanes if lane.queue == claimed.queue)
        if len(items) == 1 and not self.in_flight and not lane.thinks:
            self._inline(items[0])  # one quick item, nothing else to do: no hand-off
            return True
        for item, line in zip(items, claimed.lines, strict=True):
            if lane.thinks:
                self.thinking[item] = (lane.queue, line)
            future = drains.pool.submit(self._work, item)
            self.in_flight[future] = (lane, item)
            future.add_done_callback(lambda _: self.progress.set())
        return True

    def _inline(self, item: str) -> None:
        """Run ``item`` on this thread, as a pool thread would."""
        try:
            self._work(item)
        except Exception as error:
            self._failed(item, error)
        else:
            self.done.append(item)
            self.made += 1

    def _work(self, item: str) -> object:
        drains = self.drains
        started = drains.monotonic()
        try:
            with drains.watch(item):
                return drains.run_item(item, lambda: self._thought(item, started))
        finally:
            self._thought(item, started)

    def _thought(self, item: str, started: float) -> None:
        """A bot decided (or ended): charge its line what it took, then let the next think."""
        held = self.thinking.pop(item, None)
        if held is None:
            return
        queue, line = held
        if line:
            seconds = self.drains.monotonic() - started
            try:
                self.drains.backlog.charge(queue, line, seconds)
            except Exception as error:  # Redis away: the move stands, uncharged
                log.warning(
                    "%s: could not charge %s its %.3f s: %s", self.drain, line, seconds, error
                )
        self.progress.set()

    def _collect(self) -> bool:
        """Take in the items that finished; whether any did."""
        finished = [future for future in self.in_flight if future.done()]
        for future in finished:
            _, item = self.in_flight.pop(future)
            error = future.exception()
            if error is None:
                self.done.append(item)
                self.made += 1
            else:
                self._failed(item, error)
        return bool(finished)

    def _failed(self, item: str, error: BaseException) -> None:
        log.error("%s: %s failed; the drain fails with it", self.drain, item)
        self.failed.append(item)
        if self.failure is None:
            self.failure = error

    def _finish_in_hand(self) -> None:
        """Let the items in flight finish, then release every claim of this run."""
        while self.in_flight:
            self.progress.clear()
            self._collect()
            if self.in_flight:
                self.progress.wait(LISTEN_SECONDS)
        self._release()

    def _release(self) -> None:
        finished = [*self.done, *self.failed]
        self.done, self.failed = [], []
        self.drains.backlog.release(self.drains.worker, finished)

    def _listen(self) -> None:
        """While the drain finds nothing to claim, wait for the worker's doorbell and set
        ``progress`` when it rings: a queue that items came to is worth a claim again."""
        drains = self.drains
        while not self.ended:
            if not self.starved.wait(LISTEN_SECONDS) or self.ended:
                continue
            try:
                rung = drains.backlog.wait(drains.worker, LISTEN_SECONDS)
            except Exception as error:  # Redis away: the drain itself will meet it too
                log.warning("%s: listening for items failed: %s", self.drain, error)
                return
            if rung is not None:
                self.progress.set()
