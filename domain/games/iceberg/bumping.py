"""Flipping a tile and the chains of bumped coins it starts.

The rule is docs/reference/rules/iceberg.md, "Bumping".

Each coin on the flipped tile leaves by its quadrant's pinwheel direction (NW north, NE east,
SE south, SW west). The four chains leave through four different sides along four different
lanes, so they never meet and the order they resolve in does not matter; we go NW, NE, SE, SW.
"""

from __future__ import annotations

from collections.abc import Mapping

from domain.games.iceberg.geometry import (
    Pos,
    Square,
    Step,
    Tile,
    bump_step,
    shift,
    square,
    squares_of,
    tile_of,
    tile_pos,
)


def flip(
    coins: Mapping[Pos, int], present: frozenset[Tile], face_up: frozenset[Tile], tile: Tile
) -> tuple[dict[Pos, int], int]:
    """The coins after ``tile`` turns face-up, and how many of them left play.

    ``face_up`` must already include ``tile``: it ends face-up and empty.
    """
    after = dict(coins)
    lost = 0
    for sq in squares_of(tile):
        owner = after.pop(square(*sq), None)
        if owner is not None:
            lost += _push(after, present, face_up, owner, sq, bump_step(sq))
    return after, lost


def _push(
    coins: dict[Pos, int],
    present: frozenset[Tile],
    face_up: frozenset[Tile],
    owner: int,
    start: Square,
    step: Step,
) -> int:
    """Move ``owner``'s coin one square on from ``start``; displaced coins carry on. Lost count.

    A coin entering a face-up tile lands on it and its occupant leaves by the far side in the
    same lane, so the walk resumes from the tile's far square.
    """
    at = start
    moving = owner
    while True:
        at = shift(at, step)
        tile = tile_of(at)
        if tile not in present:  # off the grid, into the hole or onto a removed tile
            return 1
        if tile in face_up:
            pos = tile_pos(tile)
            at = shift(at, step)  # the tile's far square in this lane
        else:
            pos = square(*at)
        occupant = coins.get(pos)
        coins[pos] = moving
        if occupant is None:
            return 0
        moving = occupant
