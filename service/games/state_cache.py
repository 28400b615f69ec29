"""Per-process cache of folded states: each game's head and periodic snapshots.

The head (latest state and its hash) lets a command decide without refolding; snapshots every
``SNAPSHOT_EVERY`` versions let an old version refold from close by. All of it is derived from
the stream, so losing it costs time, never correctness.

The cache is bounded by an estimate of its size in bytes, not by a number of games: a state on
the largest board an option allows (200 tiles, about 40 KB) weighs ten or twenty times a
small game's. Entries are evicted least recently used first until the estimate fits the
budget; an entry bigger than the whole budget is not kept at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.engine.types import GameState
from service.caching.lru import ByteBoundedLRU
from service.caching.sizes import deep_size

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
    #: The estimated bytes of the head, measured at version ``measured_at``.
    head_bytes: int = 0
    measured_at: int = 0
    snapshot_bytes: int = 0

    @property
    def size(self) -> int:
        return self.head_bytes + self.snapshot_bytes


def _stale(measured_at: int, version: int) -> bool:
    """Whether a head measured at ``measured_at`` is due for a new estimate at ``version``:
    when the version has doubled since, or crossed a snapshot boundary. A game is so
    measured about log2(v) + v / 256 times over its life, not once per move."""
    if measured_at <= 0:
        return True
    return version >= 2 * measured_at or version // SNAPSHOT_EVERY > measured_at // SNAPSHOT_EVERY


class StateCache:
    """Thread-safe, least-recently-used over games, within ``max_bytes`` (estimated).

    A game's head is measured (``deep_size``) when it is first cached and again as it grows
    (``_stale``), each snapshot once when it is added. Between measurements a new head takes
    the estimate of the one it replaces: states of one game change a little per move, and
    re-measuring every move would cost the move path a walk over the whole state.
    """

    def __init__(self, max_bytes: int) -> None:
        self._entries: ByteBoundedLRU[str, _Entry] = ByteBoundedLRU(max_bytes)

    @property
    def max_bytes(self) -> int:
        return self._entries.max_bytes

    @property
    def bytes(self) -> int:
        """The estimated size of everything cached (never above ``max_bytes``)."""
        return self._entries.bytes

    def games(self) -> list[str]:
        """The cached games, least recently used first."""
        return self._entries.keys()

    def head(self, game_id: str) -> Head | None:
        entry = self._entries.get(game_id)
        return None if entry is None else entry.head

    def advance(self, game_id: str, head: Head) -> None:
        """Keep ``head`` unless a newer one is already known."""
        version = head.state.version
        # A peek, only to decide whether to measure before taking the lock.
        known = self._entries.peek(game_id)
        size = deep_size(head) if known is None or _stale(known.measured_at, version) else None

        def change(entry: _Entry | None) -> tuple[_Entry, int]:
            entry = entry or _Entry()
            if entry.head is None or version > entry.head.state.version:
                entry.head = head
                measured = size
                if measured is None and entry.measured_at <= 0:  # evicted since the peek
                    measured = deep_size(head)
                if measured is not None:
                    entry.head_bytes, entry.measured_at = measured, version
            return entry, entry.size

        self._entries.update(game_id, change)

    def forget(self, game_id: str) -> None:
        """Drop the game's head and snapshots (the store no longer holds what they saw)."""
        self._entries.pop(game_id)

    def snapshot(self, state: GameState[Any]) -> None:
        if state.version % SNAPSHOT_EVERY:
            return
        known = self._entries.peek(state.game_id)  # folds pass kept snapshots again
        if known is not None and state.version in known.snapshots:
            return
        size = deep_size(state)

        def change(entry: _Entry | None) -> tuple[_Entry, int]:
            entry = entry or _Entry()
            if state.version not in entry.snapshots:
                # A new dict, not a changed one: ``nearest`` reads it without the lock.
                entry.snapshots = {**entry.snapshots, state.version: state}
                entry.snapshot_bytes += size
            return entry, entry.size

        self._entries.update(state.game_id, change)

    def nearest(self, game_id: str, version: int) -> GameState[Any] | None:
        """The latest snapshot at or below ``version``, if any."""
        entry = self._entries.get(game_id)
        if entry is None:
            return None
        below = [v for v in entry.snapshots if v <= version]
        return entry.snapshots[max(below)] if below else None
