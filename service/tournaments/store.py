"""Tournaments in Redis: one hash per tournament, changed only by named Lua scripts.

A tournament is not a game and not an event stream: it is a record of what was fixed at
creation (the plan, the players, the seeds and their commitments, each slot's game id) and of
the rounds made so far. Its games are ordinary games in the event store. Keys:

- ``floe:tournament:{t}``  hash: ``spec`` (JSON, written once: everything fixed at creation
  but the seeds), ``seeds`` (JSON, written once: the slots' seeds in hex, read only to create
  a game and never shown), ``rounds`` (JSON: each round's tables,
  byes and, once the round is over, its outcomes), ``made`` (how many rounds exist),
  ``status`` (``running`` or ``finished``) and ``changes`` (a counter, bumped whenever what
  the tournament shows changed: the id of its SSE events).
- ``floe:tournaments``          sorted set of tournament ids by creation time (ms).
- ``floe:tournaments:running``  set of the tournaments not finished (what the sweeper looks at).

Every change also publishes ``<tournament key> <changes>`` on the channel games' appends use
(``service.store.appends``), so the same subscription wakes a tournament's followers.

Each script touches the tournament's own key only, so all of it lives in one slot of a Redis
Cluster; the index and the running set are other keys, written beside it: a tournament is
listed and marked running before its record exists (an id whose record never came is
dropped by a sweep a minute later), and leaves the running set after it is recorded finished (the
next ``advance`` of a finished one drops it, if a crash came between).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import redis

from service.redis.keys import KeyPattern
from service.redis.scripts import Script
from service.store.appends import CHANNEL
from service.store.durability import ReplicaAcks

INDEX = "floe:tournaments"
RUNNING = "floe:tournaments:running"

TournamentStatus = Literal["running", "finished"]

#: A listed id with no record this long after it was listed is a create that died.
UNWRITTEN_MS = 60_000

CREATE = Script.load(__package__, "create.lua")
RECORD = Script.load(__package__, "record.lua")
TOUCH = Script.load(__package__, "touch.lua")


tournament_key = KeyPattern("floe:tournament:{<id>}")


@dataclass(frozen=True, slots=True)
class StoredTournament:
    """A tournament as stored: its fixed spec and its rounds, as JSON values."""

    id: str
    spec: dict[str, Any]
    rounds: list[dict[str, Any]]
    status: TournamentStatus
    changes: int

    @property
    def made(self) -> int:
        return len(self.rounds)


@dataclass(frozen=True, slots=True)
class Recorded:
    changes: int


@dataclass(frozen=True, slots=True)
class Stale:
    """Someone recorded first (or the tournament is gone): read it again."""


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
        )
        return bool(created)

    def get(self, tournament_id: str) -> StoredTournament | None:
        """The tournament, without its seeds (``seeds`` reads them)."""
        names = ("spec", "rounds", "status", "changes")
        values = self._client.hmget(tournament_key(tournament_id), names)
        if values[0] is None:
            return None
        fields = {name: _text(value) for name, value in zip(names, values, strict=True)}
        status: TournamentStatus = "finished" if fields["status"] == "finished" else "running"
        return StoredTournament(
            id=tournament_id,
            spec=json.loads(fields["spec"]),
            rounds=json.loads(fields["rounds"]),
            status=status,
            changes=int(fields["changes"]),
        )

    def record(
        self,
        tournament_id: str,
        *,
        read: StoredTournament,
        rounds: Sequence[Any],
        status: TournamentStatus,
    ) -> Recorded | Stale:
        """Replace the rounds of the tournament as ``read``, unless it changed since."""
        answer = self._acks.run(
            self._record,
            tournament=tournament_key(tournament_id),
            channel=CHANNEL,
            made_before=read.made,
            rounds=_dump(list(rounds)),
            made_after=len(rounds),
            status=status,
        )
        if _text(answer[0]) != "ok":
            return Stale()
        if status != "running":
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
        """Drop a finished (or vanished) tournament from the running set."""
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


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
