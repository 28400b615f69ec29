"""The worker's handlers: record the draw a game awaits, play the bot seat whose move it is.

Both are idempotent: each decides against the version its job names and appends through the
same conditional append as a person's move, so a job that runs twice, or a job for a version
that has moved on, writes nothing. A bot's move carries the command id ``bot-<version>``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from domain.ai import RandomPolicy, bot_to_move
from domain.ai.policy import Policy
from domain.engine import play, rng
from domain.engine.types import SYSTEM, Event, GameState
from service.catalog import GameMeta
from service.follow_ups import JobKind, JobQueue, enqueue_next
from service.repository import AWAITING_RANDOM, GameRepository, Recorded
from service.state_cache import Head

log = logging.getLogger(__name__)


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


class Automation:
    """Draws and bot moves, as the RQ jobs make them."""

    def __init__(
        self,
        repository: GameRepository,
        jobs: JobQueue,
        policies: Mapping[str, Policy],
        hooks: JobHooks | None = None,
    ) -> None:
        self._repository = repository
        self._jobs = jobs
        self._policies = policies
        self._hooks = hooks or JobHooks()

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
            seed = self._repository.seed(game_id)
            outcome = rng.draw(seed, game_id, version + 1, draw.label, draw.kind, draw.n)
            events, decided = play.resolve_draw_step(meta.rules, head.state, outcome)
            result = self._record(meta, head, events, decided, seat=SYSTEM, command_id=None)
            if result is None:
                break
            made += 1
            version = result.state.version
            head = Head(result.state, result.events[-1].hash)
        return made

    def play_bot(self, game_id: str, version: int) -> bool:
        """Make the move of the bot seat to act at ``version``; False when stale.

        The bot decides from legal actions and the game's public bot kit, with its own
        random stream (label ``bot-<seat>``, consuming none of the game's draws), and its move
        goes through the same append as a person's: a job that runs twice writes once.
        """
        meta = self._repository.meta(game_id)
        head = self._repository.head(meta)
        state = head.state
        seat = bot_to_move(meta.bundle, state) if state.version == version else None
        if seat is None or state.over:
            return False
        events, decided = self._bot_move(meta, state, seat)
        self._hooks.bot_decided(game_id)
        result = self._record(meta, head, events, decided, seat=seat, command_id=f"bot-{version}")
        if result is not None:
            self._hooks.bot_written(game_id)
        return result is not None

    def _bot_move(
        self, meta: GameMeta, state: GameState[Any], seat: int
    ) -> tuple[list[Event], GameState[Any]]:
        """The bot's move, decided; a policy that fails plays a random legal action instead.

        A bug in a bot must never stall a game (the job would fail and be swept again for
        ever), so it is logged and the seat plays ``random`` from the same stream.
        """
        version = state.version
        strength = meta.seats[seat].bot or ""
        seed = self._repository.seed(meta.game_id)

        def stream() -> rng.DrawStream:
            return rng.DrawStream(seed, meta.game_id, version + 1, f"bot-{seat}")

        try:
            action = self._policies[strength].choose(meta.bundle, state, seat, stream())
            return play.step(meta.rules, state, seat, action)
        except Exception:
            log.exception(
                "bot %r of game %s failed at version %d; it plays random",
                strength,
                meta.game_id,
                version,
            )
            action = RandomPolicy().choose(meta.bundle, state, seat, stream())
            return play.step(meta.rules, state, seat, action)

    def _record(
        self,
        meta: GameMeta,
        head: Head,
        events: list[Event],
        decided: GameState[Any],
        *,
        seat: int | str,
        command_id: str | None,
    ) -> Recorded | None:
        """Append; on success enqueue what the game waits for next. None when refused."""
        result = self._repository.append(
            meta, head, events, decided, seat=seat, command_id=command_id
        )
        if not isinstance(result, Recorded):
            return None
        enqueue_next(self._jobs, meta.bundle, meta.game_id, result.state, result.status)
        return result

    def waiting_jobs(self, *, batch: int = 500) -> Iterator[tuple[JobKind, str, int]]:
        """Every (kind, game, version) waiting on a worker: a draw, or a bot's move."""
        store = self._repository.store
        catalog = self._repository.catalog
        offset = 0
        while True:
            ids = store.list_ids(offset=offset, limit=batch)
            if not ids:
                return
            for game_id, raw in zip(ids, store.metas(ids), strict=True):
                if raw is None:
                    continue
                if raw.get("status") == AWAITING_RANDOM:
                    yield "draw", game_id, int(raw["version"])
                elif raw.get("status") == "active":
                    meta = catalog.find(game_id)
                    if meta is None or not any(seat.bot for seat in meta.seats):
                        continue
                    state = self._repository.latest(meta)
                    if bot_to_move(meta.bundle, state) is not None:
                        yield "bot", game_id, state.version
            offset += batch
