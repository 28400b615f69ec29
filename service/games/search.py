"""Searching games wherever they are: the ones Redis holds, then the archived ones.

Redis holds the games being played and the games over that the mover has not moved yet; the
archive holds the rest (``service.archive``). A search walks the two parts one after the
other, so one listing covers both and an item looks the same from either:

1. **Redis's part**: newest created first, by ``floe:games``' score (creation, ms) then id,
   both descending. Filters are applied to each game's record and first event (and, for a
   game over, its last events: when it ended and how), read in pipelined batches.
2. **The archive's part**, in the archive's order (ended, then id, descending): an archived
   game is always over, so a search for games not over never reaches it.

The cursor names the part and the last row given in it (keyset, never an offset), so games
created, ended or moved while a client pages never shift a page. A game over that both hold
(the mover wrote the archive and has not deleted the Redis copy yet) is listed from the
archive only; a game that moves while a client pages may be met in both parts.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.engine.log import StoredEvent
from domain.engine.status import GameStatus
from domain.engine.types import GAME_OVER, JSON
from service.archive.protocol import Archive, ArchivedSummary, BadCursor
from service.store.events import EventStore, GameRecord, IndexKey

#: Games read from Redis per round trip at most, when filters may drop many.
BATCH = 100
#: The cursor's format version: a change of what it holds gets a new one.
_PREFIX = "g1."
_RESIDENT, _ARCHIVED = "r", "a"
#: ``floe:games``' scores are creation times in ms, exact in a double up to here.
_MAX_SCORE = 2**53


@dataclass(frozen=True, slots=True)
class Filters:
    """What a search keeps: every filter given must match (None: any)."""

    #: A seat's name, exactly.
    player: str | None = None
    game: str | None = None
    tournament: str | None = None
    status: GameStatus | None = None
    #: Strict bounds on when the game ended (service-clock times); either means over only.
    before: str | None = None
    after: str | None = None

    @property
    def over_only(self) -> bool:
        return self.status == GameStatus.OVER or self.before is not None or self.after is not None

    @property
    def reaches_archive(self) -> bool:
        """Whether archived games can match: they are all over."""
        return self.status in (None, GameStatus.OVER)

    @property
    def narrows(self) -> bool:
        """Whether any filter is given (a plain listing keeps nearly every game it reads)."""
        return any(getattr(self, name) is not None for name in self.__dataclass_fields__)

    def keeps_record(self, record: GameRecord) -> bool:
        """What the record alone decides (no event read yet)."""
        return (
            (self.game is None or record.game == self.game)
            and (self.status is None or record.status == self.status)
            and (not self.over_only or record.status == GameStatus.OVER)
            and (self.player is None or self.player in _names(record))
        )

    def keeps(self, listed: ListedGame) -> bool:
        """What needs the events: the tournament and when the game ended."""
        ended = listed.ended_at
        return (
            (self.tournament is None or listed.tournament == self.tournament)
            and (self.before is None or (ended is not None and ended < self.before))
            and (self.after is None or (ended is not None and ended > self.after))
        )


@dataclass(frozen=True, slots=True)
class ListedGame:
    """A game as a listing shows it, whichever part it comes from: nothing a spectator may
    not see (no tokens, no seed)."""

    game_id: str
    game: str
    status: GameStatus
    version: int
    created_at: str
    #: When the game ended (its ``game_over``'s time), or None while it is not over.
    ended_at: str | None
    tournament: str | None
    #: The seats' names, in seat order.
    players: tuple[str, ...]
    #: The ``game_over`` event's data, or None while the game is not over.
    outcome: Mapping[str, Any] | None

    @classmethod
    def archived(cls, summary: ArchivedSummary) -> ListedGame:
        return cls(
            game_id=summary.game_id,
            game=summary.game,
            status=GameStatus.OVER,
            version=summary.version,
            created_at=summary.created_at,
            ended_at=summary.ended_at,
            tournament=summary.tournament,
            players=summary.names,
            outcome=summary.outcome,
        )

    def to_json(self) -> JSON:
        return {
            "id": self.game_id,
            "game": self.game,
            "status": str(self.status),
            "version": self.version,
            "created_at": self.created_at,
            "ended_at": self.ended_at,
            "tournament": self.tournament,
            "players": list(self.players),
            "outcome": None if self.outcome is None else dict(self.outcome),
        }


@dataclass(frozen=True, slots=True)
class SearchPage:
    """One page: Redis's games first, then the archive's; ``cursor`` asks for the next page
    (None: this is the last)."""

    games: tuple[ListedGame, ...]
    cursor: str | None


# ----- the cursor ----------------------------------------------------------------------------

#: Where a page stops in Redis's part: the last row's ``floe:games`` score and id.
ResidentKey = IndexKey


@dataclass(frozen=True, slots=True)
class _Position:
    """Where the next page starts: after ``key`` in Redis's part (None: at its start), or,
    once ``archived``, at the archive's own cursor (None: at its start)."""

    archived: bool = False
    key: ResidentKey | None = None
    archive_cursor: str | None = None


def _encode(position: _Position) -> str:
    if position.archived:
        parts: list[Any] = [_ARCHIVED, position.archive_cursor]
    else:
        assert position.key is not None
        parts = [_RESIDENT, *position.key]
    raw = json.dumps(parts, separators=(",", ":")).encode()
    return _PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _bad_cursor() -> BadCursor:
    """A cursor no search handed out: the query is refused (a cursor is a query parameter),
    whichever part it would name."""
    return BadCursor()


