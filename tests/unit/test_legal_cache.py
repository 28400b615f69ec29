"""The legal-actions cache stays within its bytes, least recently used out first."""

from __future__ import annotations

import orjson

from service.caching.sizes import ENTRY_OVERHEAD
from service.games.legal_cache import LegalActionsCache


def actions(n: int) -> list[dict[str, object]]:
    return [{"type": "place", "tile": [i, 0]} for i in range(n)]


def test_entries_are_kept_by_state_and_seat() -> None:
    cache = LegalActionsCache(10_000)
    cache.put(("g", "h1", 0), actions(2))
    assert cache.get(("g", "h1", 0)) == actions(2)
    assert cache.get(("g", "h1", 1)) is None  # another seat
    assert cache.get(("g", "h2", 0)) is None  # another state, even at the same version


def test_the_budget_evicts_the_least_recently_used() -> None:
    size = ENTRY_OVERHEAD + len(orjson.dumps(actions(3)))
    cache = LegalActionsCache(3 * size)
    for name in "abc":
        cache.put((name, "h", 0), actions(3))
    assert cache.get(("a", "h", 0)) is not None  # a is now the most recently used
    cache.put(("d", "h", 0), actions(3))
    assert cache.get(("b", "h", 0)) is None
    assert all(cache.get((name, "h", 0)) is not None for name in "acd")
    assert cache.bytes == 3 * size


def test_a_list_bigger_than_the_budget_is_not_kept() -> None:
    cache = LegalActionsCache(100)
    cache.put(("g", "h", 0), actions(50))
    assert cache.get(("g", "h", 0)) is None and cache.bytes == 0
