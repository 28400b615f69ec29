"""The worker's handlers: record the draw a game awaits, play the bot seat whose move it is.

Both are idempotent: each decides against the version its job names and appends through the
same conditional append as a person's move, so a job that runs twice, or a job for a version
that has moved on, writes nothing. A bot's move carries the command id ``bot-<version>``.

A bot's move is bounded in time (``bot_move_seconds``) as well as by its iterations, and a
bot that fails (out of time, or a bug) fails loudly: the move is logged, counted, kept in the
game's meta where its view shows it, and nothing is appended. No other move is ever played
in its place, so how fast a machine is never decides what happens in a game.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from domain.ai import UNBOUNDED, BotTimedOut, Budget, bot_to_move
from domain.ai.policy import Policy
from domain.engine import play, rng
from domain.engine.errors import TimeoutDue
from domain.engine.status import GameStatus
from domain.engine.types import SYSTEM, Event, GameState
from service.caching.lru import ByteBoundedLRU
from service.caching.sizes import ENTRY_OVERHEAD
from service.clock import millis
from service.errors import Conflict
from service.games.catalog import GameMeta
from service.games.follow_ups import JobKind, JobQueue, enqueue_next, timer_due
from service.games.repository import GameRepository, Recorded
from service.games.state_cache import Head
from service.games.timeouts import record_timeouts
from service.jobs.queue import parse_job_id
from service.limits.game_length import check_length
from service.store.events import EventStore, GameRecord

log = logging.getLogger(__name__)

#: Seeds a worker keeps in memory, most recently used: a game's seed never changes, and every
#: draw and bot move needs it (one round trip each, otherwise).
SEEDS_KEPT = 4096
#: Ids of ``floe:games`` the repair pass reads per sweep (``repair_live_index``): what bounds a
#: sweep's cost beside the live games, however many games have ended.
REPAIR_SLICE = 200
#: How long an id in the live index may name no game before it is dropped: a game is listed
#: just before it is created, so one being created right now must not be taken for one whose
#: creation crashed.
MISSING_GRACE_SECONDS = 60.0


def _nothing(game_id: str) -> None:
    """The default hook: production jobs never pause."""


@dataclass(frozen=True, slots=True)
class JobHooks:
    """Points inside a job where a test may hold it, to SIGKILL its worker exactly there.

    Production passes none; the crash tests build their workers with hooks of their own.
    """

    #: A draw job, before it draws.
    before_draw: Callable[[str], None] = _nothing
    #: A bot job once its move is chosen, before it is appended.
    bot_decided: Callable[[str], None] = _nothing
    #: A bot job after its move is appended, before the job finishes.
    bot_written: Callable[[str], None] = _nothing
    #: A tournament job (a game of it ended), before the tournament advances.
    before_tournament: Callable[[str], None] = _nothing
    #: A timeout job (its timer came due), before it records the timeout.
    before_timeout: Callable[[str], None] = _nothing


class TournamentRunner(Protocol):
    """What the worker asks of the tournaments (``service.tournaments.running.Tournaments``)."""

    def game_over(self, game_id: str) -> None: ...

    def advance_running(self) -> None: ...


#: Why a bot's move failed: it ran out of time, or its policy raised (a bug).
FailureReason = Literal["timeout", "error"]


@dataclass(frozen=True, slots=True)
class BotFailure:
    """A bot move that failed: kept in the game's meta (``bot_failure``) and shown in its
    view while the game still stands at ``version``."""

    seat: int
    #: The version the game stood at, the one the job named (its move would be the next).
    version: int
    strength: str
    reason: FailureReason
    #: Short, and public: the details (a traceback) are in the worker's log only.
    message: str
    at: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Automation:
    """Draws, bot moves and tournament advances, as the drains run them.

    ``bot_move_seconds`` bounds each bot move on ``monotonic`` (None: no bound); the same
    clock times how long an id of the live index has named no game (``_games``).
    """

    def __init__(
        self,
        repository: GameRepository,
        store: EventStore,
        jobs: JobQueue,
        policies: Mapping[str, Policy],
        hooks: JobHooks | None = None,
        *,
        bot_move_seconds: float | None = None,
        events_per_game: int = 0,
        monotonic: Callable[[], float] = time.monotonic,
        tournaments: TournamentRunner | None = None,
    ) -> None:
        self._repository = repository
        self._store = store
        self._tournaments = tournaments
        self._jobs = jobs
        self._policies = policies
        self._hooks = hooks or JobHooks()
        self._bot_move_seconds = bot_move_seconds
        self._events_per_game = events_per_game
        self._monotonic = monotonic
        self._seeds = _Seeds(repository, SEEDS_KEPT)
        #: Ids of the live index seen naming no game, and when first seen so (``_games``).
        self._missing: dict[str, float] = {}

    def resolve_draw(self, game_id: str, version: int) -> int:
        """Record the draw the game awaits at ``version``; return how many draws were made.

        Idempotent: a stale version, a game that awaits nothing, or a lost race (someone
        else appended first) does nothing. Draws that follow one another (setups with
        several) are made in a row.
        """
        self._hooks.before_draw(game_id)
        meta = self._repository.meta(game_id)
        made = 0
        head = self._repository.head(meta)
        while head.state.version == version and not head.state.over:
            draw = meta.rules.pending_draw(head.state.board)
            if draw is None:
                break
            seed = self._seeds.get(game_id)
            outcome = rng.draw(seed, game_id, version + 1, draw.label, draw.kind, draw.n)
            at = self._repository.clock()
            events, decided = play.resolve_draw_step(meta.rules, head.state, outcome, at)
            result = self._record(meta, head, events, decided, seat=SYSTEM, command_id=None, at=at)
            if result is None:
                break
            made += 1
            version = result.state.version
            head = Head(result.state, result.events[-1].hash)
        return made

    def run_item(self, item: str, thought: Callable[[], None] = lambda: None) -> object:
        """Do what the item ``<kind>-<game>-<version>`` names (nothing, if it is stale);
        ``thought``: called once a bot has decided (``play_bot``)."""
        kind, game_id, version = parse_job_id(item)
        if kind == "draw":
            return self.resolve_draw(game_id, version)
        if kind == "bot":
            return self.play_bot(game_id, version, thought)
        if kind == "timeout":
            return self.time_out(game_id, version)
        return self.tournament_game_over(game_id, version)

    def time_out(self, game_id: str, version: int) -> bool:
        """Record the timeouts the game owes at ``version``, if it still stands there; a
        timer that came early (another machine's clock ahead) is armed again. True when
        timeouts were appended."""
        self._hooks.before_timeout(game_id)
        meta = self._repository.meta(game_id)
        head = self._repository.head(meta)
        if head.state.version != version or head.state.over:
            return False
        if record_timeouts(self._repository, self._jobs, meta, head, self._repository.clock()):
            return True
        due = timer_due(head.state)
        if due is not None:
            self._jobs.enqueue("timeout", game_id, version, due=due)
        return False

    def item_stuck(self, item: str) -> None:
        """``item`` ran past its deadline (``service.jobs.deadlines``): code that never checks
        its budget. A bot move's failure is recorded as any bot failure is (reason
        ``timeout``), so the sweeper leaves it alone until a worker starting retries it; a
        stuck draw or advance has nothing to record."""
        kind, game_id, version = parse_job_id(item)
        if kind != "bot":
            return
        meta = self._repository.meta(game_id)
        state = self._repository.head(meta).state
        seat = bot_to_move(meta.bundle, state) if state.version == version else None
        if seat is None or state.over:
            return  # the game moved on meanwhile: nothing failed at this version
        strength = meta.seats[seat].bot or ""
        message = f"{strength} was stopped by the job timeout"
        self._failed(game_id, seat, version, strength, "timeout", message)

    def tournament_game_over(self, game_id: str, version: int) -> bool:
        """A tournament game ended at ``version``: its tournament takes note and, once the
        round is over, makes the next (idempotent: ``Tournaments.advance``)."""
        if self._tournaments is None:
            return False
        self._hooks.before_tournament(game_id)
        self._tournaments.game_over(game_id)
        return True

    def advance_tournaments(self) -> None:
        """Advance every running tournament that can (the sweeper's part)."""
        if self._tournaments is not None:
            self._tournaments.advance_running()

    def play_bot(
        self, game_id: str, version: int, thought: Callable[[], None] = lambda: None
    ) -> bool:
        """Make the move of the bot seat to act at ``version``; False when stale, or when
        the bot failed (then the failure is recorded and nothing is appended).

        The bot decides from legal actions and the game's public bot kit, with its own
        random stream (label ``bot-<seat>``, consuming none of the game's draws), and its move
        goes through the same append as a person's: a job that runs twice writes once.
        ``thought`` is called once the bot has decided (or found nothing to decide), before
        the move is appended: a drain then lets the next bot think (``service.jobs.drains``).

        It decides against this process's cached head when that is at ``version`` (a worker
        playing a game of bots wrote it itself), as a person's move does: the append refuses
        a head the stream has moved past. Refused, it reads the head from the store (which
        folds again if the store lost what the cache saw) and plays from there, if the move
        is still to be made.
        """
        meta = self._repository.meta(game_id)
        cached = self._repository.cached_head(game_id)
        if cached is not None and cached.state.version == version:
            made = self._bot_turn(meta, cached, version, thought)
            if made is not None:
                return made
        return bool(self._bot_turn(meta, self._repository.head(meta), version, thought))

    def _bot_turn(
        self, meta: GameMeta, head: Head, version: int, thought: Callable[[], None]
    ) -> bool | None:
        """``play_bot`` against ``head``: True when written, False when stale or the bot
        failed, None when the append refused it (the stream is not at ``head``)."""
        try:
            state = head.state
            seat = bot_to_move(meta.bundle, state) if state.version == version else None
            if seat is None or state.over:
                return False
            move = self._bot_move(meta, state, seat)
        finally:
            thought()
        if move is None:
            return False
        events, decided, at = move
        self._hooks.bot_decided(meta.game_id)
        result = self._record(
            meta, head, events, decided, seat=seat, command_id=f"bot-{version}", at=at
        )
        if result is None:
            return None
        self._hooks.bot_written(meta.game_id)
        return True

    def _bot_move(
        self, meta: GameMeta, state: GameState[Any], seat: int
    ) -> tuple[list[Event], GameState[Any], str] | None:
        """The bot's move, decided within ``bot_move_seconds``, and the time it is made at;
        None when the bot failed, or when its clock ran out first (its timer will say so).

        A policy that runs out of time, raises, or answers an action the rules refuse (a bug)
        gets no other move played in its place: a move nobody asked for, or one that depends
        on how fast the machine is, would break the game's determinism. The failure is
        logged, counted and recorded in the game's meta, where its view shows it; the game
        waits at this version until the bot succeeds (``retry_failed``, docs/guide/bots.md).
        """
        version = state.version
        strength = meta.seats[seat].bot or ""
        seed = self._seeds.get(meta.game_id)
        stream = rng.DrawStream(seed, meta.game_id, version + 1, f"bot-{seat}")
        seconds = self._bot_move_seconds
        budget = UNBOUNDED if seconds is None else Budget.of(seconds, self._monotonic)
        try:
            action = self._policies[strength].choose(meta.bundle, state, seat, stream, budget)
            at = self._repository.clock()
            events, decided = play.step(meta.rules, state, seat, action, at)
            if meta.length_capped:
                check_length(self._events_per_game, version + len(events))
            return events, decided, at
        except TimeoutDue:
            return None  # not the bot's failure: the game's timer records the timeout
        except BotTimedOut as error:
            message = f"{strength} {error}"
            self._failed(meta.game_id, seat, version, strength, "timeout", message)
        except Conflict as refused:  # the game's length cap: it waits for a person now
            self._failed(meta.game_id, seat, version, strength, "error", refused.message)
        except Exception as error:
            message = f"{strength} failed ({type(error).__name__})"
            self._failed(meta.game_id, seat, version, strength, "error", message)
        return None

    def _failed(
        self,
        game_id: str,
        seat: int,
        version: int,
        strength: str,
        reason: FailureReason,
        message: str,
    ) -> None:
        """Fail loudly: log (ERROR; a bug with its traceback), count, and show in the game."""
        log.error(
            "bot move failed: game %s seat %d version %d strength %s reason %s: %s",
            game_id,
            seat,
            version,
            strength,
            reason,
            message,
            exc_info=reason == "error",
        )
        failure = BotFailure(seat, version, strength, reason, message, self._repository.clock())
        self._store.record_bot_failure(game_id, failure.to_json())

    def _record(
        self,
        meta: GameMeta,
        head: Head,
        events: list[Event],
        decided: GameState[Any],
        *,
        seat: int | str,
        command_id: str | None,
        at: str,
    ) -> Recorded | None:
        """Append at ``at``; on success enqueue what the game waits for next. None when
        refused."""
        result = self._repository.append(
            meta, head, events, decided, seat=seat, command_id=command_id, at=at
        )
        if not isinstance(result, Recorded):
            return None
        enqueue_next(self._jobs, meta.bundle, meta.game_id, result.state, result.status)
        return result

    def waiting_jobs(self, *, batch: int = 500) -> Iterator[tuple[JobKind, str, int]]:
        """Every (kind, game, version) waiting on a worker: a draw, or a bot's move.

        A bot move that failed at the game's current version is not waiting: it failed
        loudly and stays failed until retried (``retry_failed``), so the sweeper never runs
        it again and again. Reads only the games not over (``floe:live``): a finished game
        waits for nothing, and there are ever more of them.
        """
        catalog = self._repository.catalog
        for record in self._games(batch):
            game_id = record.game_id
            if record.status == GameStatus.AWAITING_RANDOM:
                yield "draw", game_id, record.version
            elif record.status == GameStatus.ACTIVE:
                if record.failed_at == record.version:
                    continue
                meta = catalog.find(game_id)
                if meta is None or not any(seat.bot for seat in meta.seats):
                    continue
                state = self._repository.latest(meta)
                if bot_to_move(meta.bundle, state) is not None:
                    yield "bot", game_id, state.version

    def waiting_timers(self, *, batch: int = 500) -> Iterator[tuple[str, int, int]]:
        """Every (game, version, due second) of a game with a clock that owes a timeout at
        its deadline: what the sweeper arms again, so a lost timer is late, never lost. Reads
        only the games not over (``floe:live``), as ``waiting_jobs`` does."""
        catalog = self._repository.catalog
        for record in self._games(batch):
            if not record.clocked or record.status != GameStatus.ACTIVE:
                continue
            meta = catalog.find(record.game_id)
            if meta is None:
                continue
            state = self._repository.latest(meta)
            due = timer_due(state)
            if due is not None:
                yield record.game_id, state.version, due

    def failed_bot_moves(self) -> Iterator[tuple[str, int]]:
        """Every (game, version) whose bot move failed at the version the game stands at.

        Reads only the games a failure was recorded for (``bot_failed_games``), not every
        game; those that have moved on since are forgotten on the way.
        """
        store = self._store
        ids = store.bot_failed_games()
        over = []
        for game_id, record in zip(ids, store.records(ids), strict=True):
            if (
                record is not None
                and record.status == GameStatus.ACTIVE
                and record.failed_at == record.version
            ):
                yield game_id, record.version
            else:
                over.append(game_id)
        store.forget_bot_failures(over)

    def retry_failed(self) -> list[tuple[str, int]]:
        """Enqueue every failed bot move again; the (game, version) pairs enqueued.

        Each worker does this once, as it starts (``service.jobs.worker``; not one ``floe run``
        starts in place of a worker that died): restarting the workers with a larger
        ``FLOE_BOT_MOVE_SECONDS``, or with the bug fixed, resumes the games. The failure stays
        recorded until the bot succeeds; failing again records it again.
        """
        retried = []
        for game_id, version in self.failed_bot_moves():
            if self._jobs.enqueue("bot", game_id, version) is not False:
                log.warning("retrying the failed bot move of %s at v%d", game_id, version)
                retried.append((game_id, version))
        return retried

    def repair_live_index(self, *, count: int = REPAIR_SLICE) -> list[str]:
        """Read the next slice of ``floe:games`` (about ``count``, from a cursor kept in Redis)
        and put back in the live index each game there that is not over (the ids put back),
        and in ``floe:ended`` each game over that it lacks.

        The index is written beside each game's own write, never with it (another slot in a
        cluster): this finds a game the index lacks, one made before the index existed
        included, within one pass over all games, at a fixed cost per sweep.
        """
        store = self._store
        ids = store.games_slice(count)
        records = store.records(ids)
        live = [
            game_id
            for game_id, record in zip(ids, records, strict=True)
            if record is not None and record.status != GameStatus.OVER
        ]
        store.mark_live(live)
        # A game over that floe:ended lacks (a crash after its end) is listed now, as ended
        # now: the archive's mover takes it a little later than it might have, but takes it.
        now = millis(self._repository.clock())
        over = [r.game_id for r in records if r is not None and r.status == GameStatus.OVER]
        store.mark_ended(dict.fromkeys(over, now))
        return live

    def _games(self, batch: int) -> Iterator[GameRecord]:
        """The records of the games not over (the live index, not every game), ``batch`` ids
        per round trip. Ids whose game is over leave the index here; an id that names no game
        leaves it once it has named none for ``MISSING_GRACE_SECONDS``."""
        store = self._store
        cursor, seen = 0, set[str]()
        missing: list[str] = []
        while True:
            cursor, found = store.scan_live(cursor, batch)
            ids = [game_id for game_id in dict.fromkeys(found) if game_id not in seen]
            seen.update(ids)
            over = []
            for game_id, record in zip(ids, store.records(ids), strict=True):
                if record is None:
                    missing.append(game_id)
                elif record.status == GameStatus.OVER:
                    over.append(game_id)
                else:
                    yield record
            store.forget_live(over)
            if cursor == 0:
                break
        self._forget_missing(missing)

    def _forget_missing(self, missing: list[str]) -> None:
        """Drop from the live index the ids that have named no game for the grace period."""
        if not missing and not self._missing:
            return
        now = self._monotonic()
        first = {game_id: self._missing.get(game_id, now) for game_id in missing}
        gone = [game_id for game_id, at in first.items() if now - at >= MISSING_GRACE_SECONDS]
        self._store.forget_live(gone)
        self._missing = {game_id: at for game_id, at in first.items() if game_id not in gone}


class _Seeds:
    """The seeds of the games this worker played last, read once each (thread-safe)."""

    def __init__(self, repository: GameRepository, kept: int) -> None:
        self._repository = repository
        self._seeds: ByteBoundedLRU[str, bytes] = ByteBoundedLRU(kept * (ENTRY_OVERHEAD + 32))

    def get(self, game_id: str) -> bytes:
        seed = self._seeds.get(game_id)
        if seed is None:
            seed = self._repository.seed(game_id)
            self._seeds.put(game_id, seed, len(seed))
        return seed
