"""Tournaments as pure functions: who meets whom, what each result is worth, and what was
committed before play. The service runs tournaments on top of these; an auditor recomputes
every pairing and standing from an export with the same functions (docs/guide/tournaments.md).
"""

from domain.tournament.commitments import tournament_commitment
from domain.tournament.rounds import Round, Table, round_robin, swiss_round
from domain.tournament.standings import GameResult, Standing, game_points, standings

__all__ = [
    "GameResult",
    "Round",
    "Standing",
    "Table",
    "game_points",
    "round_robin",
    "standings",
    "swiss_round",
    "tournament_commitment",
]
