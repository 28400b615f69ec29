"""Moving finished games out of Redis into the archive, safely at every step.

A game over for ``FLOE_ARCHIVE_AFTER_S`` moves in four steps, each safe to die after:

1. **read** everything Redis holds of it (``EventStore.resident``) and check it is whole:
   over, its events chained up to the meta's head, and not a game of a running tournament's
   round still being recorded;
2. **put** it into the archive (export bytes, summary, the store's records): durable when it
   returns, and a no-op when the same game is there already;
3. **check** the archived copy: read back, its last hash and version must be the head read;
4. **delete** its Redis keys in one script that deletes only a game over with that head
   (``move_out.lua``), then its ids from the indexes.

Killed before step 4, the game is still whole in Redis (and maybe in the archive too: the
reads look in Redis first, so it shows once); the next sweep moves it again, and step 2 is a
no-op. Killed after step 4, the archive holds it; stale index entries name no game in Redis
and every reader skips them or finds the game in the archive. Nothing is ever deleted that
the archive does not hold. Two movers racing do the same steps; each is idempotent.

A settled tournament (finished or cancelled, out of the running set, every game of it out of
Redis, settled ``FLOE_ARCHIVE_AFTER_S`` ago) moves in the same four steps: read its hash,
put it (``Archive.put_tournament``), check the archived record is the one read, delete the
hash only if nobody wrote it since (``service/tournaments/move_out.lua``), then unlist it
from ``floe:tournaments:settled``. Its id stays in ``floe:tournaments``: the list's reads
find the record in the archive (``TournamentStore``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from domain.engine.canonical import canonical_json
from domain.engine.log import StoredEvent
from domain.engine.status import GameStatus
from domain.engine.types import GAME_CREATED, GAME_OVER
from service.archive.protocol import TIME_FORMAT, Archive, ArchiveConflict, ArchivedGame
from service.clock import Clock, millis
from service.store.events import EventStore, ResidentGame
from service.tournaments.store import SETTLED_STATUSES, ResidentTournament, TournamentStore

log = logging.getLogger(__name__)

#: The steps of one move, as ``Mover``'s ``on_step`` hook names them (the crash tests kill
#: the mover after each).
STEPS = ("read", "put", "check", "delete")
#: Games moved per sweep at most: a sweep stays short, and the rest wait for the next.
BATCH = 200
#: Tournaments moved per sweep at most.
TOURNAMENT_BATCH = 50
#: Ids of ``floe:tournaments`` a sweep reads to list settled tournaments the settled index
#: lacks (settled before it existed): a full pass over the index finds every one.
REPAIR_SLICE = 100


def export_bytes(events: list[StoredEvent]) -> bytes:
    """A game's export file: one canonical JSON event per line, as ``GET …/export`` answers."""
    return "".join(canonical_json(e.to_json()) + "\n" for e in events).encode()


def archived_game(resident: ResidentGame) -> ArchivedGame:
    """The archive's copy of a finished game Redis holds whole: its export, its summary (from
    the events themselves) and the store's records (``meta``, ``seed``, ``commands``), kept so
    that reads, repeated commands and listings answer from the archive as they did."""
    events = resident.events
    created, last = events[0], events[-1]
    ended = next(e for e in reversed(events) if e.type == GAME_OVER)
    tournament = created.data.get("tournament")
    seats = json.loads(resident.meta["seats"])
    record: dict[str, Any] = {
        "meta": dict(resident.meta),
        "seed": resident.seed,
        "commands": dict(resident.commands),
    }
    return ArchivedGame(
        game_id=resident.game_id,
        game=resident.meta["game"],
        names=tuple(str(seat["name"]) for seat in seats),
        tournament=None if tournament is None else str(tournament["id"]),
        created_at=resident.meta["created_at"],
        ended_at=ended.at,
        outcome=dict(ended.data),
        version=last.version,
        last_hash=last.hash,
        record=record,
        export=export_bytes(events),
    )


def whole(resident: ResidentGame) -> bool:
    """Whether ``resident`` is a finished game read whole: over, its events from 1 without a
    gap, ending at the meta's version and head, with its ``game_over``."""
    events, meta = resident.events, resident.meta
    return (
        meta.get("status") == GameStatus.OVER
        and bool(events)
        and events[0].type == GAME_CREATED
        and [e.version for e in events] == list(range(1, len(events) + 1))
        and str(events[-1].version) == meta.get("version")
        and events[-1].hash == meta.get("head")
        and any(e.type == GAME_OVER for e in events)
    )


@dataclass(slots=True)
class Moved:
    """What one pass did: the games moved, and those left for later (with why)."""

    moved: list[str] = field(default_factory=list)
    left: dict[str, str] = field(default_factory=dict)

    @classmethod
    def each(cls, due: Iterable[str], move: Callable[[str], str | None]) -> Moved:
        """``move`` run on every id of ``due`` in turn (None: it moved, else why it stays)."""
        done = cls()
        for item in due:
            why = move(item)
            if why is None:
                done.moved.append(item)
            else:
                done.left[item] = why
        return done


