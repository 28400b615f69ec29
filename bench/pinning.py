"""CPU pinning for (a)'s "pinned" variant: the server on one core, the load on another.

Why: on a 2-core machine an unpinned run lets the load generator and the server fight over
both cores, and a multi-process server (gunicorn's workers, Redis) can take both while a
one-process one (a Node server) can use only one. Pinning the whole server side to one core
and the whole load side to the other gives each peer the same budget: one core to serve.

Linux only (``os.sched_setaffinity``). Affinity is per thread: a running process is pinned by
pinning every thread listed under ``/proc/<pid>/task``, and a thread's new threads and
children inherit its mask, which is how the load threads and Node processes get theirs.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path


def supported() -> bool:
    return hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")


def cores() -> list[int]:
    """The CPUs this process may run on (not ``os.cpu_count()``: a container may allow fewer)."""
    if not supported():
        return []
    return sorted(os.sched_getaffinity(0))


def split() -> tuple[set[int], set[int]] | None:
    """``(server CPUs, load CPUs)``: the first allowed core and the second, or None if < 2."""
    allowed = cores()
    if len(allowed) < 2:
        return None
    return {allowed[0]}, {allowed[1]}


def pin_process(pid: int, cpus: Iterable[int]) -> None:
    """Pin every thread of a running process (a thread that just exited is skipped)."""
    mask = set(cpus)
    try:
        tasks = [int(entry.name) for entry in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        tasks = [pid]
    for tid in tasks:
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(tid, mask)


@contextlib.contextmanager
def this_thread_on(cpus: Iterable[int]) -> Iterator[None]:
    """Run the block (and every thread it starts) on ``cpus``; restore the mask after."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(cpus))
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def preexec_on(
    cpus: Iterable[int] | None, then: Callable[[], None] | None = None
) -> Callable[[], None] | None:
    """A ``preexec_fn`` putting a child on ``cpus`` (like ``taskset -c``), then ``then``."""
    mask = None if cpus is None else set(cpus)
    if mask is None:
        return then

    def preexec() -> None:
        os.sched_setaffinity(0, mask)
        if then is not None:
            then()

    return preexec
