"""An audit of one game's log that trusts nothing in it.

Checked, event by event, stopping at the first failure: the line is a stored event with
exactly the nine fields of docs/reference/format.md; versions run 1..N; ``prev_hash`` links to the
previous ``hash`` and every hash recomputes; event 1 is a ``game_created`` our rules accept;
every action is re-decided by the rules in the state before it (so it was legal and had the
logged effect); every ``random`` event is the draw the game awaited and its outcome
recomputes from the revealed seed; ``game_over`` is exactly what the rules conclude, when
they conclude it; and ``seed_revealed`` ends the log with the seed the first event committed
to.

Every action of a seat ``game_created`` gives a ``public_key`` must carry that key's
signature (``domain.engine.signing.action_message``: the game, the version before the event
and the action), so not even the host holding the seed can replace the player's move, however
it re-plays and re-hashes the rest; an action of a seat without a key carries none. A
person's seat without a key is *unsigned*: its moves rest on the host's word, and every
verdict names such seats.

Every move of a bot seat is made again (``replay.bots``: the seat's kind, the state before it
and its ``bot-<seat>`` stream of the revealed seed) and must be the logged move; a person's
seat never is. ``bot_replay=False`` skips that (the verdict says so), and a log that reveals
no seed cannot be replayed (the verdict says that too, and nothing fails for it).

A game with a clock is checked against it too (``domain.engine.clock``): every ``at`` is a
time in the log's own form, never earlier than the one before; every clock is recomputed from
those times; every action and decision comes by its deadlines (an action after its seat's
deadline fails, and so does any event at a time when some seat's timeout was already due but
is missing); every ``timeout`` names a seat to act whose deadline had passed; every
``decision`` is a well-formed forfeit or result. ``resign`` is re-decided like any action.

A log that passes every check but stops before ``seed_revealed`` is ``incomplete``: honest
so far, but its random outcomes cannot be checked without the seed, and it has no result.

Nothing in a log can make the audit raise: a line that is not usable JSON (``source.
parse_line``: invalid UTF-8, a lone surrogate, nesting too deep, numbers JSON cannot hold)
fails at the version it would have held, and anything a hostile event provokes in the rules
fails at that event. A seed that does not open its commitment fails at ``seed_revealed``,
after every event before it has been checked for everything but the seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from domain.engine import play, rng
from domain.engine.canonical import canonical_json
from domain.engine.clock import epoch_seconds, iso
from domain.engine.departures import parse_decision
from domain.engine.errors import GameError, TimeoutDue
from domain.engine.log import GENESIS_HASH, event_hash, event_of
from domain.engine.signing import action_message, is_public_key
from domain.engine.types import (
    DECISION,
    GAME_CREATED,
    GAME_OVER,
    RANDOM,
    SEED_REVEALED,
    SYSTEM,
    TIMEOUT,
    Event,
    GameCreated,
    GameState,
)
from domain.games import GAMES
from replay.bots import BotReplay, BotReplayer
from replay.ed25519 import signature_is_valid
from replay.source import BadLine, parse_line

Status = Literal["ok", "incomplete", "failed"]
FIELDS = frozenset(
    {"game_id", "version", "type", "data", "actor", "at", "command_id", "prev_hash", "hash"}
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The audit's answer for one game: ``version`` and ``reason`` name the first failure.

    ``file`` is the export file audited (None for a game read from the store by id);
    ``game_id`` is the id the log itself carries in event 1 (None when it has none); ``bots``
    is what bot replay did (None when event 1 could not be read); ``unsigned`` the people's
    seats without a public key, whose moves rest on the host's word (None when event 1 could
    not be read; empty when every person signed: bots are re-derived, never "unsigned").
    """

    game_id: str | None
    status: Status
    events: int
    version: int | None = None
    reason: str | None = None
    file: str | None = None
    bots: BotReplay | None = None
    unsigned: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "game_id": self.game_id,
            "status": self.status,
            "events": self.events,
            "version": self.version,
            "reason": self.reason,
            "bot_replay": None if self.bots is None else self.bots.to_json(),
            "unsigned_seats": None if self.unsigned is None else list(self.unsigned),
        }

    @property
    def name(self) -> str:
        """What a person calls this game: the file, and the game id inside it when known."""
        if self.file is None:
            return self.game_id or "?"
        return self.file if self.game_id is None else f"{self.file} (game {self.game_id})"

    def __str__(self) -> str:
        where = "" if self.version is None else f" at version {self.version}"
        why = "" if self.reason is None else f": {self.reason}"
        bots = None if self.bots is None else self.bots.describe()
        unsigned = unsigned_words([str(seat) for seat in self.unsigned or ()])
        more = "".join(f"; {said}" for said in (bots, unsigned) if said is not None)
        return f"{self.name}: {self.status}{where}{why} ({self.events} events{more})"


