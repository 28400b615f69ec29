"""The event store: one Redis stream per game, appended only through one Lua script.

Keys share the hash tag ``{<game_id>}`` so one game lives in one Redis Cluster slot:

- ``floe:{g}:events``   the stream; entry id ``0-<version>``, field ``e`` = the stored event
- ``floe:{g}:meta``     hash: game, created_at, seats (JSON), version, head (hash), status,
                        bytes (of the stored events, for budgets), length_cap (``off``
                        for a game the organizer made),
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
- ``floe:ended``        sorted set of the games over and still here, by when they ended (ms):
                        what the archive's mover reads (added after the game is over; the
                        repair pass adds one a crash left out)

Streams are never trimmed and entries never edited. A finished game leaves whole: once the
archive holds it, ``delete_finished`` deletes its four keys in one script (``move_out.lua``),
and its ids leave the indexes after.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from domain.engine.log import EventReader, StoredEvent
from domain.engine.status import GameStatus
from service.clock import millis
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
#: The games over and still in Redis, by when they ended (ms): the archive's mover reads it.
ENDED_GAMES = "floe:ended"
#: A game's place in ``floe:games``: its score (creation, ms) and its id.
IndexKey = tuple[int, str]

CREATE = Script.load(__package__, "create.lua")
APPEND = Script.load(__package__, "append.lua")
MOVE_OUT = Script.load(__package__, "move_out.lua")


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
    #: Whether ``FLOE_EVENTS_PER_GAME`` bounds its log (every game but the organizer's; the
    #: meta's ``length_cap`` is ``off`` for those, and games older than the cap had none).
    length_capped: bool = True
    #: A digest of who created it (the meta's ``creator``; absent for the organizer's games
    #: and older ones): the bots' fair lanes share the workers' time out by it.
    creator: str | None = None

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
            length_capped=fields.get("length_cap") != "off",
            creator=fields.get("creator") or None,
        )


@dataclass(frozen=True, slots=True)
class ResidentGame:
    """Everything Redis holds of one game, read in one round trip: what the archive keeps."""

    game_id: str
    #: The ``meta`` hash as stored (text to text).
    meta: dict[str, str]
    seed: str
    #: The ``commands`` hash: ``<seat>:<command_id>`` -> the command's record (JSON text).
    commands: dict[str, str]
    events: list[StoredEvent]


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

    def mark_ended(self, ended: Mapping[str, int]) -> None: ...

    def ended_before(self, ms: int, limit: int) -> list[str]: ...

    def resident(self, game_id: str) -> ResidentGame | None: ...

    def delete_finished(self, game_id: str, head: str) -> str: ...

    def forget_moved(self, game_ids: Sequence[str]) -> None: ...

    def exists(self, game_id: str) -> bool: ...

    def bytes_held(self, game_ids: Sequence[str]) -> list[int | None]: ...

    def index_after(self, after: IndexKey | None, count: int) -> list[IndexKey]: ...

    def records_here(self, game_ids: Sequence[str]) -> list[GameRecord | None]: ...

    def first_and_last(
        self, records: Sequence[GameRecord]
    ) -> list[tuple[StoredEvent | None, list[StoredEvent]]]: ...


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
        self._move_out = MOVE_OUT.on(client)

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
                first_event=first.line(),
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
            new_events=[e.line() for e in events],  # as sealed: encoded once
        )
        kind, text = _text(kind), _text(value)
        if kind == "ok":
            if status == GameStatus.OVER:
                # Only once the game is over: a crash before this leaves a stale entry, which
                # the sweeper drops when it reads the game's record as over (and its repair
                # pass lists in floe:ended a game over that this never listed).
                pipe = self._redis.pipeline(transaction=False)
                pipe.srem(LIVE_GAMES, gid)
                pipe.zadd(ENDED_GAMES, {gid: millis(events[-1].at)})
                pipe.execute()
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

    def read_here(
        self, game_id: str, *, after: int = 0, upto: int | None = None
    ) -> list[StoredEvent] | None:
        """As ``read``, but None when Redis holds no such game (in the same round trip: a
        read that finds no events asks whether the game exists), so a store backed by an
        archive knows when to look there."""
        if upto is not None and upto <= after:
            return [] if self.exists(game_id) else None
        end = "+" if upto is None else f"0-{upto}"
        pipe = self._redis.pipeline(transaction=False)
        pipe.xrange(events_key(game_id), f"0-{after + 1}", end)
        pipe.exists(meta_key(game_id))
        entries, exists = pipe.execute()
        if entries or exists:
            return _decode(entries)
        return None

    def seed_here(self, game_id: str) -> str | None:
        """The game's seed, or None when Redis holds no such game."""
        raw = self._redis.get(seed_key(game_id))
        return None if raw is None else _text(raw)

    def command_here(self, game_id: str, command_key: str) -> tuple[Mapping[str, Any] | None, bool]:
        """The command's record (None: none) and whether Redis holds the game at all, in one
        round trip."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.hget(commands_key(game_id), command_key)
        pipe.exists(meta_key(game_id))
        raw, exists = pipe.execute()
        return (None if raw is None else dict(json.loads(raw))), bool(raw is not None or exists)

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

    def mark_ended(self, ended: Mapping[str, int]) -> None:
        """List games over in ``floe:ended`` (game id -> when it ended, ms), keeping any
        time already listed (the repair pass: a crash left one out)."""
        if ended:
            self._redis.zadd(ENDED_GAMES, dict(ended), nx=True)

    def ended_before(self, ms: int, limit: int) -> list[str]:
        """Up to ``limit`` games over and still here that ended at or before ``ms``, oldest
        first."""
        ids = self._redis.zrangebyscore(ENDED_GAMES, "-inf", ms, start=0, num=limit)
        return [_text(i) for i in ids]

    def resident(self, game_id: str) -> ResidentGame | None:
        """All Redis holds of the game (one round trip, one slot), or None when it holds
        nothing: never created, or moved out. Not a transaction (a cluster pipeline is not
        one): the caller checks the events end at the meta's head."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.hgetall(meta_key(game_id))
        pipe.get(seed_key(game_id))
        pipe.hgetall(commands_key(game_id))
        pipe.xrange(events_key(game_id))
        meta, seed, commands, entries = pipe.execute()
        if not meta:
            return None
        return ResidentGame(
            game_id=game_id,
            meta={_text(k): _text(v) for k, v in meta.items()},
            seed=_text(seed),
            commands={_text(k): _text(v) for k, v in commands.items()},
            events=_decode(entries),
        )

    def delete_finished(self, game_id: str, head: str) -> str:
        """Delete a game over whose head is ``head`` (its archived copy's last hash), then its
        ids from the indexes: ``deleted``, ``gone`` (deleted before), ``live`` or ``moved``
        (nothing deleted). The keys go in one script, so a reader sees the game whole or
        not at all; the index entries after (other slots), which a crash may leave stale:
        every reader of an index skips an id that names no game."""
        outcome = _text(
            self._move_out(
                events=events_key(game_id),
                meta=meta_key(game_id),
                seed=seed_key(game_id),
                commands=commands_key(game_id),
                expected_head=head,
            )
        )
        if outcome in ("deleted", "gone"):
            self.forget_moved([game_id])
        return outcome

    def forget_moved(self, game_ids: Sequence[str]) -> None:
        """Drop moved-out games from every index that may still name them."""
        if game_ids:
            pipe = self._redis.pipeline(transaction=False)
            pipe.zrem(GAMES_INDEX, *game_ids)
            pipe.zrem(ENDED_GAMES, *game_ids)
            pipe.srem(LIVE_GAMES, *game_ids)
            pipe.srem(BOT_FAILED_GAMES, *game_ids)
            pipe.execute()

    def bytes_held(self, game_ids: Sequence[str]) -> list[int | None]:
        """Each game's stored events' bytes (None: Redis holds no such game), in one round
        trip: what the storage budgets add up."""
        pipe = self._redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hmget(meta_key(game_id), "bytes", "head")
        # a game made before the meta counted bytes has none: it is there, counted as 0
        return [None if head is None else int(size or 0) for size, head in pipe.execute()]

    def exists(self, game_id: str) -> bool:
        """Whether Redis holds the game (its ``meta`` hash)."""
        return bool(self._redis.exists(meta_key(game_id)))

    # ----- listing: what a search of the games Redis holds reads --------------------------

    def index_after(self, after: IndexKey | None, count: int) -> list[IndexKey]:
        """The next ``count`` keys of ``floe:games`` after ``after`` (None: from the top),
        newest first, in one round trip. Redis orders the games of one score by id, so the
        games created in the same millisecond as ``after`` are read whole and those behind
        its id kept (a second's worth at most: creation times are to the second)."""
        if after is None:
            top: Any = self._redis.zrevrange(GAMES_INDEX, 0, count - 1, withscores=True)
            return [(int(score), _text(member)) for member, score in top]
        score, game_id = after
        pipe = self._redis.pipeline(transaction=False)
        pipe.zrevrangebyscore(GAMES_INDEX, score, score)
        pipe.zrevrangebyscore(GAMES_INDEX, f"({score}", "-inf", start=0, num=count, withscores=True)
        same, older = pipe.execute()
        behind = [(score, member) for member in map(_text, same) if member < game_id]
        return [*behind, *((int(s), _text(member)) for member, s in older)][:count]

    def records_here(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        """As ``records``, from Redis alone (None for a game Redis does not hold), even in a
        store that looks in an archive for the rest."""
        return RedisEventStore.records(self, game_ids)

    def first_and_last(
        self, records: Sequence[GameRecord]
    ) -> list[tuple[StoredEvent | None, list[StoredEvent]]]:
        """Each game's first event (None: Redis no longer holds it), and for a game over by
        its record its last two (``game_over`` and ``seed_revealed``), in one round trip."""
        if not records:
            return []
        pipe = self._redis.pipeline(transaction=False)
        for record in records:
            key = events_key(record.game_id)
            pipe.xrange(key, "0-1", "0-1")
            if record.status == GameStatus.OVER:
                pipe.xrevrange(key, "+", "-", count=2)
        answers = iter(pipe.execute())
        out: list[tuple[StoredEvent | None, list[StoredEvent]]] = []
        for record in records:
            first = _decode(next(answers))
            last = _decode(next(answers)) if record.status == GameStatus.OVER else []
            out.append((first[0] if first else None, last))
        return out


def _decode(entries: Any) -> list[StoredEvent]:
    """Stream entries as events; ``json_codec`` reads them as ``json`` would, faster."""
    return [StoredEvent.from_json(json_codec.decode(fields[b"e"])) for _, fields in entries]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
