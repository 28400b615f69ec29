"""The director's decisions on a tournament (``POST /v1/tournaments/{id}/decisions``): read from
the request, checked against the tournament as it stands, and recorded.

Each kind is one entry of ``KINDS``: the fields its request takes, the check that refuses it
(409, with a stable code, and nothing written) and the status it leaves the tournament in.
What happens after it is recorded (a resumed tournament advances, a cancelled one ends its
games) is ``Tournaments``'. Taken now: ``pause`` (no new round is paired; games in progress go
on), ``resume`` and ``cancel`` (the tournament ends: its live games are ended by a ``result``
decision with no winners, and no round is paired again). The contract's ``withdraw``,
``enter`` and ``correct`` (``domain.tournament.decisions``) are not taken yet: they are
refused as ``unknown_decision`` until their entries are added here.

A decision is recorded as ``{"decision", <its fields>, "rounds_paired", "seq", "at",
"reason"}`` (the shape of ``domain.tournament.decisions``' records): ``rounds_paired`` is how
many rounds were paired when it was made, ``seq`` its number (from 1, in order), ``at`` the
service clock's time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.engine.departures import MAX_REASON
from domain.engine.types import JSON
from service.errors import Conflict, InvalidRequest
from service.tournaments.store import StoredTournament, TournamentStatus

#: The contract's decisions that are not taken yet (``unknown_decision`` for now).
NOT_YET = ("withdraw", "enter", "correct")


@dataclass(frozen=True, slots=True)
class DirectorDecision:
    """A decision as the director asked for it: its kind, its own fields and its reason."""

    kind: str
    fields: Mapping[str, Any]
    reason: str

    def record(self, *, rounds_paired: int, seq: int, at: str) -> JSON:
        """The decision as the tournament's record (and its export) keeps it."""
        return {
            "decision": self.kind,
            **self.fields,
            "rounds_paired": rounds_paired,
            "seq": seq,
            "at": at,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of decision: what its request holds besides ``decision`` and ``reason``,
    what refuses it, and the status it leaves (None: unchanged)."""

    fields: frozenset[str]
    check: Callable[[StoredTournament], None]
    status: TournamentStatus | None = None


def _live(stored: StoredTournament) -> None:
    """409 for a tournament that is over: finished, or cancelled."""
    if stored.status == "finished":
        raise Conflict("tournament_finished", "the tournament is finished")
    if stored.status == "cancelled":
        raise Conflict("tournament_cancelled", "the tournament was cancelled")


def _pause(stored: StoredTournament) -> None:
    _live(stored)
    if stored.paused:
        raise Conflict("already_paused", "the tournament is paused already")


def _resume(stored: StoredTournament) -> None:
    _live(stored)
    if not stored.paused:
        raise Conflict("not_paused", "the tournament is not paused")


KINDS: Mapping[str, Kind] = {
    "pause": Kind(frozenset(), _pause),
    "resume": Kind(frozenset(), _resume),
    "cancel": Kind(frozenset(), _live, "cancelled"),
}


def parse(body: object) -> DirectorDecision:
    """The decision a request body states; 400 ``unknown_decision``, ``unexpected_field``,
    ``missing_field`` or ``invalid_field`` (``invalid_body`` for a body that is no object)
    when it states none."""
    if not isinstance(body, Mapping):
        raise InvalidRequest("invalid_body", "a decision is a JSON object")
    kind = body.get("decision")
    if not isinstance(kind, str) or kind not in KINDS:
        later = " (not taken yet)" if kind in NOT_YET else ""
        raise InvalidRequest(
            "unknown_decision",
            f"decision must be one of {sorted(KINDS)}, not {kind!r}{later}",
        )
    expected = KINDS[kind].fields | {"decision", "reason"}
    extra = sorted(set(body) - expected)
    if extra:
        raise InvalidRequest("unexpected_field", f"{kind} takes no field {extra[0]!r}")
    missing = sorted(expected - set(body))
    if missing:
        raise InvalidRequest("missing_field", f"{kind} needs the field {missing[0]!r}")
    reason = body["reason"]
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise InvalidRequest(
            "invalid_field",
            f"reason must be a non-blank string of at most {MAX_REASON} characters",
        )
    own = {name: body[name] for name in sorted(KINDS[kind].fields)}
    return DirectorDecision(kind, own, reason)


def cancel_reason(stored: StoredTournament) -> str | None:
    """The reason of the decision that cancelled the tournament, if one did."""
    for decision in reversed(stored.decisions):
        if decision["decision"] == "cancel":
            return str(decision["reason"])
    return None
