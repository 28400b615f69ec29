"""The service clock: the only place time is read, so tests can freeze it (freezegun)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], str]


def utc_now() -> str:
    """UTC, ISO-8601, second precision with a ``Z``: the ``at`` of every event."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def parse(at: str) -> datetime:
    """A service-clock time (``2026-11-22T12:00:00Z``) as an aware ``datetime``."""
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


def millis(at: str) -> int:
    """A service-clock time as milliseconds since the epoch."""
    return int(parse(at).timestamp() * 1000)


def later(at: str, seconds: int) -> str:
    """The service-clock time ``seconds`` after ``at``."""
    return (parse(at) + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def epoch_seconds(clock: Clock) -> float:
    """The service clock's now as seconds since the epoch."""
    return parse(clock()).timestamp()
