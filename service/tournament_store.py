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
(``service.appends``), so the same subscription wakes a tournament's followers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import redis

from service.appends import CHANNEL

INDEX = "floe:tournaments"
RUNNING = "floe:tournaments:running"

TournamentStatus = Literal["running", "finished"]


def tournament_key(tournament_id: str) -> str:
    return f"floe:tournament:{{{tournament_id}}}"


# KEYS: the tournament, the index, the running set.  ARGV: the id, the spec JSON, the seeds
# JSON, the rounds JSON, rounds made, created (ms).  Writes a new tournament: 1, or 0 if the
# id is taken.
CREATE_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'spec', ARGV[2], 'seeds', ARGV[3], 'rounds', ARGV[4],
           'made', ARGV[5], 'status', 'running', 'changes', 0)
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('PUBLISH', '$CHANNEL', KEYS[1] .. ' 0')
return 1
""".replace("$CHANNEL", CHANNEL)

# KEYS: the tournament, the running set.  ARGV: the id, rounds made as the caller read them,
# the rounds JSON to write, rounds made after it, the status after it.
# Writes the rounds only if nobody changed them since the caller read them (the same count
# made, still running): {'ok', changes}, {'stale', made, status} or {'missing'}.
RECORD_SCRIPT = """
local made = redis.call('HGET', KEYS[1], 'made')
if not made then return {'missing'} end
local status = redis.call('HGET', KEYS[1], 'status')
if made ~= ARGV[2] or status ~= 'running' then return {'stale', made, status} end
redis.call('HSET', KEYS[1], 'rounds', ARGV[3], 'made', ARGV[4], 'status', ARGV[5])
if ARGV[5] ~= 'running' then redis.call('SREM', KEYS[2], ARGV[1]) end
local changes = redis.call('HINCRBY', KEYS[1], 'changes', 1)
redis.call('PUBLISH', '$CHANNEL', KEYS[1] .. ' ' .. changes)
return {'ok', tostring(changes)}
""".replace("$CHANNEL", CHANNEL)

# KEYS: the tournament.  Something it shows changed (a game ended): bump ``changes`` and
# publish it; 0 for a tournament that does not exist.
TOUCH_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
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

    def __init__(self, client: redis.Redis) -> None:
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
        keys = [tournament_key(tournament_id), INDEX, RUNNING]
        args: list[str | int] = [
            tournament_id,
            _dump(spec),
            _dump(list(seeds)),
            _dump(list(rounds)),
            len(rounds),
            created_ms,
        ]
        return bool(self._create(keys=keys, args=args))

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
        keys = [tournament_key(tournament_id), RUNNING]
        args: list[str | int] = [
            tournament_id,
            read.made,
            _dump(list(rounds)),
            len(rounds),
            status,
        ]
        answer = self._record(keys=keys, args=args)
        if _text(answer[0]) == "ok":
            return Recorded(int(answer[1]))
        return Stale()

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
