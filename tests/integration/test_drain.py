"""A drain (``service.jobs.drains``) on a real Redis, its items run by functions of the test.

The drain is driven in this process, as a worker's RQ job drives it, with the worker's
liveness key set by hand. What each item does is recorded; waits are on events the items
set, never on a clock.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
import redis

from service.jobs.backlog import Backlog, Lane
from service.jobs.drains import Drains, DrainSettings
from service.jobs.queue import BATCHES, QUEUE_NAMES, alive_key
from tests.support.waiting import PROMPTLY

DRAWS = QUEUE_NAMES["draw"]
BOTS = QUEUE_NAMES["bot"]
WORKER = "test-worker"
#: How long a test waits for something that happens at once (a bound, not a pace).
PATIENCE = PROMPTLY


@dataclass
class Items:
    """A record of what the drain ran: each start, bot decision and end, in order."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    log: list[tuple[str, str]] = field(default_factory=list)

    def note(self, what: str, item: str) -> None:
        with self.lock:
            self.log.append((what, item))

    def runs(self) -> Counter[str]:
        return Counter(item for what, item in self.log if what == "end")


@pytest.fixture
def backlog(redis_client: redis.Redis) -> Iterator[Backlog]:
    redis_client.set(alive_key(WORKER), 1)
    backlog = Backlog(redis_client)
    backlog.listen(WORKER, [DRAWS, BOTS])
    yield backlog


def drainer(
    backlog: Backlog,
    run_item: Callable[[str, Callable[[], None]], object],
    *,
    enqueued: list[tuple[str, str]] | None = None,
    stopping: threading.Event | None = None,
    threads: int = 4,
    idle: float = 0.0,
) -> Drains:
    lanes = [Lane(DRAWS, BATCHES[DRAWS]), Lane(BOTS, BATCHES[BOTS], thinks=True)]
    return Drains(
        backlog,
        run_item,
        lambda queue, drain: (enqueued if enqueued is not None else []).append((queue, drain)),
        WORKER,
        lanes,
        stopping or threading.Event(),
        settings=DrainSettings(idle_seconds=idle, threads=threads),
    )


def add(backlog: Backlog, queue: str, items: list[str]) -> str:
    """Add ``items``; the drain the first add names (the RQ job the caller would enqueue)."""
    names = [backlog.add(queue, item).drain for item in items]
    drain = names[0]
    assert drain is not None
    return drain


def test_a_drain_that_fails_on_an_item_runs_the_rest_once_and_drops_only_that_one(
    backlog: Backlog,
) -> None:
    items = [f"draw-g{n}-1" for n in range(40)]
    broken = items[0]
    drain = add(backlog, DRAWS, items)
    record = Items()

    def run(item: str, thought: Callable[[], None]) -> None:
        record.note("start", item)
        if item == broken:
            raise RuntimeError("a bug in one draw")
        record.note("end", item)

    enqueued: list[tuple[str, str]] = []
    with pytest.raises(RuntimeError, match="a bug in one draw"):
        drainer(backlog, run, enqueued=enqueued).run(DRAWS, drain)
    # Once it sees the failure it claims nothing more; what it had claimed, it finished.
    ran = record.runs()
    pending = backlog.pending(DRAWS)
    assert set(ran).isdisjoint(pending) and broken not in ran and broken not in pending
    assert sorted([*ran, *pending, broken]) == sorted(items), "each item ran, or waits"
    assert pending == [item for item in items if item in pending], "still in order"
    assert pending, "the failure stopped the drain before the end"
    assert backlog.claims() == {}, "every claim released"
    assert broken not in backlog.items(list(BATCHES)), "dropped: the sweeper retries it"
    # A successor drain is named and enqueued for the rest: they are run, each once.
    [(queue, successor)] = enqueued
    assert queue == DRAWS and successor != drain
    assert set(backlog.drains(DRAWS)) == {successor}
    assert drainer(backlog, run).run(DRAWS, successor) == len(pending)
    assert record.runs() == Counter({item: 1 for item in items if item != broken})
    assert backlog.drains(DRAWS) == {} and backlog.claims() == {}


