"""The timers of games' clocks in the queue Redis: one per game, taken once when due."""

from __future__ import annotations

import threading

import redis

from service.jobs.timers import TIMERS_KEY, Timers


def test_a_game_holds_one_timer_the_one_for_its_latest_version(
    redis_client: redis.Redis,
) -> None:
    timers = Timers(redis_client)
    timers.arm("g1", "timeout-g1-3", 100)
    timers.arm("g1", "timeout-g1-4", 160)
    timers.arm("g1", "timeout-g1-4", 160)  # again: no second copy
    timers.arm("g2", "timeout-g2-9", 120)
    assert timers.armed() == {"timeout-g1-4": 160, "timeout-g2-9": 120}


def test_due_timers_are_taken_once_in_order_and_the_rest_wait(redis_client: redis.Redis) -> None:
    timers = Timers(redis_client)
    for n in range(10):
        timers.arm(f"g{n}", f"timeout-g{n}-2", 100 + n)
    taken: list[str] = []
    barrier = threading.Barrier(4)

    def tick() -> None:
        barrier.wait()
        taken.extend(Timers(redis_client).take_due(104))

    threads = [threading.Thread(target=tick) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(taken) == [f"timeout-g{n}-2" for n in range(5)]
    assert list(timers.armed()) == [f"timeout-g{n}-2" for n in range(5, 10)]
    assert redis_client.zcard(TIMERS_KEY) == 5
    timers.arm("g0", "timeout-g0-7", 200)  # a taken game arms afresh
    assert timers.armed()["timeout-g0-7"] == 200
