"""Every setting of every Floe process, read from the environment in one place.

The API, the worker, ``floe run`` and the benchmarks all take a ``Settings``; nothing else
reads ``os.environ`` for configuration. Values are checked as they are read, so a typo in a
variable stops the process with a message naming it instead of surfacing later.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
_N = TypeVar("_N", int, float)


@dataclass(frozen=True, slots=True)
class Settings:
    #: The event store; None means "not set": ``floe run`` then starts its own Redis, and
    #: the other commands use ``DEFAULT_REDIS_URL``.
    redis_url: str | None = None
    organizer_token: str | None = None
    #: ``redis_url`` names nodes of a Redis Cluster (comma-separated URLs; the client finds
    #: the rest). RQ then needs a Redis of its own: ``queue_url``.
    redis_cluster: bool = False
    #: The Redis the job queues live in (the backlog, RQ's jobs, workers' liveness keys);
    #: None = the event store's (not allowed with a cluster). ``floe run`` with its own store
    #: starts one in memory and sets this for its children (``service/run/supervisor.py``).
    queue_url: str | None = None
    #: Replicas that must hold a write before it is answered (``WAIT``); 0 = none waited for.
    replica_acks: int = 0
    #: How long a write waits for them; then 503 ``store_unavailable`` (retry is safe).
    replica_ack_timeout_ms: int = 1000
    #: Extra game packages to load by module name (each exports ``GAME``), e.g. plugins.
    game_modules: tuple[str, ...] = ()
    # --- the API ---
    max_body_bytes: int = 64 * 1024
    sse_max_seconds: float = 300.0
    sse_heartbeat_seconds: float = 15.0
    #: Bytes (estimated) of folded states and game metadata each process caches, LRU.
    cache_bytes: int = 256 * 1024 * 1024
    bench_routes: bool = False
    #: Requests per window per token (hashed) and per client address; 0 = off.
    rate_limit_per_token: int = 6000
    rate_limit_per_address: int = 30000
    rate_limit_window_seconds: int = 60
    #: Games not over one creator (client address) may have at once: those with a bot seat,
    #: and all; 0 = no quota. The organizer has none (``service/limits/quotas.py``).
    bot_games_per_creator: int = 16
    live_games_per_creator: int = 100
    #: An open table expires after this; a started or cancelled one is kept a day.
    table_ttl_seconds: int = 3600
    #: Open tables one creator (client address) may have at once; 0 = no limit.
    open_tables_per_creator: int = 10
    # --- the worker ---
    sweep_seconds: float = 5.0
    #: Items (draws, bot moves) a worker runs at once (``service/jobs/drain.py``): their appends
    #: overlap, so they share fsyncs; one bot thinks at a time whatever this is.
    worker_threads: int = 8
    #: How long a bot may think over one move; past it the move fails, loudly (docs/ai.md).
    bot_move_seconds: float = 60.0
    # --- floe run ---
    host: str = "127.0.0.1"
    port: int = 8000
    web_workers: int = 2
    #: Open connections each API process serves at once (gevent: idle ones cost no thread).
    web_connections: int = 1000
    #: A request's line and headers must arrive within this (and an idle keep-alive ends).
    header_timeout_seconds: float = 10.0
    #: A request's body must arrive within this once its headers have (else 408).
    body_timeout_seconds: float = 10.0
    #: Live streams and ``?wait=`` requests one client address may hold open; 0 = no cap.
    long_requests_per_address: int = 64
    #: Redis connections each process keeps at most; more requests queue for one.
    redis_connections: int = 64
    #: RQ workers; with two or more, the first works only draws, so bots never delay dice.
    job_workers: int = 2
    data_dir: Path = Path(".floe-data")
    #: ``maxmemory`` of the embedded Redis (``2gb``, ``512mb``); None = no limit.
    redis_maxmemory: str | None = None
    stop_timeout: float = 10.0
    python: str = field(default=sys.executable)

    def __post_init__(self) -> None:
        if self.redis_cluster and (self.redis_url is None or self.queue_url is None):
            raise ValueError(
                "FLOE_REDIS_CLUSTER=1 needs REDIS_URL (one or more cluster nodes) and "
                "FLOE_QUEUE_URL (a Redis for the job queues: RQ runs on one Redis)"
            )

    @property
    def store_url(self) -> str:
        """The Redis to connect to: ``REDIS_URL``, or the local default."""
        return self.redis_url or DEFAULT_REDIS_URL

    @property
    def store_urls(self) -> list[str]:
        """The event store's URLs: one Redis, or the cluster nodes ``REDIS_URL`` lists."""
        return [url.strip() for url in self.store_url.split(",") if url.strip()]

    @property
    def queue_store_url(self) -> str:
        """The Redis of the job queues: ``FLOE_QUEUE_URL``, else the event store's."""
        return self.queue_url or self.store_url

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``env`` (default ``os.environ``); ValueError names a bad variable."""
        env = os.environ if env is None else env
        read = _Reader(env)
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            organizer_token=env.get("FLOE_ORGANIZER_TOKEN") or None,
            redis_cluster=_flag("FLOE_REDIS_CLUSTER", env),
            queue_url=env.get("FLOE_QUEUE_URL") or None,
            replica_acks=read.integer("FLOE_REPLICA_ACKS", 0, zero_ok=True),
            replica_ack_timeout_ms=read.integer("FLOE_REPLICA_ACK_TIMEOUT_MS", 1000),
            game_modules=tuple(
                name.strip() for name in env.get("FLOE_GAME_MODULES", "").split(",") if name.strip()
            ),
            sse_max_seconds=read.number("FLOE_SSE_MAX_SECONDS", 300.0),
            sse_heartbeat_seconds=read.number("FLOE_SSE_HEARTBEAT_SECONDS", 15.0),
            bench_routes=env.get("FLOE_BENCH_ROUTES") == "1",
            sweep_seconds=read.number("FLOE_SWEEP_SECONDS", 5.0, zero_ok=True),
            worker_threads=read.integer("FLOE_WORKER_THREADS", 8),
            bot_move_seconds=read.number("FLOE_BOT_MOVE_SECONDS", 60.0),
            rate_limit_per_token=read.integer("FLOE_RATE_LIMIT_PER_TOKEN", 6000, zero_ok=True),
            rate_limit_per_address=read.integer("FLOE_RATE_LIMIT_PER_ADDRESS", 30000, zero_ok=True),
            rate_limit_window_seconds=read.integer(
                "FLOE_RATE_LIMIT_WINDOW_SECONDS", 60, zero_ok=True
            ),
            bot_games_per_creator=read.integer("FLOE_BOT_GAMES_PER_CREATOR", 16, zero_ok=True),
            live_games_per_creator=read.integer("FLOE_LIVE_GAMES_PER_CREATOR", 100, zero_ok=True),
            cache_bytes=read.integer("FLOE_CACHE_BYTES", 256 * 1024 * 1024),
            port=read.integer("PORT", 8000),
            web_workers=read.integer("FLOE_WEB_WORKERS", 2),
            web_connections=read.integer("FLOE_WEB_CONNECTIONS", 1000),
            table_ttl_seconds=read.integer("FLOE_TABLE_TTL_SECONDS", 3600),
            open_tables_per_creator=read.integer("FLOE_OPEN_TABLES_PER_CREATOR", 10, zero_ok=True),
            redis_connections=read.integer("FLOE_REDIS_CONNECTIONS", 64),
            header_timeout_seconds=read.number("FLOE_HEADER_TIMEOUT_SECONDS", 10.0),
            body_timeout_seconds=read.number("FLOE_BODY_TIMEOUT_SECONDS", 10.0),
            long_requests_per_address=read.integer(
                "FLOE_LONG_REQUESTS_PER_ADDRESS", 64, zero_ok=True
            ),
            job_workers=read.integer("FLOE_JOB_WORKERS", 2),
            data_dir=Path(env.get("FLOE_DATA_DIR") or ".floe-data"),
            redis_maxmemory=_memory_size("FLOE_REDIS_MAXMEMORY", env),
            stop_timeout=read.number("FLOE_STOP_TIMEOUT", 10.0),
        )


def _flag(name: str, env: Mapping[str, str]) -> bool:
    """``1`` is on; unset, empty or ``0`` is off; anything else is an error naming it."""
    value = env.get(name, "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"{name} must be 0 or 1, not {value!r}")
    return value == "1"


def _memory_size(name: str, env: Mapping[str, str]) -> str | None:
    """A Redis memory size (``2gb``, ``512mb``, ``100000``) or None when unset."""
    raw = env.get(name, "").strip().lower()
    if not raw:
        return None
    if not re.fullmatch(r"[1-9][0-9]*(b|k|kb|m|mb|g|gb)?", raw):
        raise ValueError(f"{name} must be a size such as 2gb or 512mb, got {raw!r}")
    return raw


@dataclass(frozen=True, slots=True)
class _Reader:
    """Numbers from the environment: blank means the default; anything else must parse."""

    env: Mapping[str, str]

    def integer(self, name: str, default: int, *, zero_ok: bool = False) -> int:
        return self._read(name, default, int, "an integer", zero_ok)

    def number(self, name: str, default: float, *, zero_ok: bool = False) -> float:
        return self._read(name, default, float, "a number", zero_ok)

    def _read(
        self, name: str, default: _N, parse: Callable[[str], _N], kind: str, zero_ok: bool
    ) -> _N:
        raw = self.env.get(name, "").strip()
        if not raw:
            return default
        try:
            value = parse(raw)
        except ValueError:
            raise ValueError(f"{name} must be {kind}, got {raw!r}") from None
        return self._checked(name, value, zero_ok)

    @staticmethod
    def _checked(name: str, value: _N, zero_ok: bool) -> _N:
        if value < 0 or (value == 0 and not zero_ok):
            wanted = "zero or more" if zero_ok else "positive"
            raise ValueError(f"{name} must be {wanted}, got {value}")
        return value
