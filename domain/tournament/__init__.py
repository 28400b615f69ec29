"""Tournaments as pure functions: who meets whom, what each result is worth, what was
committed before play, and what a director's decisions change. The service runs tournaments on
top of these; an auditor recomputes every pairing and standing from an export with the same
functions (docs/guide/tournaments.md).

``plan`` (the shape fixed at creation with its rules version, and each next round and the
standings by that version's rules), ``rounds`` (the round robin and the swiss pairing, step by
step), ``standings`` (points, tie-breaks, places), ``decisions`` (withdraw, enter, correct),
``v1`` (rules version 1, the first tournaments' pairing and standings, frozen), ``audit`` (the
checks), ``commitments`` (the seeds' and the roster's commitments).
"""

from domain.tournament.commitments import roster_commitment, tournament_commitment
from domain.tournament.decisions import Correct, Decision, DecisionError, Enter, Withdraw
from domain.tournament.rounds import Round, Table, round_robin, swiss_round
from domain.tournament.standings import (
    DEFAULT_TIEBREAKS,
    TIEBREAKS,
    GameResult,
    Standing,
    game_points,
    standings,
)

__all__ = [
    "DEFAULT_TIEBREAKS",
    "TIEBREAKS",
    "Correct",
    "Decision",
    "DecisionError",
    "Enter",
    "GameResult",
    "Round",
    "Standing",
    "Table",
    "Withdraw",
    "game_points",
    "roster_commitment",
    "round_robin",
    "standings",
    "swiss_round",
    "tournament_commitment",
]
