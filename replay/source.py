"""Where a game's log comes from: an export file, or (with ``REDIS_URL``) the store by id."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def is_file(name: str) -> bool:
    return name.endswith((".jsonl", ".ndjson")) or Path(name).is_file()


def read_file(path: str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def read_store(game_id: str, redis_url: str | None = None) -> list[str]:
    """The stored events of ``game_id`` as export lines, straight from Redis."""
    import redis

    from domain.engine.canonical import canonical_json
    from service.store import EventStore

    url = redis_url or os.environ.get("REDIS_URL")
    if not url:
        raise SystemExit("naming a game by id needs REDIS_URL (or pass an export file)")
    client = redis.Redis.from_url(url)
    try:
        events = EventStore(client).read(game_id)
    finally:
        client.close()
    if not events:
        raise SystemExit(f"no game {game_id!r} in {url}")
    return [canonical_json(e.to_json()) for e in events]


def read(name: str) -> list[str]:
    return read_file(name) if is_file(name) else read_store(name)


def parse(lines: list[str]) -> list[Any]:
    return [json.loads(line) for line in lines if line.strip()]
