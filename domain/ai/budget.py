"""How long one bot decision may think: a deadline, checked cooperatively by the search.

Time never chooses a move. A search that reaches its deadline raises ``BotTimedOut`` and
returns nothing: its half-built tree is thrown away, never played, and nothing else (no
weaker policy, no random move) is played in its place. A search that finishes in time
returns what it would have returned with no bound at all. So a bound changes only whether a
move is made, never which one, and the same game, seed and actions still give the same
events on any machine.

The domain reads no clock: the caller hands one in (the service passes ``time.monotonic``,
tests a fake), with the deadline on that clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


class BotTimedOut(Exception):
    """The bot did not decide within its budget: no move was chosen."""

    def __init__(self, seconds: float | None) -> None:
        within = "its budget" if seconds is None else f"{seconds:g} s"
        super().__init__(f"did not decide within {within}")
        self.seconds = seconds


@dataclass(frozen=True, slots=True)
class Budget:
    """A deadline on ``clock`` (a monotonic clock, in seconds); ``UNBOUNDED`` has none."""

    #: The bound, for messages; None when unbounded.
    seconds: float | None = None
    #: When, on ``clock``, the decision must have been made.
    deadline: float | None = None
    clock: Callable[[], float] | None = None

    @classmethod
    def of(cls, seconds: float, clock: Callable[[], float]) -> Budget:
        """``seconds`` from now on ``clock``."""
        return cls(seconds, clock() + seconds, clock)

    @property
    def bounded(self) -> bool:
        return self.deadline is not None and self.clock is not None

    def check(self) -> None:
        """Raise ``BotTimedOut`` once the deadline has passed (cheap: one clock read)."""
        if self.deadline is not None and self.clock is not None and self.clock() >= self.deadline:
            raise BotTimedOut(self.seconds)


#: No deadline: the search runs its iterations and playouts to the end, however long.
UNBOUNDED = Budget()
