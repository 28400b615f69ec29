"""What results are worth: points per game, byes, Buchholz, and the order of the standings.

A game gives 1 point to a sole winner, ``1/k`` to each of ``k`` winners, and 0 to everyone else
(a game nobody wins gives nothing). A bye is worth 1. Buchholz is the sum, over every game a
player sat at, of each opponent's final points. Standings order: points (most first), then
Buchholz (most first), then name, then the player's number. Points are exact fractions, so
``1/3 + 1/3 + 1/3`` is 1 on every machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game of the tournament: its players in seat order, and the winning seats."""

    players: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    player: int
    name: str
    points: Fraction
    buchholz: Fraction


def game_points(result: GameResult) -> dict[int, Fraction]:
    """Each player's points from one game."""
    won = [result.players[seat] for seat in result.winners]
    share = Fraction(1, len(won)) if won else Fraction(0)
    return {p: (share if p in won else Fraction(0)) for p in result.players}


def points_of(
    players: int, results: Iterable[GameResult], byes: Iterable[int]
) -> dict[int, Fraction]:
    """Every player's points from the games and the byes so far."""
    points = {p: Fraction(0) for p in range(players)}
    for result in results:
        for player, gained in game_points(result).items():
            points[player] += gained
    for player in byes:
        points[player] += 1
    return points


def standings(
    names: Sequence[str], results: Sequence[GameResult], byes: Iterable[int]
) -> list[Standing]:
    """The table of standings after ``results`` and ``byes``, best first."""
    points = points_of(len(names), results, byes)
    buchholz = {p: Fraction(0) for p in range(len(names))}
    for result in results:
        for player in result.players:
            buchholz[player] += sum(
                (points[o] for o in result.players if o != player), start=Fraction(0)
            )
    rows = [Standing(p, names[p], points[p], buchholz[p]) for p in range(len(names))]
    return sorted(rows, key=lambda s: (-s.points, -s.buchholz, s.name, s.player))


def as_json_number(value: Fraction) -> str:
    """A fraction as the API writes it: an integer, or ``"a/b"`` in lowest terms."""
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )
