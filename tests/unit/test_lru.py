"""The byte-bounded LRU every per-process cache uses: least recently used out first, within
its bytes, and an entry heavier than the whole budget never kept."""

from __future__ import annotations

import threading

from service.caching.lru import ByteBoundedLRU
from service.caching.sizes import ENTRY_OVERHEAD
from tests.support.waiting import PROMPTLY


def test_entries_are_kept_by_key() -> None:
    cache: ByteBoundedLRU[tuple[str, int], str] = ByteBoundedLRU(10_000)
    cache.put(("g", 0), "zero", 4)
    assert cache.get(("g", 0)) == "zero"
    assert cache.get(("g", 1)) is None
    assert cache.bytes == ENTRY_OVERHEAD + 4


def test_the_budget_evicts_the_least_recently_used() -> None:
    size = 100
    cache: ByteBoundedLRU[str, int] = ByteBoundedLRU(3 * (ENTRY_OVERHEAD + size))
    for number, name in enumerate("abc"):
        cache.put(name, number, size)
    assert cache.get("a") == 0  # a is now the most recently used
    assert cache.peek("b") == 1  # a peek leaves the order alone
    cache.put("d", 3, size)
    assert cache.get("b") is None
    assert cache.keys() == ["c", "a", "d"]
    assert cache.bytes == 3 * (ENTRY_OVERHEAD + size)


def test_an_entry_bigger_than_the_budget_is_not_kept() -> None:
    cache: ByteBoundedLRU[str, str] = ByteBoundedLRU(100)
    cache.put("kept", "x", 100 - ENTRY_OVERHEAD)
    cache.put("huge", "y", 1000)
    assert cache.get("huge") is None
    assert cache.keys() == ["kept"]


def test_replacing_an_entry_charges_its_new_size_once() -> None:
    cache: ByteBoundedLRU[str, str] = ByteBoundedLRU(10_000)
    cache.put("g", "small", 10)
    cache.update("g", lambda old: ((old or "") + "er", 50))
    assert cache.get("g") == "smaller"
    assert cache.bytes == ENTRY_OVERHEAD + 50
    assert cache.pop("g") == "smaller" and cache.bytes == 0


def test_concurrent_updates_of_one_entry_lose_none() -> None:
    cache: ByteBoundedLRU[str, int] = ByteBoundedLRU(10_000)
    threads = [
        threading.Thread(
            target=lambda: [cache.update("n", lambda n: ((n or 0) + 1, 8)) for _ in range(500)]
        )
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=PROMPTLY)
    assert not any(thread.is_alive() for thread in threads)
    assert cache.get("n") == 2000
