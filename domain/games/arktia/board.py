"""Arktia's frozen board and the questions the rules ask of it.

Every query here is pure; ``rules.py`` decides and evolves with them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
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
        exactly when the tiles it keeps elsewhere (``rest``) still join up with the landing
        tile; that is checked per unit once, not per landing: the groups of ``rest`` are found
        once, and a landing joins them when it touches every one.
        """
        own = frozenset(tile for tile, stack in self.stacks.items() if seat in stack)
        # Between actions every colour is one group, so the groups of ``rest`` follow from
        # the neighbours of ``source`` alone; the full search stays for any other board (a
        # colour a dropped tie left in pieces, ``unsettled``).
        whole = is_connected(own)
        empty = Stack()
        for source, stack in sorted(self.stacks.items()):
            if stack.controller != seat:
                continue
            for unit_name, unit in stack.units().items():
                moving, staying = stack.take(unit)
                if seat in staying:
                    rest = own
                    groups = None if whole else _groups(rest)
                else:
                    rest = own - {source}
                    groups = _groups_without(rest, own, source) if whole else _groups(rest)
                for dq, dr in DIRECTIONS:
                    target = (source[0] + dq, source[1] + dr)
                    while target in self.tiles:
                        if self.stacks.get(target, empty).accepts(moving) and _joins(
                            rest, groups, target
                        ):
                            yield source, unit_name, target
                        target = (target[0] + dq, target[1] + dr)

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


def _groups_without(
    rest: frozenset[Hex], own: frozenset[Hex], source: Hex
) -> tuple[frozenset[Hex], ...] | None:
    """``_groups(rest)`` where ``rest`` is ``own``, one group, without ``source``: whole
    when ``own`` meets ``source`` in at most one unbroken arc of its six neighbours
    (neighbours next to each other in the ring touch), as ``may_split`` reasons."""
    ring = 0
    for bit, nb in enumerate(neighbours(source)):
        if nb in own:
            ring |= 1 << bit
    return None if ARCS[ring] <= 1 else _groups(rest)


def _groups(rest: frozenset[Hex]) -> tuple[frozenset[Hex], ...] | None:
    """The groups of ``rest`` when it falls apart, or None when it is one group (or none)."""
    if is_connected(rest):
        return None
    return tuple(frozenset(group) for group in components(rest))


def _joins(rest: frozenset[Hex], groups: tuple[frozenset[Hex], ...] | None, target: Hex) -> bool:
    """Is ``rest`` plus ``target`` one group? ``groups`` is ``_groups(rest)``, found once.

    A landing outside ``rest`` joins it up exactly when it touches every group of it.
    """
    if not rest or target in rest:
        return groups is None
    if groups is None:
        return any(nb in rest for nb in neighbours(target))
    around = neighbours(target)
    return all(any(nb in group for nb in around) for group in groups)


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
