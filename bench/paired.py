"""One feature weighed against none on one stack: what (i) clocks and (k) signing share.

Both drive scripted games over HTTP on ``bench.stack``'s gunicorn, each side's game alike
but for the feature, and measure them the same way: sequential POSTs interleaved one for one
(which side goes first alternates), and throughput windows of client threads, one game each,
with the stack's CPU sampled around every window; a window where one gunicorn worker did
most of the API's work (its keep-alive connections landed unevenly) is run again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from bench.stack import Client, Stack

#: A window where one gunicorn worker did more than this share of the API's CPU is run
#: again (at most twice), as in (a).
LOPSIDED = 0.75
#: How many times a lopsided window is run again at the most.
RERUNS = 2


class Poster(Protocol):
    """A game that POSTs its next scripted action on its client."""

    client: Client

    def post_next(self) -> float:
        """POST the next action; the request's wall time in seconds."""
        ...


class Lopsidable(Protocol):
    """A window that says how much of the API's CPU its busiest worker did."""

    @property
    def busiest_share(self) -> float: ...


W = TypeVar("W", bound=Lopsidable)


def interleaved(
    on: Poster, off: Poster, samples: int, *, warmup: int = 20
) -> tuple[list[float], list[float]]:
    """``samples`` sequential POSTs on ``on`` and as many on ``off``, interleaved one for one
    (which goes first alternates), after ``warmup`` of each: their wall times."""
    for _ in range(warmup):
        on.post_next()
        off.post_next()
    with_it: list[float] = []
    without: list[float] = []
    for k in range(samples):
        if k % 2 == 0:
            with_it.append(on.post_next())
            without.append(off.post_next())
        else:
            without.append(off.post_next())
            with_it.append(on.post_next())
    return with_it, without


@dataclass(frozen=True)
class Posted:
    """What one window's client threads did, and what the stack's parts spent meanwhile."""

    #: Every POST made, the warm-up's included.
    posts: int
    #: The wall times of the POSTs that ended inside the measured window.
    measured: list[float]
    #: The wall times of every POST.
    latencies: list[float]
    #: gunicorn's CPU (master and workers) over the window, in seconds.
    api_cpu_s: float
    #: The share of the workers' CPU the busiest one did (0 when nothing was counted).
    busiest_share: float
    redis_cpu_s: float
    machine_busy_s: float
    #: What ``other_cpu`` counted over the window (0 without one).
    other_cpu_s: float


def post_window(
    stack: Stack,
    games: Sequence[Poster],
    *,
    warmup: float,
    seconds: float,
    other_cpu: Callable[[], float] | None = None,
) -> Posted:
    """Each game POSTs in a thread of its own for ``warmup`` then ``seconds``; the stack's CPU
    (and ``other_cpu``'s, for parts the stack does not count) is read at both ends. Every
    game's client is closed after; the first error of any thread is raised."""
    samples: list[list[tuple[float, float]]] = [[] for _ in games]
    errors: list[BaseException] = []
    started = time.perf_counter()
    measure_from = started + warmup
    until = measure_from + seconds

    def loop(n: int) -> None:
        game = games[n]
        try:
            while (now := time.perf_counter()) < until:
                elapsed = game.post_next()
                samples[n].append((now + elapsed, elapsed))
        except BaseException as error:  # surfaced below
            errors.append(error)

    others = other_cpu or (lambda: 0.0)
    threads = [threading.Thread(target=loop, args=(n,)) for n in range(len(games))]
    cpu, other_before = stack.cpu_seconds(), others()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after, other_after = stack.cpu_seconds(), others()
    for game in games:
        game.client.close()
    if errors:
        raise errors[0]
    api = {k: after[k] - cpu.get(k, 0.0) for k in after if k.startswith("worker:")}
    api_total = sum(api.values()) + after["api_master"] - cpu["api_master"]
    return Posted(
        posts=sum(len(part) for part in samples),
        measured=[lat for part in samples for end, lat in part if measure_from <= end <= until],
        latencies=[lat for part in samples for _, lat in part],
        api_cpu_s=api_total,
        busiest_share=max(api.values(), default=0.0) / api_total if api_total else 0.0,
        redis_cpu_s=after["redis"] - cpu["redis"],
        machine_busy_s=after["machine"] - cpu["machine"],
        other_cpu_s=other_after - other_before,
    )


def unless_lopsided(
    window: Callable[[], W], part: str, log: Callable[[str], None]
) -> tuple[W, int]:
    """One ``window()``, run again (at most ``RERUNS`` times) while it is lopsided; and how
    many times it was run again. ``part`` names the benchmark in the log, as ``(i)``."""
    reruns = 0
    while True:
        taken = window()
        if taken.busiest_share <= LOPSIDED or reruns == RERUNS:
            return taken, reruns
        reruns += 1
        log(f"{part} one gunicorn worker took >{LOPSIDED:.0%} of a window; running it again")
