"""How many bytes a cached object holds, estimated: what the per-process caches charge.

Both caches (``state_cache.py``, ``catalog.py``) are bounded in bytes, not in games, because a
game on the largest board weighs ten or twenty times a small one.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping
from typing import Any

#: What an entry costs besides its states: the entry, its key and its slot in the dict.
ENTRY_OVERHEAD = 256

_LEAVES = (str, bytes, bytearray, int, float, complex, bool, type(None))
#: Shared by every game (and often huge): never counted as part of one.
_SHARED = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
)


def deep_size(obj: object) -> int:
    """An estimate of the bytes ``obj`` holds: ``sys.getsizeof`` of every object reachable
    from it (through containers, mappings, ``__dict__`` and ``__slots__``), each counted once.

    Objects shared with other games (interned strings, small integers) count in full, the
    allocator's own overhead not at all: against a process's RSS it comes out a few percent
    under (BENCHMARKS.md). Classes, modules and functions are never followed. It visits every
    object of a state (under a millisecond for a 200-tile board), so callers measure rarely,
    never on every move.
    """
    seen: set[int] = set()
    total = 0
    stack: list[Any] = [obj]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, _SHARED):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, _LEAVES):
            continue
        if isinstance(item, dict | Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        attributes = getattr(item, "__dict__", None)
        if attributes is not None:
            stack.append(attributes)
        for cls in type(item).__mro__:
            for name in cls.__dict__.get("__slots__", ()):
                if name not in ("__dict__", "__weakref__") and hasattr(item, name):
                    stack.append(getattr(item, name))
    return total
