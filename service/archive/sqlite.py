"""The embedded archive: one SQLite file (``floe run`` keeps it in its data folder).

Each process opens the file itself; SQLite's locks let the API and job workers share it.
WAL with ``synchronous=FULL`` makes a commit durable when it returns (the WAL is fsynced),
and lets readers go on while one writer writes; a write waits up to ``BUSY_TIMEOUT_S`` for
another process's write to finish rather than fail at once.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from service.archive.sql import SqlArchive, Statements

#: How long a statement waits for another connection's lock before it gives up.
BUSY_TIMEOUT_S = 30.0


class SqliteArchive(SqlArchive):
    """An ``Archive`` in the SQLite file at ``path`` (created, with its folder, if missing)."""

    BYTES = "BLOB"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        super().__init__()

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        self._conn = conn

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("the archive is closed")
        return self._conn

    @contextlib.contextmanager
    def _begin(self, *, write: bool) -> Iterator[Statements]:
        conn = self._connection()
        # IMMEDIATE takes the write lock up front: a deferred write that meets another
        # writer part way through fails with SQLITE_BUSY instead of waiting its turn.
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield conn.cursor()
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _lock_schema(self, statements: Statements) -> None:
        """Nothing more: the schema's transaction is IMMEDIATE, so already one at a time."""

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
