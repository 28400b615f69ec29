"""The command handlers: typed commands in, domain and service errors out.

Creating a game and playing a move are the two things a person asks of Floe. Each handler
loads what it needs from the repository, lets the rules decide, appends in one round trip
and enqueues what the game waits for next. Nothing here knows HTTP: refusals are
``GameError`` (the rules) or ``ServiceError`` (conflicts, seats, seeds), and the API maps
them to statuses.

Two limits hold what anyone but the organizer may store (``service.limits``): a creator at
its storage budget creates nothing more (checked with its quotas), and a game it created
takes no action past ``FLOE_EVENTS_PER_GAME`` events but a resignation.
"""

from __future__ import annotations

import hashlib
import itertools
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.engine import play
from domain.engine.canonical import canonical_json
from domain.engine.clock import ClockSpec
from domain.engine.departures import Resign, parse_decision
from domain.engine.errors import GameError, TimeoutDue
from domain.engine.game import Game
from domain.engine.log import StoredEvent
from domain.engine.rng import seed_commitment
from domain.engine.signing import SignatureCheck
from domain.engine.status import GameStatus
from domain.engine.types import JSON, SYSTEM, GameCreated, GameState, SeatInfo, TournamentSlot
from domain.games import GAMES
from service.errors import (
    CommandReused,
    InvalidRequest,
    OutOfTime,
    VersionConflict,
    not_a_seat,
    organizer_only,
)
from service.games import tokens
from service.games.access import Viewer
from service.games.catalog import GameMeta
from service.games.follow_ups import JobQueue, enqueue_next
from service.games.repository import CommandRecord, GameRepository, Recorded
from service.games.signatures import require_signature, signed_as_stored
from service.games.state_cache import Head
from service.games.timeouts import record_timeouts
from service.games.views import shown_events
from service.limits.game_length import check_length
from service.limits.quotas import CreatorQuotas
from service.store.events import Duplicate

#: The time a setup is checked at when no game is stored yet (a table's, a tournament's).
EPOCH = "1970-01-01T00:00:00Z"


@dataclass(frozen=True, slots=True)
class NewPlayer:
    name: str
    bot: str | None = None
    #: 64 hex (Ed25519): the seat must sign its actions (``service.games.signatures``).
    public_key: str | None = None


@dataclass(frozen=True, slots=True)
class CreateGame:
    game: str
    players: tuple[NewPlayer, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    #: 64 hex digits; only the organizer may choose a game's seed.
    seed_hex: str | None = None
    #: Seconds to wait for the setup draws before answering.
    wait_seconds: float = 0.0
    #: Who creates it, for the per-creator quotas (the API passes the client address);
    #: None counts against no quota (the organizer never does).
    creator: str | None = None
    #: The tournament slot a tournament's game fills (written into its first event).
    tournament: TournamentSlot | None = None
    #: The clock as the request gave it (``domain.engine.clock``); None: no clock.
    clock: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class PlayAction:
    """``seat`` posts ``action``, decided against ``expected_version``.

    ``seat`` is None when the caller holds no seat of this game (the organizer, say): the
    command is still checked in order, and refused where a seat is needed.
    """

    seat: int | None
    action: Mapping[str, Any]
    expected_version: int
    command_id: str
    #: Seconds to wait for a draw the action leaves pending before answering.
    wait_seconds: float = 0.0
    #: A keyed seat's signature, already checked (``service.games.signatures``); recorded in
    #: the action's event beside the action.
    signature: str | None = None

    @property
    def fingerprint(self) -> str:
        return request_fingerprint(self.action, self.expected_version)


def request_fingerprint(action: Any, expected_version: Any) -> str:
    """What makes two posts the same request: the action and the version it was decided
    against. A command id may be repeated only with the same fingerprint."""
    body = canonical_json({"action": action, "expected_version": expected_version})
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Created:
    """A new game: its id, where it stands, and each human seat's token (shown once)."""

    id: str
    game: str
    version: int
    status: GameStatus
    seats: tuple[tuple[SeatInfo, str | None], ...]
    seed_commitment: str

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "game": self.game,
            "version": self.version,
            "status": self.status,
            "seats": [{**seat.to_json(), "token": token} for seat, token in self.seats],
            "seed_commitment": self.seed_commitment,
        }


@dataclass(frozen=True, slots=True)
class Accepted:
    """An accepted command: the events it appended, as viewers see them, and whether the
    game still waits for a draw the command caused. ``hashes`` are those events' stored
    hashes, one each (a live game's viewers are shown none): the receipts sign them
    without reading the log again."""

    version: int
    events: list[JSON]
    awaiting_random: bool
    hashes: tuple[str, ...]

    def to_json(self) -> JSON:
        return {"version": self.version, "events": self.events}