def unsigned_words(who: Sequence[str], noun: str = "seat") -> str | None:
    """``seats 0 and 2 unsigned: their moves rest on the host's word`` (``who``: what names
    each seat, or player), so an organizer knows which moves no player's key vouches for;
    None for nobody."""
    if not who:
        return None
    if len(who) == 1:
        return f"{noun} {who[0]} unsigned: its moves rest on the host's word"
    listed = f"{', '.join(who[:-1])} and {who[-1]}"
    return f"{noun}s {listed} unsigned: their moves rest on the host's word"


class Broken(Exception):
    """The first thing wrong with a log."""

    def __init__(self, version: int | None, reason: str) -> None:
        reason = _clip(reason)
        super().__init__(reason)
        self.version = version
        self.reason = reason


#: A reason quotes at most this much of what it found (a hostile file may hold megabytes).
MAX_REASON = 240


def _clip(reason: str, limit: int = MAX_REASON) -> str:
    return reason if len(reason) <= limit else reason[: limit - 1] + "…"


def _not_owed(owed: Event, found: Event) -> str:
    """Why ``found`` is not the event the rules owe: its type, else its actor, else its data
    (each side clipped, so a re-hashed forgery shows both what it claims and what is due)."""
    if found.type != owed.type:
        return f"the rules call for {owed.type} here, not {found.type}"
    if not same_json(found.actor, owed.actor):
        return (
            f"the rules call for {owed.type} by {_clip(canonical_json(owed.actor), 40)} here, "
            f"the log has it by {_clip(canonical_json(found.actor), 40)}"
        )
    due, held = (_clip(canonical_json(dict(e.data)), 100) for e in (owed, found))
    return f"the rules call for {owed.type} with {due} here, the log has {found.type} with {held}"


def verify_lines(lines: Iterable[str], *, bot_replay: bool = True) -> Verdict:
    """Audit an export file's lines (one stored event per line; blank lines are skipped);
    ``bot_replay=False`` does not make the bots' moves again."""
    return audit_lines(lines, bot_replay=bot_replay)[0]


def audit_lines(lines: Iterable[str], *, bot_replay: bool = True) -> tuple[Verdict, list[Any]]:
    """The verdict on an export file's lines, and the events read before any unusable line.

    A line that is not a usable JSON value (see ``source.parse_line``) fails the log at the
    version it would have held, unless an earlier event already fails.

    A line that is JSON but cannot be a stored event (not an object with exactly the nine
    fields) ends the reading there too: the lines after it are never parsed, so a file of a
    million ``0`` lines costs one line, not a million. The log fails at that event, or
    earlier, as it would if every line were read: the file's last line is read for the seed
    it may reveal (the draws and bot moves before are checked against it), and the verdict
    counts every non-blank line as an event (``_cut_short``).
    """
    lines = lines if isinstance(lines, list) else list(lines)
    events: list[Any] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = parse_line(line)
        except BadLine as bad:
            before = verify(events, bot_replay=bot_replay) if events else None
            if before is not None and before.status == "failed":
                return before, events
            reason, where = _clip(f"line {number} {bad}"), len(events) + 1
            bots = None if before is None else before.bots
            unsigned = None if before is None else before.unsigned
            verdict = Verdict(
                _game_id(events), "failed", len(events), where, reason, bots=bots, unsigned=unsigned
            )
            return verdict, events
        events.append(value)
        if not _stored_shape(value):
            return _cut_short(lines, number, events, bot_replay)
    return verify(events, bot_replay=bot_replay), events


