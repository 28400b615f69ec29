"""Iceberg, declared: its name, seats, information, rules version and options.

Everything else reads these facts from ``INFO``: the rules (``IcebergRules.info``), setup's
option parsing (``setup.py``), the bots, the service and the API's contract.
"""

from __future__ import annotations

from domain.engine.game import GameInfo, OptionParameter

DEFAULT_IDLE_TURN_LIMIT = 100
MAX_IDLE_TURN_LIMIT = 1_000_000

INFO = GameInfo(
    name="iceberg",
    title="Iceberg",
    summary="Iceberg (Kenneth Leyhe Sr., 2002): coins on a shrinking iceberg of face-down tiles",
    min_seats=2,
    max_seats=4,
    information="hidden",
    play="competitive",
    rules_version="1",
    chance=True,
    options=(
        OptionParameter(
            "idle_turn_limit",
            "integer",
            DEFAULT_IDLE_TURN_LIMIT,
            "After this many idle turns in a row (a move, or a roll that removes nothing) the "
            "game ends as a draw among the players still in; 0 turns the limit off.",
            minimum=0,
            maximum=MAX_IDLE_TURN_LIMIT,
        ),
    ),
)
