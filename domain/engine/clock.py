"""Game clocks, computed from the log's times and nothing else.

A clock is chosen when a game is created and recorded in ``game_created`` exactly as given:
``{"kind": "fischer", "initial_s", "increment_s"}`` (a bank per seat, plus the increment after
each of its actions) or ``{"kind": "per_move", "move_s"}`` (each turn has ``move_s``).

The arithmetic reads only the ``at`` of stored events, in whole seconds, so the service, the
audit and anyone with an export compute the same deadlines:

- A seat's turn starts at the ``at`` of the event after which it is to act and was not
  before, and at its own action's ``at`` when it is still to act after that action.
- A turn ends at the seat's own next action, which charges the time used (and, with
  ``fischer``, adds the increment), or when the seat stops being to act without acting
  (another seat's move, a draw it waits for, its timeout), which charges the time used.
  While a draw is pending nobody is to act, so no clock runs.
- ``per_move`` refills to ``move_s`` at every turn's start.
- A running seat's deadline is its turn's start plus what it had then; an event at ``at`` is
  on time for the seat when ``at <= deadline``, and its timeout is due when ``at > deadline``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from domain.engine.errors import InvalidSetup

ClockKind = Literal["fischer", "per_move"]

#: The bounds of every clock field, in seconds (30 days).
MIN_SECONDS = 1
MAX_SECONDS = 2_592_000

#: The fields each kind takes, besides ``kind``.
FIELDS: Mapping[str, tuple[str, ...]] = {
    "fischer": ("initial_s", "increment_s"),
    "per_move": ("move_s",),
}


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """The clock a game is played with; ``increment_s`` is 0 and unused for ``per_move``."""

    kind: ClockKind
    #: ``fischer``: each seat's bank at the start; ``per_move``: the time for every turn.
    allowance_s: int
    increment_s: int = 0

    @classmethod
    def from_json(cls, data: object) -> ClockSpec:
        """The clock a request names; ``InvalidSetup`` ``invalid_clock`` (HTTP 400) if off."""
        if not isinstance(data, Mapping):
            raise _invalid("clock must be an object")
        kind = data.get("kind")
        if not isinstance(kind, str) or kind not in FIELDS:
            raise _invalid(f"clock kind must be one of {sorted(FIELDS)}, not {kind!r}")
        expected = FIELDS[kind]
        extra = sorted(set(data) - {"kind", *expected})
        if extra:
            raise _invalid(f"a {kind} clock takes no field {extra[0]!r}")
        values = [_seconds_field(data, kind, name) for name in expected]
        if kind == "fischer":
            return cls("fischer", values[0], values[1])
        return cls("per_move", values[0])

    def to_json(self) -> dict[str, Any]:
        """The clock as ``game_created`` records it (the request's own fields)."""
        if self.kind == "fischer":
            return {
                "kind": "fischer",
                "initial_s": self.allowance_s,
                "increment_s": self.increment_s,
            }
        return {"kind": "per_move", "move_s": self.allowance_s}


def _seconds_field(data: Mapping[str, Any], kind: str, name: str) -> int:
    if name not in data:
        raise _invalid(f"a {kind} clock needs the field {name!r}")
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid(f"clock {name} must be an integer, not {value!r}")
    if not MIN_SECONDS <= value <= MAX_SECONDS:
        raise _invalid(f"clock {name} must be {MIN_SECONDS}..{MAX_SECONDS} seconds, not {value}")
    return value


def _invalid(message: str) -> InvalidSetup:
    return InvalidSetup("invalid_clock", message)


#: A stored event's time: UTC, whole seconds.
TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z")
DAY = 86_400


def epoch_seconds(at: str) -> int:
    """A stored event's ``at`` (``2026-11-27T18:00:05Z``) as seconds since
    1970-01-01T00:00:00Z; ``ValueError`` for anything else. Plain arithmetic (the domain
    reads no clock and needs no calendar library)."""
    found = TIME.fullmatch(at)
    if found is None:
        raise ValueError(f"not a time like 2026-11-27T18:00:05Z: {at!r}")
    year, month, day, hour, minute, second = map(int, found.groups())
    if not (1 <= month <= 12 and 1 <= day <= _days_in(year, month)):
        raise ValueError(f"no such date: {at!r}")
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"no such time of day: {at!r}")
    return _days_from_civil(year, month, day) * DAY + hour * 3600 + minute * 60 + second


