"""What never changes about a game once created (its rules, seats, token hashes), cached.

Read from the game's meta hash once per process; every request afterwards is free while the
game stays cached. The cache is bounded by the estimated bytes of its entries (measured once
per game, with ``deep_size``), least recently used first out.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from domain.engine.game import Game
from domain.engine.rules import Rules
from domain.engine.types import SeatInfo
from domain.games import GAMES
from service.caching.sizes import ENTRY_OVERHEAD, deep_size
from service.errors import unknown_game
from service.store.events import EventStore


@dataclass(frozen=True, slots=True)
class GameMeta:
    game_id: str
    game: str
    created_at: str
    seats: tuple[SeatInfo, ...]
    token_hashes: tuple[str | None, ...]

    @property
    def bundle(self) -> Game[Any]:
        return GAMES[self.game]

    @property
    def rules(self) -> Rules[Any]:
        return GAMES[self.game].rules

    def seats_json(self) -> list[dict[str, Any]]:
        return [s.to_json() for s in self.seats]


class Catalog:
    """Game metadata by id, thread-safe, least-recently-used within ``max_bytes``."""

    def __init__(self, store: EventStore, max_bytes: int) -> None:
        self._store = store
        self._max_bytes = max_bytes
        self._known: OrderedDict[str, tuple[GameMeta, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def max_bytes(self) -> int:
        return self._max_bytes

    @property
    def bytes(self) -> int:
        """The estimated size of the cached metadata (never above ``max_bytes``)."""
        return self._bytes

    def find(self, game_id: str) -> GameMeta | None:
        with self._lock:
            known = self._known.get(game_id)
            if known is not None:
                self._known.move_to_end(game_id)
                return known[0]
        raw = self._store.meta(game_id)
        if raw is None or raw.get("game") not in GAMES:
            return None
        meta = GameMeta(
            game_id=game_id,
            game=raw["game"],
            created_at=raw["created_at"],
            seats=tuple(
                SeatInfo(int(s["seat"]), str(s["name"]), s.get("bot"))
                for s in json.loads(raw["seats"])
            ),
            token_hashes=tuple(json.loads(raw["tokens"])),
        )
        return self.remember(meta)

    def remember(self, meta: GameMeta) -> GameMeta:
        """Keep ``meta`` (the creating process knows it without reading it back)."""
        size = ENTRY_OVERHEAD + deep_size(meta)
        with self._lock:
            known = self._known.pop(meta.game_id, None)
            if known is not None:
                self._bytes -= known[1]
            self._known[meta.game_id] = (meta, size)
            self._bytes += size
            while self._bytes > self._max_bytes and self._known:
                _, (_, evicted) = self._known.popitem(last=False)
                self._bytes -= evicted
        return meta

    def get(self, game_id: str) -> GameMeta:
        """The game's metadata, or 404 ``game_not_found``."""
        meta = self.find(game_id)
        if meta is None:
            raise unknown_game(game_id)
        return meta