class Mover:
    """Moves the games over for ``after_s`` seconds from the store into the archive."""

    def __init__(
        self,
        store: EventStore,
        archive: Archive,
        tournaments: TournamentStore,
        clock: Clock,
        *,
        after_s: float,
        on_step: Callable[[str, str], None] | None = None,
    ) -> None:
        """``on_step(step, game_id)`` runs after each step of each move (for the crash tests,
        which kill the process there)."""
        self._store = store
        self._archive = archive
        self._tournaments = tournaments
        self._clock = clock
        self._after_ms = int(after_s * 1000)
        self._on_step = on_step or (lambda step, game_id: None)

    def move_due(self, limit: int = BATCH) -> Moved:
        """Move up to ``limit`` games that ended ``after_s`` ago or earlier, oldest first."""
        due = self._store.ended_before(millis(self._clock()) - self._after_ms, limit)
        return Moved.each(due, self.move)

    def move(self, game_id: str) -> str | None:
        """Move one game; None once it is out of Redis, else why it stays (for now)."""
        resident = self._store.resident(game_id)
        if resident is None:  # deleted before (a mover died after step 4): clean the indexes
            if self._archive.has(game_id):
                self._store.forget_moved([game_id])
                return None
            return "no such game"
        if not whole(resident):
            return "not over, or read while it changed"
        if self._round_open(resident.events[0]):
            return "its tournament round is not recorded yet"
        self._on_step("read", game_id)
        copy = archived_game(resident)
        self._archive.put(copy)
        self._on_step("put", game_id)
        kept = self._archive.summary(game_id)
        if kept is None or kept.last_hash != copy.last_hash or kept.version != copy.version:
            log.error("game %s: the archive's copy does not end at %s", game_id, copy.last_hash)
            return "the archived copy differs"
        self._on_step("check", game_id)
        outcome = self._store.delete_finished(game_id, copy.last_hash)
        self._on_step("delete", game_id)
        return None if outcome in ("deleted", "gone") else f"not deleted: {outcome}"

    def _round_open(self, created: StoredEvent) -> bool:
        """Whether the game belongs to a tournament round whose outcomes are not recorded:
        the tournament reads its games' records to record the round, so they stay here. A
        cancelled tournament records no more rounds: its games over may go."""
        slot = created.data.get("tournament")
        if not isinstance(slot, Mapping):
            return False
        stored = self._tournaments.get(str(slot["id"]))
        if stored is None or stored.status == "cancelled":
            return False
        number = int(slot["round"])
        if len(stored.rounds) < number:
            return True
        return stored.rounds[number - 1].get("outcomes") is None

    # ----- tournaments ---------------------------------------------------------------------

    def move_tournaments_due(self, limit: int = TOURNAMENT_BATCH) -> Moved:
        """Move up to ``limit`` tournaments settled ``after_s`` ago or earlier, oldest first
        (after listing those of the next slice of the index that the settled list lacks)."""
        self._tournaments.repair_settled(REPAIR_SLICE)
        due = self._tournaments.settled_before(millis(self._clock()) - self._after_ms, limit)
        return Moved.each(due, self.move_tournament)

    def move_tournament(self, tournament_id: str) -> str | None:
        """Move one settled tournament; None once it is out of Redis, else why it stays."""
        resident = self._tournaments.resident(tournament_id)
        if resident is None:  # deleted before (a mover died after step 4), or never written
            self._tournaments.forget_settled([tournament_id])
            if self._archive.tournament(tournament_id) is None:
                return "no such tournament"
            return None
        why = self._why_it_stays(resident)
        if why is not None:
            return why
        self._on_step("read", tournament_id)
        try:
            self._archive.put_tournament(tournament_id, _settled_at(resident), resident.record)
        except ArchiveConflict:
            log.error("tournament %s: the archive holds another record of it", tournament_id)
            return "the archive holds another record"
        self._on_step("put", tournament_id)
        if self._archive.tournament(tournament_id) != resident.record:
            log.error("tournament %s: the archive's record is not the one read", tournament_id)
            return "the archived record differs"
        self._on_step("check", tournament_id)
        outcome = self._tournaments.delete_settled(resident)
        self._on_step("delete", tournament_id)
        return None if outcome in ("deleted", "gone") else f"not deleted: {outcome}"

    def _why_it_stays(self, resident: ResidentTournament) -> str | None:
        """Why the tournament may not move yet, if it may not: not finished or cancelled,
        still swept as running, settled too recently, or a game of it still in Redis (its
        games move first, so its reads find every game wherever it is)."""
        if resident.status not in SETTLED_STATUSES:
            return "not settled"
        if resident.running:
            return "still in the running set"
        if resident.ended_at is None and resident.settled_ms is None:
            return "not listed settled yet"
        if millis(_settled_at(resident)) > millis(self._clock()) - self._after_ms:
            return "settled too recently"
        held = self._store.bytes_held(resident.game_ids)
        if any(size is not None for size in held):
            return "a game of it is still in Redis"
        return None


def _settled_at(resident: ResidentTournament) -> str:
    """When the tournament settled: its last round's end if one is recorded, else when it
    was listed settled."""
    if resident.ended_at is not None:
        return resident.ended_at
    if resident.settled_ms is None:
        raise ValueError(f"tournament {resident.id} is not listed settled")
    return datetime.fromtimestamp(resident.settled_ms / 1000, UTC).strftime(TIME_FORMAT)