def hosted(name: str) -> Game[Any]:
    """The game Floe hosts under ``name`` (else 400 ``invalid_body``)."""
    game = GAMES.get(name)
    if game is None:
        hosted_here = ", ".join(sorted(GAMES))
        raise InvalidRequest(
            "invalid_body", f"Floe hosts no game {name!r}; the games are: {hosted_here}."
        )
    return game


def check_player_count(game: Game[Any], players: int) -> None:
    """400 ``player_count`` unless ``game`` is for that many players."""
    rules = game.rules
    if not rules.min_players <= players <= rules.max_players:
        raise InvalidRequest(
            "player_count", f"{game.name} is for {rules.min_players}-{rules.max_players} players"
        )


def set_up(
    game: Game[Any],
    game_id: str,
    players: Sequence[NewPlayer],
    options: Mapping[str, Any],
    seed: bytes,
    tournament: TournamentSlot | None = None,
    *,
    clock: Mapping[str, Any] | None = None,
    at: str = EPOCH,
) -> tuple[GameCreated, GameState[Any]]:
    """Event 1 of a new game, stored at ``at``, and the state it sets up (``InvalidSetup``,
    a 400, for options or a clock the game cannot use)."""
    seats = tuple(SeatInfo(i, p.name, p.bot, p.public_key) for i, p in enumerate(players))
    created = GameCreated(
        game.name,
        game.rules.rules_version,
        dict(options),
        seats,
        seed_commitment(seed),
        tournament,
        None if clock is None else ClockSpec.from_json(clock),
    )
    return created, play.new_game(game.rules, game_id, created, at)


