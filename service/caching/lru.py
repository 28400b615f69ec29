"""One least-recently-used map bounded in bytes, shared by every per-process cache.

Floe's caches (folded states, game metadata, legal-action lists, workers' seeds) are all
"keep what was used last, within a budget of bytes". The budget is in bytes, not entries,
because one game on the largest board weighs ten or twenty times a small one. Each entry is
charged what its writer says it weighs (``sizes.deep_size`` or a cheaper measure) plus
``ENTRY_OVERHEAD``; an entry heavier than the whole budget is not kept at all.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from service.caching.sizes import ENTRY_OVERHEAD

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ByteBoundedLRU(Generic[K, V]):
    """Thread-safe; evicts least recently used entries until the charged bytes fit."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def max_bytes(self) -> int:
        return self._max_bytes

    @property
    def bytes(self) -> int:
        """What the entries are charged in all (never above ``max_bytes``)."""
        return self._bytes

    def keys(self) -> list[K]:
        """The keys, least recently used first."""
        with self._lock:
            return list(self._entries)

    def get(self, key: K) -> V | None:
        """The value, now the most recently used; None when not kept."""
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[0]

    def peek(self, key: K) -> V | None:
        """The value, leaving the order as it is."""
        with self._lock:
            found = self._entries.get(key)
            return None if found is None else found[0]

    def put(self, key: K, value: V, size: int) -> None:
        """Keep ``value`` (charged ``size`` + ``ENTRY_OVERHEAD``) as the most recently used."""
        self.update(key, lambda _: (value, size))

    def update(self, key: K, change: Callable[[V | None], tuple[V, int]]) -> V:
        """Replace the entry with what ``change`` makes of it (None: there is none), under
        the lock, so concurrent changes of one entry never lose one another; ``change``
        answers the new value and its size. Returns the new value (kept or not)."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            value, size = change(None if old is None else old[0])
            charged = ENTRY_OVERHEAD + size
            if charged <= self._max_bytes:
                self._entries[key] = (value, charged)
                self._bytes += charged
                while self._bytes > self._max_bytes:
                    _, (_, evicted) = self._entries.popitem(last=False)
                    self._bytes -= evicted
            return value

    def pop(self, key: K) -> V | None:
        """Drop the entry; its value, if there was one."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is None:
                return None
            self._bytes -= old[1]
            return old[0]