def iso(seconds: int) -> str:
    """``epoch_seconds``' inverse, in the log's own form."""
    days, rest = divmod(seconds, DAY)
    year, month, day = _civil_from_days(days)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}Z"


def _days_in(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """``_days_from_civil``'s inverse."""
    days += 719_468
    era = days // 146_097
    day_of_era = days - era * 146_097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted + 2) // 5 + 1
    month = shifted + (3 if shifted < 10 else -9)
    return year_of_era + era * 400 + (month <= 2), month, day


@dataclass(frozen=True, slots=True)
class SeatClock:
    """One seat's clock: what it has left and, while it is to act, when its turn started."""

    remaining_s: int
    #: The turn's start (epoch seconds) while the seat is to act; None otherwise.
    since: int | None = None

    @property
    def deadline(self) -> int | None:
        """The last second (epoch) at which the seat may still act; None when not to act."""
        return None if self.since is None else self.since + self.remaining_s

    def charged(self, at: int) -> int:
        """What is left after the time used from the turn's start to ``at``."""
        assert self.since is not None
        return max(0, self.remaining_s - (at - self.since))


@dataclass(frozen=True, slots=True)
class Clocks:
    """Every seat's clock after some event of a game played with ``spec``."""

    spec: ClockSpec
    seats: tuple[SeatClock, ...]

    @classmethod
    def start(cls, spec: ClockSpec, seats: int, at: int, to_act: Sequence[int]) -> Clocks:
        """The clocks after ``game_created`` (at ``at``), with ``to_act`` to act."""
        idle = cls(spec, tuple(SeatClock(spec.allowance_s) for _ in range(seats)))
        return idle.after(at, None, to_act)

    def after(self, at: int, actor: int | None, to_act: Sequence[int]) -> Clocks:
        """The clocks after an event at ``at`` by ``actor`` (a seat, or None for the system),
        after which ``to_act`` are to act."""
        spec = self.spec
        seats = list(self.seats)
        for seat, clock in enumerate(seats):
            acting = seat == actor and clock.since is not None
            to_act_now = seat in to_act
            if acting:
                left = clock.charged(at)
                if spec.kind == "fischer":
                    left += spec.increment_s
                clock = SeatClock(left)
            elif clock.since is not None and not to_act_now:
                clock = SeatClock(clock.charged(at))
            if to_act_now and clock.since is None:
                allowance = spec.allowance_s if spec.kind == "per_move" else clock.remaining_s
                clock = SeatClock(allowance, since=at)
            seats[seat] = clock
        return replace(self, seats=tuple(seats))

    def deadline(self, seat: int) -> int | None:
        return self.seats[seat].deadline

    def overdue(self, at: int) -> tuple[int, ...]:
        """Seats whose deadline has passed by ``at`` (their timeouts are due), ascending."""
        return tuple(
            seat
            for seat, clock in enumerate(self.seats)
            if clock.since is not None and at > clock.since + clock.remaining_s
        )

    def next_deadline(self) -> int | None:
        """The earliest deadline of any seat to act, if any: when the next timeout is due
        (a second later)."""
        deadlines = [d for clock in self.seats if (d := clock.deadline) is not None]
        return min(deadlines, default=None)

    def to_json(self) -> dict[str, dict[str, Any]]:
        """The API's ``clock``: per seat, what it had at its turn's start (or after its last
        action) and, while it is to act, its deadline."""
        return {
            str(seat): {
                "remaining_s": clock.remaining_s,
                "deadline": None if clock.deadline is None else iso(clock.deadline),
            }
            for seat, clock in enumerate(self.seats)
        }
