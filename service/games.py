"""The command and query handlers: load, decide, append, and read games as viewers see them.

Dependencies (the store, the clock, the organizer token) are passed in. Each game's head state
is cached in process (``state_cache``), so a move at version 5,000 costs what a move at
version 10 costs, and an old version refolds from the nearest snapshot.
"""

from __future__ import annotations

import itertools
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.ai import POLICIES, Policy, RandomPolicy, bot_to_move
from domain.engine import play, rng
from domain.engine.errors import GameError, InvalidSetup
from domain.engine.log import GENESIS_HASH, StoredEvent, seal
from domain.engine.rng import seed_commitment
from domain.engine.types import (
    GAME_CREATED,
    GAME_OVER,
    JSON,
    SEED_REVEALED,
    SYSTEM,
    Event,
    GameCreated,
    GameState,
    SeatInfo,
)
from domain.games import GAMES
from service import tokens
from service.access import Viewer, resolve
from service.catalog import Catalog, GameMeta
from service.clock import Clock
from service.errors import ApiError, bad_request, conflict, forbidden, not_found, unauthorized
from service.schemas import parse_post_action
from service.state_cache import Head, StateCache
from service.store import Appended, Conflict, Duplicate, EventStore
from service.views import event_view, game_view

log = logging.getLogger(__name__)

DrawQueue = Callable[[str, int], None]
AWAITING_RANDOM = "awaiting_random"


@dataclass(frozen=True, slots=True)
class Accepted:
    """An accepted command's answer: 201, or 202 while its draw is pending."""

    status: int
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class NewPlayer:
    name: str
    bot: str | None = None


