"""An audit of a tournament export that trusts nothing in it.

A tournament export (``GET /v1/tournaments/{id}/export``) is NDJSON: line 1 is
``{"tournament": <manifest>}``, then every game's stored events, games in round then table
order. The manifest *claims* the plan, the commitments, who sat where, each game's outcome and
the standings; the audit believes none of it and recomputes what it can:

1. line 1 is a manifest of the right shape, and its plan one ``Plan.of`` accepts;
2. ``commitment`` is the SHA-256 of the seed commitments, one for each of the plan's slots;
3. the other lines are game logs (consecutive lines of one ``game_id``), each audited on its
   own by ``replay.verify``; the manifest lists every log once, in order, and no other;
4. each game's first event names its place (tournament, round, table), commits to its slot's
   seed, and has the tournament's game, options and the table's players in seat order;
5. results come from the verified logs only (the outcome each audit reached), and must be
   the outcomes the manifest claims; every round's tables and byes must be what the format
   makes of the results before it (``pairing_problems``), and a round may only exist once
   every game of the round before it is over;
6. the standings, recomputed from those results and every listed round's byes, must be the
   ones published (``standing_problems``).

The answer is one ``TournamentVerdict``: ``ok`` (every game ok, every planned round made, every
check passes), ``incomplete`` (nothing wrong, but games not over or rounds not yet made) or
``failed``, with every problem found, each naming where it is. Nothing in a file can make the
audit raise: hostile content is a problem, and a crash of the audit itself is a verdict too.
"""

from replay.tournament.audit import (
    audit_file,
    audit_tournament,
    is_manifest_line,
    is_tournament_file,
)
from replay.tournament.verdict import GameVerdict, TournamentVerdict, standings_table

__all__ = [
    "GameVerdict",
    "TournamentVerdict",
    "audit_file",
    "audit_tournament",
    "is_manifest_line",
    "is_tournament_file",
    "standings_table",
]