def _stored_shape(value: Any) -> bool:
    """Whether a line's JSON can be a stored event at all: an object of exactly ``FIELDS``
    (what ``_check_envelope`` checks first)."""
    return isinstance(value, dict) and len(value) == len(FIELDS) and value.keys() == FIELDS


def _cut_short(
    lines: list[str], number: int, events: list[Any], bot_replay: bool
) -> tuple[Verdict, list[Any]]:
    """The verdict on a file whose line ``number`` (the last of ``events``) is JSON but no
    stored event, without parsing the lines after it.

    The audit fails at that event or before it, so the lines between never matter if they
    parse; the file's last line still does (its ``seed_revealed`` is what the draws and bot
    moves before are checked against), so it is read and put after ``events``, where the
    walk never reaches. The verdict counts the file's non-blank lines as the full read did
    (one fewer when the last line is not JSON: the full read stopped before it). Only a
    line between that is not JSON either is not seen: it would have ended the full read
    there, with the same failure or one found without the seed.
    """
    total = sum(1 for line in lines[number:] if line.strip()) + len(events)
    last = next((line for line in reversed(lines[number:]) if line.strip()), None)
    read = list(events)
    if last is not None:
        try:
            read.append(parse_line(last))
        except BadLine:
            total -= 1
    verdict = verify(read, bot_replay=bot_replay)
    return replace(verdict, events=total), read


def verify(events: list[Any], *, bot_replay: bool = True) -> Verdict:
    """Audit a game's stored events, in log order (``bot_replay=False``: without making the
    bots' moves again). Never raises: hostile input fails."""
    game_id = _game_id(events)
    bots = BotReplayer(bot_replay)
    read: list[GameCreated] = []  # event 1, once it is read: who signs
    try:
        complete = _audit(events, bots, read)
    except Broken as broken:
        reason, unsigned = broken.reason, _unsigned(read)
        return Verdict(
            game_id,
            "failed",
            len(events),
            broken.version,
            reason,
            bots=bots.result(),
            unsigned=unsigned,
        )
    status: Status = "ok" if complete else "incomplete"
    return Verdict(game_id, status, len(events), bots=bots.result(), unsigned=_unsigned(read))


def _unsigned(read: Sequence[GameCreated]) -> tuple[int, ...] | None:
    """The people's seats without a key (None when event 1 was not read)."""
    if not read:
        return None
    return tuple(s.seat for s in read[0].seats if not s.bot and s.public_key is None)


def seed_problem(events: list[Any]) -> str | None:
    """Why the seed a log reveals at its end does not open the commitment of event 1 (None
    when it does, or when the log reveals no seed: then there is nothing to contradict)."""
    try:
        _seed(events, _commitment(events))
    except Broken as broken:
        return broken.reason
    return None


def _audit(events: list[Any], bots: BotReplayer, read: list[GameCreated]) -> bool:
    """Every check, event by event: the first failure raises ``Broken`` at its version.

    Whatever else hostile content provokes in the checks or the rules (a ``TypeError`` deep
    in a game's ``evolve``, say) fails the log at the event being checked. Event 1, once
    read, is put in ``read``.
    """
    if not events:
        raise Broken(None, "the log is empty")
    at = [1]  # the version being checked
    try:
        return _walk(events, at, bots, read)
    except Broken:
        raise
    except Exception as error:  # any crash on a log's content is a verdict, never a traceback
        why = f"{type(error).__name__}: {error}"
        raise Broken(at[0], f"the rules cannot replay this event ({why})") from None


