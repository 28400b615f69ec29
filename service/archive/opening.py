"""Which archive a URL names (the archive setting, once the service reads one): the one place a
scheme is read."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from service.archive.protocol import Archive, ArchiveError
from service.run.url_secrets import without_secrets

SQLITE_PREFIX = "sqlite:///"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_archive(url: str) -> Archive:
    """Open (creating its schema if need be) the archive at ``url``: ``sqlite:///PATH``
    (``sqlite:////abs/path`` or ``sqlite:///relative/path``, as SQLAlchemy spells it) or
    ``postgresql://USER@HOST/DB``. Anything else is an ``ArchiveError`` naming both forms;
    so is an archive that cannot be opened (a server that does not answer, a file that
    cannot be made), naming the URL without its password."""
    if url.startswith(SQLITE_PREFIX) and len(url) > len(SQLITE_PREFIX):
        import sqlite3

        from service.archive.sqlite import SqliteArchive

        try:
            return SqliteArchive(Path(url[len(SQLITE_PREFIX) :]))
        except (sqlite3.Error, OSError) as error:
            raise unopened(url, error) from error
    if url.startswith(POSTGRES_SCHEMES):
        import psycopg

        from service.archive.postgres import PostgresArchive

        try:
            return PostgresArchive(url)
        except psycopg.Error as error:
            raise unopened(url, error) from error
    raise ArchiveError(  # the URL it echoes may hold a password: never the password
        "an archive URL is sqlite:///PATH or postgresql://USER@HOST/DATABASE, "
        f"not {without_secrets(url)!r}"
    )


def unopened(url: str, error: Exception) -> ArchiveError:
    """The archive at ``url`` could not be opened: the driver's reason, the URL masked, and
    the password masked in the reason too (libpq repeats a malformed one in its own)."""
    reason = " ".join(str(error).split())  # psycopg's reasons run over several lines
    userinfo = urlsplit(url).netloc.rpartition("@")[0]
    password = userinfo.partition(":")[2]
    for secret in sorted({password, unquote(password)} - {""}, key=len, reverse=True):
        reason = reason.replace(secret, "***")
    return ArchiveError(f"could not open the archive {without_secrets(url)!r}: {reason}")
