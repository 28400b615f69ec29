"""What an archive is: the ``Archive`` protocol every back end meets, and the values it
takes and gives. Callers (the mover, the reads, ``floe archive dump``) only ever see these,
so SQLite and PostgreSQL are interchangeable behind ``opening.open_archive``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from service.errors import InvalidRequest

#: The service clock's format (``service.clock.utc_now``): every ``created_at``/``ended_at``
#: and search bound is in it, so text order is time order and SQL can compare the text.
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


class ArchiveError(RuntimeError):
    """The archive cannot be opened or used as asked (a bad URL, a newer schema)."""


class ArchiveConflict(ArchiveError):
    """A game (or tournament) already archived under this id with a different export (or
    record): never overwritten, since the archive may be the only copy left."""


class BadCursor(InvalidRequest):
    """A search cursor this archive did not hand out (or one that was tampered with)."""

    def __init__(self) -> None:
        super().__init__("invalid_query", "cursor: not one a search handed out")


def check_time(value: str, what: str) -> str:
    """``value`` if it is a service-clock time; else ``ValueError`` naming ``what``: an
    odd precision or offset would break the text order the indexes rely on."""
    try:
        datetime.strptime(value, TIME_FORMAT)
    except (TypeError, ValueError):
        example = "2026-11-22T12:00:00Z"
        raise ValueError(f"{what} must be a UTC time like {example}: {value!r}") from None
    return value


@dataclass(frozen=True, slots=True)
class ArchivedSummary:
    """A finished game's searchable row: what a listing shows, without its log."""

    game_id: str
    #: The game's name (``ice``, ``pig``).
    game: str
    #: The seats' names, in seat order.
    names: tuple[str, ...]
    tournament: str | None
    created_at: str
    ended_at: str
    #: The game_over outcome, as a JSON object.
    outcome: Mapping[str, Any]
    #: The last event's version, and its hash (the chain's head).
    version: int
    last_hash: str

    def __post_init__(self) -> None:
        check_time(self.created_at, "created_at")
        check_time(self.ended_at, "ended_at")


@dataclass(frozen=True, slots=True)
class ArchivedGame(ArchivedSummary):
    """A finished game as archived: its summary columns, the store's meta record and its
    export (the part only ``get`` and ``games_since`` read)."""

    #: The Redis meta record as the store keeps it: opaque here, given back as put.
    record: Mapping[str, Any]
    #: The export file's bytes (one canonical JSON event per line), given back byte for byte.
    export: bytes

    @property
    def summary(self) -> ArchivedSummary:
        """The searchable part alone."""
        return ArchivedSummary(
            **{name: getattr(self, name) for name in ArchivedSummary.__dataclass_fields__}
        )


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a search, newest first; ``cursor`` asks for the next (None: no more)."""

    games: tuple[ArchivedSummary, ...]
    cursor: str | None


class Archive(Protocol):
    """Finished games, kept durably and searchable by their summary columns.

    Several processes share one archive (API and job workers), each with its own object:
    a write is durable, and seen by every other object, once ``put`` returns.
    """

    def put(self, game: ArchivedGame) -> None:
        """Keep ``game``, durably. The same game again is a no-op (a mover that crashed
        after putting may put again); a different export under its id is ``ArchiveConflict``."""
        ...

    def get(self, game_id: str) -> ArchivedGame | None:
        """The archived game, export and all, or None."""
        ...

    def summary(self, game_id: str) -> ArchivedSummary | None:
        """The game's summary row alone (no export to decompress), or None."""
        ...

    def has(self, game_id: str) -> bool:
        """Whether the game is archived (a mover checks before deleting its Redis keys)."""
        ...

    def search(
        self,
        *,
        player: str | None = None,
        game: str | None = None,
        tournament: str | None = None,
        before: str | None = None,
        after: str | None = None,
        limit: int,
        cursor: str | None = None,
    ) -> Page:
        """Summaries matching every filter given, by ``ended_at`` then ``game_id``, both
        descending; ``before``/``after`` bound ``ended_at`` strictly. Paging is by key
        (the cursor names the last row given), so games archived meanwhile never shift a
        page: no duplicates, no gaps."""
        ...

    def games_since(self, since: str | None = None) -> Iterator[ArchivedGame]:
        """Every game that ended at or after ``since`` (all when None), oldest first, read
        in batches so a dump of millions holds only a batch in memory."""
        ...

    def put_tournament(
        self, tournament_id: str, settled_at: str, record: Mapping[str, str]
    ) -> None:
        """Keep a settled tournament's record (its Redis hash, field -> text, opaque here),
        durably. The same record again is a no-op (a mover resumed after a crash puts
        again); a different record under its id is ``ArchiveConflict``."""
        ...

    def tournament(self, tournament_id: str) -> Mapping[str, str] | None:
        """The archived tournament's record, as put, or None."""
        ...

    def close(self) -> None:
        """Let go of the connection; the object is not used after."""
        ...
