"""Tables in Redis: one hash per table, changed only by named Lua scripts.

A table is not a game and not an event stream: it is a small record that people fill seat by
seat before a game exists. Keys share the hash tag ``{<table_id>}`` where one table is
concerned, so each script touches one slot:

- ``floe:table:{t}``            hash: ``game``, ``options`` (JSON), ``clock`` (JSON, only for
  a table whose game is played against a clock), ``seats`` (the count),
  ``created_at``, ``expires_at``, ``status`` (open, starting, started, cancelled), ``host``
  (the host token's SHA-256), ``creator``, ``game_id``, and per seat ``seat:<i>:name``,
  ``seat:<i>:bot``, ``seat:<i>:open`` (``1`` for a seat a stranger may take),
  ``seat:<i>:token`` (the SHA-256 of its token, once someone holds it), ``seat:<i>:key``
  (the Ed25519 public key its person signs with, only for a seat that has one) and
  ``seat:<i>:same`` (the name's ``name_key``, for a named seat: ``join.lua`` refuses a joiner
  whose name reads as one already seated, in the same step that seats them).
- ``floe:tables:open``, ``floe:tables:started``  sorted sets of table ids by creation (for
  listing; members whose table expired are dropped when listed).
- ``floe:tables:creator:{c}``   sorted set: a creator's open tables, scored by expiry (ms).

An open table expires with its key (``PEXPIRE``); a started or cancelled one is kept a while
longer, so a link to it still answers, then expires too.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import redis
from redis.typing import EncodableT, FieldT

from service.limits.slots import ExpiringSlots
from service.redis.keys import KeyPattern
from service.redis.scripts import Script
from service.store.durability import ReplicaAcks

OPEN_INDEX = "floe:tables:open"
STARTED_INDEX = "floe:tables:started"

TableStatus = Literal["open", "starting", "started", "cancelled"]

PUT = Script.load(__package__, "put.lua")
JOIN = Script.load(__package__, "join.lua")
MOVE = Script.load(__package__, "move.lua")


def name_key(name: str) -> str:
    """What two names that read the same share: NFC, then case folded (and NFC again, which
    folding can undo), so ``Ann``, ``ANN`` and ``A\u0301nn`` against ``Ánn`` meet."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


table_key = KeyPattern("floe:table:{<id>}")
creator_key = KeyPattern("floe:tables:creator:{<id>}")


