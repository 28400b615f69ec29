"""An Iceberg game brought to its first roll, the one point in a game where a die is owed:
the tests of what a 202 answers and what a worker's draw then carries start from there."""

from __future__ import annotations

from typing import Any

from tests.support.api import Game

#: The version a two-seat game stands at once both starting coins are down (created, the
#: tiles' draw, two coins): seat 0 is to act.
AFTER_STARTS = 4


def place_both_starts(game: Game) -> None:
    """Each seat of a two-seat game places its starting coin (its first legal square)."""
    for seat in (0, 1):
        start = game.legal(seat)
        assert game.post(seat, start["actions"][0], start["version"]).status_code == 201


def roll_without_waiting(game: Game) -> Any:
    """Seat 0's first roll, answered before any worker could draw the die; the same command
    each call, so a second call is its repeat."""
    return game.post(0, {"type": "roll"}, AFTER_STARTS, "r1", wait=0)


def start_and_roll(game: Game) -> Any:
    """Both coins down, then seat 0 rolls: the 202 answer, the die still owed (version 5)."""
    place_both_starts(game)
    roll = roll_without_waiting(game)
    assert roll.status_code == 202, roll.get_json()  # answered before any worker could draw
    return roll
