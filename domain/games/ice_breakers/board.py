"""Ice Breakers' frozen board and the questions the rules ask of it.

The board holds the whole Ice Report stack (folding needs it at every end of turn); ``view.py``
is the only door out and shows only the exposed card until the game is over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple

from domain.games.ice_breakers.cards import Card, Report, is_power, kind, power
from domain.games.ice_breakers.geometry import (
    CHANNEL_SET,
    HARBOR_AT,
    HARBORS,
    NEIGHBOURS,
    Cell,
)

Phase = Literal["pieces", "ships", "reports_upper", "reports_lower", "deck", "play", "over"]
SETUP_PHASES: tuple[Phase, ...] = ("pieces", "ships", "reports_upper", "reports_lower", "deck")


class IceBreakersBoard(NamedTuple):
    """Everything an Ice Breakers position is; mappings are never mutated, only replaced.

    A named tuple: a fold makes a new board per event, and ``_replace`` is cheap.
    ``pieces`` maps each channel space to its piece's number; ``water`` are the spaces
    showing water. ``ships`` maps each ship still to be delivered to its cell. The turn:
    ``power`` is the Power card played (None before), ``points`` its strength plus boosts,
    ``spent`` what clearing cost. ``waiting`` are cards ``giver`` must give out now;
    ``draws_left`` counts the ``ab2`` draws still owed to the casher ``giver``.
    ``timed_out`` are the seats whose clock ran out: they never act again, their turns pass
    at once and their hands no longer count (a resignation ends the game instead).
    """

    seats: int
    intro: bool
    in_play: tuple[int, ...]
    phase: Phase = "pieces"
    pieces: Mapping[Cell, int] = {}
    water: frozenset[Cell] = frozenset()
    ships: Mapping[int, Cell] = {}
    delivered: tuple[int, ...] = ()
    upper: tuple[int, ...] = ()
    reports: tuple[Report, ...] = ()
    report_index: int = 0
    hands: tuple[tuple[Card, ...], ...] = ()
    rewards: Mapping[int, tuple[Card, ...]] = {}
    row: tuple[Card, ...] = ()
    discard: tuple[Card, ...] = ()
    current: int = 0
    power: Card | None = None
    points: int = 0
    spent: int = 0
    boosts: tuple[Card, ...] = ()
    waiting: tuple[Card, ...] = ()
    giver: int = 0
    draws_left: int = 0
    turns: int = 0
    passes: int = 0
    success: bool = False
    timed_out: frozenset[int] = frozenset()

    # ----- the map ------------------------------------------------------------------------

    def is_ice(self, cell: Cell) -> bool:
        return cell in CHANNEL_SET and cell not in self.water

    def passable(self, cell: Cell) -> bool:
        """Water or a harbor: a ship may enter, cross or stop on it."""
        return cell in self.water or cell in HARBOR_AT

    def pinned(self, ship: int) -> bool:
        return self.is_ice(self.ships[ship])

    def ice_cells(self) -> list[Cell]:
        return [cell for cell in self.pieces if cell not in self.water]

    def stops(self, ship: int) -> dict[Cell, tuple[Cell, ...]]:
        """Every cell ``ship`` could stop on now, with a shortest path to it (BFS).

        A pinned ship has none. The ship's own harbor ends a path: nothing lies beyond it.
        """
        start = self.ships[ship]
        if self.is_ice(start):
            return {}
        home = HARBORS[ship]
        water = self.water
        paths: dict[Cell, tuple[Cell, ...]] = {start: ()}
        frontier = [start]
        while frontier:
            nxt: list[Cell] = []
            for cell in frontier:
                if cell == home:
                    continue
                base = paths[cell]
                for nb in NEIGHBOURS[cell]:
                    if nb in paths or not (nb in water or nb in HARBOR_AT):
                        continue
                    paths[nb] = (*base, nb)
                    nxt.append(nb)
            frontier = nxt
        del paths[start]
        return paths

    # ----- the turn -----------------------------------------------------------------------

    @property
    def playing(self) -> bool:
        return self.phase == "play"

    @property
    def left(self) -> int:
        """Points still to spend this turn."""
        return self.points - self.spent

    @property
    def forecast(self) -> Report:
        return self.reports[self.report_index]

    @property
    def giving(self) -> bool:
        return bool(self.waiting)

    def holds(self, seat: int, card: Card) -> bool:
        return card in self.hands[seat]

    def may_boost_with(self, card: Card) -> bool:
        """Can ``card`` be added to the Power card now (one is down)?"""
        k = kind(card)
        if self.power is None:
            return False
        if k == "B1":
            return True
        return k == "R3" and power(self.power) in (5, 7)

    def can_chip_in(self, seat: int) -> bool:
        """May a seat other than the active one act: a boost or an AB2, once the Power is down."""
        if self.power is None:
            return False
        return any(kind(c) == "AB2" or self.may_boost_with(c) for c in self.hands[seat])

    def season_over(self) -> bool:
        """At the start of a turn: every seat passed in a row (a timed-out seat's skipped turn
        counts as a pass), or no hand of a seat still playing can start a turn."""
        if self.passes >= self.seats:
            return True
        gone = self.timed_out
        return not any(
            is_power(c) or kind(c) == "AB2"
            for seat, hand in enumerate(self.hands)
            if seat not in gone
            for c in hand
        )