def _decode(cursor: str) -> _Position:
    """The position a cursor names; ``_bad_cursor`` for any other text."""
    if not cursor.startswith(_PREFIX):
        raise _bad_cursor()
    body = cursor[len(_PREFIX) :]
    try:
        parts = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (ValueError, binascii.Error):
        raise _bad_cursor() from None
    match parts:
        case [str(part), int(score), str(game_id)] if (
            part == _RESIDENT and type(score) is int and 0 <= score <= _MAX_SCORE and game_id
        ):
            return _Position(key=(score, game_id))
        case [str(part), str() | None as inner] if part == _ARCHIVED:
            return _Position(archived=True, archive_cursor=inner)
    raise _bad_cursor()


# ----- the search ----------------------------------------------------------------------------


class GameSearch:
    """Searches the games Redis holds (through ``store``, Redis's part alone) and then
    ``archive``'s (None: Floe archives nothing, and Redis's part is the whole listing)."""

    def __init__(self, store: EventStore, archive: Archive | None, *, batch: int = BATCH) -> None:
        self._store = store
        self._archive = archive
        self._batch = batch

    def search(self, filters: Filters, *, limit: int, cursor: str | None = None) -> SearchPage:
        """Up to ``limit`` games matching ``filters``, from where ``cursor`` stopped. A full
        page has exactly ``limit``; the last page has no cursor (and no empty page follows
        one that had)."""
        position = _Position() if cursor is None else _decode(cursor)
        games: list[ListedGame] = []
        if not position.archived:
            rows = list(self._resident(filters, position.key, want=limit + 1))
            if len(rows) > limit:
                return SearchPage(
                    tuple(game for _, game in rows[:limit]),
                    _encode(_Position(key=rows[limit - 1][0])),
                )
            games = [game for _, game in rows]
        archive = self._archive
        if archive is None or not filters.reaches_archive:
            return SearchPage(tuple(games), None)
        return _then_archived(archive, filters, games, limit=limit, cursor=position.archive_cursor)

    # ----- Redis's part ------------------------------------------------------------------

    def _resident(
        self, filters: Filters, after: ResidentKey | None, *, want: int
    ) -> Iterator[tuple[ResidentKey, ListedGame]]:
        """Up to ``want`` matching games Redis holds, after ``after``, newest created first,
        each with its key. Reads a batch of ids, their records, then the events of those the
        records keep: two round trips a batch, and no batch once ``want`` are found."""
        found = 0
        while found < want:
            size = self._batch if filters.narrows else min(self._batch, want - found)
            keys = self._store.index_after(after, size)
            if not keys:
                return
            after = keys[-1]
            for key, game in self._matching(filters, keys):
                yield key, game
                found += 1
                if found == want:
                    return
            if len(keys) < size:
                return

    def _matching(
        self, filters: Filters, keys: Sequence[ResidentKey]
    ) -> Iterator[tuple[ResidentKey, ListedGame]]:
        """The games of ``keys`` that ``filters`` keep, in order. A key whose game Redis no
        longer holds whole (never created, or moved out meanwhile) is skipped: the archive's
        part lists a moved game."""
        records = self._store.records_here([game_id for _, game_id in keys])
        kept = [
            (key, record)
            for key, record in zip(keys, records, strict=True)
            if record is not None and filters.keeps_record(record)
        ]
        events = self._store.first_and_last([record for _, record in kept])
        for (key, record), (first, last) in zip(kept, events, strict=True):
            listed = _listed(record, first, last)
            if listed is None or not filters.keeps(listed):
                continue
            if self._being_moved(listed):
                continue
            yield key, listed

    def _being_moved(self, listed: ListedGame) -> bool:
        """Whether a game over in Redis is in the archive already (the mover has yet to delete
        its Redis copy): the archive's part lists it."""
        archive = self._archive
        return (
            listed.status == GameStatus.OVER and archive is not None and archive.has(listed.game_id)
        )


def _then_archived(
    archive: Archive,
    filters: Filters,
    games: list[ListedGame],
    *,
    limit: int,
    cursor: str | None,
) -> SearchPage:
    """The page that ``games`` (Redis's last, maybe none) begin, filled from the archive's
    part at ``cursor`` (None: its start)."""
    room = limit - len(games)
    page = archive.search(  # a cursor it did not hand out: BadCursor, 400 invalid_query
        player=filters.player,
        game=filters.game,
        tournament=filters.tournament,
        before=filters.before,
        after=filters.after,
        limit=max(room, 1),
        cursor=cursor,
    )
    if room == 0:  # Redis's part filled the page: the next starts the archive's, if any
        return SearchPage(tuple(games), _encode(_Position(archived=True)) if page.games else None)
    listed = [*games, *(ListedGame.archived(summary) for summary in page.games)]
    if page.cursor is None:
        return SearchPage(tuple(listed), None)
    return SearchPage(tuple(listed), _encode(_Position(archived=True, archive_cursor=page.cursor)))


def _listed(
    record: GameRecord, first: StoredEvent | None, last: Sequence[StoredEvent]
) -> ListedGame | None:
    """The game as listed, or None when Redis no longer holds it whole (its keys were
    deleted between the reads)."""
    if first is None:
        return None
    ended = next((event for event in last if event.type == GAME_OVER), None)
    over = record.status == GameStatus.OVER
    if over and ended is None:
        return None
    slot = first.data.get("tournament")
    return ListedGame(
        game_id=record.game_id,
        game=record.game,
        status=record.status,
        version=record.version,
        created_at=record.created_at,
        ended_at=ended.at if ended is not None else None,
        tournament=str(slot["id"]) if isinstance(slot, Mapping) else None,
        players=_names(record),
        outcome=dict(ended.data) if ended is not None else None,
    )


def _names(record: GameRecord) -> tuple[str, ...]:
    return tuple(str(seat["name"]) for seat in record.seats)