def test_bots_wait_for_draws_in_flight_think_one_at_a_time_and_overlap_their_appends(
    backlog: Backlog,
) -> None:
    bots = [f"bot-b{n}-1" for n in range(6)]
    draws = [f"draw-d{n}-1" for n in range(3)]
    drain = add(backlog, BOTS, bots)
    add(backlog, DRAWS, draws)
    record = Items()
    started = {item: threading.Event() for item in bots}
    overlapped: list[str] = []

    def run(item: str, thought: Callable[[], None]) -> None:
        record.note("start", item)
        if item in started:
            started[item].set()
            record.note("thought", item)
            thought()
            # "Appending": wait for the next bot to start, as it may once this one decided.
            following = bots.index(item) + 1
            if following < len(bots) and started[bots[following]].wait(PATIENCE):
                overlapped.append(item)
        record.note("end", item)

    assert drainer(backlog, run).run(BOTS, drain) == len(bots) + len(draws)
    log = record.log
    first_bot = log.index(("start", bots[0]))
    assert all(log.index(("end", d)) < first_bot for d in draws), "draws made first"
    thinking = None
    for what, item in log:  # never two bots between their start and their decision
        if item in started and what == "start":
            assert thinking is None, f"{item} started while {thinking} was thinking"
            thinking = item
        elif what == "thought":
            thinking = None
    # (in any order: each notes it from its own thread once the next one started)
    assert sorted(overlapped) == bots[:-1], "each bot's append overlapped the next's decision"
    assert record.runs() == Counter({item: 1 for item in bots + draws})


def test_an_idle_drain_takes_new_items_at_once_and_stops_when_asked(
    backlog: Backlog, redis_client: redis.Redis
) -> None:
    drain = add(backlog, DRAWS, ["draw-a-1"])
    ran: dict[str, threading.Event] = {item: threading.Event() for item in ("draw-a-1", "draw-b-1")}
    stopping = threading.Event()
    idle = drainer(backlog, lambda item, _: ran[item].set(), stopping=stopping, idle=3600)
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(idle.run(DRAWS, drain)))
    thread.start()
    assert ran["draw-a-1"].wait(PATIENCE)
    # Idle now, for up to an hour: a new item rings its bell and is run by this drain,
    # with no new drain job named for it.
    assert backlog.add(DRAWS, "draw-b-1").drain is None
    assert ran["draw-b-1"].wait(PATIENCE)
    # Asked to stop (as the worker's SIGTERM does): woken at once, not in an hour.
    stopping.set()
    backlog.wake(WORKER)
    thread.join(PATIENCE)
    assert not thread.is_alive() and done == [2]
    assert backlog.drains(DRAWS) == {} and backlog.claims() == {}


def test_items_that_add_the_next_one_are_never_left_waiting(backlog: Backlog) -> None:
    """A game of bots: each item adds the next (a bot move, then a draw, then a bot move …)
    while it runs, as ``enqueue_next`` does. However the doorbell's rings race the claims,
    the drain takes every next item at once: it never waits out its idle time (an hour)."""
    count = 300
    chain = [f"{'bot' if n % 3 else 'draw'}-g-{n}" for n in range(count)]
    queue_of = {item: BOTS if item.startswith("bot") else DRAWS for item in chain}
    last = threading.Event()
    ran: list[str] = []

    def run(item: str, thought: Callable[[], None]) -> None:
        thought()
        ran.append(item)
        following = chain.index(item) + 1
        if following < count:
            backlog.add(queue_of[chain[following]], chain[following])
        else:
            last.set()

    drain = add(backlog, DRAWS, chain[:1])
    stopping = threading.Event()
    busy = drainer(backlog, run, stopping=stopping, threads=8, idle=3600)
    thread = threading.Thread(target=busy.run, args=(DRAWS, drain))
    thread.start()
    try:
        assert last.wait(PATIENCE), f"stalled after {len(ran)} of {count} items"
    finally:
        stopping.set()
        backlog.wake(WORKER)
        thread.join(PATIENCE)
    assert ran == chain and not thread.is_alive()