class GameService:
    """Everything the API does with games, independent of HTTP."""

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Clock,
        organizer_token: str | None,
        enqueue_draw: DrawQueue,
        enqueue_bot: DrawQueue,
        cache_size: int = 4096,
        policies: Mapping[str, Policy] = POLICIES,
    ) -> None:
        self._store = store
        self._policies = policies
        self._clock = clock
        self._enqueue_draw = enqueue_draw
        self._enqueue_bot = enqueue_bot
        self._organizer_token = organizer_token
        self._catalog = Catalog(store, cache_size)
        self._cache = StateCache(cache_size)

    def viewer(self, authorization: str | None) -> Viewer:
        return resolve(authorization, self._catalog, self._organizer_token)

    def meta(self, game_id: str) -> GameMeta:
        return self._catalog.get(game_id)

    @property
    def store_client(self) -> Any:
        return self._store.client

    def ping(self) -> None:
        self._store.ping()

    # ----- creating -----------------------------------------------------------------------

    def create(
        self,
        game: str,
        players: list[NewPlayer],
        options: Mapping[str, Any],
        seed_hex: str | None,
        viewer: Viewer,
        *,
        wait_seconds: float = 0.0,
    ) -> dict[str, Any]:
        """Create a game; its setup draws go to a worker (``wait_seconds`` waits for them)."""
        rules = GAMES[game]
        if seed_hex is not None and not viewer.organizer:
            if viewer.anonymous:
                raise unauthorized("missing_token", "supplying a seed needs the organizer token")
            raise forbidden("organizer_only", "supplying a seed needs the organizer token")
        if not rules.min_players <= len(players) <= rules.max_players:
            raise bad_request(
                "player_count", f"{game} is for {rules.min_players}-{rules.max_players} players"
            )
        seed = bytes.fromhex(seed_hex) if seed_hex else secrets.token_bytes(32)
        game_id = secrets.token_hex(8)
        seats = tuple(SeatInfo(i, p.name, p.bot) for i, p in enumerate(players))
        created = GameCreated(
            game, rules.rules_version, dict(options), seats, seed_commitment(seed)
        )
        try:
            state = play.new_game(rules, game_id, created)
        except InvalidSetup as error:
            raise ApiError.from_game_error(error) from error
        seat_tokens = [
            None if p.bot else tokens.new_token(game_id, i) for i, p in enumerate(players)
        ]
        token_hashes = tuple(t and tokens.token_hash(t) for t in seat_tokens)
        at = self._clock()
        [first] = seal(
            game_id,
            [Event(GAME_CREATED, SYSTEM, created.to_json())],
            first_version=1,
            prev_hash=GENESIS_HASH,
            at=at,
            command_id=None,
        )
        meta = {
            "game": game,
            "created_at": at,
            "seats": json.dumps([s.to_json() for s in seats]),
            "tokens": json.dumps(list(token_hashes)),
            "status": play.status(rules, state),
        }
        self._store.create(first, seed_hex=seed.hex(), meta=meta, created_ms=_millis(at))
        self._cache.advance(game_id, Head(state, first.hash))
        known = self._catalog.remember(GameMeta(game_id, game, at, seats, token_hashes))
        self._follow_up(known, state)
        if play.status(rules, state) == AWAITING_RANDOM:
            if wait_seconds > 0:
                self._await_draws(game_id, 1, wait_seconds)
            state = self.latest(game_id)
        return {
            "id": game_id,
            "game": game,
            "version": state.version,
            "status": play.status(rules, state),
            "seats": [{**s.to_json(), "token": t} for s, t in zip(seats, seat_tokens, strict=True)],
            "seed_commitment": created.seed_commitment,
        }

    # ----- reading ------------------------------------------------------------------------

    def latest(self, game_id: str) -> GameState[Any]:
        """The game's newest state: the cached head caught up with whatever was appended."""
        return self._head(game_id).state

    def _head(self, game_id: str) -> Head:
        meta = self.meta(game_id)
        cached = self._cache.head(game_id)
        new_events = self._store.read(game_id, after=cached.state.version if cached else 0)
        if not new_events:
            if cached is None:
                raise not_found("game_not_found", f"no game {game_id!r}")
            return cached
        state = cached.state if cached else self._fold(meta, new_events[:1])
        for stored in new_events if cached else new_events[1:]:
            state = play.apply(meta.rules, state, stored.event)
            self._cache.snapshot(state)
        head = Head(state, new_events[-1].hash)
        self._cache.advance(game_id, head)
        return head

    def state_at(self, game_id: str, version: int) -> GameState[Any]:
        """The state at an earlier version, folded from the nearest snapshot below it."""
        latest = self.latest(game_id)
        if not 1 <= version <= latest.version:
            raise not_found("version_not_found", f"versions of this game run 1..{latest.version}")
        if version == latest.version:
            return latest
        meta = self.meta(game_id)
        base = self._cache.nearest(game_id, version)
        if base is None:
            events = self._store.read(game_id, upto=version)
            base, rest = self._fold(meta, events[:1]), events[1:]
        else:
            rest = self._store.read(game_id, after=base.version, upto=version)
        state = base
        for stored in rest:
            state = play.apply(meta.rules, state, stored.event)
            self._cache.snapshot(state)
        return state

    def view(self, game_id: str, viewer: Viewer, version: int | None = None) -> dict[str, Any]:
        meta = self.meta(game_id)
        seat = viewer.reader_seat(game_id)
        latest = self.latest(game_id)
        state = latest if version is None else self.state_at(game_id, version)
        return game_view(
            meta.rules, state, seat, seats=meta.seats_json(), revealed_seed=latest.seed
        )

    def legal_actions(self, game_id: str, viewer: Viewer) -> dict[str, Any]:
        viewer.require_token()
        meta = self.meta(game_id)
        seat = viewer.require_seat(game_id)
        state = self.latest(game_id)
        actions = play.legal_actions(meta.rules, state, seat)
        return {"version": state.version, "actions": [a.to_json() for a in actions]}

    def events(self, game_id: str, viewer: Viewer, *, after: int, limit: int) -> dict[str, Any]:
        meta = self.meta(game_id)
        viewer.reader_seat(game_id)
        state = self.latest(game_id)
        page = self._store.read(game_id, after=after, upto=min(state.version, after + limit))
        return {"version": state.version, "events": shown(meta, page, game_over=state.over)}

    def follow(self, game_id: str, after: int, block_ms: int) -> Iterator[StoredEvent]:
        """Events after ``after``, waiting up to ``block_ms`` for the first (for SSE)."""
        return iter(self._store.wait(game_id, after=after, block_ms=block_ms))

    def export(self, game_id: str, viewer: Viewer) -> list[StoredEvent]:
        """The full log: public once the game is over, before that only for the organizer."""
        self.meta(game_id)
        state = self.latest(game_id)
        if not state.over and not viewer.organizer:
            if viewer.anonymous:
                raise unauthorized("missing_token", "export before the end needs the organizer")
            raise forbidden("organizer_only", "export before the end needs the organizer token")
        return self._store.read(game_id, upto=state.version)

    def list_games(self, *, offset: int, limit: int) -> dict[str, Any]:
        ids = self._store.list_ids(offset=offset, limit=limit)
        games = []
        for game_id, raw in zip(ids, self._store.metas(ids), strict=True):
            if raw is None:
                continue
            games.append(
                {
                    "id": game_id,
                    "game": raw["game"],
                    "created_at": raw["created_at"],
                    "version": int(raw["version"]),
                    "status": raw.get("status", "active"),
                    "seats": json.loads(raw["seats"]),
                }
            )
        return {"games": games, "total": self._store.count(), "offset": offset, "limit": limit}

    # ----- playing ------------------------------------------------------------------------

    def play(
        self, game_id: str, viewer: Viewer, body: Any, *, wait_seconds: float = 0.0
    ) -> Accepted:
        """Post one action. Checks run in the order DESIGN.md fixes: 401 404 400 409 403 422.

        A command whose id this seat already had accepted gets the first answer instead of
        any refusal (the append script catches a repeat that would otherwise succeed), so
        the accepted path costs no extra round trip. When the action leaves the game waiting
        for a draw the answer is 202, unless the worker's outcome arrives within
        ``wait_seconds``.
        """
        viewer.require_token()
        meta = self.meta(game_id)
        seat = viewer.seat_in(game_id)
        try:
            accepted = self._play(meta, seat, body)
        except ApiError:
            command_id = body.get("command_id") if isinstance(body, dict) else None
            if seat is not None and isinstance(command_id, str):
                record = self._store.command(game_id, _command_key(seat, command_id))
                if record is not None:
                    return self._replay(meta, record)
            raise
        if accepted.status == 202 and wait_seconds > 0 and seat is not None:
            return self._await_draw(meta, seat, body["command_id"], accepted, wait_seconds)
        return accepted

    def _play(self, meta: GameMeta, seat: int | None, body: Any) -> Accepted:
        game_id = meta.game_id
        request = parse_post_action(body)
        try:
            action = meta.rules.parse_action(request.action)
        except GameError as error:
            raise ApiError.from_game_error(error) from error
        # Decide against the cached head when it matches: the append script refuses it if the
        # stream moved on, so only a mismatch or a refusal needs the catch-up read.
        head = self._cache.head(game_id)
        if head is None or head.state.version != request.expected_version:
            head = self._head(game_id)
        state = head.state
        if request.expected_version != state.version:
            raise conflict(state.version, request.expected_version)
        if seat is None:
            raise forbidden("not_a_seat", "this token is not a seat of this game")
        try:
            events, decided = play.step(meta.rules, state, seat, action)
        except GameError as error:
            latest = self.latest(game_id)  # refused by a stale cache? then the truth is 409
            if latest.version != state.version:
                raise conflict(latest.version, request.expected_version) from error
            raise ApiError.from_game_error(error) from error
        record: dict[str, Any] = {"seat": seat}
        result = self._append(meta, head, events, decided, request.command_id, record)
        if isinstance(result, Duplicate):
            return self._replay(meta, result.record)
        if isinstance(result, Conflict):
            raise conflict(result.version, request.expected_version)
        after, sealed = result
        return Accepted(
            202 if play.status(meta.rules, after) == AWAITING_RANDOM else 201,
            {"version": after.version, "events": shown(meta, sealed, game_over=after.over)},
        )

    def _append(
        self,
        meta: GameMeta,
        head: Head,
        events: list[Event],
        decided: GameState[Any],
        command_id: str | None,
        record: dict[str, Any],
    ) -> tuple[GameState[Any], list[StoredEvent]] | Duplicate | Conflict:
        """Seal ``events`` after ``head``, append them, cache the result, enqueue any draw.

        ``decided`` is the state after ``events``, as deciding them already folded it. A
        game's last events are always ``game_over`` then ``seed_revealed``: the seed is added
        here, the only place that holds it.
        """
        game_id, state = meta.game_id, head.state
        after = decided
        if events[-1].type == GAME_OVER:
            revealed = Event(SEED_REVEALED, SYSTEM, {"seed": self._store.seed(game_id)})
            events = [*events, revealed]
            after = play.apply(meta.rules, after, revealed)
        sealed = seal(
            game_id,
            events,
            first_version=state.version + 1,
            prev_hash=head.hash,
            at=self._clock(),
            command_id=command_id,
        )
        status = play.status(meta.rules, after)
        record = {**record, "first": sealed[0].version, "last": sealed[-1].version}
        result = self._store.append(
            sealed,
            command_key=None if command_id is None else _command_key(record["seat"], command_id),
            command_record={**record, "status": 202 if status == AWAITING_RANDOM else 201},
            status=status,
        )
        if not isinstance(result, Appended):
            return result
        # Only a state whose events are stored may be cached: racers that lost decided
        # states too, for the same version, and one of theirs must never become a snapshot.
        self._cache.snapshot(after)
        self._cache.advance(game_id, Head(after, sealed[-1].hash))
        self._follow_up(meta, after)
        return after, sealed

    def _follow_up(self, meta: GameMeta, state: GameState[Any]) -> None:
        """Enqueue what the game waits for next: a draw, or a bot seat's move."""
        if play.status(meta.rules, state) == AWAITING_RANDOM:
            self._enqueue_draw(meta.game_id, state.version)
        elif bot_to_move(meta.rules, state) is not None:
            self._enqueue_bot(meta.game_id, state.version)

    def _replay(self, meta: GameMeta, record: Mapping[str, Any]) -> Accepted:
        """The first answer to a repeated command: the events it appended, as seen now."""
        state = self.latest(meta.game_id)
        first, last = int(record["first"]), int(record["last"])
        events = self._store.read(meta.game_id, after=first - 1, upto=last)
        body = {"version": last, "events": shown(meta, events, game_over=state.over)}
        return Accepted(int(record.get("status", 201)), body)

    def _await_draw(
        self, meta: GameMeta, seat: int, command_id: str, accepted: Accepted, wait: float
    ) -> Accepted:
        """The answer once the command's draws are recorded, or the 202 if time runs out.

        The command's record is updated to the completed answer, so that repeating the
        command returns what this first answer said.
        """
        first = int(accepted.body["events"][0]["version"])
        drawn = self._await_draws(meta.game_id, int(accepted.body["version"]), wait)
        completing = list(itertools.takewhile(lambda e: e.actor == SYSTEM, drawn))
        if not completing:
            return accepted
        last = completing[-1].version
        pending = play.status(meta.rules, self.state_at(meta.game_id, last)) == AWAITING_RANDOM
        record = {"seat": seat, "first": first, "last": last, "status": 202 if pending else 201}
        self._store.remember_command(meta.game_id, _command_key(seat, command_id), record)
        return self._replay(meta, record)

    def _await_draws(self, game_id: str, after: int, wait_seconds: float) -> list[StoredEvent]:
        """Block on the stream (never a sleep) until the game stops awaiting randomness."""
        meta = self.meta(game_id)
        deadline = time.monotonic() + wait_seconds
        later: list[StoredEvent] = []
        while (remaining := deadline - time.monotonic()) > 0:
            later += self._store.wait(game_id, after=after, block_ms=max(1, int(1000 * remaining)))
            after = later[-1].version if later else after
            # Judge by the last event collected, not the latest state: a draw made meanwhile
            # must arrive in ``later`` too, or the answer would miss it.
            if later and play.status(meta.rules, self.state_at(game_id, after)) != AWAITING_RANDOM:
                break
        return later

    # ----- drawing --------------------------------------------------------------------------

    def resolve_draw(self, game_id: str, version: int) -> int:
        """Record the draw the game awaits at ``version``; return how many draws were made.

        Idempotent: a stale version, a game that awaits nothing, or a lost race (someone else
        appended first) does nothing. Draws that follow one another (setups with several)
        are made in a row.
        """
        meta = self.meta(game_id)
        made = 0
        head = self._head(game_id)
        while head.state.version == version and not head.state.over:
            draw = meta.rules.pending_draw(head.state.board)
            if draw is None:
                break
            seed = bytes.fromhex(self._store.seed(game_id))
            outcome = rng.draw(seed, game_id, version + 1, draw.label, draw.kind, draw.n)
            events, decided = play.resolve_draw_step(meta.rules, head.state, outcome)
            result = self._append(meta, head, events, decided, None, {"seat": SYSTEM})
            if not isinstance(result, tuple):
                break
            made += 1
            after, sealed = result
            version = after.version
            head = Head(after, sealed[-1].hash)
        return made

    def play_bot(
        self, game_id: str, version: int, *, before_append: Callable[[], None] | None = None
    ) -> bool:
        """Make the move of the first bot seat to act at ``version``; False when stale.

        The bot decides from legal actions and public heuristics (``domain.ai``), with its
        own random stream (label ``bot-<seat>``, consuming none of the game's draws), and
        its move goes through the same append as a person's, command id ``bot-<version>``:
        a job that runs twice writes once. ``before_append`` runs once the move is chosen
        (crash tests pause there).
        """
        meta = self.meta(game_id)
        head = self._head(game_id)
        state = head.state
        seat = bot_to_move(meta.rules, state) if state.version == version else None
        if seat is None or state.over:
            return False
        seed = bytes.fromhex(self._store.seed(game_id))
        events, decided = self._bot_move(meta, state, seat, seed)
        if before_append is not None:
            before_append()
        result = self._append(meta, head, events, decided, f"bot-{version}", {"seat": seat})
        return isinstance(result, tuple)

    def _bot_move(
        self, meta: GameMeta, state: GameState[Any], seat: int, seed: bytes
    ) -> tuple[list[Event], GameState[Any]]:
        """The bot's move, decided; a policy that fails plays a random legal action instead.

        A bug in a bot must never stall a game (the job would fail and be swept again for
        ever), so it is logged and the seat plays ``random`` from the same stream.
        """
        version = state.version
        strength = meta.seats[seat].bot or ""

        def stream() -> rng.DrawStream:
            return rng.DrawStream(seed, meta.game_id, version + 1, f"bot-{seat}")

        try:
            action = self._policies[strength].choose(meta.rules, state, seat, stream())
            return play.step(meta.rules, state, seat, action)
        except Exception:
            log.exception(
                "bot %r of game %s failed at version %d; it plays random",
                strength,
                meta.game_id,
                version,
            )
            action = RandomPolicy().choose(meta.rules, state, seat, stream())
            return play.step(meta.rules, state, seat, action)

    def awaiting_follow_ups(self, *, batch: int = 500) -> Iterator[tuple[str, str, int]]:
        """Every (kind, game, version) waiting on a worker: a draw, or a bot's move."""
        offset = 0
        while True:
            ids = self._store.list_ids(offset=offset, limit=batch)
            if not ids:
                return
            for game_id, raw in zip(ids, self._store.metas(ids), strict=True):
                if raw is None:
                    continue
                if raw.get("status") == AWAITING_RANDOM:
                    yield "draw", game_id, int(raw["version"])
                elif raw.get("status") == "active":
                    meta = self._catalog.find(game_id)
                    if meta is None or not any(seat.bot for seat in meta.seats):
                        continue
                    state = self.latest(game_id)
                    if bot_to_move(meta.rules, state) is not None:
                        yield "bot", game_id, state.version
            offset += batch

    def shown(self, game_id: str, events: list[StoredEvent], *, game_over: bool) -> list[JSON]:
        return shown(self.meta(game_id), events, game_over=game_over)

    # ----- the cache ----------------------------------------------------------------------

    def _fold(self, meta: GameMeta, created: list[StoredEvent]) -> GameState[Any]:
        """The state at version 1 from the ``game_created`` event."""
        return play.fold(meta.rules, meta.game_id, [created[0].event])


def shown(meta: GameMeta, events: list[StoredEvent], *, game_over: bool) -> list[JSON]:
    """Events as every viewer may see them (secret draws masked until the end)."""
    secret = meta.rules.secret_draw_labels
    return [event_view(e, game_over=game_over, secret_labels=secret) for e in events]


def _command_key(seat: int, command_id: str) -> str:
    return f"{seat}:{command_id}"


def _millis(at: str) -> int:
    return int(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000)
