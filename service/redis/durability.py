"""Whether the event store's Redis keeps what it acknowledges: read from its configuration.

Floe's promise that a 201 is a game's record holds only on a Redis that never evicts and
writes an AOF (``floe run``'s own Redis is started so). A Redis someone else configured
(``REDIS_URL``) may do neither: an evicting ``maxmemory-policy`` deletes keys, whole games
among them, once memory is full; without ``appendonly`` a restart loses everything written
since the last snapshot. Each is a **problem**: the API, the workers and ``floe run`` refuse
to start on such a store unless the operator says they mean it
(``FLOE_STORE_RISKS_ACCEPTED=1``), and ``GET /v1/health`` names it either way. Weaker
guarantees that lose no game to a restart of Redis (an ``appendfsync`` other than
``always``: the last second of writes on a crash of the machine) and settings that cannot be
read (managed services often disable or rename ``CONFIG``) are **cautions**: logged and
shown, never refused.

On a Redis Cluster every primary is read; what one node gets wrong is named with its address.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import redis
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException

from service.settings import Settings

#: What is read, and the value each should have.
SAFE = {"maxmemory-policy": "noeviction", "appendonly": "yes", "appendfsync": "always"}
#: A value ``CONFIG GET`` did not give (refused, renamed, or the parameter hidden).
UNKNOWN = "unknown"
#: Where the operator learns what to set.
DOCS = "docs/operations/durability.md"
#: A store that does not answer (a cluster's client asks its nodes as it is made).
UNREACHABLE = (redis.ConnectionError, redis.TimeoutError, RedisClusterException)


class StoreRisksRefused(RuntimeError):
    """The event store may lose games and ``FLOE_STORE_RISKS_ACCEPTED`` is not set."""


@dataclass(frozen=True, slots=True)
class StoreSafety:
    """What the event store's configuration means for the games it holds."""

    #: Each parameter of ``SAFE``: its value on every node, ``unknown``, or ``mixed``.
    config: Mapping[str, str]
    #: What may lose games (an evicting policy, no AOF): refused unless accepted.
    problems: tuple[str, ...] = ()
    #: What is weaker than ``floe run``'s store, or could not be read: said, never refused.
    cautions: tuple[str, ...] = ()

    @property
    def durable(self) -> bool | None:
        """False with a problem; None when a setting could not be read; else True."""
        if self.problems:
            return False
        if UNKNOWN in self.config.values():
            return None
        return True

    def to_json(self) -> dict[str, Any]:
        return {
            "durable": self.durable,
            "maxmemory_policy": self.config["maxmemory-policy"],
            "appendonly": self.config["appendonly"],
            "appendfsync": self.config["appendfsync"],
            "problems": list(self.problems),
            "cautions": list(self.cautions),
        }


def read_safety(client: redis.Redis) -> StoreSafety:
    """Read the store's configuration (one round trip per node); a Redis that does not
    answer raises ``redis.ConnectionError`` or ``TimeoutError``, as any command would."""
    if isinstance(client, RedisCluster):
        cluster = cast(RedisCluster, client)
        nodes = {
            node.name: cast(redis.Redis, cluster.get_redis_connection(node))
            for node in cluster.get_primaries()
        }
    else:
        nodes = {"": client}
    seen = {name: _read_config(node) for name, node in sorted(nodes.items())}
    problems: list[str] = []
    cautions: list[str] = []
    for name, config in seen.items():
        where = f"{name}: " if name else ""
        problems += [where + problem for problem in _problems(config)]
        cautions += [where + caution for caution in _cautions(config)]
    merged = {
        parameter: _one_value([config[parameter] for config in seen.values()]) for parameter in SAFE
    }
    return StoreSafety(merged, tuple(problems), tuple(cautions))


def check_at_start(
    client: redis.Redis, settings: Settings, warn: Callable[[str], None]
) -> StoreSafety | None:
    """Before a process serves or works: raise ``StoreRisksRefused`` for a store that may
    lose games unless ``settings.store_risks_accepted``; ``warn`` of every problem accepted
    and every caution (each process says so in its own log).

    A store that does not answer is not refused here (None): the API answers 503 until it
    is back, and ``GET /v1/health`` reads it again then.
    """
    try:
        safety = read_safety(client)
    except UNREACHABLE as error:
        warn(f"could not read the event store's configuration: {error}")
        return None
    if safety.problems and not settings.store_risks_accepted:
        raise StoreRisksRefused(refusal(safety))
    for problem in safety.problems:
        warn(f"the event store may lose games: {problem} (FLOE_STORE_RISKS_ACCEPTED=1)")
    for caution in safety.cautions:
        warn(f"the event store: {caution}")
    return safety


def refusal(safety: StoreSafety) -> str:
    """What a process that will not start on this store says."""
    return (
        "the event store's Redis may lose games: "
        + "; ".join(safety.problems)
        + ". Set maxmemory-policy noeviction and appendonly yes (appendfsync always) on it, "
        + f"or set FLOE_STORE_RISKS_ACCEPTED=1 to run on it anyway ({DOCS})"
    )


def _read_config(client: redis.Redis) -> dict[str, str]:
    """Each parameter's value, ``unknown`` where ``CONFIG GET`` is refused or silent."""
    pipeline = client.pipeline(transaction=False)
    for parameter in SAFE:
        pipeline.config_get(parameter)
    answers = pipeline.execute(raise_on_error=False)
    values: dict[str, str] = {}
    for parameter, answer in zip(SAFE, answers, strict=True):
        if isinstance(answer, redis.ConnectionError | redis.TimeoutError):
            raise answer
        found = (
            {_text(key): _text(value) for key, value in answer.items()}
            if isinstance(answer, dict)
            else {}
        )
        values[parameter] = found.get(parameter, UNKNOWN).lower() or UNKNOWN
    return values


def _problems(config: Mapping[str, str]) -> list[str]:
    problems = []
    policy = config["maxmemory-policy"]
    if policy not in (SAFE["maxmemory-policy"], UNKNOWN):
        problems.append(f"maxmemory-policy {policy} evicts keys at maxmemory, and with them games")
    if config["appendonly"] not in (SAFE["appendonly"], UNKNOWN):
        problems.append(
            f"appendonly {config['appendonly']}: a restart of Redis loses what it held "
            "since its last snapshot"
        )
    return problems


def _cautions(config: Mapping[str, str]) -> list[str]:
    cautions = []
    unread = [parameter for parameter, value in config.items() if value == UNKNOWN]
    if unread:
        cautions.append(
            f"{', '.join(unread)} unknown (CONFIG GET refused): cannot tell whether it "
            "evicts or keeps an AOF"
        )
    fsync = config["appendfsync"]
    if config["appendonly"] == SAFE["appendonly"] and fsync not in (SAFE["appendfsync"], UNKNOWN):
        cautions.append(
            f"appendfsync {fsync}: a crash of the machine may lose the last second's "
            "acknowledged writes"
        )
    return cautions


def _one_value(values: list[str]) -> str:
    return values[0] if len(set(values)) == 1 else "mixed"


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
