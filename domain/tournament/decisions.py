"""A director's decisions in a running tournament: withdrawing a player, entering one late, and
correcting a game's result.

Each decision is a value with what it decides and four fields every decision has:
``rounds_paired`` (how many rounds had been paired when it was made: it applies from the
pairing of round ``rounds_paired + 1`` on), ``seq`` (its number in the tournament's list of
decisions, from 1, in the order they were made), ``at`` (when, the service clock's ISO time)
and ``reason`` (the director's words: ``domain.engine.departures.REASON_RULE``).

- ``Withdraw(player)``: ``player`` is never paired again (from round ``rounds_paired + 1``);
  they stay in the standings with what they scored. In a round robin, the rounds keep their
  schedule, and whoever would have met them has a bye instead.
- ``Enter(player, name, bot, public_key)``: a new player, swiss only, numbered next (the
  players listed at creation, then those entered, in order). They are paired from round
  ``rounds_paired + 1`` and score nothing for the rounds before (no bye for those). A person
  may be given an Ed25519 ``public_key`` (64 lowercase hex): their seat in every game of
  theirs then carries it, and they sign their moves (``domain.engine.signing``); a bot has
  none. The roster commitment, published at creation, does not cover them: this decision,
  in the export, is what names them and their key. Refused (``DecisionError``) when the
  tournament already lists ``max_players`` (``tournament_full``), or when more than half its
  rounds are paired (``too_late``: ``2 × rounds_paired > rounds``).
- ``Correct(round, table, winners, game_id=...)``: from now on the game of ``round``,
  ``table`` (the game ``game_id``) counts with these winning seats (none: nobody won) for
  points, tie-breaks and later pairings; the game's own log is untouched. Of two corrections
  of one game the later (higher ``seq``) counts. A director names the game by its id; the
  record keeps the id and where it was played, and an audit checks that they agree.

These decisions are rules of version 2 (``domain.tournament.plan``): a tournament of rules
version 1 takes none (``domain.tournament.plan.check_decision``: ``rules_version``).

Who is paired in round ``r`` (``active_players``): the players listed at creation and those
entered by a decision with ``rounds_paired < r``, less those withdrawn by such a decision. A
decision made after round ``r`` was paired never changes round ``r``: an audit pairs each round
with the decisions made before it, exactly as the service did.

The JSON of a decision (``to_json``, ``parse_decision``)::

    {"decision": "withdraw", "player": 3, ...}
    {"decision": "enter", "player": 8, "name": "Eve", "bot": null, ...}
    {"decision": "enter", "player": 9, "name": "Fay", "bot": null, "public_key": "3d40...", ...}
    {"decision": "correct", "game_id": "9f0c...", "round": 2, "table": 1, "winners": [1], ...}

each with ``"rounds_paired"``, ``"seq"``, ``"at"`` and ``"reason"`` in place of the ``...``.
An ``enter`` has ``"public_key"`` only when the player has one, so the record of one without
is what it always was.
``parse_request`` reads what a director sends (the same without ``rounds_paired``, ``seq``,
``at``, an entered player's number, nor a corrected game's ``round`` and ``table``, which the
service fills in: ``{"decision": "correct", "game_id": ..., "winners": [1], "reason": ...}``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any, ClassVar

from domain.engine.departures import REASON_RULE, decision_kind, is_reason
from domain.engine.errors import Refusal
from domain.engine.signing import is_public_key
from domain.engine.types import JSON

#: The longest name of an entered player, in characters (as at creation).
MAX_NAME = 64


class DecisionError(Refusal):
    """A decision that cannot be taken, with a stable ``code``: ``unknown_decision``,
    ``unexpected_field``, ``missing_field``, ``invalid_field`` (its JSON), and
    ``out_of_order``, ``unknown_player``, ``already_withdrawn``, ``too_few_players``,
    ``not_swiss``, ``too_late``, ``tournament_full``, ``name_taken``, ``not_next_player``,
    ``no_such_game``, ``unknown_winner``, ``rules_version`` (against the tournament as it
    stands; ``rules_version``: a tournament of rules version 1 takes none of these decisions)."""


@dataclass(frozen=True, slots=True)
class Withdraw:
    """``player`` is paired no more."""

    player: int
    _: KW_ONLY
    rounds_paired: int
    seq: int = 0
    at: str = ""
    reason: str = ""
    kind: ClassVar[str] = "withdraw"

    def to_json(self) -> JSON:
        return {"decision": self.kind, "player": self.player, **_common(self)}


@dataclass(frozen=True, slots=True)
class Enter:
    """A player entered late, numbered ``player`` (the next number)."""

    player: int
    name: str
    bot: str | None = None
    #: The person's Ed25519 public key (64 lowercase hex), when they sign their moves.
    public_key: str | None = None
    _: KW_ONLY
    rounds_paired: int
    seq: int = 0
    at: str = ""
    reason: str = ""
    kind: ClassVar[str] = "enter"

    def to_json(self) -> JSON:
        body: JSON = {"decision": self.kind, "player": self.player, "name": self.name}
        body["bot"] = self.bot
        if self.public_key is not None:  # only then: a keyless entry reads as it always did
            body["public_key"] = self.public_key
        return {**body, **_common(self)}


@dataclass(frozen=True, slots=True)
class Correct:
    """The game of ``round``, ``table`` (both from 1) counts with ``winners`` (seats)."""

    round: int
    table: int
    winners: tuple[int, ...]
    _: KW_ONLY
    #: The game's id, as the director named it (16 lowercase hex digits).
    game_id: str = ""
    rounds_paired: int
    seq: int = 0
    at: str = ""
    reason: str = ""
    kind: ClassVar[str] = "correct"

    def to_json(self) -> JSON:
        where: JSON = {"decision": self.kind, "game_id": self.game_id}
        where |= {"round": self.round, "table": self.table}
        return {**where, "winners": list(self.winners), **_common(self)}


Decision = Withdraw | Enter | Correct

_COMMON = frozenset({"decision", "rounds_paired", "seq", "at", "reason"})
_STAMPS = frozenset({"rounds_paired", "seq", "at"})
_FIELDS: Mapping[str, frozenset[str]] = {
    "withdraw": _COMMON | {"player"},
    "enter": _COMMON | {"player", "name", "bot", "public_key"},
    "correct": _COMMON | {"game_id", "round", "table", "winners"},
}
#: What a record holds only when it applies: an ``enter``'s key.
_OPTIONAL: Mapping[str, frozenset[str]] = {"enter": frozenset({"public_key"})}
#: What a director leaves out of a ``correct``: the service finds where the game was played.
_LOCATED = frozenset({"round", "table"})
#: What a director sends of each kind: less the stamps the service adds, an entered player's
#: number (the next one) and a correction's ``_LOCATED``.
_REQUESTED: Mapping[str, frozenset[str]] = {
    "withdraw": _FIELDS["withdraw"] - _STAMPS,
    "enter": _FIELDS["enter"] - _STAMPS - {"player"},
    "correct": _FIELDS["correct"] - _STAMPS - _LOCATED,
}
#: What a director may leave out: an entrant's bot and key (a person; no key).
_REQUEST_OPTIONAL: Mapping[str, frozenset[str]] = {"enter": frozenset({"bot", "public_key"})}
_GAME_ID = re.compile(r"[0-9a-f]{16}")


def _common(decision: Decision) -> JSON:
    return {
        "rounds_paired": decision.rounds_paired,
        "seq": decision.seq,
        "at": decision.at,
        "reason": decision.reason,
    }


def parse_decision(data: object) -> Decision:
    """A decision as ``to_json`` writes it (as recorded, or read from an export);
    ``DecisionError`` (``unknown_decision``, ``unexpected_field``, ``missing_field``,
    ``invalid_field``) when it is not one."""
    fields = _fields(data, _FIELDS, _OPTIONAL)
    if "public_key" in fields and fields["public_key"] is None:
        raise DecisionError("invalid_field", "public_key is recorded only when there is one")
    return _build(
        fields,
        rounds_paired=_count(fields["rounds_paired"], "rounds_paired", least=0),
        seq=_count(fields["seq"], "seq", least=1),
        at=_text(fields["at"], "at", 64),
        player=None,
        games=None,
    )


def parse_request(
    data: object,
    *,
    rounds_paired: int,
    seq: int,
    at: str,
    next_player: int,
    games: Mapping[str, tuple[int, int]],
) -> Decision:
    """A decision as a director asks for it: ``{"decision": ..., "reason": ...}`` with the
    fields of its kind, less ``rounds_paired``, ``seq``, ``at`` (given here, as the service
    makes the decision), for ``enter`` ``player`` (``next_player``: the next number), and for
    ``correct`` ``round`` and ``table`` (``games``: the round and table of every game paired,
    by id; ``no_such_game`` for an id it lacks); ``enter``'s ``bot`` and ``public_key`` may
    be left out or null (a person; no key). Same errors as ``parse_decision``."""
    body = dict(_fields(data, _REQUESTED, _REQUEST_OPTIONAL))
    return _build(
        body, rounds_paired=rounds_paired, seq=seq, at=at, player=next_player, games=games
    )


def _fields(
    data: object,
    expected: Mapping[str, frozenset[str]],
    optional: Mapping[str, frozenset[str]],
) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise DecisionError("invalid_field", "a decision is a JSON object")
    decision_kind(data, expected, DecisionError, optional)
    return data


def _build(
    data: Mapping[str, Any],
    *,
    rounds_paired: int,
    seq: int,
    at: str,
    player: int | None,
    games: Mapping[str, tuple[int, int]] | None,
) -> Decision:
    kind = data["decision"]
    reason = data["reason"]
    if not is_reason(reason):
        raise DecisionError("invalid_field", f"reason must be {REASON_RULE}")
    if kind == "withdraw":
        player = _count(data["player"], "player", least=0)
        return Withdraw(player, rounds_paired=rounds_paired, seq=seq, at=at, reason=reason)
    if kind == "enter":
        number = _count(data["player"], "player", least=0) if player is None else player
        name = _text(data["name"], "name", MAX_NAME)
        if not name.strip():
            raise DecisionError("invalid_field", "name must not be blank")
        bot = data.get("bot")
        if bot is not None:
            bot = _text(bot, "bot", MAX_NAME)
        key = data.get("public_key")
        if key is not None and not is_public_key(key):
            raise DecisionError("invalid_field", "public_key is 64 lowercase hex digits")
        if key is not None and bot is not None:
            raise DecisionError("invalid_field", "a bot signs nothing: no public_key")
        return Enter(
            number, name, bot, key, rounds_paired=rounds_paired, seq=seq, at=at, reason=reason
        )
    winners = data["winners"]
    if not isinstance(winners, list):
        raise DecisionError("invalid_field", "winners must be a list of seat numbers")
    seats = tuple(_count(w, "winners", least=0) for w in winners)
    if len(set(seats)) != len(seats):
        raise DecisionError("invalid_field", "winners names a seat twice")
    game_id = data["game_id"]
    if not isinstance(game_id, str) or _GAME_ID.fullmatch(game_id) is None:
        raise DecisionError("invalid_field", "game_id must be a game's id (16 lowercase hex)")
    if games is None:
        round_ = _count(data["round"], "round", least=1)
        table = _count(data["table"], "table", least=1)
    elif game_id in games:
        round_, table = games[game_id]
    else:
        raise DecisionError("no_such_game", f"no game {game_id} is paired in this tournament")
    return Correct(
        round_,
        table,
        tuple(sorted(seats)),
        game_id=game_id,
        rounds_paired=rounds_paired,
        seq=seq,
        at=at,
        reason=reason,
    )


def _count(value: object, name: str, *, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise DecisionError("invalid_field", f"{name} must be a whole number from {least}")
    return value


def _text(value: object, name: str, longest: int) -> str:
    if not isinstance(value, str) or len(value) > longest:
        raise DecisionError("invalid_field", f"{name} must be a string of at most {longest}")
    return value


# ----- what the decisions make of the tournament ----------------------------------------------


def made_before(decisions: Iterable[Decision], round_: int) -> list[Decision]:
    """The decisions that apply to the pairing of round ``round_`` (those made before it was
    paired: ``rounds_paired < round_``), in ``seq`` order."""
    return sorted((d for d in decisions if d.rounds_paired < round_), key=lambda d: d.seq)


def listed_players(starting: int, decisions: Iterable[Decision]) -> int:
    """How many players the tournament lists: ``starting`` and every one entered since."""
    return starting + sum(1 for d in decisions if isinstance(d, Enter))


def withdrawn(decisions: Iterable[Decision]) -> set[int]:
    """The players ``decisions`` withdraw."""
    return {d.player for d in decisions if isinstance(d, Withdraw)}


def active_players(starting: int, decisions: Iterable[Decision], round_: int) -> list[int]:
    """The players paired in round ``round_``: listed by then, not withdrawn by then."""
    before = made_before(decisions, round_)
    gone = withdrawn(before)
    return [p for p in range(listed_players(starting, before)) if p not in gone]
