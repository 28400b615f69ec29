"""Games as states: the event store behind a per-process cache of folded heads and snapshots.

Everyone who needs a game's state asks here: the command handlers before deciding, the
queries before showing, the worker before drawing. The head of each game is cached, so a
move at version 5,000 costs what a move at version 10 costs, and an old version refolds from
the nearest snapshot. The cache is derived from the stream: losing it costs time, never
correctness.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.engine import play
from domain.engine.log import GENESIS_HASH, StoredEvent, seal
from domain.engine.status import GameStatus
from domain.engine.types import GAME_CREATED, GAME_OVER, SEED_REVEALED, SYSTEM, Event, GameState
from service.clock import Clock, millis
from service.errors import NotFound, unknown_game
from service.games.catalog import Catalog, GameMeta
from service.games.state_cache import SNAPSHOT_EVERY, Head, StateCache
from service.store.events import Conflict, Duplicate, EventStore

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
#: The catalog (game metadata) gets 1/CATALOG_SHARE of the cache budget, states the rest.
CATALOG_SHARE = 16
#: From how many events a game without a clock catches up in runs (``play.fold_onto``) rather
#: than event by event: measured on a game with an ``evolve_all``, twice as fast per event
#: over hundreds (a cold cache's fold), a third faster over eight, a little slower over two.
RUN_FROM = 4

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Recorded:
    """Events appended: the state after them, the events as stored, and its status."""

    state: GameState[Any]
    events: list[StoredEvent]
    status: GameStatus

    @property
    def awaiting_random(self) -> bool:
        return self.status == GameStatus.AWAITING_RANDOM


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """What an accepted command did, kept so that repeating it returns the same answer.

    Records say what happened (the seat, the versions it appended, whether it left the game
    waiting for a draw, and a fingerprint of the request), never how an interface answered.
    Records written before this shape carried an HTTP ``status`` (202 meant a pending draw)
    and no fingerprint; ``from_json`` still reads them.
    """

    seat: int | str
    first: int
    last: int
    awaiting_random: bool
    #: SHA-256 of the request the command was (``request_fingerprint``); None in old records.
    request: str | None = None

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "seat": self.seat,
            "first": self.first,
            "last": self.last,
            "awaiting_random": self.awaiting_random,
        }
        if self.request is not None:
            record["request"] = self.request
        return record

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CommandRecord:
        pending = data.get("awaiting_random")
        if pending is None:
            pending = int(data.get("status", 201)) == 202
        request = data.get("request")
        return cls(
            data["seat"],
            int(data["first"]),
            int(data["last"]),
            bool(pending),
            None if request is None else str(request),
        )

    def answers(self, request: str) -> bool:
        """Whether this record is the answer to ``request`` (old records cannot tell: yes)."""
        return self.request is None or self.request == request


def command_key(seat: int | str, command_id: str) -> str:
    """A command id names one command of one seat: seats cannot collide."""
    return f"{seat}:{command_id}"


class GameRepository:
    """Heads, past versions and appends of games, through the cache and the store."""

    def __init__(
        self, store: EventStore, clock: Clock, *, cache_bytes: int = DEFAULT_CACHE_BYTES
    ) -> None:
        """``cache_bytes``: this process's budget for cached games (estimated bytes): one
        sixteenth for their metadata (under 2 KB a game), the rest for folded states."""
        self._store = store
        self.clock = clock
        catalog_bytes = cache_bytes // CATALOG_SHARE
        self._catalog = Catalog(store, catalog_bytes)
        self._cache = StateCache(cache_bytes - catalog_bytes)

    # ----- what a game is -----------------------------------------------------------------

    def meta(self, game_id: str) -> GameMeta:
        """The game's metadata, or ``NotFound`` ``game_not_found``."""
        return self._catalog.get(game_id)

    @property
    def catalog(self) -> Catalog:
        return self._catalog

    @property
    def states(self) -> StateCache:
        """The per-process cache of heads and snapshots (for tests and the benchmarks)."""
        return self._cache

    # ----- reading states -----------------------------------------------------------------

    def cached_head(self, game_id: str) -> Head | None:
        """The head this process last saw, without asking the store (may be behind)."""
        return self._cache.head(game_id)

    def head(self, meta: GameMeta) -> Head:
        """The game's newest state: the cached head caught up with whatever was appended.

        The read starts at the cached head's own event, to check the store still holds it:
        a failover can lose a write this process already saw (with ``FLOE_REPLICA_ACKS=0``,
        or one answered 503). Then the game is folded afresh from what the store holds, so
        no process goes on deciding moves against a state the log does not make.
        """
        game_id = meta.game_id
        cached = self._cache.head(game_id)
        new_events = self._store.read(game_id, after=cached.state.version - 1 if cached else 0)
        if cached is not None:
            first = new_events[0] if new_events else None
            if first is None or first.version != cached.state.version or first.hash != cached.hash:
                log.warning(
                    "game %s: the store lost v%d; folding again", game_id, cached.state.version
                )
                self._cache.forget(game_id)
                cached, new_events = None, self._store.read(game_id)
            else:
                new_events = new_events[1:]
        if not new_events:
            if cached is None:
                raise unknown_game(game_id)
            return cached
        if cached is None:
            state, rest = self._genesis(meta, new_events[0]), new_events[1:]
        else:
            state, rest = cached.state, new_events
        state = self._fold(meta, state, rest)
        head = Head(state, new_events[-1].hash)
        self._cache.advance(game_id, head)
        return head

    def latest(self, meta: GameMeta) -> GameState[Any]:
        return self.head(meta).state

    def head_through(self, meta: GameMeta, read: Sequence[StoredEvent]) -> Head | None:
        """The head ``read`` leads to (events just read from the store, through its newest),
        from the cached head without reading again: a live stream's legal actions are for
        the version it has just shown. None when the cached head does not join them (behind
        them, or not the event the store holds there): ``head`` reads and folds.

        The chain stands in for ``head``'s check that the store still holds the cached
        event: the store appends an event only after the head its ``prev_hash`` names."""
        cached = self._cache.head(meta.game_id)
        if cached is None or not read:
            return None
        at, first = cached.state.version, read[0].version
        if at == first - 1 and cached.hash == read[0].prev_hash:
            rest = read
        elif first <= at <= read[-1].version and read[at - first].hash == cached.hash:
            rest = read[at - first + 1 :]
        else:
            return None
        state = cached.state
        for stored in rest:
            state = play.apply(meta.rules, state, stored.event, stored.at)
            self._cache.snapshot(state)
        if not rest:
            return cached
        head = Head(state, read[-1].hash)
        self._cache.advance(meta.game_id, head)
        return head

    def state_at(
        self, meta: GameMeta, version: int, *, latest: GameState[Any] | None = None
    ) -> GameState[Any]:
        """The state at ``version``, folded from the nearest snapshot below it.

        ``latest``: the head state the caller has just read, so it is not read again.
        """
        head = latest if latest is not None else self.head(meta).state
        if not 1 <= version <= head.version:
            raise NotFound("version_not_found", f"versions of this game run 1..{head.version}")
        if version == head.version:
            return head
        base = self._cache.nearest(meta.game_id, version)
        if base is None:
            events = self._store.read(meta.game_id, upto=version)
            base, rest = self._genesis(meta, events[0]), events[1:]
        else:
            rest = self._store.read(meta.game_id, after=base.version, upto=version)
        return self._fold(meta, base, rest)

    def read(self, game_id: str, *, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        return self._store.read(game_id, after=after, upto=upto)

    def wait(self, game_id: str, *, after: int, block_ms: int) -> list[StoredEvent]:
        """Events after ``after``, blocking up to ``block_ms`` for the first (never a sleep)."""
        return self._store.wait(game_id, after=after, block_ms=block_ms)

    # ----- writing ------------------------------------------------------------------------

    def create(
        self,
        meta: GameMeta,
        state: GameState[Any],
        *,
        seed_hex: str,
        token_hashes: Sequence[str | None],
    ) -> StoredEvent:
        """Store event 1 (``game_created``), the secret seed and the game's metadata."""
        [first] = seal(
            meta.game_id,
            [Event(GAME_CREATED, SYSTEM, state.created.to_json())],
            first_version=1,
            prev_hash=GENESIS_HASH,
            at=meta.created_at,
            command_id=None,
        )
        fields = {
            "game": meta.game,
            "created_at": meta.created_at,
            "seats": json.dumps(meta.seats_json()),
            "tokens": json.dumps(list(token_hashes)),
            "status": play.status(meta.rules, state),
        }
        if state.clocks is not None:
            fields["clocked"] = "1"
        if not meta.length_capped:
            fields["length_cap"] = "off"
        if meta.creator is not None:
            fields["creator"] = meta.creator
        created_ms = millis(meta.created_at)
        self._store.create(first, seed_hex=seed_hex, meta=fields, created_ms=created_ms)
        self._cache.advance(meta.game_id, Head(state, first.hash))
        self._catalog.remember(meta)
        return first

    def append(
        self,
        meta: GameMeta,
        head: Head,
        events: list[Event],
        decided: GameState[Any],
        *,
        seat: int | str,
        command_id: str | None,
        request: str | None = None,
        at: str | None = None,
    ) -> Recorded | Duplicate | Conflict:
        """Seal ``events`` after ``head`` and append them in one round trip; cache the result.

        ``decided`` is the state after ``events``, as deciding them already folded it, at
        ``at`` (the time they are stored at: the service clock's now when None, which a game
        with a clock must not leave to chance). A game's last events are always
        ``game_over`` then ``seed_revealed``: the seed is added here, the only place that
        reads it.
        """
        if at is None:
            at = self.clock()
        after = decided
        if events[-1].type == GAME_OVER:
            revealed = Event(SEED_REVEALED, SYSTEM, {"seed": self._store.seed(meta.game_id)})
            events = [*events, revealed]
            after = play.apply(meta.rules, after, revealed, at)
        sealed = seal(
            meta.game_id,
            events,
            first_version=head.state.version + 1,
            prev_hash=head.hash,
            at=at,
            command_id=command_id,
        )
        status = play.status(meta.rules, after)
        pending = status == GameStatus.AWAITING_RANDOM
        record = CommandRecord(seat, sealed[0].version, sealed[-1].version, pending, request)
        result = self._store.append(
            sealed,
            command_key=None if command_id is None else command_key(seat, command_id),
            command_record=record.to_json(),
            status=status,
        )
        if isinstance(result, Duplicate | Conflict):
            return result
        # Only a state whose events are stored may be cached: racers that lost decided
        # states too, for the same version, and one of theirs must never become a snapshot.
        self._cache.snapshot(after)
        self._cache.advance(meta.game_id, Head(after, sealed[-1].hash))
        return Recorded(after, sealed, status)

    def command(self, game_id: str, seat: int | str, command_id: str) -> CommandRecord | None:
        """The record of a command this seat had accepted, if any."""
        raw = self._store.command(game_id, command_key(seat, command_id))
        return None if raw is None else CommandRecord.from_json(raw)

    def remember_command(self, game_id: str, command_id: str, record: CommandRecord) -> None:
        """Replace an accepted command's record (its answer grew: the draw it waited for)."""
        key = command_key(record.seat, command_id)
        self._store.remember_command(game_id, key, record.to_json())

    def seed(self, game_id: str) -> bytes:
        return bytes.fromhex(self._store.seed(game_id))

    def _fold(
        self, meta: GameMeta, state: GameState[Any], events: Sequence[StoredEvent]
    ) -> GameState[Any]:
        """``state`` after ``events``, keeping each state a snapshot falls on.

        Many events of a game without a clock fold in runs (``play.fold_onto``: the game's
        ``evolve_all``), cut at each snapshot's version, so the snapshots and the result are
        the states ``play.apply`` makes. A clock moves with each event's time: a game with
        one goes event by event, as do a few events (runs cost more than they save there).
        """
        if state.clocks is not None or len(events) < RUN_FROM:
            for stored in events:
                state = play.apply(meta.rules, state, stored.event, stored.at)
                self._cache.snapshot(state)
            return state
        done = 0
        while done < len(events):
            upto = done + SNAPSHOT_EVERY - state.version % SNAPSHOT_EVERY
            state = play.fold_onto(meta.rules, state, (s.event for s in events[done:upto]))
            self._cache.snapshot(state)
            done = upto
        return state

    def _genesis(self, meta: GameMeta, created: StoredEvent) -> GameState[Any]:
        """The state at version 1 from the ``game_created`` event."""
        return play.fold_timed(meta.rules, meta.game_id, [(created.event, created.at)])