def _walk(events: list[Any], at: list[int], bots: BotReplayer, read: list[GameCreated]) -> bool:
    first = events[0]
    game_id = first.get("game_id") if isinstance(first, dict) else None
    prev = _check_envelope(first, 1, GENESIS_HASH, game_id)
    assert isinstance(game_id, str)  # the envelope check made sure
    created = _created(first)
    read.append(created)
    game = GAMES[created.game]
    rules = game.rules
    try:  # a seed that does not open the commitment fails the log where it is revealed, but
        seed = _seed(events, created.seed_commitment)  # everything before it is audited first
        wrong_seed = None
    except Broken as broken:
        seed, wrong_seed = None, broken
    bots.start(game, created, seed)
    timed = created.clock is not None
    first_at = _time(first, 0) if timed else None
    state: GameState[Any] = play.new_game(rules, game_id, created, first_at)
    owed: list[Event] = []  # system events the rules say must come next
    last = epoch_seconds(first_at) if first_at is not None else 0
    for version, stored in enumerate(events[1:], start=2):
        at[0] = version
        prev = _check_envelope(stored, version, prev, game_id)
        if wrong_seed is not None and version == len(events):
            raise wrong_seed
        stamp = _time(stored, last) if timed else None
        if stamp is not None:
            last = epoch_seconds(stamp)
        state, owed = _check_event(rules, state, stored, seed, owed, stamp, bots)
        if stored["type"] == SEED_REVEALED and version != len(events):
            raise Broken(version + 1, "events follow seed_revealed")
    if owed and owed[0].type == GAME_OVER:
        return False  # cut off just before the end it was owed: honest but incomplete
    return state.seed is not None


def _time(stored: Mapping[str, Any], earliest: int) -> str:
    """A clocked game's event time: the log's own form, never before ``earliest``."""
    version, stamp = stored["version"], stored["at"]
    try:
        seconds = epoch_seconds(stamp if isinstance(stamp, str) else "")
    except ValueError:
        raise Broken(version, f"at {stamp!r} is not a time like 2026-11-27T18:00:05Z") from None
    if seconds < earliest:
        raise Broken(version, f"at {stamp} is earlier than the event before it")
    return str(stamp)


def _check_event(
    rules: Any,
    state: GameState[Any],
    stored: Mapping[str, Any],
    seed: bytes | None,
    owed: list[Event],
    at: str | None = None,
    bots: BotReplayer | None = None,
) -> tuple[GameState[Any], list[Event]]:
    """The state after ``stored`` (at ``at``, for a game with a clock) and what the rules owe
    next, if the rules agree with it (and, for a bot seat's action, its bot: ``bots``)."""
    version, event = stored["version"], event_of(stored)
    if owed:
        if not same_event(event, owed[0]):
            raise Broken(version, _not_owed(owed[0], event))
        owed = owed[1:]
    elif event.type == SEED_REVEALED:
        raise Broken(version, "seed_revealed before the game is over")
    elif event.type == GAME_OVER:
        raise Broken(version, "game_over where the rules do not end the game")
    elif event.type == RANDOM:
        owed = _check_draw(rules, state, stored, seed)[1:]
    elif event.type == TIMEOUT:
        owed = _check_timeout(rules, state, stored, at)[1:]
    elif event.type == DECISION:
        owed = _check_decision(rules, state, stored, at)[1:]
    elif event.type == GAME_CREATED or event.actor == SYSTEM:
        raise Broken(version, f"{event.type} is not an event the log may hold here")
    else:
        owed = _check_action(rules, state, stored, at)[1:]
        forged = None if bots is None else bots.check(state, stored)
        if forged is not None:
            raise Broken(version, forged)
    if event.type == GAME_OVER:
        owed = [Event(SEED_REVEALED, SYSTEM, {"seed": seed.hex() if seed else None})]
    return play.apply(rules, state, event, at), owed


def _check_envelope(stored: Any, version: int, prev: str, game_id: Any) -> str:
    """Shape, version, game id and hash chain of one event; its hash, for the next link."""
    if not isinstance(stored, dict):
        raise Broken(version, f"not a stored event but a JSON {_kind(stored)}")
    if set(stored) != FIELDS:
        missing = ", ".join(sorted(FIELDS - set(stored))) or "none"
        extra = ", ".join(sorted(map(str, set(stored) - FIELDS))) or "none"
        raise Broken(
            version,
            f"not a stored event with exactly the fields of docs/reference/format.md "
            f"(missing: {missing}; extra: {extra})",
        )
    found = stored["version"]
    if type(found) is not int or found != version:
        raise Broken(version, f"version {found!r} where {version} belongs")
    if not isinstance(stored["game_id"], str) or stored["game_id"] != game_id:
        raise Broken(version, "an event of another game")
    if stored["prev_hash"] != prev:
        raise Broken(version, "prev_hash does not link to the previous event's hash")
    if not isinstance(stored["hash"], str) or event_hash(stored) != stored["hash"]:
        raise Broken(version, "the hash does not match the event")
    if (stored["actor"] == SYSTEM) != (stored["command_id"] is None):
        raise Broken(version, "system events, and only they, have no command_id")
    if not isinstance(stored["type"], str):
        raise Broken(version, "the event type is not a string")
    return str(stored["hash"])


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
    _check_keys(data["seats"])
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


