"""Per-process cache of folded states: each game's head and periodic snapshots.

The head (latest state and its hash) lets a command decide without refolding; snapshots every
``SNAPSHOT_EVERY`` versions let an old version refold from close by. All of it is derived from
the stream, so losing it costs time, never correctness.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from domain.engine.types import GameState

SNAPSHOT_EVERY = 256


@dataclass(frozen=True, slots=True)
class Head:
    """A game's newest state and the hash of the event that made it."""

    state: GameState[Any]
    hash: str


@dataclass(slots=True)
class _Entry:
    head: Head | None = None
    snapshots: dict[int, GameState[Any]] = field(default_factory=dict)


class StateCache:
    """Thread-safe, least-recently-used over games."""

    def __init__(self, max_games: int) -> None:
        self._max_games = max_games
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def head(self, game_id: str) -> Head | None:
        with self._lock:
            entry = self._entries.get(game_id)
            return entry.head if entry else None

    def advance(self, game_id: str, head: Head) -> None:
        """Keep ``head`` unless a newer one is already known."""
        with self._lock:
            entry = self._entry(game_id)
            if entry.head is None or head.state.version > entry.head.state.version:
                entry.head = head

    def snapshot(self, state: GameState[Any]) -> None:
        if state.version % SNAPSHOT_EVERY:
            return
        with self._lock:
            self._entry(state.game_id).snapshots[state.version] = state

    def nearest(self, game_id: str, version: int) -> GameState[Any] | None:
        """The latest snapshot at or below ``version``, if any."""
        with self._lock:
            entry = self._entries.get(game_id)
            if entry is None:
                return None
            below = [v for v in entry.snapshots if v <= version]
            return entry.snapshots[max(below)] if below else None

    def _entry(self, game_id: str) -> _Entry:
        entry = self._entries.get(game_id)
        if entry is None:
            entry = self._entries[game_id] = _Entry()
            while len(self._entries) > self._max_games:
                self._entries.popitem(last=False)
        self._entries.move_to_end(game_id)
        return entry
