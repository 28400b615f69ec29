"""The director's decisions on a tournament (``POST /v1/tournaments/{id}/decisions``): read from
the request, checked against the tournament as it stands, and recorded.

Two families share one route and one record:

- the decisions about the tournament itself, each one entry of ``KINDS`` (the check that
  refuses it and the status it leaves): ``pause`` (no new round is paired; games in progress
  go on), ``resume`` and ``cancel`` (the tournament ends: its live games are ended by a
  ``result`` decision with no winners, and no round is paired again);
- the decisions that change pairings and standings, ``EFFECTS``: ``withdraw``, ``enter`` and
  ``correct``, whose shape and rules are the domain's (``domain.tournament.decisions``), so
  the service and the audit apply one set of rules.

``take`` reads a request against the tournament as it stands: 400 for a body that states no
decision (``unknown_decision``, ``unexpected_field``, ``missing_field``, ``invalid_field``),
409 with the domain's code when the tournament refuses it, nothing written either way. What
happens after a decision is recorded (a resumed tournament advances, a cancelled one ends its
games, a withdrawn player's game is forfeited) is ``Tournaments``'.

A decision is recorded as ``{"decision", <its fields>, "rounds_paired", "seq", "at",
"reason"}``: ``rounds_paired`` is how many rounds were paired when it was made, ``seq`` its
number (from 1, in order), ``at`` the service clock's time.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.ai import POLICIES
from domain.engine.departures import REASON_RULE, is_reason
from domain.engine.types import JSON
from domain.tournament.decisions import (
    Decision,
    DecisionError,
    Enter,
    parse_decision,
    parse_request,
)
from domain.tournament.plan import Plan, check_decision
from domain.tournament.rounds import Round
from service.errors import Conflict, InvalidRequest
from service.tournaments.store import StoredTournament, TournamentStatus

#: The decisions that change pairings and standings (``domain.tournament.decisions``).
EFFECTS = ("withdraw", "enter", "correct")
#: The domain's codes for a request that states no decision (400); its others are 409.
MALFORMED = frozenset({"unknown_decision", "unexpected_field", "missing_field", "invalid_field"})


@dataclass(frozen=True, slots=True)
class Kind:
    """One decision about the tournament itself: what refuses it, and the status it leaves
    (None: unchanged)."""

    check: Callable[[StoredTournament], None]
    status: TournamentStatus | None = None


def check_live(stored: StoredTournament) -> None:
    """409 for a tournament that is over: finished, or cancelled."""
    if stored.status == "finished":
        raise Conflict("tournament_finished", "the tournament is finished")
    if stored.status == "cancelled":
        raise Conflict("tournament_cancelled", "the tournament was cancelled")


def _pause(stored: StoredTournament) -> None:
    check_live(stored)
    if stored.paused:
        raise Conflict("already_paused", "the tournament is paused already")


def _resume(stored: StoredTournament) -> None:
    check_live(stored)
    if not stored.paused:
        raise Conflict("not_paused", "the tournament is not paused")


KINDS: Mapping[str, Kind] = {
    "pause": Kind(_pause),
    "resume": Kind(_resume),
    "cancel": Kind(check_live, "cancelled"),
}
#: Every decision a director may take, for the messages.
ALL = (*EFFECTS, *KINDS)


@dataclass(frozen=True, slots=True)
class AsItStands:
    """What a decision is checked against: the tournament as stored, its plan, the names of
    the players listed at creation, its rounds paired, the game ids of those rounds (id ->
    round, table) and the effective decisions taken so far."""

    stored: StoredTournament
    plan: Plan
    names: Sequence[str]
    rounds: Sequence[Round]
    games: Mapping[str, tuple[int, int]]
    effects: Sequence[Decision]
    players: int


@dataclass(frozen=True, slots=True)
class Taken:
    """A decision ready to record: its record, its effect (``EFFECTS`` only) and the status
    it leaves (None: unchanged)."""

    record: JSON
    effect: Decision | None = None
    status: TournamentStatus | None = None

    @property
    def kind(self) -> str:
        return str(self.record["decision"])


def take(body: object, now: AsItStands, at: str) -> Taken:
    """The decision ``body`` states, checked against the tournament as it stands ``now``."""
    if not isinstance(body, Mapping):
        raise InvalidRequest("invalid_body", "a decision is a JSON object")
    kind = body.get("decision")
    stored = now.stored
    seq = len(stored.decisions) + 1
    if isinstance(kind, str) and kind in KINDS:
        reason = _plain(body, kind)
        KINDS[kind].check(stored)
        record = {"decision": kind, "rounds_paired": stored.made, "seq": seq, "at": at}
        return Taken({**record, "reason": reason}, status=KINDS[kind].status)
    if not isinstance(kind, str) or kind not in EFFECTS:
        raise InvalidRequest(
            "unknown_decision", f"decision must be one of {', '.join(ALL)}, not {kind!r}"
        )
    try:
        decision = parse_request(
            body,
            rounds_paired=stored.made,
            seq=seq,
            at=at,
            next_player=now.players,
            games=now.games,
        )
    except DecisionError as error:
        raise _refusal(error) from None
    if isinstance(decision, Enter):
        _check_entrant(decision)
    check_live(stored)
    try:
        check_decision(now.plan, now.names, now.rounds, now.effects, decision)
    except DecisionError as error:
        raise _refusal(error) from None
    return Taken(decision.to_json(), decision)


def _plain(body: Mapping[str, Any], kind: str) -> str:
    """The reason of a decision with no other field; 400 for anything else in it."""
    extra = sorted(set(body) - {"decision", "reason"})
    if extra:
        raise InvalidRequest("unexpected_field", f"{kind} takes no field {extra[0]!r}")
    if "reason" not in body:
        raise InvalidRequest("missing_field", f"{kind} needs the field 'reason'")
    reason = body["reason"]
    if not is_reason(reason):
        raise InvalidRequest("invalid_field", f"reason must be {REASON_RULE}")
    return str(reason)


def _check_entrant(entered: Enter) -> None:
    """400 ``invalid_field`` for a name people cannot read or a bot Floe does not have,
    as at creation."""
    if any(unicodedata.category(char) in {"Cc", "Cs"} for char in entered.name):
        raise InvalidRequest("invalid_field", "name may not contain control characters")
    if entered.bot is not None and entered.bot not in POLICIES:
        raise InvalidRequest("invalid_field", f"bot is one of {', '.join(POLICIES)}, or null")


def _refusal(error: DecisionError) -> InvalidRequest | Conflict:
    if error.code in MALFORMED:
        return InvalidRequest(error.code, error.message)
    return Conflict(error.code, error.message)


def effects(stored: StoredTournament) -> list[Decision]:
    """The recorded decisions that change pairings and standings, in order."""
    return [parse_decision(d) for d in stored.decisions if d["decision"] in EFFECTS]


def cancel_reason(stored: StoredTournament) -> str | None:
    """The reason of the decision that cancelled the tournament, if one did."""
    for decision in reversed(stored.decisions):
        if decision["decision"] == "cancel":
            return str(decision["reason"])
    return None
