"""The event store: one Redis stream per game, appended only through one Lua script.

Keys share the hash tag ``{<game_id>}`` so one game lives in one Redis Cluster slot:

- ``floe:{g}:events``   the stream; entry id ``0-<version>``, field ``e`` = the stored event
- ``floe:{g}:meta``     hash: game, created_at, seats (JSON), version, head (hash), status,
                        and ``bot_failure`` (JSON) once a bot's move has failed
- ``floe:{g}:seed``     the secret seed (hex), never served before the game ends
- ``floe:{g}:commands`` hash: ``<seat>:<command_id>`` -> the accepted command's record (JSON)
- ``floe:games``        sorted set of game ids by creation time (for listing; not in a slot)
- ``floe:stats:bot-failures``  how many bot moves have failed, ever (a counter; not in a slot)
- ``floe:bot-failed``   set of game ids whose bot move failed (for the retry at start-up; a
                        game leaves it once seen moving on)
- ``floe:live``         set of the ids of games not over, so the sweeper reads those, not every
                        game (not in a slot: written beside the game's script, as ``floe:games``
                        is: added before the game is created, removed after it is over, so a
                        crash between leaves a stale id, never a live game unlisted)
- ``floe:live:repair``  where the sweeper's repair pass over ``floe:games`` stands (a ``ZSCAN``
                        cursor): it puts back a game not over that ``floe:live`` lacks

Streams are never trimmed and entries never edited.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from domain.engine.canonical import canonical_json
from domain.engine.log import EventReader, StoredEvent
from domain.engine.status import GameStatus
from service.redis.keys import KeyPattern
from service.redis.scripts import Script
from service.store import codec as json_codec
from service.store.appends import CHANNEL, AppendSignals
from service.store.durability import ReplicaAcks

GAMES_INDEX = "floe:games"
BOT_FAILURES_KEY = "floe:stats:bot-failures"
#: The games whose last recorded bot move failed, so a retry reads those, not every game.
BOT_FAILED_GAMES = "floe:bot-failed"
#: The games not over (a set), so the sweeper reads only those (``Automation.waiting_jobs``).
LIVE_GAMES = "floe:live"
#: The repair pass's ``ZSCAN`` cursor over ``floe:games`` (``Automation.repair_live_index``).
LIVE_REPAIR_CURSOR = "floe:live:repair"

CREATE = Script.load(__package__, "create.lua")
APPEND = Script.load(__package__, "append.lua")


events_key = KeyPattern("floe:{<id>}:events")
meta_key = KeyPattern("floe:{<id>}:meta")
seed_key = KeyPattern("floe:{<id>}:seed")
commands_key = KeyPattern("floe:{<id>}:commands")


@dataclass(frozen=True, slots=True)
class Appended:
    version: int


@dataclass(frozen=True, slots=True)
class Duplicate:
    """The command was accepted before; ``record`` is what was stored with it."""

    record: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Conflict:
    """The stream moved on (or the head differs): nothing was written."""

    version: int


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What the store keeps about a game beside its log (its ``meta`` hash), typed: the one
    place that hash is read. ``status`` and ``version`` follow every append."""

    game_id: str
    game: str
    created_at: str
    version: int
    #: The hash of the last event: an append must be sealed after it.
    head: str
    status: GameStatus
    #: ``SeatInfo.to_json()`` of every seat, as created.
    seats: tuple[dict[str, Any], ...]
    #: Each seat's token hash (None for a bot seat): tokens themselves are never stored.
    token_hashes: tuple[str | None, ...]
    #: The last bot move that failed, if any (it may be stale: compare its ``version``).
    bot_failure: dict[str, Any] | None
    #: Whether the game is played against a clock (its timers need arming).
    clocked: bool = False

    @property
    def failed_at(self) -> int | None:
        """The version at which the last recorded bot failure happened, if any."""
        return None if self.bot_failure is None else int(self.bot_failure["version"])

    @classmethod
    def from_hash(cls, game_id: str, raw: Mapping[Any, Any]) -> GameRecord:
        fields = {_text(k): _text(v) for k, v in raw.items()}
        failure = fields.get("bot_failure")
        return cls(
            game_id=game_id,
            game=fields["game"],
            created_at=fields["created_at"],
            version=int(fields["version"]),
            head=fields["head"],
            status=GameStatus(fields.get("status", GameStatus.ACTIVE)),
            seats=tuple(json.loads(fields["seats"])),
            token_hashes=tuple(json.loads(fields["tokens"])),
            bot_failure=None if failure is None else dict(json.loads(failure)),
            clocked=fields.get("clocked") == "1",
        )


class GameExists(Exception):
    """A game with this id already exists."""