def _check_keys(seats: Any) -> None:
    """A seat's ``public_key``, where there is one, is 64 lowercase hex, and a person's: a
    bot is re-derived by the audit and signs nothing."""
    for seat in seats:
        if "public_key" not in seat:
            continue
        key, number = seat["public_key"], seat["seat"]
        if not is_public_key(key):
            raise Broken(
                1,
                f"game_created gives seat {number} a public_key that is not 64 lowercase hex "
                "digits (an Ed25519 public key)",
            )
        if seat.get("bot"):
            raise Broken(
                1, f"game_created gives the bot seat {number} a public_key: a bot signs nothing"
            )


def _commitment(events: list[Any]) -> str | None:
    first = events[0] if events else None
    data = first.get("data") if isinstance(first, dict) else None
    commitment = data.get("seed_commitment") if isinstance(data, dict) else None
    return commitment if isinstance(commitment, str) else None


def _seed(events: list[Any], commitment: str | None) -> bytes | None:
    """The seed, if the log ends by revealing it (checked against the commitment)."""
    last = events[-1] if events else None
    if not isinstance(last, dict) or last.get("type") != SEED_REVEALED:
        return None
    version = last.get("version") if type(last.get("version")) is int else len(events)
    data = last.get("data")
    try:
        seed = bytes.fromhex(str(data["seed"]))  # type: ignore[index]
    except (KeyError, TypeError, ValueError):
        raise Broken(version, "seed_revealed holds no hex seed") from None
    if rng.seed_commitment(seed) != commitment:
        raise Broken(version, "the revealed seed does not match its commitment")
    return seed


def _check_action(
    rules: Any, state: GameState[Any], stored: Mapping[str, Any], at: str | None
) -> list[Event]:
    version = stored["version"]
    data = stored["data"]
    if (
        not isinstance(data, dict)
        or set(data) - {"signature"} != {"action"}
        or not isinstance(data["action"], dict)
    ):
        raise Broken(
            version,
            "an action event's data is exactly {'action': {...}}, with its 'signature' for a "
            "seat that has a public key",
        )
    if data["action"].get("type") != stored["type"]:
        raise Broken(version, "the event type is not the action's type")
    if type(stored["actor"]) is not int:
        raise Broken(version, "an action's actor is a seat number")
    _check_signature(state.created, stored)
    try:
        action = play.parse_action(rules, data["action"])
        signature = data.get("signature")
        decided, _ = play.step(rules, state, stored["actor"], action, at, signature=signature)
    except TimeoutDue as due:
        raise _late(version, state, due, stored["actor"]) from None
    except GameError as error:
        reason = f"illegal {stored['type']} by seat {stored['actor']}: {error.code}"
        raise Broken(version, reason) from None
    if not same_event(decided[0], event_of(stored)):
        raise Broken(version, "the action is not written as the rules write it")
    return decided


