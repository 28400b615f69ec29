"""What never changes about a game once created (its rules, seats, token hashes), cached.

Read from the game's meta hash once per process; every request afterwards is free while the
game stays cached. The cache is bounded by the estimated bytes of its entries (measured once
per game, with ``deep_size``), least recently used first out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.engine.game import Game
from domain.engine.rules import Rules
from domain.engine.types import SeatInfo
from domain.games import GAMES
from service.caching.lru import ByteBoundedLRU
from service.caching.sizes import deep_size
from service.errors import unknown_game
from service.store.events import EventStore


@dataclass(frozen=True, slots=True)
class GameMeta:
    game_id: str
    game: str
    created_at: str
    seats: tuple[SeatInfo, ...]
    token_hashes: tuple[str | None, ...]
    #: Whether ``FLOE_EVENTS_PER_GAME`` bounds the game (not one the organizer made).
    length_capped: bool = True
    #: Who created it, as a digest of the client's address (never the address itself): the
    #: bots' fair lanes (``service.jobs.lines``). None: the organizer, or not known.
    creator: str | None = None

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
        self._known: ByteBoundedLRU[str, GameMeta] = ByteBoundedLRU(max_bytes)

    @property
    def max_bytes(self) -> int:
        return self._known.max_bytes

    @property
    def bytes(self) -> int:
        """The estimated size of the cached metadata (never above ``max_bytes``)."""
        return self._known.bytes

    def find(self, game_id: str) -> GameMeta | None:
        known = self._known.get(game_id)
        if known is not None:
            return known
        record = self._store.record(game_id)
        if record is None or record.game not in GAMES:
            return None
        meta = GameMeta(
            game_id=game_id,
            game=record.game,
            created_at=record.created_at,
            seats=tuple(SeatInfo.from_json(s) for s in record.seats),
            token_hashes=record.token_hashes,
            length_capped=record.length_capped,
            creator=record.creator,
        )
        return self.remember(meta)

    def remember(self, meta: GameMeta) -> GameMeta:
        """Keep ``meta`` (the creating process knows it without reading it back)."""
        self._known.put(meta.game_id, meta, deep_size(meta))
        return meta

    def get(self, game_id: str) -> GameMeta:
        """The game's metadata, or 404 ``game_not_found``."""
        meta = self.find(game_id)
        if meta is None:
            raise unknown_game(game_id)
        return meta
