"""The archive in SQL, once for both back ends: the schema, the statements and the rows'
encoding. SQLite and PostgreSQL differ only in how they connect, lock and spell a byte
column (``sqlite.py``, ``postgres.py``); everything a query means is here.

A game is one row of ``archived_games`` (its summary as plain, indexed columns; its meta
record as JSON text; its export as one zstandard frame with the export's SHA-256 beside it)
and one row per seat in ``archived_players`` (carrying ``ended_at`` so a player's games come
off one index in order). A settled tournament is one row of ``archived_tournaments``: its
Redis hash as JSON text, opaque here. ``archive_meta`` holds the schema version.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Protocol

import zstandard

from service.archive.cursor import decode_cursor, encode_cursor
from service.archive.protocol import (
    ArchiveConflict,
    ArchivedGame,
    ArchivedSummary,
    ArchiveError,
    Page,
    check_time,
)

#: The schema this code reads and writes; an archive of another version is refused on open.
SCHEMA_VERSION = 1
#: zstandard's default level: a tenth of the export's size for a few ms of one worker's CPU.
COMPRESSION_LEVEL = 3
#: Games read per query by ``games_since``: a dump holds one batch in memory.
BATCH = 100
#: The most one search page may hold (the API asks for less).
MAX_LIMIT = 1000

_SUMMARY = "game_id, game, names, tournament, created_at, ended_at, outcome, version, last_hash"
_GAME = _SUMMARY + ", record, export_sha256, export_zst"


class Statements(Protocol):
    """The part of a DB-API cursor used here (sqlite3's and psycopg's both fit)."""

    @property
    def rowcount(self) -> int: ...

    def execute(self, query: Any, params: Sequence[Any] = ..., /) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class SqlArchive(ABC):
    """An ``Archive`` over one DB-API connection per process, used by one thread at a time
    (a lock): the transactions are a few short statements, and one connection per object
    keeps a busy API's connection count at its process count."""

    #: How the back end spells a column of bytes.
    BYTES: ClassVar[str]

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._inherited: list[object] = []
        self._open()
        self._create_schema()

    # -- what a back end provides ---------------------------------------------------------

    @abstractmethod
    def _open(self) -> None:
        """Connect (again): called on first use and in a forked child."""

    @abstractmethod
    def _connection(self) -> object:
        """The live connection (kept, never closed, by a forked child: closing it there
        would close the parent's)."""

    @abstractmethod
    def _begin(self, *, write: bool) -> contextlib.AbstractContextManager[Statements]:
        """A transaction, committed (durably) when the block ends without an exception."""

    @abstractmethod
    def _lock_schema(self, statements: Statements) -> None:
        """Keep two processes from creating the schema at once."""

    def _sql(self, query: str) -> str:
        """``query`` in the driver's parameter style (written here with ``?``)."""
        return query

    # -- the protocol ---------------------------------------------------------------------

    def put(self, game: ArchivedGame) -> None:
        digest = hashlib.sha256(game.export).hexdigest()
        frame = zstandard.ZstdCompressor(level=COMPRESSION_LEVEL).compress(game.export)
        with self._transaction(write=True) as run:
            run.execute(
                self._sql(
                    f"INSERT INTO archived_games ({_GAME})"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (game_id) DO NOTHING"
                ),
                (
                    game.game_id,
                    game.game,
                    _json(list(game.names)),
                    game.tournament,
                    game.created_at,
                    game.ended_at,
                    _json(game.outcome),
                    game.version,
                    game.last_hash,
                    _json(game.record),
                    digest,
                    frame,
                ),
            )
            if run.rowcount == 1:
                for seat, name in enumerate(game.names):
                    run.execute(
                        self._sql(
                            "INSERT INTO archived_players (game_id, seat, name, ended_at)"
                            " VALUES (?, ?, ?, ?)"
                        ),
                        (game.game_id, seat, name, game.ended_at),
                    )
                return
            run.execute(
                self._sql("SELECT export_sha256 FROM archived_games WHERE game_id = ?"),
                (game.game_id,),
            )
            (kept,) = run.fetchone()
        if kept != digest:
            raise ArchiveConflict(
                f"game {game.game_id} is archived already, with a different export"
            )

    def get(self, game_id: str) -> ArchivedGame | None:
        with self._transaction(write=False) as run:
            run.execute(
                self._sql(f"SELECT {_GAME} FROM archived_games WHERE game_id = ?"), (game_id,)
            )
            row = run.fetchone()
        return None if row is None else self._game(row)

    def summary(self, game_id: str) -> ArchivedSummary | None:
        with self._transaction(write=False) as run:
            run.execute(
                self._sql(f"SELECT {_SUMMARY} FROM archived_games WHERE game_id = ?"),
                (game_id,),
            )
            row = run.fetchone()
        return None if row is None else _summary(row)

    def has(self, game_id: str) -> bool:
        with self._transaction(write=False) as run:
            run.execute(self._sql("SELECT 1 FROM archived_games WHERE game_id = ?"), (game_id,))
            return run.fetchone() is not None

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
        if not 1 <= limit <= MAX_LIMIT:
            raise ValueError(f"limit must be 1 to {MAX_LIMIT}: {limit}")
        where: list[str] = []
        params: list[Any] = []
        if player is not None:
            where.append("game_id IN (SELECT game_id FROM archived_players WHERE name = ?)")
            params.append(player)
        for column, value in (("game", game), ("tournament", tournament)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if before is not None:
            where.append("ended_at < ?")
            params.append(check_time(before, "before"))
        if after is not None:
            where.append("ended_at > ?")
            params.append(check_time(after, "after"))
        if cursor is not None:
            where.append("(ended_at, game_id) < (?, ?)")
            params.extend(decode_cursor(cursor))
        query = f"SELECT {_SUMMARY} FROM archived_games"
        if where:
            query += " WHERE " + " AND ".join(where)
        query += " ORDER BY ended_at DESC, game_id DESC LIMIT ?"
        with self._transaction(write=False) as run:
            run.execute(self._sql(query), (*params, limit + 1))
            rows = run.fetchall()
        games = tuple(_summary(row) for row in rows[:limit])
        more = len(rows) > limit
        return Page(games, encode_cursor(games[-1].ended_at, games[-1].game_id) if more else None)

    def games_since(self, since: str | None = None) -> Iterator[ArchivedGame]:
        last = (check_time(since, "since") if since else "", "")
        while True:
            with self._transaction(write=False) as run:
                run.execute(
                    self._sql(
                        f"SELECT {_GAME} FROM archived_games WHERE (ended_at, game_id) > (?, ?)"
                        " ORDER BY ended_at, game_id LIMIT ?"
                    ),
                    (*last, BATCH),
                )
                rows = run.fetchall()
            for row in rows:
                yield self._game(row)
            if len(rows) < BATCH:
                return
            last = (rows[-1][5], rows[-1][0])

    def put_tournament(
        self, tournament_id: str, settled_at: str, record: Mapping[str, str]
    ) -> None:
        text = _json(dict(record))
        with self._transaction(write=True) as run:
            run.execute(
                self._sql(
                    "INSERT INTO archived_tournaments (tournament_id, settled_at, record)"
                    " VALUES (?, ?, ?) ON CONFLICT (tournament_id) DO NOTHING"
                ),
                (tournament_id, check_time(settled_at, "settled_at"), text),
            )
            if run.rowcount == 1:
                return
            run.execute(
                self._sql("SELECT record FROM archived_tournaments WHERE tournament_id = ?"),
                (tournament_id,),
            )
            (kept,) = run.fetchone()
        if kept != text:
            raise ArchiveConflict(
                f"tournament {tournament_id} is archived already, with a different record"
            )

    def tournament(self, tournament_id: str) -> Mapping[str, str] | None:
        with self._transaction(write=False) as run:
            run.execute(
                self._sql("SELECT record FROM archived_tournaments WHERE tournament_id = ?"),
                (tournament_id,),
            )
            row = run.fetchone()
        if row is None:
            return None
        return {str(name): str(value) for name, value in json.loads(row[0]).items()}

    # -- the machinery --------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Statements]:
        with self._lock:
            if os.getpid() != self._pid:  # forked: this process needs a connection of its own
                self._inherited.append(self._connection())
                self._pid = os.getpid()
                self._open()
            with self._begin(write=write) as run:
                yield run

    def _create_schema(self) -> None:
        with self._transaction(write=True) as run:
            self._lock_schema(run)
            run.execute(
                "CREATE TABLE IF NOT EXISTS archive_meta"
                " (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            run.execute(self._sql("SELECT value FROM archive_meta WHERE key = ?"), ("schema",))
            row = run.fetchone()
            if row is not None and int(row[0]) != SCHEMA_VERSION:
                raise ArchiveError(
                    f"the archive's schema is version {row[0]}; this floe knows {SCHEMA_VERSION}"
                )
            for statement in self._schema():
                run.execute(statement)
            if row is None:
                run.execute(
                    self._sql("INSERT INTO archive_meta (key, value) VALUES (?, ?)"),
                    ("schema", str(SCHEMA_VERSION)),
                )

    def _schema(self) -> tuple[str, ...]:
        return (
            "CREATE TABLE IF NOT EXISTS archived_games ("
            " game_id TEXT PRIMARY KEY,"
            " game TEXT NOT NULL,"
            " names TEXT NOT NULL,"
            " tournament TEXT,"
            " created_at TEXT NOT NULL,"
            " ended_at TEXT NOT NULL,"
            " outcome TEXT NOT NULL,"
            " version BIGINT NOT NULL,"
            " last_hash TEXT NOT NULL,"
            " record TEXT NOT NULL,"
            " export_sha256 TEXT NOT NULL,"
            f" export_zst {self.BYTES} NOT NULL)",
            "CREATE INDEX IF NOT EXISTS archived_games_ended ON archived_games (ended_at, game_id)",
            "CREATE INDEX IF NOT EXISTS archived_games_game"
            " ON archived_games (game, ended_at, game_id)",
            "CREATE INDEX IF NOT EXISTS archived_games_tournament"
            " ON archived_games (tournament, ended_at, game_id)",
            "CREATE TABLE IF NOT EXISTS archived_players ("
            " game_id TEXT NOT NULL REFERENCES archived_games (game_id),"
            " seat INTEGER NOT NULL,"
            " name TEXT NOT NULL,"
            " ended_at TEXT NOT NULL,"
            " PRIMARY KEY (game_id, seat))",
            "CREATE INDEX IF NOT EXISTS archived_players_name"
            " ON archived_players (name, ended_at, game_id)",
            # Added at schema version 1 still: no archive without it exists outside tests,
            # and an archive opened again gains it here.
            "CREATE TABLE IF NOT EXISTS archived_tournaments ("
            " tournament_id TEXT PRIMARY KEY,"
            " settled_at TEXT NOT NULL,"
            " record TEXT NOT NULL)",
        )

    @staticmethod
    def _game(row: Sequence[Any]) -> ArchivedGame:
        export = zstandard.ZstdDecompressor().decompress(bytes(row[11]))
        if hashlib.sha256(export).hexdigest() != row[10]:
            raise ArchiveError(f"game {row[0]}'s archived export does not match its digest")
        return ArchivedGame(
            **{name: getattr(_summary(row), name) for name in ArchivedSummary.__dataclass_fields__},
            record=json.loads(row[9]),
            export=export,
        )


def _summary(row: Sequence[Any]) -> ArchivedSummary:
    return ArchivedSummary(
        game_id=row[0],
        game=row[1],
        names=tuple(json.loads(row[2])),
        tournament=row[3],
        created_at=row[4],
        ended_at=row[5],
        outcome=json.loads(row[6]),
        version=int(row[7]),
        last_hash=row[8],
    )
