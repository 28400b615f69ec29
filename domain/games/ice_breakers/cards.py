"""Coast Guard cards (c01–c32) and Ice Report cards, as data.

c01–c08 Power 5, c09–c16 Power 7, c17–c22 Power 10, c23–c26 Retrofit R3, c27–c30 Bubbler B1,
c31–c32 Auto-Ballast AB2. An Ice Report card is the set of water numbers that re-freeze.
"""

from __future__ import annotations

from typing import Literal

Card = str
Kind = Literal["power", "R3", "B1", "AB2"]

CARD_IDS: tuple[Card, ...] = tuple(f"c{i:02d}" for i in range(1, 33))
CARD_SET: frozenset[Card] = frozenset(CARD_IDS)


def _number(card: Card) -> int:
    return int(card[1:])


def kind(card: Card) -> Kind:
    n = _number(card)
    if n <= 22:
        return "power"
    if n <= 26:
        return "R3"
    if n <= 30:
        return "B1"
    return "AB2"


def power(card: Card) -> int:
    """A Power card's strength: 5, 7 or 10."""
    n = _number(card)
    return 5 if n <= 8 else 7 if n <= 16 else 10


def boost_value(card: Card) -> int:
    return 3 if kind(card) == "R3" else 1


def is_power(card: Card) -> bool:
    return kind(card) == "power"


def card_json(card: Card) -> dict[str, object]:
    k = kind(card)
    if k == "power":
        return {"id": card, "kind": "power", "value": power(card)}
    return {"id": card, "kind": k, "value": {"R3": 3, "B1": 1, "AB2": 2}[k]}


def starting_hand(seat: int) -> tuple[Card, Card]:
    """Seat i starts with one Power 5 and one Power 7: c(01+i) and c(09+i)."""
    return (f"c{1 + seat:02d}", f"c{9 + seat:02d}")


Report = frozenset[int]
#: ``reports_upper`` shuffles these 13 (singles three each, and one Mild card).
UPPER_REPORTS: tuple[Report, ...] = (
    *(frozenset({n}) for n in (1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4)),
    frozenset(),
)
#: ``reports_lower`` shuffles these 5 (the doubles and the other Mild card).
LOWER_REPORTS: tuple[Report, ...] = (
    frozenset({1, 2}),
    frozenset({2, 3}),
    frozenset({3, 4}),
    frozenset({1, 4}),
    frozenset(),
)
TRIPLE: Report = frozenset({1, 2, 3})
ALL_FOUR: Report = frozenset({1, 2, 3, 4})


def piece_value(k: int) -> int:
    """Piece k of the ``pieces`` shuffle: 20 of value 1, 20 of 2, 20 of 3, 6 of 4."""
    return 1 if k < 20 else 2 if k < 40 else 3 if k < 60 else 4
