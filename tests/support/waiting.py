"""Waiting on a condition, never on a clock: the one poll helper every test uses, and how long
a test may wait.

A wait on a condition returns as soon as the condition holds, so a generous deadline costs
nothing when all is well; it only decides how long a broken run takes to say so. The deadlines
are sized for CI: a 2-core machine that may be busy with other work (the whole suite passes
with two CPU-bound processes running beside it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Seconds to wait for one thing that is done at once on a quiet machine: a process to answer,
#: a worker to take a job, a draw to be dealt, a thread to register, a replica to catch up.
PROMPTLY = 60.0
#: Seconds to wait for something of many steps: bots playing a game out, a tournament's
#: rounds, a cluster failing over while people play.
AT_LENGTH = 300.0


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``predicate`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout}s waiting for {what}")
        time.sleep(0.01)  # a poll's pace, not a synchronisation: the condition decides


def wait_for(read: Callable[[], T], holds: Callable[[T], bool], timeout: float, what: str) -> T:
    """Poll ``read()`` until ``holds`` of it, and return it; fail naming ``what`` (and the
    last value read) after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not holds(value := read()):
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout}s waiting for {what}: {value}")
        time.sleep(0.01)
    return value
