"""What a tournament commits to before its first move: one seed per (round, table) slot."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def tournament_commitment(seed_commitments: Sequence[str]) -> str:
    """SHA-256 hex of the slots' seed commitments joined in slot order (ASCII hex, no
    separators): publishing it fixes every seed the tournament can use, before any play."""
    return hashlib.sha256("".join(seed_commitments).encode("ascii")).hexdigest()
