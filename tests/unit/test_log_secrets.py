"""``floe run`` prints the stores it uses; a password in their URLs never reaches its log."""

from __future__ import annotations

import pytest

from service.run.supervisor import without_secrets


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
        ("unix:///tmp/floe/redis.sock", "unix:///tmp/floe/redis.sock"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("sqlite:////var/floe/archive.sqlite3", "sqlite:////var/floe/archive.sqlite3"),
    ],
)
def test_a_store_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert without_secrets(url) == shown
    assert "s3cret" not in without_secrets(url)
