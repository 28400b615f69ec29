"""One error family for everything the rules can refuse.

Each error carries a stable ``code`` that clients may branch on, and a ``kind`` that says what
sort of refusal it is; the service maps kinds to HTTP statuses in one place.
"""

from __future__ import annotations

from typing import ClassVar, Literal

ErrorKind = Literal["malformed", "not_allowed", "illegal", "invalid_setup", "out_of_time"]


class Refusal(Exception):
    """A request refused with a stable ``code`` (what clients branch on) and a ``message``
    for people. The domain's refusals (``GameError``) and the service's
    (``service.errors.ServiceError``) are both refusals."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class GameError(Refusal):
    """Base of every refusal by the domain."""

    kind: ClassVar[ErrorKind] = "illegal"


class MalformedAction(GameError):
    """The action does not fit its schema: unknown type, missing or mistyped fields (HTTP 400)."""

    kind = "malformed"


class NotAllowed(GameError):
    """The seat may not act now: not its turn, a draw pending, or the game over (HTTP 403)."""

    kind = "not_allowed"


class IllegalAction(GameError):
    """A well-formed action from a seat that may act, refused by the game's rules (HTTP 422)."""

    kind = "illegal"


class InvalidSetup(GameError):
    """Players or options a game cannot be created with (HTTP 400)."""

    kind = "invalid_setup"


class TimeoutDue(GameError):
    """A clock has run out: the timeouts of ``seats`` are due before anything else may be
    recorded (HTTP 409 ``out_of_time`` for a seat among them; the service records them)."""

    kind = "out_of_time"

    def __init__(self, seats: tuple[int, ...]) -> None:
        listed = ", ".join(str(seat) for seat in seats)
        super().__init__("out_of_time", f"the time of seat {listed} has run out")
        self.seats = seats
