"""The one JSON encoding that hashes and sort orders are computed over.

The bytes are those docs/reference/format.md gives, so any language can recompute a hash.
"""

from __future__ import annotations

import json
from typing import Any, Literal

#: What ``json.dumps`` would build on every call with these options (as it keeps one for its
#: defaults): the encoder holds no state between calls, so one serves every thread.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept as is: the bytes every implementation agrees on."""
    return _ENCODER.encode(value)


def is_text(text: str) -> bool:
    """Whether ``text`` can be UTF-8 at all (a lone surrogate such as ``"\\ud800"`` cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unencodable(value: Any, max_depth: int) -> Literal["surrogate", "depth"] | None:
    """What keeps parsed JSON from being stored and hashed: a string (key or value) that is
    not text, or nesting deeper than ``max_depth``; None when nothing does.

    Both the API (request bodies) and replay (export lines) refuse such input, so they
    share this one walk, iterative so no depth can exhaust the stack.
    """
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if not is_text(item):
                return "surrogate"
        elif isinstance(item, dict | list):
            if depth > max_depth:
                return "depth"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return None
