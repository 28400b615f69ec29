"""Per-process cache of legal-action lists, one per state and seat, within a byte budget.

Listing every legal action is real rules work (a game may try every piece on every line),
and several readers may ask for the same state: both seats' pages, a bot that asks
again after a refused post, spectators' tools. A state is named by the hash of the event
that made it, so an entry can never be served for a different state, even one a failover
made with the same version; a stale entry is only ever unused, never wrong.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import orjson

from service.caching.sizes import ENTRY_OVERHEAD

#: The key: the game, the hash of the event that made its state, and the seat asking.
Key = tuple[str, str, int]


class LegalActionsCache:
    """Least recently used first out, within ``max_bytes`` (the lists' JSON length plus a
    fixed overhead per entry). The lists are shared: callers must not change them."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._bytes = 0
        self._entries: OrderedDict[Key, tuple[list[Any], int]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def bytes(self) -> int:
        return self._bytes

    def get(self, key: Key) -> list[Any] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: Key, actions: list[Any]) -> None:
        size = ENTRY_OVERHEAD + len(orjson.dumps(actions))
        if size > self._max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._entries[key] = (actions, size)
            self._bytes += size
            while self._bytes > self._max_bytes:
                _, (_, evicted) = self._entries.popitem(last=False)
                self._bytes -= evicted
