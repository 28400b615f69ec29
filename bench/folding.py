"""(c) Folding speed: ``play.fold`` over one long game's events, and a rebuild against the
``eventsourcing`` library's.

Every read that misses the service's cache, every replay and every ``verify`` folds, so
events per second of the pure domain bounds all of them. Three things are timed, in memory,
interleaved round by round (the order rotating) so that all see the same machine:

- **pure fold**: ``play.fold`` over the ``Event`` values the domain itself decided while the
  script was made (no JSON);
- **decode + fold**: what a cache miss of the service does with what Redis hands it. Each
  event is sealed (``domain/engine/log.py``: version, time, command id, hash chain) and kept
  as the stream entry holds it: field ``e`` = the canonical JSON bytes of the stored event, in
  the shape of an ``XRANGE`` reply. Timed: the store's own decode of that reply
  (``service/store/events.py``: ``json_codec.decode`` and ``StoredEvent.from_json`` per
  entry, into a list, as ``read`` returns it), then the fold of each stored event's ``event``,
  made as the fold reaches it, as ``GameRepository.head`` does for a game it does not hold.
  No Redis round trip (nor its reply parsing) is in it;
- **the peer**: ``eventsourcing`` (9.5.6) rebuilding an aggregate with as many events
  (``app.repository.get(id)``). An ``Application`` with the in-memory POPO recorder, its
  default JSON transcoder, no cipher, no compressor, snapshotting off and no aggregate cache;
  the aggregate (``Table``) is written as the library's documentation writes one (``@event``
  methods, whose bodies are replayed on a rebuild), one event per Floe event, each carrying
  the same action fields (seat, size, tiles, unit) and changing a little state: who stands
  where, the turn count. Its rebuild reads the recorder's stored events, decodes each one's
  JSON (with its timestamp) into an event object and applies it: the same work as decode +
  fold, except that its "rules" are two dictionary writes where Floe's are Arktia's.

The ratio that has a target is decode + fold over the peer's rebuild (both read stored JSON);
pure fold over the peer is reported beside it. ``play.fold`` hands each run of events that
change the board alone to the game's ``evolve_all`` (Arktia's folds it on one working copy,
``domain/games/arktia/folding.py``); ``GameRepository.head`` does the same for a catch-up of
four events or more in a game without a clock (``play.fold_onto``, cut at each snapshot), and
applies event by event otherwise (``play.apply``, with the clock).
"""

from __future__ import annotations

import cProfile
import io
import pstats
import statistics
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import JSONTranscoder

from bench import policy
from bench.report import Report, Result
from bench.stack import machine_busy
from domain.engine import play
from domain.engine.canonical import canonical_json
from domain.engine.log import GENESIS_HASH, seal
from domain.engine.rules import Rules
from domain.engine.types import Event, GameState
from service.store.events import (
    _decode as decode_entries,  # the service's decode of an XRANGE reply
)

GROUP = "(c) fold"
GAME_ID = "bench-fold"
#: What the bound on decode + fold against the peer's rebuild asks (issue: fold >= 2x).
PEER_TARGET = 2.0
PEER_VERSION = package_version("eventsourcing")
#: The environment of the peer: every setting that could change its rebuild, set explicitly
#: (``Application`` also reads ``os.environ``; these win over it).
PEER_ENV = {
    "PERSISTENCE_MODULE": "eventsourcing.popo",
    "IS_SNAPSHOTTING_ENABLED": "no",
    "AGGREGATE_CACHE_MAXSIZE": "",
    "TRANSCODER_TOPIC": "",
    "CIPHER_TOPIC": "",
    "CIPHER_KEY": "",
    "COMPRESSOR_TOPIC": "",
}

#: An ``XRANGE`` reply: (entry id, {field: value}) per entry, as redis-py returns it.
Entries = list[tuple[bytes, dict[bytes, bytes]]]


# ----- the peer: an eventsourcing aggregate -------------------------------------------------


