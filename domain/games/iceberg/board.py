"""Iceberg's frozen board and the questions the rules ask of it.

The board holds the secret layout (which tile lies where) because folding needs it to apply
a flip or a die; ``view.py`` is the only door out, and it never shows a face-down value.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from domain.games.iceberg.geometry import (
    START_SQUARES,
    STEPS,
    Pos,
    Tile,
    edge_squares,
    neighbours,
    shift,
    square,
    squares_of,
    tile_of,
    tile_pos,
)

Phase = Literal["deal", "start", "play", "over"]
COINS_PER_SEAT = 6
SUITS = ("suns", "moons", "crowns", "arms")


@dataclass(frozen=True, slots=True)
class RemoveChoice:
    """The die matched several face-up tiles: the roller names the one that goes."""

    die: int
    tiles: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class KeepChoice:
    """The iceberg split into equally large biggest groups: the roller names the survivor.

    Smaller groups are gone already, so ``groups`` covers every tile still present.
    """

    groups: tuple[frozenset[Tile], ...]


Choice = RemoveChoice | KeepChoice


@dataclass(frozen=True, slots=True)
class IcebergBoard:
    """Everything an Iceberg position is; mappings are never mutated, only replaced.

    ``layout`` maps each board position to its tile id ``k`` (suit ``k // 6``, rank ``k % 6``)
    once dealt; ``present`` are the tiles not yet removed and ``face_up`` a subset of them.
    ``in_before`` are the seats still
    in when the current turn began, the draw's winners if nobody survives the turn.
    ``left`` are the seats that left the game (resigned, timed out or were forfeited): out
    for good, whatever the board holds.
    """

    seats: int
    idle_limit: int
    phase: Phase = "deal"
    layout: Mapping[Tile, int] = field(default_factory=dict)
    present: frozenset[Tile] = frozenset()
    face_up: frozenset[Tile] = frozenset()
    coins: Mapping[Pos, int] = field(default_factory=dict)
    hands: tuple[int, ...] = ()
    current: int = 0
    idle: int = 0
    rolling: bool = False
    choice: Choice | None = None
    in_before: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    left: frozenset[int] = frozenset()

    # ----- what is where ------------------------------------------------------------------

    def value(self, tile: Tile) -> int:
        """A tile's rank. Only ever asked of face-up tiles, so no secret leaks through it."""
        return self.layout[tile] % 6

    def is_face_down(self, tile: Tile) -> bool:
        return tile in self.present and tile not in self.face_up

    def on_board(self, seat: int) -> int:
        return sum(1 for owner in self.coins.values() if owner == seat)

    def is_out(self, seat: int) -> bool:
        """No coin on the board and none that could still be played (hand empty or no tile),
        or left the game."""
        if seat in self.left:
            return True
        if any(owner == seat for owner in self.coins.values()):
            return False
        return self.hands[seat] == 0 or not self.present

    def still_in(self) -> tuple[int, ...]:
        return tuple(seat for seat in range(self.seats) if not self.is_out(seat))

    def holds(self, pos: Pos) -> bool:
        """Is ``pos`` a position now: a square of a face-down tile or a face-up tile?"""
        if pos.kind == "tile":
            return pos.xy in self.face_up
        return self.is_face_down(tile_of(pos.xy))

    # ----- what a seat may do -------------------------------------------------------------

    def start_squares(self) -> list[Pos]:
        return sorted(square(*sq) for sq in START_SQUARES if square(*sq) not in self.coins)

    def free_positions(self) -> list[Pos]:
        """Every unoccupied position: where a coin from hand may be played."""
        coins = self.coins
        out: list[Pos] = []
        for tile in sorted(self.present):
            if tile in self.face_up:
                candidates = [tile_pos(tile)]
            else:
                candidates = [square(*sq) for sq in squares_of(tile)]
            out.extend(p for p in candidates if p not in coins)
        return out

    def flippable(self) -> list[Tile]:
        """Face-down tiles with at least one open side (edge, hole or removed neighbour)."""
        return [
            tile
            for tile in sorted(self.present - self.face_up)
            if any(nb not in self.present for _, nb in neighbours(tile))
        ]

    def steps_from(self, source: Pos) -> list[Pos]:
        """Positions one orthogonal step from ``source`` (free or not), each listed once."""
        targets: list[Pos] = []
        if source.kind == "square":
            for step in STEPS:
                sq = shift(source.xy, step)
                tile = tile_of(sq)
                if tile not in self.present:  # off the grid, the hole or a removed tile
                    continue
                targets.append(tile_pos(tile) if tile in self.face_up else square(*sq))
            return targets
        for step, nb in neighbours(source.xy):
            if nb not in self.present:
                continue
            if nb in self.face_up:
                targets.append(tile_pos(nb))
            else:
                back = (-step[0], -step[1])
                targets.extend(square(*sq) for sq in edge_squares(nb, back))
        return targets

    def moves(self, seat: int) -> Iterator[tuple[Pos, Pos]]:
        coins = self.coins
        for source, owner in sorted(coins.items()):
            if owner != seat:
                continue
            for target in self.steps_from(source):
                if target not in coins:
                    yield source, target

    def matching(self, die: int) -> tuple[Tile, ...]:
        """Face-up tiles showing ``die``: only public values are ever compared."""
        return tuple(sorted(t for t in self.face_up if self.value(t) == die))
