"""``floe run`` prints the stores it uses, and the errors name the URL they refuse; a password
in any of them never reaches a log or an error (``service/run/url_secrets.py``)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from service.archive.opening import open_archive
from service.archive.protocol import ArchiveError
from service.redis.connect import connect
from service.run.supervisor import run
from service.run.url_secrets import without_secrets
from service.settings import Settings

#: A form the settings refuse (SQLAlchemy's driver suffix), with a password in it.
REFUSED_ARCHIVE = "postgresql+psycopg://floe:s3cret@db/floe"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:s3cret@10.0.0.1:6379/0", "redis://:***@10.0.0.1:6379/0"),
        ("rediss://floe:s3cret@redis.example:6380", "rediss://floe:***@redis.example:6380"),
        (
            "redis://u:s3cret@h1:7000,redis://u:s3cret@[::1]:7001",
            "redis://u:***@h1:7000,redis://u:***@[::1]:7001",
        ),
        ("postgresql://floe:s3cret@db/floe", "postgresql://floe:***@db/floe"),
        (REFUSED_ARCHIVE, "postgresql+psycopg://floe:***@db/floe"),
        ("unix:///tmp/floe/redis.sock", "unix:///tmp/floe/redis.sock"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("redis://floe@h:6379", "redis://floe@h:6379"),
        ("sqlite:////var/floe/archive.sqlite3", "sqlite:////var/floe/archive.sqlite3"),
    ],
)
def test_a_store_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert without_secrets(url) == shown
    assert "s3cret" not in without_secrets(url)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis//u:s3cret@h", "redis//u:***@h"),  # no netloc: urllib sees no password
        ("redis:u:s3cret@h:6379", "redis:***@h:6379"),
        ("redis://u:s3/cret@h:6379/0", "redis://u:***@h:6379/0"),  # a / the host would end
        ("redis://u:s3cret@h:port", "redis://u:***@h:port"),  # a port that is no number
        ("redis://u:s3@cret@h", "redis://u:***@h"),  # an @ in the password
        ("redis://[::1:s3cret@h", "redis://[:***@h"),  # an IPv6 host never closed
        ("u:s3cret@h", "u:***@h"),
        # a quote is a legal character of a password: it must not split the URL in two
        ("redis://u:pa'ss@h:6379/0", "redis://u:***@h:6379/0"),
        ('"redis://u:pa\'ss@h:6379/0"', '"redis://u:***@h:6379/0"'),  # as repr quotes it
        ('redis://:s3cr"et@h:1', "redis://:***@h:1"),
    ],
)
def test_a_url_urllib_cannot_read_is_masked_by_its_shape(url: str, shown: str) -> None:
    assert without_secrets(url) == shown


def test_a_message_quoting_urls_keeps_all_but_their_passwords() -> None:
    message = f"REDIS_URL 'redis//u:s3cret@h' and {REFUSED_ARCHIVE}, mail ann@example.com"
    assert without_secrets(message) == (
        "REDIS_URL 'redis//u:***@h' and postgresql+psycopg://floe:***@db/floe, mail ann@example.com"
    )


def test_the_setting_that_refuses_an_archive_url_does_not_echo_its_password() -> None:
    with pytest.raises(ValueError, match="FLOE_ARCHIVE_URL") as refused:
        Settings.from_env({"FLOE_ARCHIVE_URL": REFUSED_ARCHIVE})
    assert "s3cret" not in str(refused.value)
    assert "postgresql+psycopg://floe:***@db/floe" in str(refused.value)


def test_an_archive_that_cannot_be_opened_does_not_echo_its_password() -> None:
    with pytest.raises(ArchiveError) as refused:
        open_archive("mysql://floe:s3cret@db/floe")
    assert "s3cret" not in str(refused.value)
    assert "mysql://floe:***@db/floe" in str(refused.value)


def test_a_cluster_node_that_is_no_url_does_not_echo_its_password() -> None:
    settings = Settings(
        redis_url="redis//u:s3cret@h", queue_url="redis://127.0.0.1:1", redis_cluster=True
    )
    with pytest.raises(ValueError, match="REDIS_URL") as refused:
        connect(settings)
    assert "s3cret" not in str(refused.value)


def test_floe_run_refusing_an_archive_url_prints_it_masked(tmp_path: Path) -> None:
    """The error ``floe run`` prints before it starts anything (what its process prints)."""
    out = io.StringIO()
    env = {"FLOE_ARCHIVE_URL": REFUSED_ARCHIVE}
    assert run(["--data-dir", str(tmp_path)], environ=env, out=out) == 2
    assert "FLOE_ARCHIVE_URL" in out.getvalue()
    assert "s3cret" not in out.getvalue()
    assert "floe:***@db" in out.getvalue()