class Table(Aggregate):
    """A game table as idiomatic ``eventsourcing`` code keeps one: who stands where, whose
    turn it is. Each method is one event; its body is what a rebuild replays."""

    @event("Created")
    def __init__(self, game: str, seats: int) -> None:
        self.game = game
        self.seats = seats
        self.stacks: dict[tuple[int, int], int] = {}
        self.turns = 0
        self.current = 0

    @event("Placed")
    def place(self, seat: int, size: str, tile: list[int]) -> None:
        self.stacks[(tile[0], tile[1])] = seat
        self.turns += 1
        self.current = (seat + 1) % self.seats

    @event("Moved")
    def move(self, seat: int, source: list[int], unit: str, target: list[int]) -> None:
        self.stacks[(target[0], target[1])] = self.stacks.pop((source[0], source[1]), seat)
        self.turns += 1
        self.current = (seat + 1) % self.seats

    @event("Acted")
    def act(self, seat: int, action: dict[str, Any]) -> None:
        """Any other action (retire, keep_group, melt): the turn passes."""
        self.turns += 1
        self.current = (seat + 1) % self.seats


class Tables(Application[Any]):
    """The peer's application: nothing but the library's defaults and ``PEER_ENV``."""


def peer(events: Sequence[Event]) -> tuple[Tables, Any]:
    """An application holding one ``Table`` with exactly ``len(events)`` stored events (its
    ``Created`` for ``game_created``, then one per action); returns it and the table's id."""
    app = Tables(env=PEER_ENV)
    # The rebuild must read and decode every event each time: say so rather than assume it.
    if app.snapshots is not None or app.repository.cache is not None:
        raise RuntimeError("the eventsourcing peer must run without snapshots or a cache")
    if type(app.recorder).__module__ != "eventsourcing.popo":
        raise RuntimeError(f"the peer's recorder is {type(app.recorder)}, not POPO")
    if not isinstance(app.mapper.transcoder, JSONTranscoder) or (
        app.mapper.cipher or app.mapper.compressor
    ):
        raise RuntimeError("the peer must store plain JSON (no cipher, no compressor)")
    created = events[0].data
    table = Table(game=str(created["game"]), seats=len(created["seats"]))
    for item in events[1:]:
        action = dict(item.data["action"])
        seat = item.actor if isinstance(item.actor, int) else 0
        if action["type"] == "place":
            table.place(seat, action["size"], list(action["tile"]))
        elif action["type"] == "move":
            table.move(seat, list(action["from"]), action["unit"], list(action["to"]))
        else:
            table.act(seat, action)
        if len(table.pending_events) >= 1000:
            app.save(table)
    app.save(table)
    if table.version != len(events):
        raise RuntimeError(f"the peer holds {table.version} events, not {len(events)}")
    return app, table.id


def rebuild(app: Tables, table_id: Any) -> Table:
    table: Table = app.repository.get(table_id)
    return table


# ----- Floe: the stored form, decoded and folded --------------------------------------------


def stored_entries(events: Sequence[Event], game_id: str = GAME_ID) -> Entries:
    """The game's stream as ``XRANGE`` returns it: entry ``0-<version>``, field ``e`` = the
    canonical JSON of the sealed event (what ``RedisEventStore`` appends)."""
    sealed = seal(
        game_id,
        list(events),
        first_version=1,
        prev_hash=GENESIS_HASH,
        at="2025-01-01T00:00:00.000Z",
        command_id="bench-command",
    )
    return [
        (f"0-{stored.version}".encode(), {b"e": canonical_json(stored.to_json()).encode()})
        for stored in sealed
    ]


def decode_and_fold(rules: Rules[Any], entries: Entries) -> GameState[Any]:
    """A cache miss of the service: the store's decode, then the fold of what it decoded."""
    stored = decode_entries(entries)
    return play.fold(rules, stored[0].game_id, (item.event for item in stored))


# ----- the benchmark -------------------------------------------------------------------------


