"""Leaving a game before its rules end it: a resignation, a timeout, an organizer's decision.

Three things end a seat's part in a game from outside its rules, each one event:

- ``resign``, an action any seat still in the game may post at any time, even out of turn.
  It is never a legal action (no list offers it, no bot picks it) and never puts a seat in
  ``to_act``.
- ``timeout`` (a ``system`` event, ``{"seat": n}``), appended by a worker once the seat's
  clock has run out (``domain.engine.clock``).
- ``decision`` (a ``system`` event whose data is the organizer's request as given): a
  ``forfeit`` of one seat, which counts as its resignation, or a ``result`` naming the
  winners, which ends the game with them and ``scores`` ``{}``.

What leaving means is each game's (``Rules.leave``); the engine adds one rule for every
competitive game: when a single seat is left in, it wins at once, as a ``result`` naming it
would have it (``scores`` ``{}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from domain.engine.errors import IllegalAction, MalformedAction, Refusal
from domain.engine.types import JSON

RESIGN = "resign"
TIMEOUT = "timeout"
DECISION = "decision"

#: Why a seat left: a game may treat the two differently (a co-operative one may play on).
LeaveReason = Literal["resigned", "timed_out"]

#: The longest ``reason`` an organizer may give, in characters.
MAX_REASON = 500
#: What a reason must be, said once for every refusal of one (a game's or a tournament's).
REASON_RULE = f"a non-blank string of at most {MAX_REASON} characters"


def is_reason(value: object) -> bool:
    """Whether ``value`` is an organizer's reason (``REASON_RULE``)."""
    return isinstance(value, str) and bool(value.strip()) and len(value) <= MAX_REASON


@dataclass(frozen=True, slots=True)
class Resign:
    """``{"type": "resign"}``: the seat leaves the game."""

    type: ClassVar[str] = RESIGN

    def to_json(self) -> JSON:
        return {"type": RESIGN}

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Resign:
        extra = sorted(set(data) - {"type"})
        if extra:
            raise MalformedAction("unexpected_field", f"resign takes no field {extra[0]!r}")
        return cls()


@dataclass(frozen=True, slots=True)
class Forfeit:
    """The organizer ends ``seat``'s part in the game, as if it had resigned."""

    seat: int
    reason: str
    kind: ClassVar[str] = "forfeit"

    def to_json(self) -> JSON:
        return {"decision": self.kind, "seat": self.seat, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Result:
    """The organizer ends the game with ``winners`` (none: nobody wins) and no scores."""

    winners: tuple[int, ...]
    reason: str
    kind: ClassVar[str] = "result"

    def to_json(self) -> JSON:
        return {"decision": self.kind, "winners": list(self.winners), "reason": self.reason}


OrganizerDecision = Forfeit | Result

_FIELDS: Mapping[str, frozenset[str]] = {
    "forfeit": frozenset({"decision", "seat", "reason"}),
    "result": frozenset({"decision", "winners", "reason"}),
}


def parse_decision(data: object) -> OrganizerDecision:
    """The decision a request body states; ``MalformedAction`` (HTTP 400) when it fits no
    schema: ``unknown_decision``, ``unexpected_field``, ``missing_field``, ``invalid_field``."""
    if not isinstance(data, Mapping):
        raise MalformedAction("invalid_body", "a decision is a JSON object")
    kind = decision_kind(data, _FIELDS, MalformedAction)
    reason = data["reason"]
    if not is_reason(reason):
        raise MalformedAction("invalid_field", f"reason must be {REASON_RULE}")
    if kind == "forfeit":
        return Forfeit(_seat_number(data["seat"], "seat"), reason)
    winners = data["winners"]
    if not isinstance(winners, list):
        raise MalformedAction("invalid_field", "winners must be a list of seat numbers")
    seats = tuple(_seat_number(w, "winners") for w in winners)
    if len(set(seats)) != len(seats):
        raise MalformedAction("invalid_field", "winners names a seat twice")
    return Result(seats, reason)


def decision_kind(
    data: Mapping[str, Any],
    fields: Mapping[str, frozenset[str]],
    error: type[Refusal],
    optional: Mapping[str, frozenset[str]] | None = None,
) -> str:
    """The kind ``data["decision"]`` names, once it is one of ``fields`` and ``data`` has
    exactly that kind's fields (less any of its ``optional`` ones); else ``error``
    ``unknown_decision``, ``unexpected_field`` or ``missing_field``. A game's organizer and
    a tournament's director are refused in the same words, each with its own error class."""
    kind = data.get("decision")
    if not isinstance(kind, str) or kind not in fields:
        raise error("unknown_decision", f"decision must be one of {sorted(fields)}, not {kind!r}")
    expected = fields[kind]
    extra = sorted(set(data) - expected)
    if extra:
        raise error("unexpected_field", f"{kind} takes no field {extra[0]!r}")
    missing = sorted(expected - set(data) - (optional or {}).get(kind, frozenset()))
    if missing:
        raise error("missing_field", f"{kind} needs the field {missing[0]!r}")
    return kind


def _seat_number(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedAction("invalid_field", f"{name} must hold seat numbers (0, 1, ...)")
    return value


def check_seats(decision: OrganizerDecision, seats: int) -> None:
    """``IllegalAction`` ``unknown_seat`` (HTTP 422) for a seat the game does not have."""
    named = (decision.seat,) if isinstance(decision, Forfeit) else decision.winners
    for seat in named:
        if seat >= seats:
            raise IllegalAction("unknown_seat", f"the game has seats 0..{seats - 1}, not {seat}")


def decision_from_json(data: Mapping[str, Any]) -> OrganizerDecision:
    """A stored ``decision`` event's data (already checked when it was made)."""
    if data["decision"] == Forfeit.kind:
        return Forfeit(int(data["seat"]), str(data["reason"]))
    return Result(tuple(int(w) for w in data["winners"]), str(data["reason"]))