class EventStore(EventReader, Protocol):
    """Where games live: append-only logs with conditional appends, plus each game's metadata,
    secret seed and accepted commands. ``RedisEventStore`` is the one implementation; every
    test of the store and the API runs it against a real Redis."""

    def create(
        self, first: StoredEvent, *, seed_hex: str, meta: Mapping[str, str], created_ms: int
    ) -> None: ...

    def append(
        self,
        events: Sequence[StoredEvent],
        *,
        command_key: str | None = None,
        command_record: Mapping[str, Any] | None = None,
        status: str | None = None,
    ) -> Appended | Duplicate | Conflict: ...

    def command(self, game_id: str, command_key: str) -> Mapping[str, Any] | None: ...

    def remember_command(
        self, game_id: str, command_key: str, record: Mapping[str, Any]
    ) -> None: ...

    def wait(self, game_id: str, *, after: int, block_ms: int) -> list[StoredEvent]: ...

    def record(self, game_id: str) -> GameRecord | None: ...

    def records(self, game_ids: Sequence[str]) -> list[GameRecord | None]: ...

    def seed(self, game_id: str) -> str: ...

    def list_ids(self, *, offset: int, limit: int) -> list[str]: ...

    def count(self) -> int: ...

    def ping(self) -> bool: ...

    def record_bot_failure(self, game_id: str, failure: Mapping[str, Any]) -> None: ...

    def bot_failures(self) -> int: ...

    def bot_failed_games(self) -> list[str]: ...

    def forget_bot_failures(self, game_ids: Sequence[str]) -> None: ...

    def scan_live(self, cursor: int, count: int) -> tuple[int, list[str]]: ...

    def mark_live(self, game_ids: Sequence[str]) -> None: ...

    def forget_live(self, game_ids: Sequence[str]) -> None: ...

    def games_slice(self, count: int) -> list[str]: ...


