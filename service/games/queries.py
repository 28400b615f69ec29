"""The queries: games as a viewer may see them, their events and their export (the list is
``search``'s).

Every answer passes through ``views``, the one place that decides what a viewer may see.
Nothing here writes, and nothing knows HTTP.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from domain.engine import play
from domain.engine.game import Scene
from domain.engine.log import StoredEvent
from domain.engine.status import GameStatus
from domain.engine.types import GAME_OVER, JSON, SEED_REVEALED, GameState
from service.caching.lru import ByteBoundedLRU
from service.errors import organizer_only
from service.games.access import Viewer
from service.games.catalog import GameMeta
from service.games.repository import GameRepository
from service.games.state_cache import Head
from service.games.views import game_view, shown_events
from service.store import codec
from service.store.appends import AppendSignals, Heard
from service.store.events import EventStore, events_key

#: A game's status as pictures' titles say it.
STATUS_WORDS = {
    GameStatus.ACTIVE: "in play",
    GameStatus.AWAITING_RANDOM: "waiting for a draw",
    GameStatus.OVER: "over",
}
#: The legal-action lists' budget per process: thousands of states' lists.
LEGAL_CACHE_BYTES = 8 * 1024 * 1024
#: The board pictures' budget per process: a board weighs some 25 to 40 KB, so some
#: hundreds of pictures, the ones asked for last (docs/operations/limits.md).
PICTURE_CACHE_BYTES = 16 * 1024 * 1024

#: A picture's name: its game (whose names never change), the hash of the event that made its
#: version (unique even across a failover), the seat whose secrets it may show (None: a
#: spectator's, the organizer's, or a public one) and whether the seed is out (then every
#: event shows unmasked). Status words and outcome follow from the state the hash names.
PictureKey = tuple[str, str, int | None, bool]


@dataclass(frozen=True, slots=True)
class LiveBatch:
    """Events as a live stream sends them: as stored, and as shown with their receipts."""

    stored: list[StoredEvent]
    shown: list[JSON]


def handed_over(heard: Heard, after: int) -> list[StoredEvent] | None:
    """The events after ``after`` that the rings handed over, when they are all there is:
    every ring carried its events (``Heard.complete``) and those after ``after`` follow it
    without a gap (empty: nothing new was appended). None: read the stream."""
    if not heard.complete:
        return None
    new = [event for event in heard.events if event.version > after]
    if any(event.version != after + i for i, event in enumerate(new, start=1)):
        return None
    return new


class GameQueries:
    def __init__(
        self,
        repository: GameRepository,
        store: EventStore,
        *,
        signals: AppendSignals,
        legal_cache_bytes: int = LEGAL_CACHE_BYTES,
        picture_cache_bytes: int = PICTURE_CACHE_BYTES,
    ) -> None:
        """``signals``: the process's one subscription to appends, which live streams wait on."""
        self._repository = repository
        self._store = store
        self._signals = signals
        #: Legal-action lists by (game, hash of the event that made the state, seat): a state
        #: so named can never be another, even one a failover made with the same version.
        self._legal: ByteBoundedLRU[tuple[str, str, int], list[JSON]] = ByteBoundedLRU(
            legal_cache_bytes
        )
        #: Board pictures by ``PictureKey``: an old version's picture otherwise refolds the
        #: game up to it on every request (issue 27).
        self._pictures: ByteBoundedLRU[PictureKey, str] = ByteBoundedLRU(picture_cache_bytes)

    def view(self, meta: GameMeta, viewer: Viewer, version: int | None = None) -> JSON:
        """The game now, or at ``version``, as ``viewer`` may see it."""
        seat = viewer.reader_seat(meta.game_id)
        latest = self._repository.latest(meta)
        state = (
            latest if version is None else self._repository.state_at(meta, version, latest=latest)
        )
        return game_view(
            meta.rules,
            state,
            seat,
            seats=meta.seats_json(),
            revealed_seed=latest.seed,
            bot_failure=self._bot_failure(meta, latest) if state is latest else None,
        )

    @property
    def pictures(self) -> ByteBoundedLRU[PictureKey, str]:
        """The cached pictures (for tests and the benchmarks)."""
        return self._pictures

    def picture(self, meta: GameMeta, viewer: Viewer, version: int | None = None) -> str:
        """The board as an SVG document at ``version`` (default: now), drawn from what
        ``viewer`` may see, with the event that made that version as the viewer sees it.

        Drawn once per ``PictureKey``: the key holds everything the picture shows that its
        game (whose names never change) does not, so a kept one is what drawing it again
        would give, byte for byte. Finding the key reads one event and folds nothing.
        """
        seat = viewer.reader_seat(meta.game_id)
        head = self._repository.head(meta)
        latest = head.state
        at = latest.version if version is None else version
        if not 1 <= at <= latest.version:
            self._repository.state_at(meta, at, latest=latest)  # says which versions exist
        if at == latest.version:
            made = head.hash
        else:
            [event] = self._repository.read(meta.game_id, after=at - 1, upto=at)
            made = event.hash
        seed_out = latest.seed is not None
        # a public picture (``game_view``) is the same for every viewer
        public = seed_out or (at == latest.version and latest.over)
        key = (meta.game_id, made, None if public else seat, seed_out)
        picture = self._pictures.get(key)
        if picture is None:
            picture = self._draw(meta, latest, seat, at)
            self._pictures.put(key, picture, sys.getsizeof(picture))
        return picture

    def _draw(self, meta: GameMeta, latest: GameState[Any], seat: int | None, at: int) -> str:
        """The picture at version ``at`` of the game whose head is ``latest``: drawn from
        that one head, so it is the picture its key names even if the game moves meanwhile."""
        state = (
            latest if at == latest.version else self._repository.state_at(meta, at, latest=latest)
        )
        shown = game_view(
            meta.rules, state, seat, seats=meta.seats_json(), revealed_seed=latest.seed
        )
        made = self._repository.read(meta.game_id, after=at - 1, upto=at)
        # a revealed seed means the game is over: everything is public
        events = self.shown(meta, made, game_over=shown["seed"] is not None)
        status = STATUS_WORDS[GameStatus(shown["status"])]
        scene = Scene.of(
            shown["state"],
            names=[s.name for s in meta.seats],
            event=events[-1] if events else None,
            outcome=shown["outcome"],
            title=f"{shown['game']} {shown['id']} v{at} ({status})",
        )
        return meta.bundle.svg(scene)

    def _bot_failure(self, meta: GameMeta, latest: GameState[Any]) -> JSON | None:
        """The bot move that failed at the game's current version, if any: the game waits
        there (docs/guide/bots.md). Only games with bots ask the store; a failure at an earlier
        version is over (the bot has moved since) and shows as null."""
        if latest.over or not any(seat.bot for seat in meta.seats):
            return None
        record = self._store.record(meta.game_id)
        if record is None or record.failed_at != latest.version:
            return None
        return record.bot_failure

    def legal_actions(self, meta: GameMeta, viewer: Viewer) -> JSON:
        """The actions ``viewer``'s seat may post now; listed once per state and seat."""
        seat = viewer.require_seat(meta.game_id)
        return self.legal_at(meta, self._repository.head(meta), seat)

    def legal_at(self, meta: GameMeta, head: Head, seat: int) -> JSON:
        """The actions ``seat`` may post at ``head`` (a live stream's: the state it has just
        shown, with no read of its own); listed once per state and seat."""
        key = (meta.game_id, head.hash, seat)
        actions = self._legal.get(key)
        if actions is None:
            actions = play.legal_actions_json(
                meta.rules, head.state, seat, encode=codec.canonical_bytes
            )
            self._legal.put(key, actions, len(codec.encode(actions)))
        return {"version": head.state.version, "actions": actions}

    def events(self, meta: GameMeta, viewer: Viewer, *, after: int, limit: int) -> JSON:
        viewer.reader_seat(meta.game_id)
        state = self._repository.latest(meta)
        upto = min(state.version, after + limit)
        page = self._repository.read(meta.game_id, after=after, upto=upto)
        return {
            "version": state.version,
            "events": shown_events(meta.rules, page, game_over=state.over),
        }

    def live(
        self,
        meta: GameMeta,
        after: int,
        *,
        over: bool,
        sign: Callable[[list[StoredEvent]], list[JSON]],
        block_ms: Callable[[], int],
    ) -> Generator[LiveBatch | None, None, None]:
        """What a live viewer is sent after version ``after``, the one loop of the SSE stream
        and the socket: each batch of events as it comes, shown as every viewer may see them
        with its receipt (``sign``), and None each time ``block_ms()`` passes with nothing
        new (the caller's heartbeat, or its look at whether anyone still listens).

        ``over``: the game was over when the caller read its head. The stream ends where a
        finished game's stream ends: after ``seed_revealed``, or once a finished game has
        nothing more to send.

        One doorbell (``AppendSignals``) is held for the whole stream, registered before the
        first read: an append after any read rings it, so there is no read to check before
        waiting again (``EventStore.wait``'s, which registers afresh each time); and a ring
        hands over the events the append stored, so a move costs the stream no read at all
        (``handed_over``).
        """
        game_id = meta.game_id
        with self._signals.watch(events_key(game_id)) as watch:
            batch = self._repository.read(game_id, after=after)
            while True:
                if batch:
                    over = over or any(e.type == GAME_OVER for e in batch)
                    yield self._live_batch(meta, batch, over, sign)
                    if batch[-1].type == SEED_REVEALED:
                        return
                    after = batch[-1].version
                deadline = time.monotonic() + block_ms() / 1000
                batch = []
                while not batch and (left := deadline - time.monotonic()) > 0:
                    heard = watch.wait(left)  # a ring, or a recheck; cleared before the read
                    handed = handed_over(heard, after)
                    batch = (
                        self._repository.read(game_id, after=after) if handed is None else handed
                    )
                if not batch:
                    if over:  # over, and nothing more came: the stream has ended
                        return
                    yield None

    def _live_batch(
        self,
        meta: GameMeta,
        batch: list[StoredEvent],
        over: bool,
        sign: Callable[[list[StoredEvent]], list[JSON]],
    ) -> LiveBatch:
        views = self.shown(meta, batch, game_over=over)
        receipts = sign(batch)
        shown = [
            {**view, "receipt": receipt} for view, receipt in zip(views, receipts, strict=True)
        ]
        return LiveBatch(batch, shown)

    def shown(self, meta: GameMeta, events: list[StoredEvent], *, game_over: bool) -> list[JSON]:
        return shown_events(meta.rules, events, game_over=game_over)

    def export(self, meta: GameMeta, viewer: Viewer) -> list[StoredEvent]:
        """The full log: public once the game is over, before that only for the organizer."""
        state = self._repository.latest(meta)
        if not state.over and not viewer.organizer:
            raise organizer_only("export before the end", anonymous=viewer.anonymous)
        return self._repository.read(meta.game_id, upto=state.version)

    def bot_failures(self) -> int:
        """How many bot moves have failed, across all games (the health check shows it)."""
        return self._store.bot_failures()
