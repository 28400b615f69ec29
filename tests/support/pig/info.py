"""Pig, declared: its name, seats, information, rules version and its one option.

Chance (a die) but nothing hidden, so a search may not keep the positions it reached (the
same moves may roll differently): ``GameInfo.deterministic`` is false.
"""

from __future__ import annotations

from domain.engine.game import GameInfo, OptionParameter

DEFAULT_TARGET = 20

INFO = GameInfo(
    name="pig",
    title="Pig",
    summary="Pig, the dice game: roll to add up points, a 1 loses the turn's; hold to bank them",
    min_seats=2,
    max_seats=4,
    information="perfect",
    play="competitive",
    rules_version="pig-1",
    chance=True,
    options=(
        OptionParameter(
            "target",
            "integer",
            DEFAULT_TARGET,
            "The score that wins.",
            minimum=5,
            maximum=100,
        ),
    ),
)
