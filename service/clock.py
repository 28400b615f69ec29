"""The service clock: the only place time is read, so tests can freeze it (freezegun)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], str]


def utc_now() -> str:
    """UTC, ISO-8601, second precision with a ``Z``: the ``at`` of every event."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
