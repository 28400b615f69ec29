"""Ice Breakers' options (rules version 1, as ``INFO`` in ``info.py`` declares them) and the
five setup draws.

``game_created`` records the options as given; the rules version pins the defaults. Unknown
options are refused so a typo never silently falls back to a default. The [recon] options
``map`` and ``ice_reports`` exist so a game can name the reconstruction it was played with;
only their defaults (``"standard"``) are supported, and any other value is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.games.ice_breakers.cards import (
    ALL_FOUR,
    CARD_IDS,
    LOWER_REPORTS,
    TRIPLE,
    UPPER_REPORTS,
    Card,
    Report,
    piece_value,
    starting_hand,
)
from domain.games.ice_breakers.geometry import ALL_SHIPS, CHANNELS, HARBORS, INTRO_SHIPS, Cell
from domain.games.ice_breakers.info import INFO

LARGE_ORDER: tuple[int, ...] = (2, 3, 6, 8)
INTRO_SMALL: tuple[int, ...] = (5, 9)
ROW_SIZE = 8


@dataclass(frozen=True, slots=True)
class IceBreakersOptions:
    intro: bool


def read_options(given: Mapping[str, Any], seats: int) -> IceBreakersOptions:
    """The effective options for ``seats`` players; ``InvalidSetup`` names what is wrong."""
    return IceBreakersOptions(intro=INFO.read_options(given, seats)["intro"])


def ships_in_play(intro: bool) -> tuple[int, ...]:
    return INTRO_SHIPS if intro else ALL_SHIPS


def deal_pieces(outcome: Sequence[int]) -> dict[Cell, int]:
    """Channel space i gets piece ``outcome[i]``, ice side up."""
    return {cell: piece_value(k) for cell, k in zip(CHANNELS, outcome, strict=True)}


def place_ships(in_play: Sequence[int], outcome: Sequence[int]) -> dict[int, Cell]:
    """The harbor of the i-th ship in play gets the ``outcome[i]``-th ship in play."""
    return {in_play[k]: HARBORS[in_play[i]] for i, k in enumerate(outcome)}


def report_stack(upper: Sequence[int], lower: Sequence[int]) -> tuple[Report, ...]:
    """The Ice Report stack from the top: upper, lower, the triple, the all-four card."""
    return (
        *(UPPER_REPORTS[k] for k in upper),
        *(LOWER_REPORTS[k] for k in lower),
        TRIPLE,
        ALL_FOUR,
    )


def remaining_cards(seats: int) -> tuple[Card, ...]:
    """The cards the ``deck`` shuffle covers: all but the starting hands, in id order."""
    dealt = {card for seat in range(seats) for card in starting_hand(seat)}
    return tuple(card for card in CARD_IDS if card not in dealt)


@dataclass(frozen=True, slots=True)
class Deal:
    rewards: dict[int, tuple[Card, ...]]
    row: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]


def deal_cards(seats: int, intro: bool, outcome: Sequence[int]) -> Deal:
    """Deal the shuffled deck: 3 to each large destination (intro: then 1 to 5 and 9), 8 to
    the row (full game only, front first), the rest round-robin from seat 0."""
    remaining = remaining_cards(seats)
    order = [remaining[k] for k in outcome]
    rewards: dict[int, tuple[Card, ...]] = {}
    at = 0
    for dest in LARGE_ORDER:
        rewards[dest] = tuple(order[at : at + 3])
        at += 3
    row: tuple[Card, ...] = ()
    if intro:
        for dest in INTRO_SMALL:
            rewards[dest] = (order[at],)
            at += 1
    else:
        row = tuple(order[at : at + ROW_SIZE])
        at += ROW_SIZE
    hands = [list(starting_hand(seat)) for seat in range(seats)]
    for i, card in enumerate(order[at:]):
        hands[i % seats].append(card)
    return Deal(rewards=rewards, row=row, hands=tuple(tuple(h) for h in hands))
