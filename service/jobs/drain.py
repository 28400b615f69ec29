"""The drain: one RQ job that works many items of the backlog, so RQ's cost is paid per job,
not per draw or bot move.

A drain runs on a worker and takes from the queues that worker listens to, draws first
(``floe:draws``: draws and tournament advances, several claimed at once; then ``floe:bots``,
one bot move at a time). It runs up to ``threads`` items at once, on a small pool: each item
is mostly waiting for Redis, and with ``appendfsync always`` for the fsync of its append,
and appends that reach Redis together share one fsync. Only one bot thinks at a time: the
next bot move is claimed once the one before has decided (``Automation.play_bot``'s
``thought``), so quick bots overlap their appends while a slow one never holds other bot
moves back from an idle worker, nor shares its core with another bot's search. Draws are
still claimed while a bot thinks. Each item runs under its own deadline
(``service.jobs.deadlines``), as its own RQ job did.

With nothing to claim it waits for its worker's doorbell (rung with a queue's name whenever
items are added to a queue the worker listens to: a blocking pop on a listener thread, no
polling) for up to ``idle_seconds``, so a steady stream of items, one client rolling dice
say, costs no RQ job per item; then it leaves, in the one script that finds its queue empty
(``Backlog.leave``). A queue it found empty is not asked again until the doorbell names it.
It also leaves after ``life_seconds``, or when its worker is asked to stop (which wakes it
at once), naming a successor drain if items are pending; the items in hand are finished
first.

Claims are leases: a claimed item is held while the worker's liveness key lives. If the
worker dies, the sweeper finds the game still waiting and adds the item again. If an item
raises, the drain fails as its RQ job would have: it claims nothing more, finishes the items
in hand, drops the failed one (the sweeper retries it after two sweeps, as it retries a
failed job), names a successor drain if items remain, and the exception fails the drain job
in RQ's failed registry with its traceback.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from service.jobs.backlog import WAKE, Backlog, Lane
from service.jobs.deadlines import Watchdog

log = logging.getLogger(__name__)

#: Draws (and tournament advances) a drain claims at once, at most.
DRAW_BATCH = 16
#: Items a drain runs at once.
THREADS = 8
#: How long an idle drain waits for more before it leaves.
IDLE_SECONDS = 2.0
#: How long a drain takes new items before it hands over to a successor job.
LIFE_SECONDS = 30.0
#: The longest a bell listener blocks before it looks whether its drain still runs.
LISTEN_SECONDS = 1.0

#: Runs one item: the item (a job id) and what to call once a bot has decided.
RunItem = Callable[[str, Callable[[], None]], object]


@dataclass(frozen=True, slots=True)
class DrainSettings:
    idle_seconds: float = IDLE_SECONDS
    life_seconds: float = LIFE_SECONDS
    threads: int = THREADS


class Drainer:
    """Runs the drain jobs of one worker process (``service.jobs.worker`` builds it)."""

    def __init__(
        self,
        backlog: Backlog,
        run_item: RunItem,
        timeout_of: Callable[[str], float],
        enqueue_drain: Callable[[str, str], None],
        worker: str,
        lanes: Sequence[Lane],
        stopping: threading.Event,
        *,
        thinking_queues: frozenset[str] = frozenset(),
        settings: DrainSettings = DrainSettings(),
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backlog = backlog
        self.run_item = run_item
        self.timeout_of = timeout_of
        self.enqueue_drain = enqueue_drain
        self.worker = worker
        self.lanes = list(lanes)
        self.stopping = stopping
        self.thinking_queues = thinking_queues
        self.settings = settings
        self.monotonic = monotonic
        self.watchdog = Watchdog(monotonic)
        self.pool = ThreadPoolExecutor(settings.threads, thread_name_prefix="drain")

    def drain(self, queue: str, drain: str) -> int:
        """Work items until idle, old, stopped or failed; how many items were run."""
        return _Run(self, queue, drain).run()


@dataclass(eq=False)
class _Run:
    """One drain job's run: its items in flight, those done, and its first failure."""

    drainer: Drainer
    queue: str
    drain: str
    progress: threading.Event = field(default_factory=threading.Event)
    #: Set while the last claim found nothing: only then does the listener wait on the bells
    #: (a busy drain would only take its own rings, meant for other workers' idle drains).
    starved: threading.Event = field(default_factory=threading.Event)
    #: Lanes a claim found empty since the doorbell last named them: not asked again till
    #: then. ``rings`` counts each queue's rings, so a claim racing a ring marks nothing dry;
    #: both change under ``lock`` (the listener's thread, and this one).
    dry: set[str] = field(default_factory=set)
    rings: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Each item in flight, with the queue it came from.
    in_flight: dict[Future[object], tuple[str, str]] = field(default_factory=dict)
    thinking: set[str] = field(default_factory=set)
    done: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    failure: BaseException | None = None
    made: int = 0
    listening: bool = True

    def run(self) -> int:
        drainer = self.drainer
        backlog = drainer.backlog
        backlog.running(self.queue, self.drain, drainer.worker)
        listener = threading.Thread(target=self._listen, name="bells", daemon=True)
        listener.start()
        started = idle_since = drainer.monotonic()
        gone = abandoned = False
        try:
            while True:
                self.progress.clear()
                if self._collect():
                    idle_since = drainer.monotonic()
                if self.failure is not None or drainer.stopping.is_set():
                    break
                if drainer.monotonic() - started >= drainer.settings.life_seconds:
                    break
                if self._claim():
                    idle_since = drainer.monotonic()
                    continue
                if self.in_flight:
                    self.progress.wait(LISTEN_SECONDS)
                    continue
                left = drainer.settings.idle_seconds - (drainer.monotonic() - idle_since)
                if left > 0:
                    self.progress.wait(left)
                    continue
                self._release()
                if backlog.leave(self.queue, self.drain, hand_over=False) == "stay":
                    idle_since = drainer.monotonic()
                    with self.lock:
                        self.dry.clear()  # items came meanwhile: claim again, rung or not
                    continue
                gone = True
                break
        except (SystemExit, KeyboardInterrupt):  # a cold stop: the claims lapse with us
            abandoned = True
            raise
        finally:
            if not abandoned:
                self._finish_in_hand()
            self.listening = False
            self.starved.set()  # the listener, if it waits to listen, ends now ...
            backlog.wake(drainer.worker)  # ... and if it is blocked on the doorbell, too
            if not gone:
                successor = backlog.leave(self.queue, self.drain, hand_over=True)
                if successor is not None:
                    drainer.enqueue_drain(self.queue, successor)
        elapsed = drainer.monotonic() - started
        log.info("%s ran %d items in %.1f s", self.drain, self.made, elapsed)
        if self.failure is not None:
            raise self.failure
        return self.made

    def _claim(self) -> bool:
        """Claim what there is room for (releasing what is done); whether any was.

        A bot move is claimed only while no bot thinks and no draw is in flight: draws are
        taken, and made, before any bot move, and one bot thinks at a time."""
        drainer = self.drainer
        free = drainer.settings.threads - len(self.in_flight)
        if free <= 0:
            return False
        thinkers = drainer.thinking_queues
        quick = any(queue not in thinkers for queue, _ in self.in_flight.values())
        lanes = [
            Lane(lane.queue, min(lane.batch, free))
            for lane in drainer.lanes
            if lane.queue not in thinkers or not (self.thinking or quick)
        ]
        if not lanes:
            self.starved.clear()  # only bots wait, and ours thinks: its end will wake us
            return False
        names = [lane.queue for lane in lanes]
        with self.lock:
            if all(name in self.dry for name in names):
                self.starved.set()  # found empty, and no ring since: the listener waits
                return False
            before = {name: self.rings.get(name, 0) for name in names}
        queue, items = drainer.backlog.claim(drainer.worker, lanes, self.done)
        self.done = []
        empty = names[: names.index(str(queue))] if items else names  # ahead of it: empty
        with self.lock:
            self.dry = {name for name in empty if self.rings.get(name, 0) == before[name]}
        if items:
            self.starved.clear()
        else:
            self.starved.set()
        if len(items) == 1 and not self.in_flight and queue not in thinkers:
            self._inline(items[0])  # one quick item, nothing else to do: no hand-off
            return True
        for item in items:
            if queue in thinkers:
                self.thinking.add(item)
            future = drainer.pool.submit(self._work, item)
            self.in_flight[future] = (str(queue), item)
            future.add_done_callback(lambda _: self.progress.set())
        return bool(items)

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
        drainer = self.drainer
        try:
            with drainer.watchdog.deadline(drainer.timeout_of(item)):
                return drainer.run_item(item, lambda: self._thought(item))
        finally:
            self._thought(item)

    def _thought(self, item: str) -> None:
        if item in self.thinking:
            self.thinking.discard(item)
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
        if finished:
            self.drainer.backlog.release(self.drainer.worker, finished)

    def _listen(self) -> None:
        """Ring ``progress`` whenever the worker's doorbell rings while the drain has found
        nothing to claim, until it ends: a queue that items came to is worth a claim again."""
        drainer = self.drainer
        while self.listening:
            if not self.starved.wait(LISTEN_SECONDS) or not self.listening:
                continue
            try:
                rung = drainer.backlog.wait(drainer.worker, LISTEN_SECONDS)
            except Exception as error:  # Redis away: the drain itself will meet it too
                log.warning("%s: listening for items failed: %s", self.drain, error)
                return
            if rung is not None:
                with self.lock:
                    if rung == WAKE:  # asked to stop, or the drain ends
                        self.dry.clear()
                    self.dry.discard(rung)
                    self.rings[rung] = self.rings.get(rung, 0) + 1
                self.progress.set()


def lanes_for(queues: Sequence[str], batches: dict[str, int]) -> list[Lane]:
    """The lanes of a worker that listens to ``queues`` (those with a backlog), in order."""
    return [Lane(queue, batches[queue]) for queue in queues if queue in batches]
