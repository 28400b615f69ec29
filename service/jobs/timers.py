"""Timers: the timeouts games' clocks will owe, kept in the queue Redis until they are due.

After every append to a game with a clock, the game's timeout job
(``timeout-<game>-<version>``) is armed for the second its earliest deadline has passed
(``service.games.follow_ups.timer_due``): ``floe:{timers}``, a sorted set, maps the item to
that second, and ``floe:{timers}:armed``, a hash, maps the game to its item, so arming a
game's timer drops the one armed for its earlier version (``arm_timer.lua``): one entry per
clock. Every worker runs a ``Ticker``; each tick takes the due items
(``take_due_timers.lua``, atomic, so one worker takes each) and adds them to the draws'
backlog, where a drain runs them like a draw (``Automation.time_out``). Arming again is
harmless (one entry per item), and a job for a version the game has left does nothing.

Nothing here is the only copy: the queue Redis keeps nothing on disk, and a worker may die
between taking a timer and adding its item. The sweeper arms every clocked game's timer
again from the event store (``Automation.waiting_timers``), so a lost timer is late by a
sweep at most, never lost; and the conditional append makes a timer that fires twice write
once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from redis.exceptions import RedisClusterException

from service.redis.scripts import Script

log = logging.getLogger(__name__)

#: One hash tag for both keys, so the scripts that touch both work on a cluster too.
TIMERS_KEY = "floe:{timers}"
ARMED_KEY = "floe:{timers}:armed"
ARM_TIMER = Script.load(__package__, "arm_timer.lua")
TAKE_DUE_TIMERS = Script.load(__package__, "take_due_timers.lua")
#: The longest a ticker waits between looks: a timeout lands within about this much of its
#: due second, plus the time to run it.
TICK_SECONDS = 0.25
#: The most timers one tick takes.
TAKEN_PER_TICK = 500


class Timers:
    """The armed timers of one queue Redis."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client
        self._arm = ARM_TIMER.on(client)
        self._take = TAKE_DUE_TIMERS.on(client)

    def arm(self, game_id: str, item: str, due: int) -> None:
        """Run ``item`` (the game's timeout job) once the epoch second ``due`` has come,
        instead of the game's earlier timer (again: no second copy)."""
        self._arm(timers=TIMERS_KEY, armed=ARMED_KEY, game=game_id, item=item, due=due)

    def take_due(self, now: int, limit: int = TAKEN_PER_TICK) -> list[str]:
        """The items due by the epoch second ``now``, no longer armed."""
        taken = self._take(timers=TIMERS_KEY, armed=ARMED_KEY, now_s=now, limit=limit)
        return [t.decode() if isinstance(t, bytes) else str(t) for t in taken]

    def armed(self) -> dict[str, int]:
        """Every armed item and its due second (for tests and the benchmarks)."""
        pairs: list[Any] = self._client.zrange(TIMERS_KEY, 0, -1, withscores=True)
        return {
            (item.decode() if isinstance(item, bytes) else str(item)): int(score)
            for item, score in pairs
        }


class Ticker:
    """Moves due timers to the draws' backlog, every ``TICK_SECONDS`` until stopped."""

    def __init__(
        self,
        timers: Timers,
        run_due: Callable[[str], object],
        *,
        now: Callable[[], float] = time.time,
        tick_seconds: float = TICK_SECONDS,
    ) -> None:
        self._timers = timers
        self._run_due = run_due
        self._now = now
        self._tick_seconds = tick_seconds

    def tick(self) -> list[str]:
        """Take the due timers and hand each to ``run_due``; the items taken."""
        taken = self._timers.take_due(int(self._now()))
        for item in taken:
            self._run_due(item)
        return taken

    def tick_until(self, stop: threading.Event) -> None:
        """Tick until ``stop`` (a worker's thread); Redis away: the next tick tries again."""
        while not stop.wait(self._tick_seconds):
            try:
                self.tick()
            except (redis.RedisError, RedisClusterException) as error:
                log.warning("timer tick failed: %s", error)