class RedisEventStore:
    """Redis-streams event store. The connection is passed in; nothing connects at import."""

    def __init__(
        self,
        client: redis.Redis,
        signals: AppendSignals | None = None,
        acks: ReplicaAcks | None = None,
    ) -> None:
        self._redis = client
        self._signals = signals or AppendSignals(client)
        self._acks = acks or ReplicaAcks(client)
        self._create = CREATE.on(client)
        self._append = APPEND.on(client)

    def create(
        self, first: StoredEvent, *, seed_hex: str, meta: Mapping[str, str], created_ms: int
    ) -> None:
        """Write event 1, the secret seed and the game's metadata atomically."""
        gid = first.game_id
        # Listed before it exists (two slots: no MULTI in a cluster): a crash after this leaves
        # an id with no game, which readers skip, never a game that no index names.
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(GAMES_INDEX, {gid: created_ms})
        pipe.sadd(LIVE_GAMES, gid)
        pipe.execute()
        try:
            result = self._acks.run(
                self._create,
                events=events_key(gid),
                meta=meta_key(gid),
                seed=seed_key(gid),
                channel=CHANNEL,
                first_event=canonical_json(first.to_json()),
                head=first.hash,
                seed_hex=seed_hex,
                meta_pairs=[part for pair in meta.items() for part in pair],
            )
        except redis.ResponseError:
            # Refused before its first write (a full Redis): list no game that does not exist.
            pipe = self._redis.pipeline(transaction=False)
            pipe.zrem(GAMES_INDEX, gid)
            pipe.srem(LIVE_GAMES, gid)
            pipe.execute()
            raise
        if _text(result) == "exists":
            raise GameExists(gid)

    def append(
        self,
        events: Sequence[StoredEvent],
        *,
        command_key: str | None = None,
        command_record: Mapping[str, Any] | None = None,
        status: str | None = None,
    ) -> Appended | Duplicate | Conflict:
        """Append ``events`` if the log's head is still the one they were sealed after."""
        first = events[0]
        gid = first.game_id
        kind, value = self._acks.run(
            self._append,
            events=events_key(gid),
            meta=meta_key(gid),
            commands=commands_key(gid),
            channel=CHANNEL,
            expected_version=str(first.version - 1),
            expected_head=first.prev_hash,
            new_head=events[-1].hash,
            command_key=command_key or "",
            command_record=json.dumps(command_record or {}),
            status=status or "",
            new_events=[canonical_json(e.to_json()) for e in events],
        )
        kind, text = _text(kind), _text(value)
        if kind == "ok":
            if status == GameStatus.OVER:
                # Only once the game is over: a crash before this leaves a stale entry, which
                # the sweeper drops when it reads the game's record as over.
                self._redis.srem(LIVE_GAMES, gid)
            return Appended(int(text))
        if kind == "duplicate":
            self._acks.confirm(events_key(gid))  # the first try's write: replicated now?
            return Duplicate(json.loads(text))
        if kind == "missing":
            raise KeyError(gid)
        return Conflict(int(text))

    def command(self, game_id: str, command_key: str) -> Mapping[str, Any] | None:
        """The record of an accepted command, if any (the early idempotency check)."""
        raw = self._redis.hget(commands_key(game_id), command_key)
        return None if raw is None else dict(json.loads(raw))

    def remember_command(self, game_id: str, command_key: str, record: Mapping[str, Any]) -> None:
        """Replace an accepted command's record (its answer grew: the draw it waited for)."""
        self._redis.hset(commands_key(game_id), command_key, json.dumps(dict(record)))

    def read(self, game_id: str, *, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        """Stored events with ``after < version <= upto`` (to the end when ``upto`` is None)."""
        end = "+" if upto is None else f"0-{upto}"
        if upto is not None and upto <= after:
            return []
        entries: Any = self._redis.xrange(events_key(game_id), f"0-{after + 1}", end)
        return _decode(entries)

    def record(self, game_id: str) -> GameRecord | None:
        """The game's record, or None when there is no such game."""
        raw = self._redis.hgetall(meta_key(game_id))
        return GameRecord.from_hash(game_id, raw) if raw else None

    def seed(self, game_id: str) -> str:
        return _text(self._redis.get(seed_key(game_id)))

    def wait(self, game_id: str, *, after: int, block_ms: int) -> list[StoredEvent]:
        """Events after ``after``; when there are none yet, wait up to ``block_ms`` for some.

        The wait holds no Redis connection: the process's one subscription rings this
        game's waiters (``AppendSignals``), and each ring, or a periodic recheck, reads.
        """
        deadline = time.monotonic() + block_ms / 1000
        with self._signals.watch(events_key(game_id)) as watch:
            while True:
                events = self.read(game_id, after=after)
                remaining = deadline - time.monotonic()
                if events or remaining <= 0:
                    return events
                watch.wait(remaining)

    def records(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        """The records of many games in one round trip (None for a game that does not exist)."""
        pipe = self._redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(meta_key(game_id))
        return [
            GameRecord.from_hash(game_id, raw) if raw else None
            for game_id, raw in zip(game_ids, pipe.execute(), strict=True)
        ]

    def list_ids(self, *, offset: int, limit: int) -> list[str]:
        """Game ids, newest first."""
        ids = self._redis.zrevrange(GAMES_INDEX, offset, offset + limit - 1)
        return [_text(i) for i in ids]

    def count(self) -> int:
        return int(self._redis.zcard(GAMES_INDEX))

    def ping(self) -> bool:
        return bool(self._redis.ping())

    def record_bot_failure(self, game_id: str, failure: Mapping[str, Any]) -> None:
        """Keep a failed bot move in the game's meta (replacing any earlier) and count it."""
        pipe = self._redis.pipeline(transaction=False)  # two slots: no MULTI in a cluster
        pipe.hset(meta_key(game_id), "bot_failure", json.dumps(dict(failure)))
        pipe.incr(BOT_FAILURES_KEY)
        pipe.sadd(BOT_FAILED_GAMES, game_id)
        pipe.execute()

    def bot_failed_games(self) -> list[str]:
        """The games whose bot move failed at some point and were not yet seen moving on."""
        return sorted(_text(g) for g in self._redis.smembers(BOT_FAILED_GAMES))

    def forget_bot_failures(self, game_ids: Sequence[str]) -> None:
        """Drop games whose failure is over (the bot moved, or the game ended)."""
        if game_ids:
            self._redis.srem(BOT_FAILED_GAMES, *game_ids)

    def bot_failures(self) -> int:
        """How many bot moves have failed, across all games."""
        return int(self._redis.get(BOT_FAILURES_KEY) or 0)

    def scan_live(self, cursor: int, count: int) -> tuple[int, list[str]]:
        """One ``SSCAN`` step over the games not over: the next cursor (0 at the end) and
        about ``count`` ids (an id may come twice while Redis rehashes the set)."""
        following, ids = self._redis.sscan(LIVE_GAMES, cursor, count=count)
        return int(following), [_text(i) for i in ids]

    def mark_live(self, game_ids: Sequence[str]) -> None:
        """Put games back in the live index (the repair pass: one listed before it existed)."""
        if game_ids:
            self._redis.sadd(LIVE_GAMES, *game_ids)

    def forget_live(self, game_ids: Sequence[str]) -> None:
        """Drop games from the live index (seen over, or never created)."""
        if game_ids:
            self._redis.srem(LIVE_GAMES, *game_ids)

    def games_slice(self, count: int) -> list[str]:
        """The next ``count`` or so ids of ``floe:games``, from where the last call stopped
        (a ``ZSCAN`` cursor kept in Redis, so whichever worker sweeps goes on from there;
        back to the start after the end). Every game is in some slice of each full pass."""
        cursor = int(self._redis.get(LIVE_REPAIR_CURSOR) or 0)
        following, entries = self._redis.zscan(GAMES_INDEX, cursor, count=count)
        self._redis.set(LIVE_REPAIR_CURSOR, int(following))
        return [_text(member) for member, _score in entries]


def _decode(entries: Any) -> list[StoredEvent]:
    """Stream entries as events; ``json_codec`` reads them as ``json`` would, faster."""
    return [StoredEvent.from_json(json_codec.decode(fields[b"e"])) for _, fields in entries]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