def _check_signature(created: GameCreated, stored: Mapping[str, Any]) -> None:
    """The action of a seat with a key carries the key's signature over the game, the version
    it was decided against (the one before its own) and the action (``action_message``); the
    action of any other seat carries none (nobody could check it)."""
    version, seat, data = stored["version"], stored["actor"], stored["data"]
    key = next((s.public_key for s in created.seats if s.seat == seat), None)
    where = f"seat {seat} at version {version}"
    if key is None:
        if "signature" in data:
            raise Broken(
                version,
                f"the move of {where} carries a signature, but game_created gives seat {seat} "
                "no public_key: nobody can check it, so the move is not as the service writes it",
            )
        return
    if "signature" not in data:
        raise Broken(
            version,
            f"the move of {where} carries no signature, but seat {seat} signs its moves (its "
            "public_key is in game_created): the move was not the player's",
        )
    message = action_message(stored["game_id"], version - 1, data["action"])
    if not signature_is_valid(key, message, data["signature"]):
        raise Broken(
            version,
            f"the signature of {where} is not seat {seat}'s key's over this move (in this game, "
            f"at version {version - 1}): the move was not the player's",
        )


def _late(version: int, state: GameState[Any], due: TimeoutDue, actor: int | None) -> Broken:
    """What a ``TimeoutDue`` at this event says about the log."""
    assert state.clocks is not None
    seat = actor if actor in due.seats else due.seats[0]
    deadline = state.clocks.deadline(seat)
    by = "" if deadline is None else f" (its deadline: {iso(deadline)})"
    if seat == actor:
        return Broken(version, f"seat {seat} acted after its time ran out{by}")
    return Broken(version, f"the timeout of seat {seat} is missing before this event{by}")


def _check_timeout(
    rules: Any, state: GameState[Any], stored: Mapping[str, Any], at: str | None
) -> list[Event]:
    version, data = stored["version"], stored["data"]
    if not isinstance(data, dict) or set(data) != {"seat"} or type(data["seat"]) is not int:
        raise Broken(version, "a timeout's data is exactly {'seat': <seat number>}")
    if at is None:
        raise Broken(version, "a timeout in a game without a clock")
    seat = data["seat"]
    try:
        return play.time_out(rules, state, seat, at)[0]
    except GameError:
        deadline = state.clocks.deadline(seat) if state.clocks and seat >= 0 else None
        by = "it is not to act" if deadline is None else f"its deadline is {iso(deadline)}"
        raise Broken(version, f"a timeout of seat {seat} that is not due ({by})") from None


def _check_decision(
    rules: Any, state: GameState[Any], stored: Mapping[str, Any], at: str | None
) -> list[Event]:
    version, data = stored["version"], stored["data"]
    try:
        decision = parse_decision(data)
        if not same_json(decision.to_json(), data):
            raise Broken(version, "a decision's data is exactly the organizer's decision")
        decided, _ = play.decide_decision(rules, state, decision, at)
    except TimeoutDue as due:
        raise _late(version, state, due, None) from None
    except GameError as error:
        raise Broken(version, f"a decision the rules refuse: {error.code}") from None
    return decided


def _check_draw(
    rules: Any, state: GameState[Any], stored: Mapping[str, Any], seed: bytes | None
) -> list[Event]:
    version, data = stored["version"], stored["data"]
    draw = rules.pending_draw(state.board)
    if draw is None:
        raise Broken(version, "a random event where the game awaits no draw")
    expected = {"label": draw.label, "kind": draw.kind, "n": draw.n}
    if not isinstance(data, dict) or not same_json({k: data.get(k) for k in expected}, expected):
        raise Broken(version, f"the game awaits {expected}, not this draw")
    if set(data) != {*expected, "outcome"}:
        raise Broken(version, "a random event's data is exactly label, kind, n and outcome")
    if seed is not None:
        outcome = rng.draw(seed, stored["game_id"], version, draw.label, draw.kind, draw.n)
        if not same_json(outcome, data["outcome"]):
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


def _kind(value: Any) -> str:
    names = {bool: "boolean", int: "number", float: "number", str: "string", list: "array"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _game_id(events: list[Any]) -> str | None:
    if events and isinstance(events[0], dict) and isinstance(events[0].get("game_id"), str):
        return str(events[0]["game_id"])
    return None


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON, not merely as Python values: ``true`` is not ``1``, nor ``1.0`` ``1``
    (Python's ``==`` says they are, and a forged log could lean on it)."""
    return canonical_json(a) == canonical_json(b)


def same_event(a: Event, b: Event) -> bool:
    return same_json([a.type, a.actor, dict(a.data)], [b.type, b.actor, dict(b.data)])
