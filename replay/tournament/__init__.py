"""An audit of a tournament export that trusts nothing in it.

A tournament export (``GET /v1/tournaments/{id}/export``) is NDJSON: line 1 is
``{"tournament": <manifest>}``, then every game's stored events, games in round then table
order. The manifest *claims* the plan, the commitments, who sat where, each game's outcome and
the standings; the audit believes none of it and recomputes what it can:

1. line 1 is a manifest of the right shape (``manifest`` lists its fields, the optional ones
   too), and its plan one ``Plan.of`` accepts at the manifest's ``rules_version`` (absent:
   ``"1"``, the rules of every tournament made before versions were written; an unknown one is
   a problem, and nothing that depends on the rules is checked);
2. ``commitment`` is the SHA-256 of the seed commitments, one for each of the plan's slots;
   ``roster_commitment`` is the SHA-256 of the players listed at creation, names, bots and
   public keys in order (``domain.tournament.commitments``); absent (a tournament made before
   rosters were committed), it is noted as not checked;
3. the other lines are game logs (consecutive lines of one ``game_id``), each audited on its
   own by ``replay.verify``; the manifest lists every log once, in order, and no other;
4. each game's first event names its place (tournament, round, table), commits to its slot's
   seed, and has the tournament's game, options and the table's players in seat order, each
   seat with its player's public key (listed, or given by their ``enter`` decision) and no
   other: a seat whose key is not its player's is signed by someone else;
5. the director's decisions (``decisions``, numbered 1, 2, ... in order) each come with no more
   rounds paired than the manifest lists and no fewer than the decision before; a ``pause`` and
   a ``resume`` take turns and no round is made between them; nothing follows a ``cancel``,
   neither a decision nor a round; each ``withdraw``, ``enter`` and ``correct`` (rules version
   2 only) could have been taken when it says it was (``decision_problems``), and a
   ``correct``'s ``game_id`` is the game the manifest lists at its round and table;
6. results come from the verified logs only (the outcome each audit reached), and must be
   the outcomes the manifest claims (a game's own outcome: a correction changes what it counts
   for, not its log); every round's tables and byes must be what the format, at the
   tournament's rules version, makes of the results before it and of the decisions made
   before it was paired (``pairing_problems``), and a round may only exist once every game of
   the round before it is over;
7. the standings, recomputed with that version's rules from those results (each keeping its
   round and table, which a correction names), every listed round's byes and every decision,
   must be the ones published (``compare_standings``).

So a decision dropped, changed or moved shows wherever it changed something: a gap in the
numbers, a round paired with someone withdrawn or without someone entered, standings that do
not follow, a decision that could not have been taken then. (A ``pause`` or ``resume`` dropped
in a pair changes nothing the audit recomputes, and a forger who rewrites a decision *and*
everything that follows from it, re-signing the game logs, writes a consistent, different
tournament: what binds an export is its commitment and its roster commitment, published before
play.)

The answer is one ``TournamentVerdict``: ``ok`` (every game ok, every planned round made, every
check passes), ``incomplete`` (nothing wrong, but games not over or rounds not yet made) or
``failed``, with every problem found, each naming where it is. A tournament with a ``cancel``
decision is complete as cancelled: it is ``ok`` with the rounds it had when cancelled, fewer
than planned (its verdict says ``cancelled``), once every game of them is over (cancelling ends
them). The verdict also carries, for a reader, the crosstable recomputed from the verified
results and the corrections, and every decision applied (``summary``). Nothing in a file can
make the audit raise: hostile content is a problem, and a crash of the audit itself is a
verdict too.
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
