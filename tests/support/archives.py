"""The archive back ends the tests run against, each for real: an SQLite file in tmp_path and
a new database on the session's private PostgreSQL (tests/support/postgres.py).

A test module takes the fixtures by naming them at module level (``archive_url =
archives.archive_url``, ``archive = archives.archive`` for the archive opened on it, and
``settings = archives.archive_settings`` for Floe's settings on it); every test asking for
them then runs once per back end.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from service.archive.opening import open_archive
from service.archive.protocol import Archive
from service.settings import Settings
from tests.support.api import ORGANIZER


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.processes)])
def archive_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty archive's URL: an SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'archive.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def archive(archive_url: str) -> Iterator[Archive]:
    """The archive at ``archive_url``, open for the test, closed after."""
    opened = open_archive(archive_url)
    yield opened
    opened.close()


@pytest.fixture
def archive_settings(redis_url: str, archive_url: str, tmp_path: Path) -> Settings:
    """Floe on the test Redis and ``archive_url``, moving a game as soon as it ends, with
    one service key for every API built from them (as every API process of one Floe
    shares it) and no per-creator quotas."""
    return Settings(
        redis_url=redis_url,
        organizer_token=ORGANIZER,
        archive_url=archive_url,
        archive_after_s=0,
        service_key_file=tmp_path / "service.key",
        live_games_per_creator=0,
        bot_games_per_creator=0,
    )
