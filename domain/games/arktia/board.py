"""Arktia's frozen board and the questions the rules ask of it.

Every query here is pure; ``rules.py`` decides and evolves with them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from domain.games.arktia.hexes import (
    DIRECTIONS,
    Hex,
    articulation_points,
    components,
    is_connected,
    neighbours,
)
from domain.games.arktia.stacks import NEUTRAL, SIZES, Colour, Size, Sizes, Stack

Phase = Literal["neutral", "round1", "round2", "play"]
#: Why a player's game ended: (a) no_action, (b) cannot_melt, (c) too_few, (d) retired,
#: or turn_limit for everyone still playing when the limit is reached.
EndReason = Literal["no_action", "cannot_melt", "too_few", "retired", "turn_limit"]


@dataclass(frozen=True, slots=True)
class Player:
    """One seat's holdings: pieces in reserve (by size G, D, T) and what it kept and lost.

    ``kept`` counts pieces of any colour this seat removed (a point each); ``lost`` counts
    pieces of this seat's colour that anyone removed, so board + reserve + lost is always 9.
    """

    reserve: tuple[int, int, int]
    neutrals: tuple[int, int, int]
    kept: int = 0
    lost: int = 0
    melted: int = 0
    ended: EndReason | None = None

    def in_reserve(self, size: Size, *, neutral: bool = False) -> int:
        return (self.neutrals if neutral else self.reserve)[SIZES.index(size)]

    def taking(self, size: Size, *, neutral: bool = False) -> Player:
        pool = list(self.neutrals if neutral else self.reserve)
        pool[SIZES.index(size)] -= 1
        if neutral:
            return replace(self, neutrals=(pool[0], pool[1], pool[2]))
        return replace(self, reserve=(pool[0], pool[1], pool[2]))


@dataclass(frozen=True, slots=True)
class Tie:
    """A colour split into equally heavy groups: the active player picks the one that stays."""

    colour: Colour
    groups: tuple[frozenset[Hex], ...]


class ArktiaBoard(NamedTuple):
    """Everything an Arktia position is. ``stacks`` is never mutated, only replaced.

    A named tuple rather than a frozen dataclass: every event of a fold makes new boards, and
    copying a tuple with a change is several times cheaper than ``dataclasses.replace``.
    """

    shape: frozenset[Hex]
    tiles: frozenset[Hex]
    stacks: Mapping[Hex, Stack]
    players: tuple[Player, ...]
    schedule: tuple[tuple[Phase, int], ...]
    step: int
    current: int | None
    turns: int
    turn_limit: int
    ties: tuple[Tie, ...] = ()
    melt_owed: bool = False
    melt_due: bool = False
    finished: bool = False
    neutral_lost: int = 0
    #: Seats that left the game (resigned, timed out, forfeited): never among the winners.
    left: frozenset[int] = frozenset()
    #: Colours a dropped tie left in several groups (their player left with the choice
    #: owed): the next move that carries one checks it in full (``evolving._move``).
    unsettled: frozenset[Colour] = frozenset()

    def but(self, **changes: Any) -> ArktiaBoard:
        """A copy with ``changes`` (``_replace`` without its per-call overhead)."""
        values = list(self)
        for name, value in changes.items():
            values[_FIELD_INDEX[name]] = value
        return tuple.__new__(ArktiaBoard, values)

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def phase(self) -> Phase:
        return self.schedule[self.step][0] if self.step < len(self.schedule) else "play"

    # ----- what is where ------------------------------------------------------------------

    def holds(self, tile: Hex, colour: Colour) -> bool:
        stack = self.stacks.get(tile)
        return stack is not None and colour in stack

    def on_board(self, colour: Colour) -> int:
        return sum(stack.count(colour) for stack in self.stacks.values())

    def empty_tiles(self) -> Iterator[Hex]:
        return (tile for tile in self.tiles if tile not in self.stacks)

    def score(self, seat: int) -> int:
        """Kept pieces + melted tiles + tiles controlled now (a neutral top scores for nobody)."""
        player = self.players[seat]
        held = sum(1 for stack in self.stacks.values() if stack.controller == seat)
        return player.kept + player.melted + held

    # ----- placing ------------------------------------------------------------------------

    def placement_tiles(self, seat: int) -> list[Hex]:
        """Empty tiles ``seat`` may place on in the current phase."""
        phase = self.phase
        if phase == "neutral":
            anchor = [t for t, s in self.stacks.items() if NEUTRAL in s]
        elif phase == "round1":
            # With or without neutrals, in round 1 every occupied tile holds a neutral or an
            # opponent's piece, so "next to any occupied tile" covers both rules.
            anchor = list(self.stacks)
        else:
            anchor = [t for t, s in self.stacks.items() if seat in s]
        if not anchor and phase in ("neutral", "round1"):
            return sorted(self.empty_tiles())
        return sorted(
            {nb for tile in anchor for nb in neighbours(tile) if nb in self.tiles}
            - self.stacks.keys()
        )

    def _can_place(self, seat: int, phase: Phase) -> bool:
        """Whether ``placement_tiles`` would be non-empty, stopping at the first tile found.

        ``phase`` is ``self.phase``, which the caller has already worked out."""
        if phase != "play":
            return bool(self.placement_tiles(seat))
        stacks, tiles = self.stacks, self.tiles
        for tile, stack in stacks.items():
            if seat in stack:
                for nb in neighbours(tile):
                    if nb in tiles and nb not in stacks:
                        return True
        return False

    def placement_sizes(self, seat: int) -> list[Size]:
        neutral = self.phase == "neutral"
        player = self.players[seat]
        return [s for s in SIZES if player.in_reserve(s, neutral=neutral) > 0]

    # ----- moving -------------------------------------------------------------------------

    def path(self, source: Hex, target: Hex) -> list[Hex] | None:
        """Tiles from ``source`` (excluded) to ``target`` in a straight line, or None."""
        dq, dr = target[0] - source[0], target[1] - source[1]
        for uq, ur in DIRECTIONS:
            steps = dq // uq if uq else dr // ur
            if steps >= 1 and (uq * steps, ur * steps) == (dq, dr):
                return [(source[0] + uq * k, source[1] + ur * k) for k in range(1, steps + 1)]
        return None

    def moved(self, source: Hex, unit: Sizes, target: Hex) -> dict[Hex, Stack]:
        """The stacks after ``unit`` moves from ``source`` to ``target`` (no checks)."""
        moving, staying = self.stacks[source].take(unit)
        return self.with_move(source, moving, staying, target)

    def with_move(
        self, source: Hex, moving: Stack, staying: Stack, target: Hex
    ) -> dict[Hex, Stack]:
        stacks = copied(self.stacks)
        if staying == _EMPTY:
            del stacks[source]
        else:
            stacks[source] = staying
        there = stacks.get(target)
        stacks[target] = moving if there is None else there.merge(moving)
        return stacks

    def moves(self, seat: int) -> Iterator[tuple[Hex, str, Hex]]:
        """Every legal move of ``seat`` as (from, unit, to), lazily so a caller may stop early.

        The unit always carries the mover's own top piece, so the mover's colour stays whole
        exactly when the tiles it keeps elsewhere still join up with the landing tile. Those
        are the colour's tiles with or without ``source`` (the unit leaves a piece of the
        colour behind or not), so the landings that keep it whole are found once per source
        (``Joins``), not per unit and landing; a landing is then one set lookup, and the
        straight lines from each tile come ready made with the board (``rays``).
        """
        stacks, tiles = self.stacks, self.tiles
        joins = Joins({tile for tile, stack in stacks.items() if seat in stack}, tiles)
        # Tiles only ever melt out of ``shape``, so its rays serve every position of a game
        # (and every game on the same board), each ending at its first hole. (A board built
        # by hand may have tiles its shape lacks: then its own tiles' rays.)
        lines = rays(self.shape if tiles <= self.shape else tiles)
        for source in sorted(tile for tile in joins.own if stacks[tile].controller == seat):
            stack = stacks[source]
            leaving: Set[Hex] | None = None  # found when a unit first needs it
            for unit_name, unit in stack.units().items():
                if seat in stack.take(unit)[1]:  # what stays on ``source``
                    joining = joins.staying
                else:
                    if leaving is None:
                        leaving = joins.leaving(source)
                    joining = leaving
                for ray in lines.get(source, ()):  # none off the board
                    for target in ray:
                        if target not in tiles:
                            break  # a move never crosses a hole
                        if target in joining:
                            there = stacks.get(target)
                            if there is None or there.accepts_sizes(unit):
                                yield source, unit_name, target

    def can_act(self, seat: int) -> bool:
        """Rule (a): may ``seat`` place or move at the start of its turn?"""
        phase = self.phase
        player = self.players[seat]
        reserve = player.neutrals if phase == "neutral" else player.reserve
        if any(reserve) and self._can_place(seat, phase):
            return True
        return phase == "play" and next(self.moves(seat), None) is not None

    # ----- melting ------------------------------------------------------------------------

    def meltable(self) -> list[Hex]:
        """Empty border tiles whose loss leaves the continent in one piece.

        The continent is always one piece (setup refuses any other board, and only a tile
        whose loss keeps it whole ever melts), so a tile may melt exactly when it is not a cut
        tile of the continent. A border tile whose ice neighbours form one unbroken arc of
        its six never is (neighbours next to each other in the ring touch); only when some
        candidate touches the ice in two or more arcs is the whole continent searched, once,
        for its cut tiles: linear in the tiles, where asking ``is_connected`` again per
        candidate was quadratic.
        """
        tiles = self.tiles
        border: list[Hex] = []
        pinched = False
        for tile in self.empty_tiles():
            ring = 0
            for bit, nb in enumerate(neighbours(tile)):
                if nb in tiles:
                    ring |= 1 << bit
            if ring != _FULL_RING:
                border.append(tile)
                pinched = pinched or ARCS[ring] > 1
        if pinched:
            cuts = articulation_points(tiles)
            border = [tile for tile in border if tile not in cuts]
        return sorted(border)


class Joins:
    """Where a unit of one colour may land so that the colour stays in one group, given the
    tiles ``own`` holding it: for a unit that leaves a piece of the colour on its source
    (``staying``), and for one that takes the last away (``leaving(source)``). The sets may
    hold the source itself, where no move lands.
    """

    def __init__(self, own: set[Hex], tiles: frozenset[Hex]) -> None:
        self.own = own
        self.tiles = tiles
        around = _around_groups(own)
        #: Between actions every colour is one group; a dropped tie may leave one in pieces.
        self.whole = len(around) <= 1
        #: Landings that keep ``own`` whole.
        self.staying: Set[Hex] = _joining(own, around)

    def leaving(self, source: Hex) -> Set[Hex]:
        """Landings that keep ``own`` without ``source`` whole.

        When the colour is one group and meets ``source`` in at most one unbroken arc of its
        six neighbours (neighbours next to each other in the ring touch, as ``may_split``
        reasons), it stays one group without ``source``: a landing joins it when it joins
        ``own``, unless ``source`` was the only tile of the colour it touched. Otherwise
        ``source`` may have held the colour together: its groups are searched.
        """
        own = self.own
        if len(own) == 1:
            return self.tiles  # the unit takes the whole colour along: it lands anywhere
        rest = own - {source}
        if self.whole:
            ring = 0
            for bit, nb in zip(_BITS, neighbours(source), strict=True):
                if nb in own:
                    ring |= bit
            if ARCS[ring] <= 1:
                return self.staying - {
                    nb
                    for nb in neighbours(source)
                    if nb not in own and rest.isdisjoint(neighbours(nb))
                }
        return _joining(rest, _around_groups(rest))


def _around_groups(tiles: set[Hex]) -> list[set[Hex]]:
    """For each group of ``tiles``, every tile next to it (in no particular order).

    ``is_connected``'s search, run on until every tile is in a group, noting the neighbours
    it meets on the way: what ``_joining`` needs, in the one pass.
    """
    found: list[set[Hex]] = []
    left = set(tiles)
    while left:
        frontier = [left.pop()]
        near: set[Hex] = set()
        while frontier:
            around = neighbours(frontier.pop())
            near.update(around)
            fresh = left.intersection(around)
            left -= fresh
            frontier.extend(fresh)
        found.append(near)
    return found


def _joining(tiles: set[Hex], around: list[set[Hex]]) -> set[Hex]:
    """Landings after which ``tiles`` and the landing are one group, given what is around
    each group of ``tiles`` (``_around_groups``): on them or next to them when they are one
    group (or none); when they are several, outside them and next to every one."""
    if len(around) > 1:
        return set.intersection(*around) - tiles
    return tiles.union(*around)


@lru_cache(maxsize=32)
def rays(tiles: frozenset[Hex]) -> dict[Hex, tuple[tuple[Hex, ...], ...]]:
    """From each tile, the tiles straight beyond it, one ray per direction (nearest first,
    directions in ``DIRECTIONS`` order, empty rays left out), made of ``tiles``' own tuples.

    Kept for the few board shapes in play (some 11 KB for the largest default board, 115 KB
    for the largest allowed): a listing of moves walks them instead of making every tile
    along them anew. Never change what it returns: every caller shares it.
    """
    same = {tile: tile for tile in tiles}  # the boards' own tuples, not new equal ones
    found: dict[Hex, tuple[tuple[Hex, ...], ...]] = {}
    for source in tiles:
        lines = []
        for dq, dr in DIRECTIONS:
            line = []
            target = same.get((source[0] + dq, source[1] + dr))
            while target is not None:
                line.append(target)
                target = same.get((target[0] + dq, target[1] + dr))
            if line:
                lines.append(tuple(line))
        found[source] = tuple(lines)
    return found


#: For each set of the six neighbours (a bit each, in ring order), how many separate arcs.
ARCS = tuple(
    int(sum(1 for i in range(6) if ring >> i & 1 and not ring >> (i - 1) % 6 & 1) or ring > 0)
    for ring in range(64)
)
#: All six neighbours present: an inner tile, which never melts.
_FULL_RING = 63

#: An empty tile's stack: no colour is ``in`` it.
_EMPTY = Stack()
#: The bit of each of the six neighbours in a ring, in ``neighbours`` order.
_BITS = (1, 2, 4, 8, 16, 32)
_FIELD_INDEX = {name: index for index, name in enumerate(ArktiaBoard._fields)}


def copied(stacks: Mapping[Hex, Stack]) -> dict[Hex, Stack]:
    """A new dict of ``stacks``, in their order. ``dict.copy`` clones a dict's table where
    ``dict()`` inserts key by key once a key has ever been deleted (a move deletes one):
    several times faster, and every event copies the stacks."""
    return stacks.copy() if isinstance(stacks, dict) else dict(stacks)


def may_split(
    before: Mapping[Hex, Stack],
    after: Mapping[Hex, Stack],
    colour: Colour,
    source: Hex,
    target: Hex,
    staying: Stack,
) -> bool:
    """Could moving ``colour`` from ``source`` to ``target`` have split it? False is certain.

    Assumes ``colour`` is one group before the move, as removal leaves every colour after
    every action (a colour in ``ArktiaBoard.unsettled`` is not: the caller checks it in full).
    The rest stays whole when ``colour`` keeps a piece on ``source``, or when its pieces around
    ``source`` form one unbroken arc of the six neighbours (neighbours next to each other in
    the ring touch, so the arc joins up without ``source``). The landing then joins the rest
    when it touches a tile of that colour. Anything else gets the full check.
    """
    if colour not in staying:
        ring = 0
        for bit, nb in zip(_BITS, neighbours(source), strict=True):
            if colour in before.get(nb, _EMPTY):
                ring |= bit
        if not ring:
            return False  # the colour stood on source alone: it now stands on target alone
        if ARCS[ring] > 1:
            return True  # two or more separate arcs: source may be what joined them
    for nb in neighbours(target):  # noqa: SIM110 (``all`` over a generator is slower here)
        if colour in after.get(nb, _EMPTY):
            return False  # it lands next to the rest
    return True


def keeps_together(stacks: Mapping[Hex, Stack], colour: Colour) -> bool:
    """True when every piece of ``colour`` sits in one group, so none would be removed."""
    return is_connected({tile for tile, stack in stacks.items() if colour in stack})


def split_groups(stacks: Mapping[Hex, Stack], colour: Colour) -> list[tuple[frozenset[Hex], int]]:
    """The groups of tiles holding ``colour``, each with its weight in pieces of that colour."""
    tiles = [tile for tile, stack in stacks.items() if colour in stack]
    return [
        (frozenset(group), sum(stacks[t].count(colour) for t in group))
        for group in components(tiles)
    ]


def colour_order(colour: Colour) -> tuple[bool, int]:
    """Ties settle seats ascending, then neutral."""
    return (colour == NEUTRAL, colour)
