"""An audit of one game's log that trusts nothing in it.

Checked, event by event, stopping at the first failure: the line is a stored event with
exactly DESIGN.md's fields; versions run 1..N; ``prev_hash`` links to the previous ``hash``
and every hash recomputes; event 1 is a ``game_created`` our rules accept; every action is
re-decided by the rules in the state before it (so it was legal and had the logged effect);
every ``random`` event is the draw the game awaited and its outcome recomputes from the
revealed seed; ``game_over`` is exactly what the rules conclude, when they conclude it; and
``seed_revealed`` ends the log with the seed the first event committed to.

A log that passes every check but stops before ``seed_revealed`` is ``incomplete``: honest
so far, but its random outcomes cannot be checked without the seed, and it has no result.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from domain.engine import play, rng
from domain.engine.errors import GameError
from domain.engine.log import GENESIS_HASH, event_hash, event_of
from domain.engine.types import (
    GAME_CREATED,
    GAME_OVER,
    RANDOM,
    SEED_REVEALED,
    SYSTEM,
    Event,
    GameCreated,
    GameState,
)
from domain.games import GAMES

Status = Literal["ok", "incomplete", "failed"]
FIELDS = frozenset(
    {"game_id", "version", "type", "data", "actor", "at", "command_id", "prev_hash", "hash"}
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The audit's answer for one game: ``version`` and ``reason`` name the first failure."""

    game_id: str | None
    status: Status
    events: int
    version: int | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        where = "" if self.version is None else f" at version {self.version}"
        why = "" if self.reason is None else f": {self.reason}"
        return f"{self.game_id or '?'}: {self.status}{where}{why} ({self.events} events)"


class Broken(Exception):
    """The first thing wrong with a log."""

    def __init__(self, version: int | None, reason: str) -> None:
        super().__init__(reason)
        self.version = version
        self.reason = reason


def verify_lines(lines: Iterable[str]) -> Verdict:
    """Audit an export file's lines (one stored event per line)."""
    events: list[Any] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except ValueError:
            return Verdict(None, "failed", len(events), number, "a line is not JSON")
    return verify(events)


def verify(events: list[Any]) -> Verdict:
    """Audit a game's stored events, in log order."""
    game_id = _game_id(events)
    try:
        complete = _audit(events)
    except Broken as broken:
        return Verdict(game_id, "failed", len(events), broken.version, broken.reason)
    return Verdict(game_id, "ok" if complete else "incomplete", len(events))


def _audit(events: list[Any]) -> bool:
    if not events:
        raise Broken(None, "the log is empty")
    _check_envelopes(events)
    first = events[0]
    created = _created(first)
    rules = GAMES[created.game].rules
    seed = _revealed_seed(events, created)
    state: GameState[Any] = play.fold(rules, first["game_id"], [event_of(first)])
    owed: list[Event] = []  # system events the rules say must come next
    for stored in events[1:]:
        version, event = stored["version"], event_of(stored)
        if owed:
            if event != owed[0]:
                raise Broken(version, f"the rules call for {owed[0].type} here, not {event.type}")
            owed.pop(0)
        elif event.type == SEED_REVEALED:
            raise Broken(version, "seed_revealed before the game is over")
        elif event.type == GAME_OVER:
            raise Broken(version, "game_over where the rules do not end the game")
        elif event.type == RANDOM:
            owed = _check_draw(rules, state, stored, seed)[1:]
        elif event.type == GAME_CREATED or event.actor == SYSTEM:
            raise Broken(version, f"{event.type} is not an event the log may hold here")
        else:
            owed = _check_action(rules, state, stored)[1:]
        if event.type == GAME_OVER:
            owed = [Event(SEED_REVEALED, SYSTEM, {"seed": seed.hex() if seed else None})]
        state = play.apply(rules, state, event)
        if event.type == SEED_REVEALED and stored is not events[-1]:
            raise Broken(version + 1, "events follow seed_revealed")
    if owed and owed[0].type == GAME_OVER:
        return False  # cut off just before the end it was owed: honest but incomplete
    return state.seed is not None


def _check_envelopes(events: list[Any]) -> None:
    """Shape, versions, one game id, and the hash chain, before any rule is consulted."""
    prev = GENESIS_HASH
    game_id = events[0].get("game_id") if isinstance(events[0], dict) else None
    for index, stored in enumerate(events):
        expected = index + 1
        if not isinstance(stored, dict) or set(stored) != FIELDS:
            raise Broken(expected, "not a stored event with exactly DESIGN.md's fields")
        version = stored["version"]
        if type(version) is not int or version != expected:
            raise Broken(expected, f"version {version!r} where {expected} belongs")
        if stored["game_id"] != game_id:
            raise Broken(expected, "an event of another game")
        if stored["prev_hash"] != prev:
            raise Broken(expected, "prev_hash does not link to the previous event's hash")
        if not isinstance(stored["hash"], str) or event_hash(stored) != stored["hash"]:
            raise Broken(expected, "the hash does not match the event")
        if (stored["actor"] == SYSTEM) != (stored["command_id"] is None):
            raise Broken(expected, "system events, and only they, have no command_id")
        prev = stored["hash"]


