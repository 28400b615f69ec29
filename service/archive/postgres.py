"""The shared archive: a PostgreSQL database, for many API machines (psycopg 3).

Each archive object holds one connection (opened again in a forked child), used by one
thread at a time; an API process therefore costs the server one connection. A ``put`` is
one transaction committed with ``synchronous_commit`` on whatever the server's default, so
it is on disk (and on any synchronous standby) when ``put`` returns. Schema creation takes
a transaction-scoped advisory lock, so processes starting together create it once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import psycopg

from service.archive.sql import SqlArchive, Statements

#: The advisory lock key that serialises schema creation (any constant; "floe" in ASCII).
SCHEMA_LOCK = 0x666C6F65
#: Seconds to wait for the server when connecting.
CONNECT_TIMEOUT_S = 10


class PostgresArchive(SqlArchive):
    """An ``Archive`` in the PostgreSQL database ``url`` names (``postgresql://…``)."""

    BYTES = "BYTEA"

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None
        super().__init__()

    def _open(self) -> None:
        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        conn.execute("SET synchronous_commit TO on")
        self._conn = conn

    def _connection(self) -> psycopg.Connection[tuple[object, ...]]:
        if self._conn is None:
            raise RuntimeError("the archive is closed")
        if self._conn.closed:  # the server went away: connect again for this transaction
            self._open()
            assert self._conn is not None
        return self._conn

    @contextlib.contextmanager
    def _begin(self, *, write: bool) -> Iterator[Statements]:
        conn = self._connection()
        with conn.transaction(), conn.cursor() as cursor:
            yield cursor

    def _lock_schema(self, statements: Statements) -> None:
        statements.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))

    def _sql(self, query: str) -> str:
        return query.replace("?", "%s")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
