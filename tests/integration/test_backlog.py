"""The backlog on a real Redis: an item is pending once, held while its worker lives, and a
queue gets drains enough for its workers and never more.

These are the scripts beside ``service/jobs/backlog.py`` driven directly, with workers' liveness keys
set and deleted by hand (a deleted key is a worker that died).
"""

from __future__ import annotations

import threading
from collections import Counter

import redis

from service.jobs.backlog import Backlog, Lane, drains_key, pending_key
from service.jobs.queue import QUEUE_NAMES, alive_key

DRAWS = QUEUE_NAMES["draw"]
BOTS = QUEUE_NAMES["bot"]


def live(client: redis.Redis, *workers: str) -> None:
    for worker in workers:
        client.set(alive_key(worker), 1)


def test_an_item_is_pending_once_and_held_while_its_worker_lives(
    redis_client: redis.Redis,
) -> None:
    backlog = Backlog(redis_client)
    first = backlog.add(DRAWS, "draw-g-1")
    assert first.added and first.drain == "drain-draws-1", "a drain is named for the queue"
    again = backlog.add(DRAWS, "draw-g-1")
    assert (again.added, again.drain) == (False, None), "pending already, drain on its way"
    assert backlog.pending(DRAWS) == ["draw-g-1"]

    live(redis_client, "w1")
    assert backlog.claim("w1", [Lane(DRAWS, 16)], []) == (DRAWS, ["draw-g-1"])
    assert backlog.claims() == {"draw-g-1": "w1"}
    assert backlog.add(DRAWS, "draw-g-1").added is False, "held by a live worker"
    assert backlog.pending(DRAWS) == []

    redis_client.delete(alive_key("w1"))  # w1 died with the item in hand
    assert backlog.add(DRAWS, "draw-g-1").added is True, "found again, added again"
    assert backlog.pending(DRAWS) == ["draw-g-1"]
    assert backlog.claims() == {}, "the dead worker's claim is dropped"

    live(redis_client, "w2")
    assert backlog.claim("w2", [Lane(DRAWS, 16)], []) == (DRAWS, ["draw-g-1"])
    # A claim whose game moved on is never added again: the sweeper prunes dead workers'.
    backlog.add(DRAWS, "draw-gone-1")
    live(redis_client, "w3")
    assert backlog.claim("w3", [Lane(DRAWS, 16)], []) == (DRAWS, ["draw-gone-1"])
    redis_client.delete(alive_key("w3"))
    assert backlog.prune() == 1
    assert backlog.claims() == {"draw-g-1": "w2"}, "the live worker's claim stays"
    assert backlog.claim("w2", [Lane(DRAWS, 16)], ["draw-g-1"]) == (None, [])
    assert backlog.claims() == {}, "finished: released with the next claim"
    assert backlog.add(DRAWS, "draw-g-1").added is True, "a new request (stale: harmless)"


def test_a_claim_takes_the_first_lane_with_items_first_in_line(
    redis_client: redis.Redis,
) -> None:
    backlog = Backlog(redis_client)
    live(redis_client, "w")
    for n in range(3):
        backlog.add(BOTS, f"bot-b{n}-1")
    for n in range(5):
        backlog.add(DRAWS, f"draw-d{n}-1")
    lanes = [Lane(DRAWS, 2), Lane(BOTS, 1, thinks=True)]
    assert backlog.claim("w", lanes, []) == (DRAWS, ["draw-d0-1", "draw-d1-1"])
    assert backlog.pending(DRAWS) == [f"draw-d{n}-1" for n in range(2, 5)], "still in line"
    assert backlog.claim("w", [Lane(DRAWS, 16), Lane(BOTS, 1)], ["draw-d0-1"])[1] == [
        f"draw-d{n}-1" for n in range(2, 5)
    ]
    assert set(backlog.claims()) == {f"draw-d{n}-1" for n in range(1, 5)}, "d0 released"
    assert backlog.claim("w", lanes, []) == (BOTS, ["bot-b0-1"]), "bots once draws are done"
    backlog.release("w", [f"draw-d{n}-1" for n in range(1, 5)])
    assert backlog.claims() == {"bot-b0-1": "w"}


