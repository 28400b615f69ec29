"""Which archive a URL names (the archive setting, once the service reads one): the one place a
scheme is read."""

from __future__ import annotations

from pathlib import Path

from service.archive.protocol import Archive, ArchiveError
from service.run.url_secrets import without_secrets

SQLITE_PREFIX = "sqlite:///"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_archive(url: str) -> Archive:
    """Open (creating its schema if need be) the archive at ``url``: ``sqlite:///PATH``
    (``sqlite:////abs/path`` or ``sqlite:///relative/path``, as SQLAlchemy spells it) or
    ``postgresql://USER@HOST/DB``. Anything else is an ``ArchiveError`` naming both forms."""
    if url.startswith(SQLITE_PREFIX) and len(url) > len(SQLITE_PREFIX):
        from service.archive.sqlite import SqliteArchive

        return SqliteArchive(Path(url[len(SQLITE_PREFIX) :]))
    if url.startswith(POSTGRES_SCHEMES):
        from service.archive.postgres import PostgresArchive

        return PostgresArchive(url)
    raise ArchiveError(  # the URL it echoes may hold a password: never the password
        "an archive URL is sqlite:///PATH or postgresql://USER@HOST/DATABASE, "
        f"not {without_secrets(url)!r}"
    )
