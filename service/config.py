"""Settings read from the environment once, at app creation (never at import)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str
    organizer_token: str | None = None
    max_body_bytes: int = 64 * 1024
    sse_max_seconds: float = 300.0
    sse_heartbeat_seconds: float = 15.0
    state_cache_games: int = 4096
    bench_routes: bool = False
    sweep_seconds: float = 5.0
    #: Requests per window per token (hashed) and per client address; 0 = off.
    rate_limit_per_token: int = 6000
    rate_limit_per_address: int = 30000
    rate_limit_window_seconds: int = 60

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        return cls(
            redis_url=env.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            organizer_token=env.get("FLOE_ORGANIZER_TOKEN") or None,
            sse_max_seconds=float(env.get("FLOE_SSE_MAX_SECONDS", "300")),
            bench_routes=env.get("FLOE_BENCH_ROUTES") == "1",
            sweep_seconds=float(env.get("FLOE_SWEEP_SECONDS", "5")),
            rate_limit_per_token=int(env.get("FLOE_RATE_LIMIT_PER_TOKEN", "6000")),
            rate_limit_per_address=int(env.get("FLOE_RATE_LIMIT_PER_ADDRESS", "30000")),
            rate_limit_window_seconds=int(env.get("FLOE_RATE_LIMIT_WINDOW_SECONDS", "60")),
        )
