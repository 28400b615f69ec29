"""What a tournament commits to before its first move: one seed per (round, table) slot, and
the players listed at creation."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from domain.engine.canonical import canonical_json


def tournament_commitment(seed_commitments: Sequence[str]) -> str:
    """SHA-256 hex of the slots' seed commitments joined in slot order (ASCII hex, no
    separators): publishing it fixes every seed the tournament can use, before any play."""
    return hashlib.sha256("".join(seed_commitments).encode("ascii")).hexdigest()


def roster_commitment(players: Sequence[tuple[str, str | None]]) -> str:
    """SHA-256 hex of the canonical JSON (UTF-8) of the players listed at creation, each
    ``(name, bot)`` in entry order written ``{"name", "bot", "public_key"}``: publishing it
    beside ``commitment`` fixes who plays, so a player renamed, swapped, added or dropped
    afterwards no longer matches it."""
    # No player has a key yet: every entry's public_key is null, here and nowhere else.
    entries = [{"name": name, "bot": bot, "public_key": None} for name, bot in players]
    return hashlib.sha256(canonical_json(entries).encode("utf-8")).hexdigest()
