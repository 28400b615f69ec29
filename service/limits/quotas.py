"""Per-creator quotas: how many live games, and live bot games, one client may have at once.

Creating a game needs no token, so without a bound one client could fill Redis and the
workers' queues (150 all-``mcts`` games in 1.4 s). The creator is the client address the API
passes in (``request.remote_addr``: behind a trusted reverse proxy, the client it names,
``service/api/proxies.py``). Two quotas apply:

- live **bot** games (at least one bot seat, not over): ``bot_games`` (default 16);
- live games of any kind: ``live_games`` (default 100).

0 turns a quota off; the organizer is never counted. Over a quota ``create`` is refused with
429 ``bot_game_quota`` / ``live_game_quota`` and nothing is written. Nothing but the game's
end frees a slot (played out, resigned, timed out, or decided by the organizer), so there is no
``Retry-After``. The creator's storage budget (``service.limits.storage``) is checked here
too, just before the quotas, and the quotas' script lists the new game among the creator's
games in Redis: wherever a creator's quotas are taken (a game, the game a table starts), so
is its budget.

Each creator's games are sorted sets sharing the hash tag ``{<creator>}`` (one Redis
Cluster slot), member = game id, score = when the slot was taken (ms):

- ``floe:quota:{<creator>}:live``  every game it created (kept only while ``live_games`` > 0)
- ``floe:quota:{<creator>}:bots``  its bot games (kept only while ``bot_games`` > 0)
- ``floe:quota:{<creator>}:stored`` its games that may be in Redis (``storage.stored_key``;
  kept only while the storage budget is on)

One Lua script checks and takes a slot atomically, so concurrent creates from one address
never exceed a quota. Finished games are pruned lazily, only when a create would be refused:
the statuses of the creator's members are read (one pipelined round trip) and the script
drops those that are over before it counts again. The move path is untouched. Pruning only
ever removes games that are over (a game never comes back from over) or slots whose game
never appeared (a create that died between taking its slot and writing its game, found
``ORPHAN_MS`` later), so a prune racing a create cannot let anyone past a quota.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from domain.engine.status import GameStatus
from service.clock import Clock, epoch_seconds
from service.errors import QuotaExceeded
from service.limits.storage import StorageBudget, stored_key
from service.redis.keys import KeyPattern
from service.redis.scripts import Script
from service.store.events import EventStore

#: A slot whose game still does not exist this long after it was taken is a dead create's.
ORPHAN_MS = 10 * 60 * 1000

RESERVE_QUOTA = Script.load(__package__, "reserve_quota.lua")


live_key = KeyPattern("floe:quota:{<id>}:live")
bots_key = KeyPattern("floe:quota:{<id>}:bots")


@dataclass(frozen=True, slots=True)
class QuotaLimits:
    """Live games per creator, and live bot games; 0 turns a quota off."""

    bot_games: int
    live_games: int

    @property
    def enabled(self) -> bool:
        return self.bot_games > 0 or self.live_games > 0


@dataclass(frozen=True, slots=True)
class Reserved:
    """A slot taken for ``game_id``: give it back with ``CreatorQuotas.release`` if the game
    is not written after all."""

    creator: str
    game_id: str


@dataclass(frozen=True, slots=True)
class _Refusal:
    code: str
    count: int


class CreatorQuotas:
    """Take a creator's slot for a new game, or refuse with ``QuotaExceeded``."""

    def __init__(
        self,
        client: redis.Redis,
        limits: QuotaLimits,
        clock: Clock,
        games: EventStore,
        *,
        storage: StorageBudget | None = None,
    ) -> None:
        """``storage``: the creators' storage budget (None: none)."""
        self._client = client
        self._storage = storage
        #: Where the creators' games stand (a finished one no longer counts).
        self._games = games
        self._limits = limits
        self._clock = clock
        self._reserve = RESERVE_QUOTA.on(client)

    @property
    def limits(self) -> QuotaLimits:
        return self._limits

    def reserve(self, creator: str, game_id: str, *, bot: bool) -> Reserved | None:
        """Count ``game_id`` against ``creator`` (None when the quotas and the storage
        budget are off), after checking the creator's storage budget (429 ``storage_quota``).

        The first try prunes nothing: one round trip when under the quotas. Only a refusal
        reads the members' statuses and tries again with the finished ones pruned.
        """
        limits, storage = self._limits, self._storage
        tracked = storage is not None and storage.enabled
        if not limits.enabled and not tracked:
            return None
        now_ms = int(1000 * epoch_seconds(self._clock))
        if storage is not None:
            storage.check(creator, now_ms, ORPHAN_MS)
        refusal = self._try(creator, game_id, bot, now_ms, ())
        if refusal is not None:
            prunable = self._prunable(creator, now_ms)
            if prunable:
                refusal = self._try(creator, game_id, bot, now_ms, prunable)
        if refusal is not None:
            limit = limits.bot_games if refusal.code == "bot_game_quota" else limits.live_games
            raise QuotaExceeded(bot=refusal.code == "bot_game_quota", limit=limit)
        return Reserved(creator, game_id)

    def release(self, reserved: Reserved) -> None:
        """Give a slot back: its game was never written. ZREM works on a full Redis too;
        should Redis not answer, the slot is an orphan, pruned ``ORPHAN_MS`` later."""
        pipe = self._client.pipeline(transaction=False)
        pipe.zrem(live_key(reserved.creator), reserved.game_id)
        pipe.zrem(bots_key(reserved.creator), reserved.game_id)
        pipe.zrem(stored_key(reserved.creator), reserved.game_id)
        with contextlib.suppress(redis.RedisError):
            pipe.execute()

    def _try(
        self, creator: str, game_id: str, bot: bool, now_ms: int, prune: Sequence[str]
    ) -> _Refusal | None:
        kind, count = self._reserve(
            live=live_key(creator),
            bots=bots_key(creator),
            stored=stored_key(creator),
            live_limit=self._limits.live_games,
            bot_limit=self._limits.bot_games,
            game_id=game_id,
            is_bot="1" if bot else "0",
            now_ms=now_ms,
            track_stored="1" if self._storage is not None and self._storage.enabled else "0",
            prune=list(prune),
        )
        code = _text(kind)
        return None if code == "ok" else _Refusal(code, int(count))

    def _prunable(self, creator: str, now_ms: int) -> list[str]:
        """The creator's games that no longer count: over, or never written (orphans)."""
        pipe = self._client.pipeline(transaction=False)
        pipe.zrange(live_key(creator), 0, -1, withscores=True)
        pipe.zrange(bots_key(creator), 0, -1, withscores=True)
        taken: dict[str, float] = {}
        for members in pipe.execute():
            for member, score in members:
                taken[_text(member)] = score
        ids = sorted(taken)
        prunable = []
        for game_id, record in zip(ids, self._games.records(ids), strict=True):
            if record is None:  # no such game (yet)
                if now_ms - taken[game_id] >= ORPHAN_MS:
                    prunable.append(game_id)
            elif record.status == GameStatus.OVER:
                prunable.append(game_id)
        return prunable


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