class GameCommands:
    """Create games and play moves."""

    def __init__(
        self,
        repository: GameRepository,
        jobs: JobQueue,
        signature_check: SignatureCheck,
        quotas: CreatorQuotas | None = None,
        *,
        events_per_game: int = 0,
    ) -> None:
        """``quotas``: the creators' quotas and storage budget (None: none);
        ``events_per_game``: the events a game not the organizer's may reach (0: no limit)."""
        self._repository = repository
        self._jobs = jobs
        self._signature_check = signature_check
        self._quotas = quotas
        self._events_per_game = events_per_game

    def signature(self, meta: GameMeta, seat: int | None, body: Any) -> str | None:
        """The checked signature of a post by ``seat`` (``signatures.require_signature``):
        the API asks this right after the token, before the body's schema."""
        return require_signature(meta, seat, body, self._signature_check)

    # ----- creating -----------------------------------------------------------------------

    def create(self, command: CreateGame, viewer: Viewer) -> Created:
        """Create a game; its setup draws go to a worker (``wait_seconds`` waits for them)."""
        game = hosted(command.game)
        if command.seed_hex is not None and not viewer.organizer:
            raise organizer_only("supplying a seed", anonymous=viewer.anonymous)
        check_player_count(game, len(command.players))
        game_id = secrets.token_hex(8)
        seat_tokens = tuple(
            None if p.bot else tokens.new_token(game_id, i) for i, p in enumerate(command.players)
        )
        creator = None if viewer.organizer else command.creator
        hashes = tuple(t and tokens.token_hash(t) for t in seat_tokens)
        return self._create(
            game,
            command,
            game_id,
            seat_tokens,
            hashes,
            creator=creator,
            capped=not viewer.organizer,
        )

    def create_for_table(
        self,
        command: CreateGame,
        game_id: str,
        token_hashes: Sequence[str | None],
        *,
        creator: str | None = None,
        by_organizer: bool = False,
    ) -> Created:
        """Create the game a table (or a tournament) gathered: its id and every seat's token
        were chosen when they were handed out (so ``Created`` carries no token: each holder
        has theirs).
        ``creator``'s quotas are taken here (None: the table took them when its last seat
        filled); creating the same table's game twice is ``GameExists``. The game's length
        is capped unless the organizer gathered it: a tournament's (only the organizer makes
        one), or ``by_organizer``."""
        game = hosted(command.game)
        check_player_count(game, len(command.players))
        no_tokens = (None,) * len(command.players)
        hashes = tuple(token_hashes)
        capped = not by_organizer and command.tournament is None
        return self._create(
            game, command, game_id, no_tokens, hashes, creator=creator, capped=capped
        )

    def _create(
        self,
        game: Game[Any],
        command: CreateGame,
        game_id: str,
        seat_tokens: tuple[str | None, ...],
        token_hashes: tuple[str | None, ...],
        *,
        creator: str | None,
        capped: bool,
    ) -> Created:
        rules = game.rules
        players = command.players
        seed = bytes.fromhex(command.seed_hex) if command.seed_hex else secrets.token_bytes(32)
        created_at = self._repository.clock()
        created, state = set_up(
            game,
            game_id,
            players,
            command.options,
            seed,
            command.tournament,
            clock=command.clock,
            at=created_at,
        )
        seats = created.seats
        # Who made it, as a digest (never the address): the bots' fair lanes go by it.
        digest = None if creator is None else tokens.token_hash(creator)[:16]
        meta = GameMeta(game_id, game.name, created_at, seats, token_hashes, capped, digest)
        # Last of the checks (429: the storage budget, then the quotas), once the request is
        # known to be good; nothing written yet.
        quotas, reserved = self._quotas, None
        if quotas is not None and creator is not None:
            bot = any(p.bot for p in players)
            reserved = quotas.reserve(creator, game_id, bot=bot)
        try:
            self._repository.create(meta, state, seed_hex=seed.hex(), token_hashes=token_hashes)
        except BaseException:
            if quotas is not None and reserved is not None:
                quotas.release(reserved)
            raise
        status = play.status(rules, state)
        enqueue_next(self._jobs, meta.bundle, game_id, state, status)
        if status == GameStatus.AWAITING_RANDOM:
            if command.wait_seconds > 0:
                self._await_draws(meta, 1, command.wait_seconds)
            state = self._repository.latest(meta)
            status = play.status(rules, state)
        return Created(
            game_id,
            game.name,
            state.version,
            status,
            tuple(zip(seats, seat_tokens, strict=True)),
            created.seed_commitment,
        )

    # ----- playing ------------------------------------------------------------------------

    def play(self, meta: GameMeta, command: PlayAction) -> Accepted:
        """Post one action. Refusals come in the order the API promises: malformed, stale
        version, not a seat or not its turn, illegal.

        A command this seat already had accepted gets the first answer instead of any
        refusal, or ``CommandReused`` when it comes back with a different request (the
        append script catches a repeat that would otherwise succeed), so the accepted path
        costs no extra round trip. When the action leaves the game waiting for a draw, the
        answer waits up to ``wait_seconds`` for the worker's outcome.
        """
        try:
            accepted = self._play(meta, command)
        except (GameError, VersionConflict, InvalidRequest):
            earlier = self.earlier_answer(
                meta, command.seat, command.command_id, command.fingerprint
            )
            if earlier is None:
                raise
            return earlier
        if accepted.awaiting_random and command.wait_seconds > 0 and command.seat is not None:
            return self._await_draw(meta, command, accepted)
        return accepted

    def _play(self, meta: GameMeta, command: PlayAction) -> Accepted:
        action = play.parse_action(meta.rules, command.action)
        if command.signature is not None:
            signed_as_stored(command.action, action.to_json())
        expected = command.expected_version
        # Decide against the cached head when it matches: the append script refuses it if the
        # stream moved on, so only a mismatch or a refusal needs the catch-up read.
        head = self._repository.cached_head(meta.game_id)
        if head is None or head.state.version != expected:
            head = self._repository.head(meta)
        state = head.state
        if expected != state.version:
            raise VersionConflict(state.version, expected)
        if command.seat is None:
            raise not_a_seat()
        at = self._repository.clock()
        try:
            events, decided = play.step(
                meta.rules, state, command.seat, action, at, signature=command.signature
            )
        except TimeoutDue as due:
            raise self._out_of_time(meta, head, command.seat, due, at) from due
        except GameError as error:
            latest = self._repository.latest(meta)  # refused by a stale cache? then: conflict
            if latest.version != state.version:
                raise VersionConflict(latest.version, expected) from error
            raise
        if meta.length_capped and not isinstance(action, Resign):
            check_length(self._events_per_game, state.version + len(events))  # 409
        result = self._repository.append(
            meta,
            head,
            events,
            decided,
            seat=command.seat,
            command_id=command.command_id,
            request=command.fingerprint,
            at=at,
        )
        if isinstance(result, Duplicate):
            return self._repeat(meta, CommandRecord.from_json(result.record), command)
        if not isinstance(result, Recorded):
            raise VersionConflict(result.version, expected)
        enqueue_next(self._jobs, meta.bundle, meta.game_id, result.state, result.status)
        return Accepted(
            result.state.version,
            shown_events(meta.rules, result.events, game_over=result.state.over),
            result.awaiting_random,
            tuple(e.hash for e in result.events),
        )

    # ----- deciding as the organizer -------------------------------------------------------

    def decide(self, meta: GameMeta, body: Any, viewer: Viewer) -> Accepted:
        """An organizer's decision on a live game (``domain.engine.departures``): a
        ``forfeit`` of one seat or a ``result``; one ``decision`` event, then ``game_over``
        if the game ends. Refused in the API's order: not the organizer (401/403), a body
        that fits no decision (400), a clock that ran out first (409: the timeouts are
        recorded; decide again on what stands), a game over or awaiting a draw (403), a
        seat the game does not have or that has left (422)."""
        if not viewer.organizer:
            raise organizer_only("deciding a game", anonymous=viewer.anonymous)
        decision = parse_decision(body)
        head = self._repository.head(meta)
        at = self._repository.clock()
        try:
            events, decided = play.decide_decision(meta.rules, head.state, decision, at)
        except TimeoutDue as due:
            recorded = record_timeouts(self._repository, self._jobs, meta, head, at)
            version = recorded.state.version if recorded else self._repository.latest(meta).version
            raise VersionConflict(version, head.state.version) from due
        result = self._repository.append(
            meta, head, events, decided, seat=SYSTEM, command_id=None, at=at
        )
        if not isinstance(result, Recorded):
            raise VersionConflict(self._repository.latest(meta).version, head.state.version)
        enqueue_next(self._jobs, meta.bundle, meta.game_id, result.state, result.status)
        shown = shown_events(meta.rules, result.events, game_over=result.state.over)
        hashes = tuple(e.hash for e in result.events)
        return Accepted(result.state.version, shown, result.awaiting_random, hashes)

    def _out_of_time(
        self, meta: GameMeta, head: Head, seat: int, due: TimeoutDue, at: str
    ) -> OutOfTime | VersionConflict:
        """A clock ran out before this action: the timeouts are recorded now (unless a
        worker's timer got there first), and the action is refused: ``out_of_time`` for a
        seat whose own time is up, a version conflict for anyone else (the game moved on)."""
        recorded = record_timeouts(self._repository, self._jobs, meta, head, at)
        version = recorded.state.version if recorded else self._repository.latest(meta).version
        if seat in due.seats:
            return OutOfTime(seat, version)
        return VersionConflict(version, head.state.version)

    def earlier_answer(
        self, meta: GameMeta, seat: int | None, command_id: str, fingerprint: str
    ) -> Accepted | None:
        """The first answer to a command ``seat`` already had accepted under ``command_id``,
        if any; ``CommandReused`` if that command was a different request.

        The API asks this too when a body fails its schema: a command id already used is
        refused as reused before the body's own faults are reported.
        """
        if seat is None:
            return None
        record = self._repository.command(meta.game_id, seat, command_id)
        if record is None:
            return None
        if not record.answers(fingerprint):
            raise CommandReused(command_id)
        return self._replay(meta, record)

    def _repeat(self, meta: GameMeta, record: CommandRecord, command: PlayAction) -> Accepted:
        if not record.answers(command.fingerprint):
            raise CommandReused(command.command_id)
        return self._replay(meta, record)

    def _replay(self, meta: GameMeta, record: CommandRecord) -> Accepted:
        """The first answer to a repeated command: the events it appended, as seen now."""
        over = self._repository.latest(meta).over
        events = self._repository.read(meta.game_id, after=record.first - 1, upto=record.last)
        shown = shown_events(meta.rules, events, game_over=over)
        return Accepted(record.last, shown, record.awaiting_random, tuple(e.hash for e in events))

    def _await_draw(self, meta: GameMeta, command: PlayAction, accepted: Accepted) -> Accepted:
        """The answer once the command's draws are recorded, or the first if time runs out.

        The command's record is updated to the completed answer, so that repeating the
        command returns what this first answer said.
        """
        assert command.seat is not None
        first = int(accepted.events[0]["version"])
        drawn = self._await_draws(meta, accepted.version, command.wait_seconds)
        completing = list(itertools.takewhile(lambda e: e.actor == SYSTEM, drawn))
        if not completing:
            return accepted
        last = completing[-1].version
        state = self._repository.state_at(meta, last)
        pending = play.status(meta.rules, state) == GameStatus.AWAITING_RANDOM
        record = CommandRecord(command.seat, first, last, pending, command.fingerprint)
        self._repository.remember_command(meta.game_id, command.command_id, record)
        return self._replay(meta, record)

    def _await_draws(self, meta: GameMeta, after: int, wait_seconds: float) -> list[StoredEvent]:
        """Block on the stream (never a sleep) until the game stops awaiting randomness."""
        deadline = time.monotonic() + wait_seconds
        later: list[StoredEvent] = []
        while (remaining := deadline - time.monotonic()) > 0:
            block = max(1, int(1000 * remaining))
            later += self._repository.wait(meta.game_id, after=after, block_ms=block)
            after = later[-1].version if later else after
            # Judge by the last event collected, not the latest state: a draw made meanwhile
            # must arrive in ``later`` too, or the answer would miss it.
            if later:
                state = self._repository.state_at(meta, after)
                if play.status(meta.rules, state) != GameStatus.AWAITING_RANDOM:
                    break
        return later
