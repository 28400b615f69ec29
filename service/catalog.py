"""What never changes about a game once created (its rules, seats, token hashes), cached.

Read from the game's meta hash once per process; every request afterwards is free.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from domain.engine.game import Game
from domain.engine.rules import Rules
from domain.engine.types import SeatInfo
from domain.games import GAMES
from service.errors import unknown_game
from service.store import EventStore


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
    """Game metadata by id, bounded and thread-safe."""

    def __init__(self, store: EventStore, max_games: int) -> None:
        self._store = store
        self._max_games = max_games
        self._known: dict[str, GameMeta] = {}
        self._lock = threading.Lock()

    def find(self, game_id: str) -> GameMeta | None:
        meta = self._known.get(game_id)
        if meta is not None:
            return meta
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
        with self._lock:
            if len(self._known) >= self._max_games:
                self._known.pop(next(iter(self._known)))
            self._known[meta.game_id] = meta
        return meta

    def get(self, game_id: str) -> GameMeta:
        """The game's metadata, or 404 ``game_not_found``."""
        meta = self.find(game_id)
        if meta is None:
            raise unknown_game(game_id)
        return meta
