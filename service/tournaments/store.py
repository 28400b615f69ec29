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
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import redis

from service.redis.keys import KeyPattern
from service.redis.scripts import Script
from service.store.appends import CHANNEL
from service.store.durability import ReplicaAcks

INDEX = "floe:tournaments"
RUNNING = "floe:tournaments:running"

TournamentStatus = Literal["open", "running", "finished", "cancelled"]
STATUSES: tuple[TournamentStatus, ...] = ("open", "running", "finished", "cancelled")

#: A listed id with no record this long after it was listed is a create that died.
UNWRITTEN_MS = 60_000
#: How many records one round trip reads when a list is filtered by status.
LIST_BATCH = 500

CREATE = Script.load(__package__, "create.lua")
RECORD = Script.load(__package__, "record.lua")
TOUCH = Script.load(__package__, "touch.lua")


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
class Recorded:
    changes: int


@dataclass(frozen=True, slots=True)
class Stale:
    """Someone wrote first (or the tournament is gone): read it again."""


class TournamentStore:
    """The named scripts above, with typed results."""

    def __init__(self, client: redis.Redis, acks: ReplicaAcks | None = None) -> None:
        self._acks = acks or ReplicaAcks(client)
        self._client = client
        self._create = CREATE.on(client)
        self._record = RECORD.on(client)
        self._touch = TOUCH.on(client)

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
        values = self._client.hmget(tournament_key(tournament_id), _FIELDS)
        if values[0] is None:
            return None
        fields = {
            name: None if value is None else _text(value)
            for name, value in zip(_FIELDS, values, strict=True)
        }
        spec: dict[str, Any] = json.loads(fields["spec"] or "{}")
        hashes = fields["token_hashes"]
        return StoredTournament(
            id=tournament_id,
            spec=spec,
            rounds=json.loads(fields["rounds"] or "[]"),
            status=_status(fields["status"]),
            changes=int(fields["changes"] or 0),
            decisions=json.loads(fields["decisions"] or "[]"),
            token_hashes=list(spec["token_hashes"] if hashes is None else json.loads(hashes)),
            writes=int(fields["writes"] or 0),
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
        """Drop a settled (or vanished) tournament from the running set."""
        self._client.srem(RUNNING, tournament_id)

    def seeds(self, tournament_id: str) -> list[str]:
        """The slots' seeds (hex), in slot order: only to create the slots' games."""
        raw = self._client.hget(tournament_key(tournament_id), "seeds")
        return [] if raw is None else list(json.loads(_text(raw)))

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
            pipe = self._client.pipeline(transaction=False)
            for tournament_id in batch:
                pipe.hget(tournament_key(tournament_id), "status")
            for tournament_id, found in zip(batch, pipe.execute(), strict=True):
                if found is not None and _status(_text(found)) == status:
                    matching.append(tournament_id)
        return self._summaries(matching[offset : offset + limit]), len(matching)

    def _batches(self) -> Iterator[list[str]]:
        offset = 0
        while batch := self.listed(offset=offset, limit=LIST_BATCH):
            yield batch
            offset += LIST_BATCH

    def _summaries(self, ids: Sequence[str]) -> list[Summary]:
        pipe = self._client.pipeline(transaction=False)
        names = ("summary", "status", "made", "decisions")
        for tournament_id in ids:
            pipe.hmget(tournament_key(tournament_id), names)
        found: list[Summary] = []
        for tournament_id, values in zip(ids, pipe.execute(), strict=True):
            summary, status, made, decisions = (None if v is None else _text(v) for v in values)
            if status is None:
                continue  # listed, but its record is not written (yet, or ever)
            fixed = json.loads(summary) if summary and summary != "{}" else None
            if fixed is None:  # a record from before summaries: its spec says the same
                spec = self._client.hget(tournament_key(tournament_id), "spec")
                fixed = summary_of(json.loads(_text(spec))) if spec is not None else {}
            paused = paused_by(json.loads(decisions or "[]"))
            found.append(Summary(tournament_id, fixed, _status(status), int(made or 0), paused))
        return found


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


def _status(value: str | None) -> TournamentStatus:
    for status in STATUSES:
        if value == status:
            return status
    return "running"


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
