"""The one JSON encoding that hashes and sort orders are computed over (docs/format.md)."""

from __future__ import annotations

import json
from typing import Any


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept as is: the bytes every implementation agrees on."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
