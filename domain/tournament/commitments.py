"""What a tournament commits to before its first move: one seed per (round, table) slot, and
the players listed at creation."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from domain.engine.canonical import canonical_json

#: A player as the roster commits to them: ``(name, bot)``, or ``(name, bot, public_key)``
#: for one who may sign (a pair is a player without a key).
RosterEntry = tuple[str, str | None] | tuple[str, str | None, str | None]


def tournament_commitment(seed_commitments: Sequence[str]) -> str:
    """SHA-256 hex of the slots' seed commitments joined in slot order (ASCII hex, no
    separators): publishing it fixes every seed the tournament can use, before any play."""
    return hashlib.sha256("".join(seed_commitments).encode("ascii")).hexdigest()


def roster_commitment(players: Sequence[RosterEntry]) -> str:
    """SHA-256 hex of the canonical JSON (UTF-8) of the players listed at creation, each
    written ``{"name", "bot", "public_key"}`` in entry order (``public_key`` null for a player
    without one): publishing it beside ``commitment`` fixes who plays and with which key, so
    a player renamed, swapped, added, dropped or given another key afterwards no longer
    matches it. A player entered late is not in it: their ``enter`` decision names them."""
    entries = []
    for entry in players:
        name, bot, key = (*entry, None)[:3]  # a pair has no key
        entries.append({"name": name, "bot": bot, "public_key": key})
    return hashlib.sha256(canonical_json(entries).encode("utf-8")).hexdigest()
