"""Where a game's log comes from: an export file, or an event store by game id.

The replay tools never reach for a store themselves: whoever runs them (the ``floe``
command) hands in a way to open one, so replay depends only on the ``EventReader`` protocol
and works on export files with no Redis and no service at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from domain.engine.canonical import canonical_json
from domain.engine.log import EventReader

#: Opens the event store that game ids are looked up in (None: ids cannot be used).
OpenStore = Callable[[], EventReader]


def is_file(name: str) -> bool:
    return name.endswith((".jsonl", ".ndjson")) or Path(name).is_file()


def read_file(path: str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def read_store(game_id: str, open_store: OpenStore | None) -> list[str]:
    """The stored events of ``game_id`` as export lines, straight from the store."""
    if open_store is None:
        raise SystemExit("naming a game by id needs REDIS_URL (or pass an export file)")
    events = open_store().read(game_id)
    if not events:
        raise SystemExit(f"no game {game_id!r} in the event store")
    return [canonical_json(e.to_json()) for e in events]


def read(name: str, open_store: OpenStore | None = None) -> list[str]:
    """An export file's lines, or the export lines of the game with id ``name``."""
    return read_file(name) if is_file(name) else read_store(name, open_store)


def parse(lines: list[str]) -> list[Any]:
    return [json.loads(line) for line in lines if line.strip()]