@dataclass(frozen=True, slots=True)
class TableSeat:
    seat: int
    name: str | None
    bot: str | None
    #: A seat strangers may take (it stays open-marked once taken: ``taken`` says so).
    open: bool
    taken: bool
    #: The Ed25519 public key (64 hex) the seat's person signs with; None: they sign nothing.
    public_key: str | None = None


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table as stored (secrets only as hashes)."""

    id: str
    game: str
    options: Mapping[str, Any]
    seats: tuple[TableSeat, ...]
    status: TableStatus
    created_at: str
    expires_at: str
    game_id: str
    host_hash: str
    creator: str
    token_hashes: tuple[str | None, ...]
    #: The clock as the host gave it (``domain.engine.clock``); None: no clock.
    clock: Mapping[str, Any] | None = None

    @property
    def open_seats(self) -> int:
        return sum(1 for s in self.seats if s.open and not s.taken)


@dataclass(frozen=True, slots=True)
class Joined:
    open_left: int


@dataclass(frozen=True, slots=True)
class JoinRefused:
    #: ``missing``, ``not_open``, ``table_full``, ``taken``, ``reserve_first`` or
    #: ``name_taken``.
    reason: str
    status: str | None = None


class TableStore:
    """The tables' records. The connection is passed in; nothing connects at import."""

    def __init__(self, client: redis.Redis, acks: ReplicaAcks | None = None) -> None:
        self._acks = acks or ReplicaAcks(client)
        self._redis = client
        self._put = PUT.on(client)
        self._join = JOIN.on(client)
        self._move = MOVE.on(client)
        self._open_slots = ExpiringSlots(client)

    def count_open(
        self, creator: str, table_id: str, *, now_ms: int, expiry_ms: int, limit: int
    ) -> bool:
        """Count ``table_id`` among ``creator``'s open tables if under ``limit``."""
        key = creator_key(creator)
        return self._open_slots.take(key, table_id, now_ms=now_ms, until_ms=expiry_ms, limit=limit)

    def uncount_open(self, creator: str, table_id: str) -> None:
        self._open_slots.give_back(creator_key(creator), table_id)

    def put(self, record: TableRecord, *, ttl_ms: int, created_ms: int) -> None:
        """Write a new table, with its TTL, and list it by status."""
        fields: dict[FieldT, EncodableT] = {
            "game": record.game,
            "options": json.dumps(dict(record.options)),
            "seats": str(len(record.seats)),
            "created_at": record.created_at,
            "expires_at": record.expires_at,
            "status": record.status,
            "host": record.host_hash,
            "creator": record.creator,
            "game_id": record.game_id,
        }
        if record.clock is not None:  # only then: a table without one is stored as before
            fields["clock"] = json.dumps(dict(record.clock))
        for seat, token_hash in zip(record.seats, record.token_hashes, strict=True):
            prefix = f"seat:{seat.seat}:"
            fields[prefix + "open"] = "1" if seat.open else "0"
            if seat.name is not None:
                fields[prefix + "name"] = seat.name
                fields[prefix + "same"] = name_key(seat.name)
            if seat.bot is not None:
                fields[prefix + "bot"] = seat.bot
            if seat.public_key is not None:
                fields[prefix + "key"] = seat.public_key
            if token_hash is not None:
                fields[prefix + "token"] = token_hash
        self._acks.run(
            self._put,
            table=table_key(record.id),
            ttl_ms=ttl_ms,
            field_values=[part for pair in fields.items() for part in pair],
        )
        # The listing is an index beside the record, in another slot (so not in the script):
        # a table written but not yet listed is still found by its id, and expires.
        self._redis.zadd(
            OPEN_INDEX if record.status == "open" else STARTED_INDEX, {record.id: created_ms}
        )

    def get(self, table_id: str) -> TableRecord | None:
        raw = self._redis.hgetall(table_key(table_id))
        return None if not raw else _record(table_id, {_text(k): _text(v) for k, v in raw.items()})

    def many(self, table_ids: Sequence[str]) -> list[TableRecord | None]:
        pipe = self._redis.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.hgetall(table_key(table_id))
        return [
            _record(tid, {_text(k): _text(v) for k, v in raw.items()}) if raw else None
            for tid, raw in zip(table_ids, pipe.execute(), strict=True)
        ]

    def join(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str,
        *,
        reserved: bool,
        public_key: str | None = None,
    ) -> Joined | JoinRefused:
        """Take ``seat`` under ``name`` (with the joiner's ``public_key``, if they sign)."""
        reply: Any = self._acks.run(
            self._join,
            table=table_key(table_id),
            seat=str(seat),
            name=name,
            token_hash=token_hash,
            holds_quota="1" if reserved else "0",
            public_key=public_key or "",
            same=name_key(name),
        )
        kind = _text(reply[0])
        if kind == "ok":
            return Joined(int(reply[1]))
        return JoinRefused(kind, _text(reply[1]) if len(reply) > 1 else None)

    def move(self, table_id: str, frm: TableStatus, to: TableStatus, *, ttl_ms: int | None) -> bool:
        """``frm`` → ``to`` if the table is in ``frm``; the record then lives ``ttl_ms``."""
        moved = self._acks.run(
            self._move,
            table=table_key(table_id),
            from_status=frm,
            to_status=to,
            ttl_ms="" if ttl_ms is None else str(ttl_ms),
        )
        return bool(int(moved))

    def listed(self, status: Literal["open", "started"], *, offset: int, limit: int) -> list[str]:
        index = OPEN_INDEX if status == "open" else STARTED_INDEX
        return [_text(t) for t in self._redis.zrevrange(index, offset, offset + limit - 1)]

    def count_listed(self, status: Literal["open", "started"]) -> int:
        return int(self._redis.zcard(OPEN_INDEX if status == "open" else STARTED_INDEX))

    def unlist(self, status: Literal["open", "started"], table_ids: Sequence[str]) -> None:
        if table_ids:
            self._redis.zrem(OPEN_INDEX if status == "open" else STARTED_INDEX, *table_ids)

    def relist_started(self, table_id: str, created_ms: int) -> None:
        pipe = self._redis.pipeline(transaction=False)
        pipe.zrem(OPEN_INDEX, table_id)
        pipe.zadd(STARTED_INDEX, {table_id: created_ms})
        pipe.execute()


def _record(table_id: str, raw: Mapping[str, str]) -> TableRecord:
    count = int(raw["seats"])
    seats = []
    hashes: list[str | None] = []
    for i in range(count):
        prefix = f"seat:{i}:"
        token = raw.get(prefix + "token")
        seats.append(
            TableSeat(
                seat=i,
                name=raw.get(prefix + "name"),
                bot=raw.get(prefix + "bot"),
                open=raw.get(prefix + "open") == "1",
                taken=token is not None,
                public_key=raw.get(prefix + "key"),
            )
        )
        hashes.append(token)
    status = raw["status"]
    assert status in ("open", "starting", "started", "cancelled"), status
    return TableRecord(
        id=table_id,
        game=raw["game"],
        options=json.loads(raw["options"]),
        seats=tuple(seats),
        status=status,  # type: ignore[arg-type]
        created_at=raw["created_at"],
        expires_at=raw["expires_at"],
        game_id=raw["game_id"],
        host_hash=raw["host"],
        creator=raw["creator"],
        token_hashes=tuple(hashes),
        clock=json.loads(raw["clock"]) if "clock" in raw else None,
    )


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
