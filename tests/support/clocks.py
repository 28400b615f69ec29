"""A service clock the test moves by hand (``service.clock.Clock``): time passes when the
test says so, never by sleeping."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

START = datetime(2026, 11, 22, 12, 0, 10, tzinfo=UTC)


@dataclass
class ManualClock:
    now: datetime = START

    def __call__(self) -> str:
        return self.now.isoformat().replace("+00:00", "Z")

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