def run(
    report: Report,
    *,
    events: Sequence[Event],
    repeats: int,
    profile_to: Path | None = None,
) -> None:
    """Time ``repeats`` rounds of the three (the first event is ``game_created``); keep
    each one's best.

    ``other_cores_busy`` in the details is how many cores the rest of the machine used
    during each timing: the best one is only meaningful if at least one repeat ran
    undisturbed.
    """
    rules = policy.rules()
    entries = stored_entries(events)
    app, table_id = peer(events)
    expected = play.fold(rules, GAME_ID, events)
    decoded = decode_and_fold(rules, entries)
    if decoded.version != expected.version or decoded.board != expected.board:
        raise RuntimeError("decoding the stored events folds to another state")
    if rebuild(app, table_id).version != len(events):
        raise RuntimeError("the peer's rebuild lost events")

    sides: dict[str, Callable[[], object]] = {
        "fold": lambda: play.fold(rules, GAME_ID, events),
        "decode_fold": lambda: decode_and_fold(rules, entries),
        "eventsourcing": lambda: rebuild(app, table_id),
    }
    timings: dict[str, list[float]] = {name: [] for name in sides}
    others: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for round_ in range(repeats):
        for name in names[round_ % 3 :] + names[: round_ % 3]:  # rotate who goes first
            busy, own = machine_busy(), time.process_time()
            started = time.perf_counter()
            sides[name]()
            elapsed = time.perf_counter() - started
            timings[name].append(elapsed)
            other = machine_busy() - busy - (time.process_time() - own)
            others[name].append(max(0.0, other) / elapsed)
    best = {name: min(values) for name, values in timings.items()}
    rate = {name: len(events) / seconds for name, seconds in best.items()}
    ratio = rate["decode_fold"] / rate["eventsourcing"]
    paired = [
        peer_s / floe_s
        for peer_s, floe_s in zip(timings["eventsourcing"], timings["decode_fold"], strict=True)
    ]
    details: dict[str, Any] = {
        "events": len(events),
        "final_version": expected.version,
        "stored_bytes_per_event": sum(len(f[b"e"]) for _, f in entries) / len(entries),
        "timings_s": timings["fold"],
        "other_cores_busy": others["fold"],
        "best_s": best["fold"],
        "events_per_s": rate["fold"],
        "us_per_event": best["fold"] / len(events) * 1e6,
        "decode_fold": {
            "timings_s": timings["decode_fold"],
            "other_cores_busy": others["decode_fold"],
            "best_s": best["decode_fold"],
            "events_per_s": rate["decode_fold"],
            "us_per_event": best["decode_fold"] / len(events) * 1e6,
        },
        "eventsourcing": {
            "version": PEER_VERSION,
            "env": PEER_ENV,
            "stored_bytes_per_event": _peer_bytes(app),
            "timings_s": timings["eventsourcing"],
            "other_cores_busy": others["eventsourcing"],
            "best_s": best["eventsourcing"],
            "events_per_s": rate["eventsourcing"],
            "us_per_event": best["eventsourcing"] / len(events) * 1e6,
        },
        "ratio_decode_fold_vs_eventsourcing": ratio,
        "ratio_fold_vs_eventsourcing": rate["fold"] / rate["eventsourcing"],
        "ratio_paired_median": statistics.median(paired),
    }
    if profile_to is not None:
        details["profile"] = str(profile_to)
        profile_to.write_text(_profile(rules, events, entries))
    report.details["folding"] = details
    size = f"best of {repeats}, {len(events)} events"
    report.add(Result(GROUP, f"events/s, pure fold ({size})", rate["fold"], "events/s", 50_000))
    report.add(
        Result(GROUP, "events/s, decode + fold of stored JSON", rate["decode_fold"], "events/s")
    )
    report.add(
        Result(
            GROUP,
            f"events/s, eventsourcing {PEER_VERSION} rebuild",
            rate["eventsourcing"],
            "events/s",
            note="POPO recorder, JSON transcoder, no snapshots, no cache; same event count",
        )
    )
    report.add(
        Result(
            GROUP, "ratio pure fold / eventsourcing", details["ratio_fold_vs_eventsourcing"], "x"
        )
    )
    report.add(
        Result(
            GROUP,
            "ratio decode + fold / eventsourcing",
            ratio,
            "x",
            PEER_TARGET,
            note=f"median of the paired rounds {details['ratio_paired_median']:.2f}",
        )
    )


def _peer_bytes(app: Tables) -> float:
    """Mean bytes of the state (JSON) the peer stored per event, for comparison."""
    stored = app.recorder.select_notifications(start=None, limit=1_000_000)
    return sum(len(item.state) for item in stored) / max(1, len(stored))


def _profile(rules: Rules[Any], events: Sequence[Event], entries: Entries) -> str:
    """cProfile of one pure fold, then of one decode + fold: the 30 most expensive functions
    of each by own and by cumulative time."""
    out = io.StringIO()
    for title, function, args in (
        ("pure fold", play.fold, (rules, GAME_ID, events)),
        ("decode + fold", decode_and_fold, (rules, entries)),
    ):
        profiler = cProfile.Profile()
        profiler.runcall(function, *args)
        out.write(f"===== {title} =====\n")
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(30)
    return out.getvalue()
