"""The event store that finds moved-out games in the archive: every read answers the same
whether the game is still in Redis or already archived.

``ArchiveBackedStore`` is the Redis store with one difference: when Redis holds nothing of a
game, the reads (its log, record, seed, command records) look in the archive. Redis is asked
first, always, in the same round trip as before (a read that finds no events also asks
whether the game's ``meta`` exists), so a live game costs what it did; only a game Redis does
not hold reaches the archive. A game is never in neither place: the mover deletes it from
Redis only after the archive holds it (``service.archive.moving``).

Archived games never change and never come back, so each process keeps the ones it read
(``ArchivedCopy``, parsed once) in a byte-bounded cache: a replay page stepping through an
archived game reads the archive once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.engine.log import StoredEvent
from service.archive.protocol import Archive
from service.caching.lru import ByteBoundedLRU
from service.store import codec
from service.store.events import GameExists, GameRecord, RedisEventStore

#: Each process's budget for archived games it has read (their parsed logs).
ARCHIVED_CACHE_BYTES = 64 * 1024 * 1024
#: What a parsed event weighs against its exported line, about (objects over text).
PARSED_WEIGHT = 4


@dataclass(frozen=True, slots=True)
class ArchivedCopy:
    """An archived game as the store's reads need it: parsed once, then served from memory."""

    record: GameRecord
    seed: str
    commands: Mapping[str, str]
    events: tuple[StoredEvent, ...]

    def slice(self, after: int, upto: int | None) -> list[StoredEvent]:
        """The events with ``after < version <= upto`` (versions run 1..n, so by index)."""
        end = len(self.events) if upto is None else max(0, min(upto, len(self.events)))
        return list(self.events[max(0, after) : end])


class ArchiveBackedStore(RedisEventStore):
    """Redis first, the archive for a game Redis no longer holds."""

    def __init__(
        self,
        *args: Any,
        archive: Archive,
        cache_bytes: int = ARCHIVED_CACHE_BYTES,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.archive = archive
        self._copies: ByteBoundedLRU[str, ArchivedCopy] = ByteBoundedLRU(cache_bytes)

    def archived(self, game_id: str) -> ArchivedCopy | None:
        """The game's archived copy (from this process's cache, or read once), or None."""
        copy = self._copies.get(game_id)
        if copy is not None:
            return copy
        archived = self.archive.get(game_id)
        if archived is None:
            return None
        record = dict(archived.record)
        events = tuple(
            StoredEvent.from_json(codec.decode(line))
            for line in archived.export.splitlines()
            if line
        )
        copy = ArchivedCopy(
            record=GameRecord.from_hash(game_id, record["meta"]),
            seed=str(record["seed"]),
            commands=dict(record["commands"]),
            events=events,
        )
        self._copies.put(game_id, copy, PARSED_WEIGHT * len(archived.export))
        return copy

    # ----- reads: Redis, then the archive -------------------------------------------------

    def read(self, game_id: str, *, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        copy = self._copies.peek(game_id)  # archived games never come back: no Redis trip
        if copy is not None:
            self._copies.get(game_id)
            return copy.slice(after, upto)
        events = self.read_here(game_id, after=after, upto=upto)
        if events is not None:
            return events
        copy = self.archived(game_id)
        return [] if copy is None else copy.slice(after, upto)

    def record(self, game_id: str) -> GameRecord | None:
        found = super().record(game_id)
        if found is not None:
            return found
        copy = self.archived(game_id)
        return None if copy is None else copy.record

    def records(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        found = super().records(game_ids)
        return [
            record if record is not None else self._archived_record(game_id)
            for game_id, record in zip(game_ids, found, strict=True)
        ]

    def seed(self, game_id: str) -> str:
        seed = self.seed_here(game_id)
        if seed is not None:
            return seed
        copy = self.archived(game_id)
        if copy is None:
            raise KeyError(game_id)
        return copy.seed

    def command(self, game_id: str, command_key: str) -> Mapping[str, Any] | None:
        record, here = self.command_here(game_id, command_key)
        if here:
            return record
        copy = self.archived(game_id)
        raw = None if copy is None else copy.commands.get(command_key)
        return None if raw is None else dict(json.loads(raw))

    # ----- writes: never under an archived id ---------------------------------------------

    def create(
        self, first: StoredEvent, *, seed_hex: str, meta: Mapping[str, str], created_ms: int
    ) -> None:
        """As Redis does, but an id the archive holds exists already (ids chosen ahead, by a
        table or a tournament, are checked against both places)."""
        if self.archive.has(first.game_id):
            raise GameExists(first.game_id)
        super().create(first, seed_hex=seed_hex, meta=meta, created_ms=created_ms)

    def _archived_record(self, game_id: str) -> GameRecord | None:
        copy = self.archived(game_id)
        return None if copy is None else copy.record