def test_adds_and_claims_racing_claim_every_item_exactly_once(
    redis_client: redis.Redis,
) -> None:
    """Four threads add 200 items five times each while two workers claim: no item is ever
    held twice (claims are kept, so a re-add while held must be refused)."""
    items = [f"draw-g{n}-1" for n in range(200)]
    live(redis_client, "w1", "w2")
    claimed: dict[str, list[str]] = {"w1": [], "w2": []}
    adders_done = threading.Event()

    def add(offset: int) -> None:
        backlog = Backlog(redis_client)
        for _ in range(5):
            for n in range(len(items)):
                backlog.add(DRAWS, items[(n + offset) % len(items)])

    def claim(worker: str) -> None:
        backlog = Backlog(redis_client)
        while True:
            _, taken = backlog.claim(worker, [Lane(DRAWS, 7)], [])
            claimed[worker] += taken
            if not taken and adders_done.is_set() and not backlog.pending(DRAWS):
                return

    adders = [threading.Thread(target=add, args=(50 * n,)) for n in range(4)]
    claimers = [threading.Thread(target=claim, args=(w,)) for w in claimed]
    for thread in [*adders, *claimers]:
        thread.start()
    for thread in adders:
        thread.join()
    adders_done.set()
    for thread in claimers:
        thread.join()
    counts = Counter(claimed["w1"] + claimed["w2"])
    assert sorted(counts) == sorted(items)
    assert set(counts.values()) == {1}, {item: n for item, n in counts.items() if n > 1}
    assert len(Backlog(redis_client).claims()) == len(items)


def test_a_queue_gets_drains_enough_for_its_workers_and_never_more(
    redis_client: redis.Redis,
) -> None:
    backlog = Backlog(redis_client)
    # No worker listens yet: one drain is named, to wait in RQ's queue for one.
    assert backlog.add(BOTS, "bot-a-1").drain == "drain-bots-1"
    redis_client.rpush("rq:queue:floe:bots", "drain-bots-1")  # as the caller enqueues it
    assert backlog.add(BOTS, "bot-b-1").drain is None
    # Three workers listen: up to three drains, one more per add.
    live(redis_client, "w1", "w2", "w3")
    backlog.listen("w1", [DRAWS, BOTS])
    backlog.listen("w2", [DRAWS, BOTS])
    backlog.listen("w3", [DRAWS])  # a draws-only worker: not one of the bots' workers
    assert backlog.add(BOTS, "bot-c-1").drain == "drain-bots-2"
    redis_client.rpush("rq:queue:floe:bots", "drain-bots-2")
    assert backlog.add(BOTS, "bot-d-1").drain is None, "two workers listen to the bots"
    # Both drains start, on w1 and w2; while both live, they are enough.
    redis_client.delete("rq:queue:floe:bots")
    backlog.running(BOTS, "drain-bots-1", "w1")
    backlog.running(BOTS, "drain-bots-2", "w2")
    assert backlog.add(BOTS, "bot-e-1").drain is None
    redis_client.delete(alive_key("w1"))  # w1 dies: its drain no longer counts, nor w1
    assert backlog.add(BOTS, "bot-f-1").drain is None, "one worker left, with its drain"
    redis_client.delete(alive_key("w2"))
    assert backlog.add(BOTS, "bot-g-1").drain == "drain-bots-3", "no drain left: a new one"
    assert set(backlog.drains(BOTS)) == {"drain-bots-3"}
    # A drain registered as queued long ago, whose job is in no RQ queue, was lost.
    redis_client.hset(drains_key(BOTS), "drain-bots-3", "queued:0")
    assert backlog.add(BOTS, "bot-h-1").drain == "drain-bots-4"
    # ... and a queue with nothing pending needs no drain at all.
    assert backlog.need_drain(DRAWS) is None


def test_a_drain_leaves_only_when_its_queue_is_empty_or_names_a_successor(
    redis_client: redis.Redis,
) -> None:
    backlog = Backlog(redis_client)
    live(redis_client, "w")
    backlog.listen("w", [DRAWS])
    drain = backlog.add(DRAWS, "draw-a-1").drain
    assert drain is not None
    backlog.running(DRAWS, drain, "w")
    assert backlog.leave_if_empty(DRAWS, drain) is False, "an item waits: it stays"
    assert backlog.drains(DRAWS) == {drain: "run:w"}
    successor = backlog.hand_over(DRAWS, drain)
    assert successor is not None and successor != drain, "handed over: the item waits"
    assert set(backlog.drains(DRAWS)) == {successor}
    backlog.running(DRAWS, successor, "w")
    assert backlog.claim("w", [Lane(DRAWS, 16)], []) == (DRAWS, ["draw-a-1"])
    assert backlog.leave_if_empty(DRAWS, successor) is True, "empty: gone"
    assert backlog.drains(DRAWS) == {}
    assert redis_client.zcard(pending_key(DRAWS)) == 0
    # Handing over an empty queue names no successor.
    backlog.running(DRAWS, "drain-draws-x", "w")
    assert backlog.hand_over(DRAWS, "drain-draws-x") is None
    assert backlog.drains(DRAWS) == {}
