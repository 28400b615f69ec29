"""Line 1 of a tournament export, read into typed values and trusting nothing.

Every field is checked for its type and shape here, so that the audit's checks work on a
``Manifest`` whose values are what they claim to be (though none of them believed yet).

Fields a manifest holds only when they apply (``OPTIONAL_MANIFEST_FIELDS``; a manifest written
before they existed has none of them, and reads as it always did):

- ``rules_version``: the tournament's rules (``domain.tournament.plan``), ``"1"`` or ``"2"``;
  absent: ``"1"``, the rules of every tournament made before versions were written. Any other
  value is an unknown tournament rules version, and nothing that depends on the rules is
  checked.
- ``tiebreaks`` (a list of tie-break names; version 2 only; absent: the default ones),
  ``max_players`` (a whole number; absent: the players listed) and ``ratings`` (one whole
  number per player listed, or null; absent: none): the plan's, as ``Plan.of`` takes them.
- ``clock``: the clock every game was to be played with.
- ``round_start``: ``"auto"``, ``"manual"`` or ``{"after_s": N}`` (N whole seconds, 1 to
  86400); recorded, not otherwise checked (it says when rounds were made, not what they are).
- ``roster_commitment``: the SHA-256 hex of the players listed at creation
  (``domain.tournament.commitments.roster_commitment``), published beside ``commitment``;
  absent for a tournament made before rosters were committed.
- ``decisions``: the director's decisions, in the order made, each an object with
  ``decision``, ``rounds_paired`` (a whole number), ``seq`` (1, 2, ... in list order), ``at``
  (an ISO 8601 time with its offset, ``Z`` for UTC) and ``reason`` (a non-blank string of at
  most 500 characters), and the fields of its kind: ``withdraw``, ``enter`` and ``correct`` as
  ``domain.tournament.decisions.parse_decision`` reads them (version 2 only: they change the
  pairings and standings), ``pause``, ``resume`` and ``cancel`` with no other field.

``players`` are the players listed at creation, numbered from 0, each ``player``, ``name``,
``bot`` and, only for a person who signs their moves, ``public_key`` (64 lowercase hex, an
Ed25519 key; none for a bot); a player entered later by an ``enter`` decision is named by that
decision only (its ``public_key`` too), and numbered after them (the decision's ``player``).
A published standing has ``player``, ``name``, ``points`` and ``buchholz``; at version 2 also,
optionally, ``place`` (``"3"``, or ``"3-4"`` when shared) and ``tiebreaks`` (an object: each of
the tournament's tie-breaks by name, its value a number as points are written).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from domain.engine.departures import REASON_RULE, is_reason
from domain.engine.signing import is_public_key
from domain.games import GAMES
from domain.tournament import export
from domain.tournament.decisions import (
    Decision,
    DecisionError,
    Enter,
    parse_decision,
)
from domain.tournament.plan import RULES_VERSIONS, Plan, PlanError
from domain.tournament.standings import Standing, as_json_number
from replay.tournament.wrong import Wrong, quote

#: Every manifest's fields (``domain.tournament.export``: the list the service writes too).
MANIFEST_FIELDS = frozenset(export.MANIFEST_FIELDS)
#: Fields a manifest holds only when they apply (module docstring).
OPTIONAL_MANIFEST_FIELDS = frozenset(export.OPTIONAL_MANIFEST_FIELDS)
PLAYER_FIELDS = frozenset({"player", "name", "bot"})
#: A listed player's field only when it applies (a person who signs).
PLAYER_KEY = "public_key"
ROUND_FIELDS = frozenset({"round", "byes", "games"})
GAME_FIELDS = frozenset({"game_id", "table", "players", "outcome"})
STANDING_FIELDS = frozenset({"player", "name", "points", "buchholz"})
#: A version 2 standing's fields besides ``STANDING_FIELDS``, when published.
STANDING_EXTRAS = frozenset({"place", "tiebreaks"})
#: The decisions that change nothing the audit recomputes: only their shape is checked.
RECORDED_ONLY = ("pause", "resume", "cancel")
DECISION_KINDS = ("withdraw", "enter", "correct", *RECORDED_ONLY)
DECISION_STAMPS = frozenset({"decision", "rounds_paired", "seq", "at", "reason"})
#: The longest ``{"after_s": N}`` of ``round_start``, in seconds (a day).
MAX_AFTER_S = 86_400

ID = re.compile(r"[0-9a-f]{16}")
SHA256 = re.compile(r"[0-9a-f]{64}")
#: A number as ``as_json_number`` writes it: an integer, or ``a/b`` (checked in lowest terms).
NUMBER = re.compile(r"(0|[1-9][0-9]{0,30})(?:/([1-9][0-9]{0,30}))?")
PLACE = re.compile(r"[1-9][0-9]{0,2}(-[1-9][0-9]{0,2})?")
TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?(Z|[+-][0-9]{2}:[0-9]{2})"
)


@dataclass(frozen=True, slots=True)
class Listed:
    """A game as the manifest lists it."""

    round: int
    table: int
    game_id: str
    players: tuple[int, ...]
    outcome: dict[str, Any] | None

    @property
    def name(self) -> str:
        return f"round {self.round} table {self.table} (game {self.game_id})"


@dataclass(frozen=True, slots=True)
class ListedRound:
    number: int
    byes: tuple[int, ...]
    games: tuple[Listed, ...]


@dataclass(frozen=True, slots=True)
class Recorded:
    """A director's decision as the manifest lists it: its kind and stamps, and, for those
    that change pairings or standings (withdraw, enter, correct), the domain's decision."""

    kind: str
    seq: int
    rounds_paired: int
    at: str
    effect: Decision | None = None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        """The decision as the manifest records it."""
        if self.effect is not None:
            return dict(self.effect.to_json())
        stamps = {"rounds_paired": self.rounds_paired, "seq": self.seq, "at": self.at}
        return {"decision": self.kind, **stamps, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Manifest:
    """Line 1, read and typed (none of it believed yet). A part that is malformed is None
    where the other checks can go on without it."""

    id: str
    game: str
    plan: Plan
    options: dict[str, Any]
    players: tuple[tuple[str, str | None], ...]  # (name, bot) by player number
    rounds: tuple[ListedRound, ...]
    commitment: str | None
    seed_commitments: tuple[str, ...] | None
    standings: tuple[Standing, ...] | None
    #: The clock every game was to be played with, as created (None: no clock).
    clock: dict[str, Any] | None = None
    #: When rounds were made: ``"auto"``, ``"manual"`` or ``{"after_s": N}``.
    round_start: str | dict[str, int] = "auto"
    #: The director's decisions, in order.
    decisions: tuple[Recorded, ...] = ()
    #: The commitment to the players listed at creation; None when line 1 has none or a
    #: malformed one (``roster_committed`` says which).
    roster_commitment: str | None = None
    #: Whether line 1 has a ``roster_commitment`` at all: a tournament made before rosters
    #: were committed has none.
    roster_committed: bool = False
    #: The public key of each player listed at creation, by number (None: they sign nothing).
    keys: tuple[str | None, ...] = ()

    @property
    def effects(self) -> tuple[Decision, ...]:
        """The decisions that change pairings or standings, in order."""
        return tuple(d.effect for d in self.decisions if d.effect is not None)

    @property
    def everyone(self) -> tuple[tuple[str, str | None], ...]:
        """(name, bot) by player number: the players listed, then those entered since."""
        entered = [(d.name, d.bot) for d in self.effects if isinstance(d, Enter)]
        return (*self.players, *entered)

    @property
    def everyone_keys(self) -> tuple[str | None, ...]:
        """Each player's public key by number (None: none), as ``everyone`` lists them."""
        listed = (*self.keys, *(None,) * (len(self.players) - len(self.keys)))
        entered = [d.public_key for d in self.effects if isinstance(d, Enter)]
        return (*listed[: len(self.players)], *entered)

    @property
    def roster(self) -> tuple[tuple[str, str | None, str | None], ...]:
        """The players listed at creation as the roster commitment covers them: ``(name,
        bot, public_key)`` in entry order."""
        return tuple(
            (name, bot, key)
            for (name, bot), key in zip(self.players, self.everyone_keys, strict=False)
        )

    @property
    def cancelled(self) -> Recorded | None:
        """The decision that cancelled the tournament, if one did."""
        return next((d for d in self.decisions if d.kind == "cancel"), None)


def read_manifest(value: Any) -> tuple[Manifest | None, list[str]]:
    """Line 1's manifest, or None when what the checks need is malformed; and every problem
    found in it, each ``"line 1: where: why"``."""
    problems: list[str] = []

    def part(read: Callable[[], Any]) -> Any:
        try:
            return read()
        except Wrong as wrong:
            problems.append(f"line 1: {wrong}")
            return None
        except PlanError as error:
            problems.append(f"line 1: {error}")
            return None

    try:
        if not isinstance(value, dict) or set(value) != {"tournament"}:
            raise Wrong("line 1", 'not {"tournament": {...}}')
        raw = value["tournament"]
        optional = set(raw) & OPTIONAL_MANIFEST_FIELDS if isinstance(raw, dict) else set()
        body = _object(raw, MANIFEST_FIELDS | optional, "tournament")
    except Wrong as wrong:
        return None, [str(wrong) if wrong.where == "line 1" else f"line 1: {wrong}"]
    id_ = part(lambda: _matching(body["id"], ID, "id", "16 lowercase hex digits"))
    game = part(lambda: _game(body["game"]))
    options = part(lambda: _object(body["options"], None, "options"))
    clock = part(lambda: _object(body["clock"], None, "clock")) if "clock" in body else None
    start = part(lambda: _round_start(body["round_start"])) if "round_start" in body else None
    part(lambda: _string(body["created_at"], "created_at"))
    commitment = part(
        lambda: _matching(body["commitment"], SHA256, "commitment", "64 lowercase hex digits")
    )
    seeds = part(lambda: _seed_commitments(body["seed_commitments"]))
    roster = None
    if "roster_commitment" in body:
        roster = part(
            lambda: _matching(
                body["roster_commitment"], SHA256, "roster_commitment", "64 lowercase hex digits"
            )
        )
    listed = part(lambda: _players(body["players"]))
    players = None if listed is None else tuple((name, bot) for name, bot, _ in listed)
    version = part(lambda: _rules_version(body.get("rules_version", "1")))
    decisions = None
    if version is not None:
        decisions = part(lambda: _decisions(body.get("decisions", []), version))
    plan = None
    if players is not None and version is not None:
        plan = part(lambda: _plan(body, len(players), version))
    rounds = None
    if players is not None and decisions is not None:
        count = len(players) + sum(isinstance(d.effect, Enter) for d in decisions)
        rounds = part(lambda: _rounds(body["rounds"], count))
    tiebreaks = None if plan is None else plan.tiebreaks
    published = part(lambda: _standings(body["standings"], version, tiebreaks))
    if id_ is None or game is None or options is None or players is None:
        return None, problems
    if plan is None or rounds is None or decisions is None:
        return None, problems
    manifest = Manifest(
        id_,
        game,
        plan,
        options,
        players,
        rounds,
        commitment,
        seeds,
        published,
        clock,
        "auto" if start is None else start,
        decisions,
        roster,
        "roster_commitment" in body,
        tuple(key for _, _, key in listed),
    )
    return manifest, problems


def _object(value: Any, fields: frozenset[str] | None, where: str) -> dict[str, Any]:
    """A JSON object (with exactly ``fields``, when given)."""
    if not isinstance(value, dict):
        raise Wrong(where, f"not an object but {_kind(value)}")
    if fields is not None and set(value) != fields:
        missing = ", ".join(sorted(fields - set(value))) or "none"
        extra = ", ".join(sorted(quote(str(k), 40) for k in set(value) - fields)) or "none"
        why = f"not exactly the fields of the format (missing: {missing}; extra: {extra})"
        raise Wrong(where, why)
    return value


def _int(value: Any, where: str) -> int:
    if type(value) is not int:
        raise Wrong(where, f"not an integer but {_kind(value)}")
    return value


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise Wrong(where, f"not a string but {_kind(value)}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise Wrong(where, f"not an array but {_kind(value)}")
    return value


def _matching(value: Any, pattern: re.Pattern[str], where: str, what: str) -> str:
    text = _string(value, where)
    if not pattern.fullmatch(text):
        raise Wrong(where, f"{quote(text)} is not {what}")
    return text


def _game(value: Any) -> str:
    game = _string(value, "game")
    if game not in GAMES:
        raise Wrong("game", f"{quote(game)} is not a game Floe hosts")
    return game


def _seed_commitments(value: Any) -> tuple[str, ...]:
    items = _list(value, "seed_commitments")
    return tuple(
        _matching(c, SHA256, f"seed_commitments[{i}]", "64 lowercase hex digits")
        for i, c in enumerate(items)
    )


def _players(value: Any) -> tuple[tuple[str, str | None, str | None], ...]:
    """``(name, bot, public_key)`` by player number."""
    players = []
    for number, item in enumerate(_list(value, "players")):
        where = f"players[{number}]"
        keyed = isinstance(item, dict) and PLAYER_KEY in item
        player = _object(item, PLAYER_FIELDS | ({PLAYER_KEY} if keyed else set()), where)
        if _int(player["player"], f"{where}.player") != number:
            raise Wrong(f"{where}.player", f"{player['player']} where {number} belongs")
        name = _string(player["name"], f"{where}.name")
        bot = player["bot"]
        if bot is not None:
            bot = _string(bot, f"{where}.bot")
        key = player.get(PLAYER_KEY)
        if keyed and not is_public_key(key):
            shown = quote(key) if isinstance(key, str) else _kind(key)
            why = f"{shown} is not a public key (64 lowercase hex digits)"
            raise Wrong(f"{where}.public_key", why)
        if key is not None and bot is not None:
            raise Wrong(f"{where}.public_key", "a bot signs nothing: it has no public key")
        players.append((name, bot, key))
    return tuple(players)


def _rules_version(value: Any) -> str:
    version = _string(value, "rules_version")
    if version not in RULES_VERSIONS:
        raise Wrong(
            "rules_version",
            f"unknown tournament rules version {quote(version, 40)} (this verifier knows "
            f"{', '.join(RULES_VERSIONS)})",
        )
    return version


def _plan(body: dict[str, Any], players: int, version: str) -> Plan:
    format_ = _string(body["format"], "format")
    table_size = _int(body["table_size"], "table_size")
    rounds = _int(body["planned_rounds"], "planned_rounds")
    most = _int(body["max_players"], "max_players") if "max_players" in body else None
    ratings = None
    if body.get("ratings") is not None:
        listed = _list(body["ratings"], "ratings")
        ratings = [_int(r, f"ratings[{i}]") for i, r in enumerate(listed)]
    tiebreaks = None
    if "tiebreaks" in body:
        listed = _list(body["tiebreaks"], "tiebreaks")
        tiebreaks = [_string(t, f"tiebreaks[{i}]") for i, t in enumerate(listed)]
    return Plan.of(
        format_,
        players,
        table_size,
        rounds,
        max_players=most,
        ratings=ratings,
        tiebreaks=tiebreaks,
        rules_version=version,
    )


def _round_start(value: Any) -> str | dict[str, int]:
    if value in ("auto", "manual") and isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"after_s"}:
        after = value["after_s"]
        if type(after) is int and 1 <= after <= MAX_AFTER_S:
            return {"after_s": after}
    why = f'not "auto", "manual" nor {{"after_s": N}} with N whole seconds, 1 to {MAX_AFTER_S}'
    raise Wrong("round_start", why)


def _decisions(value: Any, version: str) -> tuple[Recorded, ...]:
    """The director's decisions, each of its kind's shape, numbered 1, 2, ... in order."""
    recorded: list[Recorded] = []
    for index, item in enumerate(_list(value, "decisions")):
        where = f"decisions[{index}]"
        if not isinstance(item, dict):
            raise Wrong(where, f"not an object but {_kind(item)}")
        kind = item.get("decision")
        if not isinstance(kind, str) or kind not in DECISION_KINDS:
            shown = quote(str(kind), 40)
            raise Wrong(f"{where}.decision", f"{shown} is none of {', '.join(DECISION_KINDS)}")
        if kind in RECORDED_ONLY:
            _object(item, DECISION_STAMPS, where)
            rounds_paired = _int(item["rounds_paired"], f"{where}.rounds_paired")
            if rounds_paired < 0:
                raise Wrong(f"{where}.rounds_paired", f"{rounds_paired} is below 0")
            seq = _int(item["seq"], f"{where}.seq")
            at = _string(item["at"], f"{where}.at")
            reason = _string(item["reason"], f"{where}.reason")
            if not is_reason(reason):
                raise Wrong(f"{where}.reason", f"not {REASON_RULE}")
            recorded.append(Recorded(kind, seq, rounds_paired, at, reason=reason))
        else:
            try:
                effect = parse_decision(item)
            except DecisionError as error:
                raise Wrong(where, f"{error.code}: {error.message}") from None
            if version == "1":
                why = f"a tournament of rules version 1 takes no {kind} decision"
                raise Wrong(where, why)
            recorded.append(
                Recorded(kind, effect.seq, effect.rounds_paired, effect.at, effect, effect.reason)
            )
        this = recorded[-1]
        if this.seq != index + 1:
            why = f"{this.seq} where {index + 1} belongs (decisions are numbered from 1, in order)"
            raise Wrong(f"{where}.seq", why)
        _time(this.at, f"{where}.at")
    return tuple(recorded)


def _time(text: str, where: str) -> None:
    """An ISO 8601 time with its offset (``2026-05-02T12:00:00Z``), one that exists."""
    valid = TIME.fullmatch(text) is not None
    if valid:
        try:
            datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            valid = False
    if not valid:
        raise Wrong(where, f"{quote(text, 40)} is not a time (2026-05-02T12:00:00Z)")


def _player_numbers(value: Any, players: int, where: str) -> tuple[int, ...]:
    numbers = tuple(_int(p, f"{where}[{i}]") for i, p in enumerate(_list(value, where)))
    for i, number in enumerate(numbers):
        if not 0 <= number < players:
            raise Wrong(f"{where}[{i}]", f"no player {number} (players are 0..{players - 1})")
    if len(set(numbers)) != len(numbers):
        raise Wrong(where, "a player is listed twice")
    return numbers


def _rounds(value: Any, players: int) -> tuple[ListedRound, ...]:
    rounds = []
    for index, item in enumerate(_list(value, "rounds")):
        where = f"rounds[{index}]"
        round_ = _object(item, ROUND_FIELDS, where)
        number = _int(round_["round"], f"{where}.round")
        if number != index + 1:
            raise Wrong(f"{where}.round", f"{number} where {index + 1} belongs")
        byes = _player_numbers(round_["byes"], players, f"{where}.byes")
        games = []
        for place, entry in enumerate(_list(round_["games"], f"{where}.games")):
            at = f"{where}.games[{place}]"
            game = _object(entry, GAME_FIELDS, at)
            table = _int(game["table"], f"{at}.table")
            if table != place + 1:
                raise Wrong(f"{at}.table", f"{table} where {place + 1} belongs")
            game_id = _matching(game["game_id"], ID, f"{at}.game_id", "16 lowercase hex digits")
            seated = _player_numbers(game["players"], players, f"{at}.players")
            outcome = game["outcome"]
            if outcome is not None:
                outcome = _object(outcome, None, f"{at}.outcome")
            games.append(Listed(number, table, game_id, seated, outcome))
        rounds.append(ListedRound(number, byes, tuple(games)))
    return tuple(rounds)


def _standings(
    value: Any, version: str | None, tiebreaks: tuple[str, ...] | None
) -> tuple[Standing, ...]:
    """The published standings; ``tiebreaks``: the plan's (None when it cannot be read)."""
    rows = []
    for index, item in enumerate(_list(value, "standings")):
        where = f"standing {index + 1}"
        extras = set(item) & STANDING_EXTRAS if isinstance(item, dict) and version != "1" else set()
        row = _object(item, STANDING_FIELDS | extras, where)
        player = _int(row["player"], f"{where}: player")
        name = _string(row["name"], f"{where}: name")
        points = _number(row["points"], f"{where}: points")
        buchholz = _number(row["buchholz"], f"{where}: buchholz")
        place = ""
        if "place" in row:
            place = _matching(row["place"], PLACE, f"{where}: place", 'a place ("3", or "3-4")')
        values: tuple[Fraction, ...] = ()
        if "tiebreaks" in row and tiebreaks is not None:
            shown = _object(row["tiebreaks"], None, f"{where}: tiebreaks")
            if set(shown) != set(tiebreaks):
                listed = ", ".join(tiebreaks) or "none"
                raise Wrong(f"{where}: tiebreaks", f"not the tournament's tie-breaks ({listed})")
            values = tuple(_number(shown[t], f"{where}: tiebreaks: {t}") for t in tiebreaks)
        rows.append(Standing(player, name, points, buchholz, place, values))
    return tuple(rows)


def _number(value: Any, where: str) -> Fraction:
    """A points or Buchholz string, exactly as ``as_json_number`` writes it."""
    text = _string(value, where)
    match = NUMBER.fullmatch(text)
    number = None
    if match is not None:
        number = Fraction(int(match[1]), int(match[2] or 1))
    if number is None or as_json_number(number) != text:
        why = "is not a number as the format writes one (an integer, or a/b in lowest terms)"
        raise Wrong(where, f"{quote(text)} {why}")
    return number


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    if value is None:
        return "null"
    return names.get(type(value), "an array" if isinstance(value, list) else "an object")
