"""Tournaments in Redis: one hash per tournament, changed only by named Lua scripts.

A tournament is not a game and not an event stream: it is a record of what was fixed at
creation (the plan, the players, the seeds and their commitments, each slot's game id) and of
what happened since (the rounds made, the director's decisions, tokens reissued). Its games
are ordinary games in the event store. Keys:

- ``floe:tournament:{t}``  hash: ``spec`` (JSON, written once: everything fixed at creation
  but the seeds), ``seeds`` (JSON, written once: the slots' seeds in hex, read only to create
  a game and never shown), ``summary`` (JSON, written once: what the list shows),
  ``rounds`` (JSON: each round's tables, byes and, once the round is over, its outcomes and
  the time it ended), ``made`` (how many rounds exist), ``status`` (``open``, ``running``,
  ``finished`` or ``cancelled``), ``decisions`` (JSON: the director's decisions, in order),
  ``token_hashes`` (JSON, once a token was reissued: every player's token hash, replacing
  ``spec``'s), ``writes`` (a counter, bumped by every write: what a write compares) and
  ``changes`` (a counter, bumped whenever what the tournament shows changed: the id of its
  SSE events).
- ``floe:tournaments``          sorted set of tournament ids by creation time (ms).
- ``floe:tournaments:running``  set of the tournaments not settled (what the sweeper looks
  at): open, running, or cancelled with games still to end.
- ``floe:tournaments:settled``  sorted set of the settled tournaments Redis still holds, by
  when they settled (ms: the last round's end, else when they were listed): what the mover
  takes to the archive (``service.archive.moving``). A tournament is listed here before it
  leaves the running set, so a crash between leaves it in both (the next ``advance`` drops
  it from the running set again), never in neither.

Every change also publishes ``<tournament key> <changes>`` on the channel games' appends use
(``service.store.appends``), so the same subscription wakes a tournament's followers.

Every write is a compare-and-set on ``writes`` (``record.lua``): whoever read the tournament
before another write landed reads it again and decides again, so a pause and a round made at
the same moment never both go through on what the other did not see.

Each script touches the tournament's own key only, so all of it lives in one slot of a Redis
Cluster; the index and the running set are other keys, written beside it: a tournament is
listed and marked running before its record exists (an id whose record never came is
dropped by a sweep a minute later), and leaves the running set after it is recorded settled
(the next ``advance`` of a settled one drops it, if a crash came between).

Once the mover has archived a settled tournament and deleted its hash (``move_out.lua``, only
if nobody wrote it since it was read), every read here finds its record in the archive
instead: the hash as it was, so every route answers as before. Its id stays in
``floe:tournaments``. Archived records never change, so each process keeps those it read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import redis

from service.archive.protocol import Archive
from service.caching.lru import ByteBoundedLRU
from service.caching.sizes import deep_size
from service.clock import Clock, millis, utc_now
from service.errors import Conflict
from service.redis.keys import KeyPattern
from service.redis.scripts import Script
from service.store.appends import CHANNEL
from service.store.durability import ReplicaAcks

INDEX = "floe:tournaments"
RUNNING = "floe:tournaments:running"
SETTLED = "floe:tournaments:settled"
#: Where the repair pass over ``INDEX`` goes on from (a ``ZSCAN`` cursor).
SETTLED_REPAIR_CURSOR = "floe:tournaments:settled:repair"

TournamentStatus = Literal["open", "running", "finished", "cancelled"]
STATUSES: tuple[TournamentStatus, ...] = ("open", "running", "finished", "cancelled")
#: The statuses a tournament ends in (nothing but a token reissued writes it after).
SETTLED_STATUSES: tuple[TournamentStatus, ...] = ("finished", "cancelled")

#: A listed id with no record this long after it was listed is a create that died.
UNWRITTEN_MS = 60_000
#: How many records one round trip reads when a list is filtered by status.
LIST_BATCH = 500
#: Each process's budget for the archived tournaments it has read (they never change).
ARCHIVED_CACHE_BYTES = 16 * 1024 * 1024

CREATE = Script.load(__package__, "create.lua")
RECORD = Script.load(__package__, "record.lua")
TOUCH = Script.load(__package__, "touch.lua")
MOVE_OUT = Script.load(__package__, "move_out.lua")


tournament_key = KeyPattern("floe:tournament:{<id>}")

_FIELDS = ("spec", "rounds", "status", "changes", "decisions", "token_hashes", "writes")


@dataclass(frozen=True, slots=True)
class StoredTournament:
    """A tournament as stored: its fixed spec, its rounds and decisions, as JSON values."""

    id: str
    spec: dict[str, Any]
    rounds: list[dict[str, Any]]
    status: TournamentStatus
    changes: int
    decisions: list[dict[str, Any]]
    #: Every player's token hash now (None for a bot): ``spec``'s, unless one was reissued.
    token_hashes: list[str | None]
    #: How many writes the record has had: what the next write compares.
    writes: int

    @property
    def made(self) -> int:
        return len(self.rounds)

    @property
    def paused(self) -> bool:
        return paused_by(self.decisions)


@dataclass(frozen=True, slots=True)
class Summary:
    """A tournament as the list shows it (``GET /v1/tournaments``)."""

    id: str
    fixed: dict[str, Any]
    status: TournamentStatus
    made: int
    paused: bool


@dataclass(frozen=True, slots=True)
class ResidentTournament:
    """What Redis holds of a tournament, as the mover reads it: its whole hash (field ->
    text, the archive's record), whether it is in the running set, when it was listed
    settled (ms, None: not listed)."""

    id: str
    record: dict[str, str]
    running: bool
    settled_ms: int | None

    @property
    def status(self) -> TournamentStatus:
        return _status(self.record.get("status"))

    @property
    def game_ids(self) -> list[str]:
        """Every slot's game id, played or not."""
        return [str(g) for g in json.loads(self.record.get("spec") or "{}").get("game_ids", [])]

    @property
    def ended_at(self) -> str | None:
        """When its last round ended, if one is recorded as ended."""
        return _last_end(self.record.get("rounds"))


@dataclass(frozen=True, slots=True)
class Recorded:
    changes: int


@dataclass(frozen=True, slots=True)
class Stale:
    """Someone wrote first (or the tournament is gone): read it again."""


class TournamentStore:
    """The named scripts above, with typed results."""

    def __init__(
        self,
        client: redis.Redis,
        acks: ReplicaAcks | None = None,
        *,
        archive: Archive | None = None,
        clock: Clock = utc_now,
        cache_bytes: int = ARCHIVED_CACHE_BYTES,
    ) -> None:
        """``archive``: where settled tournaments moved (None: they all stay here);
        ``clock`` dates a settled tournament listed with no round ended."""
        self._acks = acks or ReplicaAcks(client)
        self._client = client
        self._archive = archive
        self._clock = clock
        self._archived_records: ByteBoundedLRU[str, dict[str, str]] = ByteBoundedLRU(cache_bytes)
        self._create = CREATE.on(client)
        self._record = RECORD.on(client)
        self._touch = TOUCH.on(client)
        self._move_out = MOVE_OUT.on(client)

    def create(
        self,
        tournament_id: str,
        spec: Mapping[str, Any],
        seeds: Sequence[str],
        rounds: Sequence[Any],
        created_ms: int,
        *,
        status: TournamentStatus = "running",
        summary: Mapping[str, Any] | None = None,
    ) -> bool:
        """Write a new tournament; False when the id is taken."""
        self._client.zadd(INDEX, {tournament_id: created_ms})
        self._client.sadd(RUNNING, tournament_id)
        created = self._acks.run(
            self._create,
            tournament=tournament_key(tournament_id),
            channel=CHANNEL,
            spec=_dump(spec),
            seeds=_dump(list(seeds)),
            rounds=_dump(list(rounds)),
            made=len(rounds),
            status=status,
            summary=_dump(dict(summary or {})),
        )
        return bool(created)

    def get(self, tournament_id: str) -> StoredTournament | None:
        """The tournament, without its seeds (``seeds`` reads them)."""
        [fields] = self._read([tournament_id], _FIELDS)
        if fields is None:
            return None
        spec: dict[str, Any] = json.loads(fields.get("spec") or "{}")
        hashes = fields.get("token_hashes")
        return StoredTournament(
            id=tournament_id,
            spec=spec,
            rounds=json.loads(fields.get("rounds") or "[]"),
            status=_status(fields.get("status")),
            changes=int(fields.get("changes") or 0),
            decisions=json.loads(fields.get("decisions") or "[]"),
            token_hashes=list(spec["token_hashes"] if hashes is None else json.loads(hashes)),
            writes=int(fields.get("writes") or 0),
        )

    def record(
        self,
        tournament_id: str,
        *,
        read: StoredTournament,
        rounds: Sequence[Any] | None = None,
        status: TournamentStatus | None = None,
        decisions: Sequence[Any] | None = None,
        token_hashes: Sequence[str | None] | None = None,
        shown: bool = True,
    ) -> Recorded | Stale:
        """Write the given parts of the tournament as ``read``, unless it was written since.
        ``shown``: whether what the tournament shows changes (its followers hear of it)."""
        fields: list[Any] = []
        if rounds is not None:
            fields += ["rounds", _dump(list(rounds)), "made", len(rounds)]
        if status is not None:
            fields += ["status", status]
        if decisions is not None:
            fields += ["decisions", _dump(list(decisions))]
        if token_hashes is not None:
            fields += ["token_hashes", _dump(list(token_hashes))]
        answer = self._acks.run(
            self._record,
            tournament=tournament_key(tournament_id),
            channel=CHANNEL,
            writes_before=read.writes,
            shown=1 if shown else 0,
            fields=fields,
        )
        if _text(answer[0]) == "missing":
            self._refuse_archived(tournament_id)
        if _text(answer[0]) != "ok":
            return Stale()
        if status == "finished":
            self.not_running(tournament_id)
        return Recorded(int(answer[1]))

    def forget_unwritten(self, tournament_id: str, now_ms: int) -> None:
        """Unlist an id whose record never came (its create died between listing it and
        writing it), once it is older than any create still under way."""
        listed = self._client.zscore(INDEX, tournament_id)
        if listed is None or now_ms - listed > UNWRITTEN_MS:
            self._client.srem(RUNNING, tournament_id)
            self._client.zrem(INDEX, tournament_id)

    def not_running(self, tournament_id: str) -> None:
        """Drop a settled (or vanished) tournament from the running set, listing it settled
        first: a crash between leaves it in both, and the next ``advance`` drops it again."""
        self._list_settled(tournament_id)
        self._client.srem(RUNNING, tournament_id)

    def seeds(self, tournament_id: str) -> list[str]:
        """The slots' seeds (hex), in slot order: only to create the slots' games."""
        [fields] = self._read([tournament_id], ("seeds",))
        raw = None if fields is None else fields.get("seeds")
        return [] if raw is None else list(json.loads(raw))

    def touch(self, tournament_id: str) -> None:
        self._touch(tournament=tournament_key(tournament_id), channel=CHANNEL)

    def running(self) -> list[str]:
        return sorted(_text(t) for t in self._client.smembers(RUNNING))

    def listed(self, *, offset: int, limit: int) -> list[str]:
        ids = self._client.zrevrange(INDEX, offset, offset + limit - 1)
        return [_text(t) for t in ids]

    def count(self) -> int:
        return int(self._client.zcard(INDEX))

    def summaries(
        self, *, offset: int, limit: int, status: TournamentStatus | None = None
    ) -> tuple[list[Summary], int]:
        """A page of tournaments, newest first, and how many there are in all (of
        ``status``, when given: then every listed record's status is read, a batch per
        round trip)."""
        if status is None:
            return self._summaries(self.listed(offset=offset, limit=limit)), self.count()
        matching: list[str] = []
        for batch in self._batches():
            for tournament_id, found in zip(batch, self._read(batch, ("status",)), strict=True):
                if found is not None and _status(found.get("status")) == status:
                    matching.append(tournament_id)
        return self._summaries(matching[offset : offset + limit]), len(matching)

    def _batches(self) -> Iterator[list[str]]:
        offset = 0
        while batch := self.listed(offset=offset, limit=LIST_BATCH):
            yield batch
            offset += LIST_BATCH

    def _summaries(self, ids: Sequence[str]) -> list[Summary]:
        names = ("summary", "status", "made", "decisions")
        found: list[Summary] = []
        for tournament_id, fields in zip(ids, self._read(ids, names), strict=True):
            if fields is None:
                continue  # listed, but its record is not written (yet, or ever)
            summary = fields.get("summary")
            fixed = json.loads(summary) if summary and summary != "{}" else None
            if fixed is None:  # a record from before summaries: its spec says the same
                [with_spec] = self._read([tournament_id], ("spec",))
                spec = None if with_spec is None else with_spec.get("spec")
                fixed = summary_of(json.loads(spec)) if spec is not None else {}
            paused = paused_by(json.loads(fields.get("decisions") or "[]"))
            status = _status(fields.get("status"))
            found.append(
                Summary(tournament_id, fixed, status, int(fields.get("made") or 0), paused)
            )
        return found

    def _read(self, ids: Sequence[str], names: Sequence[str]) -> list[dict[str, str] | None]:
        """Fields ``names`` (those present) of each tournament, from Redis in one pipeline,
        and from the archive only for those Redis no longer holds; None: neither has it.
        ``status`` is always read: every record has it, so it tells a record from none."""
        asked = tuple(dict.fromkeys(("status", *names)))
        pipe = self._client.pipeline(transaction=False)
        for tournament_id in ids:
            pipe.hmget(tournament_key(tournament_id), asked)
        found: list[dict[str, str] | None] = []
        for tournament_id, values in zip(ids, pipe.execute(), strict=True):
            if values[0] is not None:
                found.append(
                    {n: _text(v) for n, v in zip(asked, values, strict=True) if v is not None}
                )
                continue
            record = self._archived(tournament_id)
            found.append(None if record is None else {n: record[n] for n in asked if n in record})
        return found

    def _archived(self, tournament_id: str) -> dict[str, str] | None:
        """The tournament's archived record (this process's copy, or read once), or None."""
        if self._archive is None:
            return None
        kept = self._archived_records.get(tournament_id)
        if kept is not None:
            return kept
        record = self._archive.tournament(tournament_id)
        if record is None:
            return None
        copy = dict(record)
        self._archived_records.put(tournament_id, copy, deep_size(copy))
        return copy

    def _refuse_archived(self, tournament_id: str) -> None:
        """409 for a write to a tournament that moved to the archive: it is settled, and an
        archived record never changes (a write that found no hash, and no archived one, is
        ``Stale``: it reads again and finds nothing)."""
        record = self._archived(tournament_id)
        if record is None:
            return
        if record.get("status") == "cancelled":
            raise Conflict("tournament_cancelled", "the tournament was cancelled and archived")
        raise Conflict("tournament_finished", "the tournament is finished and archived")

    # ----- settled tournaments, for the mover ---------------------------------------------

    def _list_settled(self, tournament_id: str) -> None:
        """List the tournament in ``floe:tournaments:settled`` if Redis holds it settled,
        keeping any time it is listed with already."""
        status, rounds = self._client.hmget(tournament_key(tournament_id), ("status", "rounds"))
        if status is None or _status(_text(status)) not in SETTLED_STATUSES:
            return
        ended = _last_end(None if rounds is None else _text(rounds))
        when = millis(ended if ended is not None else self._clock())
        self._client.zadd(SETTLED, {tournament_id: when}, nx=True)

    def settled_before(self, ms: int, limit: int) -> list[str]:
        """Up to ``limit`` tournaments listed settled at or before ``ms``, oldest first."""
        ids = self._client.zrangebyscore(SETTLED, "-inf", ms, start=0, num=limit)
        return [_text(t) for t in ids]

    def resident(self, tournament_id: str) -> ResidentTournament | None:
        """All Redis holds of the tournament, in one round trip; None when it holds no
        record (never written, or moved out)."""
        pipe = self._client.pipeline(transaction=False)
        pipe.hgetall(tournament_key(tournament_id))
        pipe.sismember(RUNNING, tournament_id)
        pipe.zscore(SETTLED, tournament_id)
        record, running, settled = pipe.execute()
        if not record:
            return None
        return ResidentTournament(
            id=tournament_id,
            record={_text(k): _text(v) for k, v in record.items()},
            running=bool(running),
            settled_ms=None if settled is None else int(settled),
        )

    def delete_settled(self, resident: ResidentTournament) -> str:
        """Delete the tournament's hash if it is settled and nobody wrote it since
        ``resident`` was read (its ``writes`` and ``changes`` are the same), then unlist it
        settled: ``deleted``, ``gone`` (deleted before), ``live`` or ``stale`` (nothing
        deleted)."""
        outcome = _text(
            self._acks.run(
                self._move_out,
                tournament=tournament_key(resident.id),
                writes=resident.record.get("writes", "0"),
                changes=resident.record.get("changes", "0"),
            )
        )
        if outcome in ("deleted", "gone"):
            self.forget_settled([resident.id])
        return outcome

    def forget_settled(self, tournament_ids: Sequence[str]) -> None:
        """Unlist tournaments that Redis no longer holds from the settled ones."""
        if tournament_ids:
            self._client.zrem(SETTLED, *tournament_ids)

    def repair_settled(self, count: int) -> list[str]:
        """List the settled tournaments of the next ``count`` or so ids of the index that
        are neither running nor listed settled (settled before this list existed); a
        ``ZSCAN`` cursor kept in Redis goes on from where the last call stopped. The ids
        listed again."""
        cursor = int(self._client.get(SETTLED_REPAIR_CURSOR) or 0)
        following, entries = self._client.zscan(INDEX, cursor, count=count)
        self._client.set(SETTLED_REPAIR_CURSOR, int(following))
        ids = [_text(member) for member, _score in entries]
        pipe = self._client.pipeline(transaction=False)
        for tournament_id in ids:
            pipe.hget(tournament_key(tournament_id), "status")
            pipe.sismember(RUNNING, tournament_id)
            pipe.zscore(SETTLED, tournament_id)
        answers = pipe.execute()
        repaired: list[str] = []
        for at, tournament_id in enumerate(ids):
            status, running, listed = answers[3 * at : 3 * at + 3]
            if status is None or running or listed is not None:
                continue
            if _status(_text(status)) in SETTLED_STATUSES:
                self._list_settled(tournament_id)
                repaired.append(tournament_id)
        return repaired


def paused_by(decisions: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the last pause or resume among ``decisions`` was a pause."""
    for decision in reversed(decisions):
        if decision["decision"] in ("pause", "resume"):
            return bool(decision["decision"] == "pause")
    return False


def summary_of(spec: Mapping[str, Any]) -> dict[str, Any]:
    """What the list shows of a tournament, from its spec."""
    return {
        "game": spec["game"],
        "format": spec["format"],
        "table_size": spec["table_size"],
        "planned_rounds": spec["planned_rounds"],
        "players": len(spec["players"]),
        "created_at": spec["created_at"],
        "round_start": spec.get("round_start", "auto"),
    }


def _last_end(rounds: str | None) -> str | None:
    """The ``ended_at`` of the last of ``rounds`` (JSON), if it is recorded as ended."""
    listed = json.loads(rounds or "[]")
    if not listed:
        return None
    ended = listed[-1].get("ended_at")
    return None if ended is None else str(ended)


def _status(value: str | None) -> TournamentStatus:
    for status in STATUSES:
        if value == status:
            return status
    return "running"


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
