"""``floe run``'s supervisor starts a job worker again when it dies, after a backoff, and
stops everything when anything else dies, or a worker keeps dying as it starts."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from typing import cast

from service.jobs.deadlines import STUCK_EXIT_STATUS
from service.run.supervisor import (
    QUICK_DEATHS_ALLOWED,
    RESTART_SECONDS,
    STEADY_SECONDS,
    Child,
    ShutdownRequest,
    supervise,
)


@dataclass
class FakeProcess:
    """A process whose exit the test decides: ``returncode`` None while it runs."""

    pid: int
    returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class World:
    """Fake children, a fake clock, and what the supervisor said."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.said: list[str] = []
        self.pids = iter(range(100, 1000))

    def child(self, name: str, *, worker: bool) -> Child:
        process = FakeProcess(next(self.pids))
        child = Child(name, "here", cast(subprocess.Popen[bytes], process), started=self.clock())
        if worker:
            child.note = "draws, then bots"
            child.again = lambda: self.child(name, worker=True)
        return child

    def sleep(self, seconds: float) -> None:
        self.clock.now += seconds


def test_a_dead_worker_is_started_again_after_a_second_and_the_rest_run_on() -> None:
    world = World()
    children = [world.child("worker", worker=True), world.child("api", worker=False)]
    request = ShutdownRequest()
    first = children[0]
    cast(FakeProcess, first.process).returncode = STUCK_EXIT_STATUS
    first.started = -STEADY_SECONDS  # it had run a while: the shortest backoff

    def sleep(seconds: float) -> None:
        world.sleep(seconds)
        if children[0] is not first and world.clock.now > 5:
            request.signals = 1  # a replacement runs: ask for a stop

    assert (
        supervise(children, request, say=world.said.append, sleep=sleep, clock=world.clock) is None
    )
    replacement = children[0]
    assert replacement is not first and replacement.process.poll() is None
    assert world.said[0] == (
        f"restarting: worker (pid {first.process.pid}) exited with status {STUCK_EXIT_STATUS}: "
        f"an item was stuck past its deadline; another starts in {RESTART_SECONDS:g} s"
    )
    assert world.said[1] == (
        f"worker  here  (pid {replacement.process.pid}, draws, then bots; "
        f"replaces {first.process.pid})"
    )


def test_a_worker_that_keeps_dying_as_it_starts_stops_everything() -> None:
    world = World()
    children = [world.child("worker", worker=True)]

    def sleep(seconds: float) -> None:
        world.sleep(seconds)
        cast(FakeProcess, children[0].process).returncode = 1  # each dies at once

    said = world.said.append
    died = supervise(children, ShutdownRequest(), say=said, sleep=sleep, clock=world.clock)
    assert died is children[0]
    restarts = [line for line in world.said if line.startswith("restarting:")]
    assert len(restarts) == QUICK_DEATHS_ALLOWED - 1
    assert [line.rsplit(" in ", 1)[1] for line in restarts] == ["2 s", "4 s", "8 s", "16 s"]


def test_a_part_that_may_not_be_replaced_or_a_redis_server_dying_stops_everything() -> None:
    world = World()
    fixed = world.child("redis", worker=False)
    cast(FakeProcess, fixed.process).returncode = 1
    assert supervise([fixed], ShutdownRequest(), sleep=world.sleep, clock=world.clock) is fixed
    redis = world.child("queue redis", worker=False)
    cast(FakeProcess, redis.process).returncode = -9
    worker = world.child("worker", worker=True)
    assert supervise([worker], ShutdownRequest(), servers=[redis], sleep=world.sleep) is redis
