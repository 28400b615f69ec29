"""The garbage collector of a long-lived server process, tuned once its code is loaded.

CPython's cyclic collector walks every container object the process holds on each full
(generation 2) collection. A web worker holds hundreds of thousands: its modules and app,
then the caches of game states and legal actions that fill as games are played. Under a
live-socket load the defaults (700, 10, 10) made a full collection every couple of seconds,
about 0.14 s each: some 13 % of a worker's CPU went to the collector (measured with
``gc.callbacks`` on both workers; the figures are in BENCHMARKS.md, "The move path over one
socket"). Two changes bring it under 2 %:

- ``gc.freeze()`` once the app is loaded: what exists then (code, the app, settings) lives
  as long as the process and is never garbage, so no collection walks it again;
- a first generation of ``GEN0_THRESHOLD`` allocations rather than 700: young collections
  are rarer, and full ones, which come after ``OLDER_THRESHOLD`` collections of the
  generation below each (CPython's own 10, and only once the long-lived objects grew by a
  quarter), come after some 5 million allocations rather than 70,000.

Garbage without cycles is freed at once by reference counting as ever; only garbage in
cycles waits longer for its collection: a young one up to 50,000 allocations (a few
megabytes), an old one until the next full collection. The older generations keep their
default so that old garbage in cycles (a closed socket's, say) is not kept much longer.
"""

from __future__ import annotations

import gc

#: Net allocations of container objects between two young collections (CPython: 700).
GEN0_THRESHOLD = 50_000
#: Collections of a generation between two of the next older one (CPython: 10).
OLDER_THRESHOLD = 10


def tune_for_server() -> None:
    """Freeze what the process has loaded so far and space the collections out (above)."""
    gc.collect()  # what is garbage already should not be frozen with the rest
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, OLDER_THRESHOLD, OLDER_THRESHOLD)