def _created(first: Mapping[str, Any]) -> GameCreated:
    if first["type"] != GAME_CREATED or first["actor"] != SYSTEM:
        raise Broken(1, "the first event is not game_created")
    data = first["data"]
    try:
        created = GameCreated.from_json(data)
    except (KeyError, TypeError, ValueError):
        raise Broken(
            1, "game_created lacks game, rules_version, options, seats or commitment"
        ) from None
    game = GAMES.get(created.game)
    if game is None:
        raise Broken(1, f"unknown game {created.game!r}")
    rules = game.rules
    if created.rules_version != rules.rules_version:
        raise Broken(1, f"rules version {created.rules_version!r} is not supported")
    try:
        rules.initial_board(created)
    except GameError as error:
        raise Broken(1, f"the rules refuse this setup: {error.code}") from None
    return created


def _revealed_seed(events: list[Any], created: GameCreated) -> bytes | None:
    """The seed, if the log ends by revealing it (checked against the commitment)."""
    last = events[-1]
    if last["type"] != SEED_REVEALED:
        return None
    try:
        seed = bytes.fromhex(str(last["data"]["seed"]))
    except (KeyError, TypeError, ValueError):
        raise Broken(last["version"], "seed_revealed holds no hex seed") from None
    if hashlib.sha256(seed).hexdigest() != created.seed_commitment:
        raise Broken(last["version"], "the revealed seed does not match its commitment")
    return seed


def _check_action(rules: Any, state: GameState[Any], stored: Mapping[str, Any]) -> list[Event]:
    version = stored["version"]
    data = stored["data"]
    if (
        not isinstance(data, dict)
        or set(data) != {"action"}
        or not isinstance(data["action"], dict)
    ):
        raise Broken(version, "an action event's data is exactly {'action': {...}}")
    if data["action"].get("type") != stored["type"]:
        raise Broken(version, "the event type is not the action's type")
    if type(stored["actor"]) is not int:
        raise Broken(version, "an action's actor is a seat number")
    try:
        action = rules.parse_action(data["action"])
        decided, _ = play.step(rules, state, stored["actor"], action)
    except GameError as error:
        reason = f"illegal {stored['type']} by seat {stored['actor']}: {error.code}"
        raise Broken(version, reason) from None
    if decided[0] != event_of(stored):
        raise Broken(version, "the action is not written as the rules write it")
    return decided


def _check_draw(
    rules: Any, state: GameState[Any], stored: Mapping[str, Any], seed: bytes | None
) -> list[Event]:
    version, data = stored["version"], stored["data"]
    draw = rules.pending_draw(state.board)
    if draw is None:
        raise Broken(version, "a random event where the game awaits no draw")
    expected = {"label": draw.label, "kind": draw.kind, "n": draw.n}
    if not isinstance(data, dict) or {k: data.get(k) for k in expected} != expected:
        raise Broken(version, f"the game awaits {expected}, not this draw")
    if set(data) != {*expected, "outcome"}:
        raise Broken(version, "a random event's data is exactly label, kind, n and outcome")
    if seed is not None:
        outcome = rng.draw(seed, stored["game_id"], version, draw.label, draw.kind, draw.n)
        if outcome != data["outcome"]:
            raise Broken(version, f"the {draw.label} outcome does not follow from the seed")
    elif not _well_formed(draw.kind, draw.n, data["outcome"]):
        raise Broken(version, f"the {draw.label} outcome is not a possible {draw.kind}")
    try:
        return play.resolve_draw(rules, state, data["outcome"])
    except (ValueError, GameError, IndexError, KeyError, TypeError):
        raise Broken(version, "the rules cannot use this outcome") from None


def _well_formed(kind: str, n: int, outcome: Any) -> bool:
    if kind == "uniform":
        return type(outcome) is int and 0 <= outcome < n
    if not isinstance(outcome, list) or sorted(outcome) != list(range(n)):
        return False
    return kind == "shuffle" or all(outcome[i] != i for i in range(n))


def _game_id(events: list[Any]) -> str | None:
    if events and isinstance(events[0], dict) and isinstance(events[0].get("game_id"), str):
        return str(events[0]["game_id"])
    return None
