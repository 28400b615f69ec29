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

from service.store.appends import CHANNEL
from service.store.durability import ReplicaAcks

INDEX = "floe:tournaments"
RUNNING = "floe:tournaments:running"

TournamentStatus = Literal["running", "finished"]

#: A listed id with no record this long after it was listed is a create that died.
UNWRITTEN_MS = 60_000


def tournament_key(tournament_id: str) -> str:
    return f"floe:tournament:{{{tournament_id}}}"


# KEYS: the tournament.  ARGV: the spec JSON, the seeds JSON, the rounds JSON, rounds made.
# Writes a new tournament: 1, or 0 if the id is taken.
CREATE_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'spec', ARGV[1], 'seeds', ARGV[2], 'rounds', ARGV[3],
           'made', ARGV[4], 'status', 'running', 'changes', 0)
redis.call('PUBLISH', '$CHANNEL', KEYS[1] .. ' 0')
return 1
""".replace("$CHANNEL", CHANNEL)

# KEYS: the tournament.  ARGV: rounds made as the caller read them, the rounds JSON to
# write, rounds made after it, the status after it.
# Writes the rounds only if nobody changed them since the caller read them (the same count
# made, still running): {'ok', changes}, {'stale', made, status} or {'missing'}.
RECORD_SCRIPT = """
local made = redis.call('HGET', KEYS[1], 'made')
if not made then return {'missing'} end
local status = redis.call('HGET', KEYS[1], 'status')
if made ~= ARGV[1] or status ~= 'running' then return {'stale', made, status} end
redis.call('HSET', KEYS[1], 'rounds', ARGV[2], 'made', ARGV[3], 'status', ARGV[4])
local changes = redis.call('HINCRBY', KEYS[1], 'changes', 1)
redis.call('PUBLISH', '$CHANNEL', KEYS[1] .. ' ' .. changes)
return {'ok', tostring(changes)}
""".replace("$CHANNEL", CHANNEL)

# KEYS: the tournament.  Something it shows changed (a game ended): bump ``changes`` and
# publish it; 0 for a tournament that does not exist or is finished (a finished one never
# changes again: its last change is the one that finished it).
TOUCH_SCRIPT = """
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
local changes = redis.call('HINCRBY', KEYS[1], 'changes', 1)
redis.call('PUBLISH', '$CHANNEL', KEYS[1] .. ' ' .. changes)
return changes
""".replace("$CHANNEL", CHANNEL)


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
        self._create = client.register_script(CREATE_SCRIPT)
        self._record = client.register_script(RECORD_SCRIPT)
        self._touch = client.register_script(TOUCH_SCRIPT)

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
        keys = [tournament_key(tournament_id)]
        args: list[str | int] = [
            _dump(spec),
            _dump(list(seeds)),
            _dump(list(rounds)),
            len(rounds),
        ]
        return bool(self._acks.run(self._create, keys, args))

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
        keys = [tournament_key(tournament_id)]
        args: list[str | int] = [
            read.made,
            _dump(list(rounds)),
            len(rounds),
            status,
        ]
        answer = self._acks.run(self._record, keys, args)
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
        self._touch(keys=[tournament_key(tournament_id)])

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
