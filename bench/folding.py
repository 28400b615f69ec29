"""(c) Folding speed: ``play.fold`` over one long game's events, in memory.

Every read that misses the service's cache, every replay and every ``verify`` folds, so
events per second of the pure domain bounds all of them. No Redis, no JSON: the events are
the ``Event`` values the domain itself decided while the script was made.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import policy
from bench.report import Report, Result
from bench.stack import machine_busy
from domain.engine import play
from domain.engine.types import Event


def run(
    report: Report,
    *,
    events: Sequence[Event],
    repeats: int,
    profile_to: Path | None = None,
) -> None:
    """Time ``repeats`` folds of ``events`` (the first is ``game_created``); keep the best.

    ``other_cores_busy`` in the details is how many cores the rest of the machine used
    meanwhile: the best timing is only meaningful if at least one repeat ran undisturbed.
    """
    rules = policy.rules()
    timings: list[float] = []
    others: list[float] = []
    final_version = 0
    for _ in range(repeats):
        busy, own = machine_busy(), time.process_time()
        started = time.perf_counter()
        state = play.fold(rules, "bench-fold", events)
        elapsed = time.perf_counter() - started
        timings.append(elapsed)
        others.append(max(0.0, machine_busy() - busy - (time.process_time() - own)) / elapsed)
        final_version = state.version
    best = min(timings)
    rate = len(events) / best
    details: dict[str, Any] = {
        "events": len(events),
        "final_version": final_version,
        "timings_s": timings,
        "other_cores_busy": others,
        "best_s": best,
        "events_per_s": rate,
        "us_per_event": best / len(events) * 1e6,
    }
    if profile_to is not None:
        details["profile"] = str(profile_to)
        profile_to.write_text(_profile(rules, events))
    report.details["folding"] = details
    report.add(
        Result(
            "(c) fold",
            f"events/s (best of {repeats}, {len(events)} events)",
            rate,
            "events/s",
            50_000,
        )
    )


def _profile(rules: Any, events: Sequence[Event]) -> str:
    """cProfile of one fold, the 30 most expensive functions by own and by cumulative time."""
    profiler = cProfile.Profile()
    profiler.runcall(play.fold, rules, "bench-fold", events)
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(30)
    return out.getvalue()
