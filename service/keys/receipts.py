"""Receipts: the service's signature on each event it shows, which a player may keep.

The receipt for the event at ``version`` signs ``domain.engine.signing.receipt_message``:
the game, the version and a *mark*, HMAC-SHA256 of the event's hash keyed by the game's seed
(``receipt_mark``). The mark hides the hash (which could be brute-forced into hidden
outcomes) until the seed is revealed at the end; from then on anyone recomputes it from the
export, so a receipt the export contradicts proves the log was rewritten after it was shown
(``floe replay verify --receipts``).

Receipts are made when answering, never stored: Ed25519 is deterministic, so the same event
always gets the same receipt from the same key. Seeds never change, so each process keeps
those it read; and it keeps the receipts it made last, so an event streamed to every viewer
of a game (and answered to the seat that caused it) is signed once (a few MiB each, least
recently used out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.engine.log import StoredEvent
from domain.engine.signing import receipt_mark, receipt_message
from service.caching.lru import ByteBoundedLRU
from service.keys.service_key import ServiceKey

#: Bytes of seeds one process keeps (about 40,000 games).
SEED_CACHE_BYTES = 8 * 1024 * 1024
#: Bytes of receipts one process keeps (about 10,000 events).
RECEIPT_CACHE_BYTES = 4 * 1024 * 1024
#: What one kept receipt is charged: its key, the mark's and the signature's hex, the dict.
RECEIPT_BYTES = 400
Receipt = dict[str, Any]


class Receipts:
    """Signs receipts with ``key``; ``seed_hex(game_id)`` reads a game's secret seed."""

    def __init__(self, key: ServiceKey, seed_hex: Callable[[str], str]) -> None:
        self.key = key
        self._seed_hex = seed_hex
        self._seeds: ByteBoundedLRU[str, bytes] = ByteBoundedLRU(SEED_CACHE_BYTES)
        # By game, version and hash: a version whose event a failover lost is signed afresh.
        self._made: ByteBoundedLRU[tuple[str, int, str], Receipt] = ByteBoundedLRU(
            RECEIPT_CACHE_BYTES
        )

    def seed(self, game_id: str) -> bytes:
        seed = self._seeds.get(game_id)
        if seed is None:
            seed = bytes.fromhex(self._seed_hex(game_id))
            self._seeds.put(game_id, seed, len(game_id) + len(seed))
        return seed

    def receipt(self, game_id: str, version: int, event_hash: str) -> Receipt:
        """``{"version", "mark", "signature"}`` for the stored event at ``version`` (a new
        dict each time: the caller may put it in an answer)."""
        made = self._made.get((game_id, version, event_hash))
        if made is None:
            mark = receipt_mark(self.seed(game_id), event_hash)
            signature = self.key.sign(receipt_message(game_id, version, mark))
            made = {"version": version, "mark": mark, "signature": signature}
            self._made.put((game_id, version, event_hash), made, RECEIPT_BYTES)
        return dict(made)

    def of_stored(self, events: Iterable[StoredEvent]) -> list[Receipt]:
        """The receipt of each stored event, in order."""
        return [self.receipt(e.game_id, e.version, e.hash) for e in events]
