"""Line 1 of a tournament export (``{"tournament": <manifest>}``): its fields, listed once.

The service writes the manifest and the audit (``replay.tournament.manifest``) reads it; both
take its fields from here, so neither can grow one the other does not know.
"""

from __future__ import annotations

#: Every manifest's fields, in the order the service writes them.
MANIFEST_FIELDS: tuple[str, ...] = (
    "id",
    "game",
    "format",
    "table_size",
    "planned_rounds",
    "options",
    "created_at",
    "commitment",
    "seed_commitments",
    "players",
    "rounds",
    "standings",
)
#: Fields a manifest holds only when they apply, so a manifest written before they existed
#: reads as it always did.
OPTIONAL_MANIFEST_FIELDS: tuple[str, ...] = (
    "clock",
    "rules_version",
    "tiebreaks",
    "max_players",
    "ratings",
    "round_start",
    "decisions",
    "roster_commitment",
)
