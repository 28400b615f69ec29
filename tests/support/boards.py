"""Arktia on the largest board the ``board`` option allows: the rules before and after the
linear cut-tile search.

``.venv/bin/python -m tests.support.boards`` plays one random game (melts favoured, so the ice
shrinks and pinches) on each of two boards of ``MAX_BOARD_TILES`` tiles, then times, best of
``--repeats``:

* ``legal``: ``legal_actions`` for the seat to act at every position of the game;
* ``fold``: ``play.fold`` of the game's events;
* ``decide``: one ``play.decide`` of a melt, at the position owing a melt with the most
  candidate tiles;

once with today's rules ("after") and once with the brute force they replaced ("before",
kept below as a peer: one ``is_connected`` per empty border tile in ``meltable``, one per
landing of a split colour in ``moves``), swapped in for the timing only. It checks that both
give the same legal actions and the same folded board, and prints each ratio before ÷ after.
Timings only: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from domain.engine import play
from domain.engine.types import Event, GameCreated, GameState, SeatInfo
from domain.games.arktia import ARKTIA
from domain.games.arktia.actions import Melt
from domain.games.arktia.board import ArktiaBoard
from domain.games.arktia.hexes import DIRECTIONS, Hex, is_connected, neighbours
from domain.games.arktia.setup import MAX_BOARD_TILES
from domain.games.arktia.stacks import Stack

# ----- the peer: the rules as they were -------------------------------------------------------


def brute_meltable(self: ArktiaBoard) -> list[Hex]:
    return sorted(
        tile
        for tile in self.empty_tiles()
        if sum(1 for nb in neighbours(tile) if nb in self.tiles) < 6
        and is_connected(self.tiles - {tile})
    )


def brute_moves(self: ArktiaBoard, seat: int) -> Iterator[tuple[Hex, str, Hex]]:
    own = frozenset(tile for tile, stack in self.stacks.items() if seat in stack)
    empty = Stack()
    for source, stack in sorted(self.stacks.items()):
        if stack.controller != seat:
            continue
        for unit_name, unit in stack.units().items():
            moving, staying = stack.take(unit)
            rest = own if seat in staying else own - {source}
            rest_whole = is_connected(rest)
            for dq, dr in DIRECTIONS:
                target = (source[0] + dq, source[1] + dr)
                while target in self.tiles:
                    if self.stacks.get(target, empty).accepts(moving) and _brute_joins(
                        rest, rest_whole, target
                    ):
                        yield source, unit_name, target
                    target = (target[0] + dq, target[1] + dr)


def _brute_joins(rest: frozenset[Hex], rest_whole: bool, target: Hex) -> bool:
    if not rest or target in rest:
        return rest_whole
    if rest_whole:
        return any(nb in rest for nb in neighbours(target))
    return is_connected(rest | {target})


@contextmanager
def brute_force() -> Iterator[None]:
    """Swap the old ``meltable`` and ``moves`` into ``ArktiaBoard`` for the block."""
    saved = ArktiaBoard.meltable, ArktiaBoard.moves
    ArktiaBoard.meltable = brute_meltable  # type: ignore[method-assign]
    ArktiaBoard.moves = brute_moves  # type: ignore[method-assign]
    try:
        yield
    finally:
        ArktiaBoard.meltable, ArktiaBoard.moves = saved  # type: ignore[method-assign]


# ----- the boards and the game ---------------------------------------------------------------


def blob(seed: int, size: int, spread: int) -> list[list[int]]:
    """A connected board grown at random from the origin: bays, necks and holes."""
    rng = random.Random(seed)
    cells = {(0, 0)}
    frontier = [(0, 0)]
    while len(cells) < size:
        tile = rng.choice(frontier)
        free = [
            nb
            for nb in neighbours(tile)
            if nb not in cells and max(abs(nb[0]), abs(nb[1]), abs(nb[0] + nb[1])) <= spread
        ]
        if not free:
            frontier.remove(tile)
            continue
        grown = rng.choice(free)
        cells.add(grown)
        frontier.append(grown)
    return [list(t) for t in sorted(cells)]


def hexagonish(size: int) -> list[list[int]]:
    """The first ``size`` tiles of a hexagon by distance from the centre: compact, no holes."""
    radius = 1
    while 3 * radius * (radius + 1) + 1 < size:
        radius += 1
    tiles = [
        (q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if abs(q + r) <= radius
    ]
    tiles.sort(key=lambda t: (max(abs(t[0]), abs(t[1]), abs(t[0] + t[1])), t))
    return [list(t) for t in sorted(tiles[:size])]


BOARDS: dict[str, Callable[[], list[list[int]]]] = {
    "blob": lambda: blob(11, MAX_BOARD_TILES, 10),
    "hexagon": lambda: hexagonish(MAX_BOARD_TILES),
}


def random_game(board: list[list[int]], seed: int, seats: int) -> list[Event]:
    created = GameCreated(
        game="arktia",
        rules_version="1",
        options={"board": board, "turn_limit": 400},
        seats=tuple(SeatInfo(i, f"p{i}") for i in range(seats)),
        seed_commitment="0" * 64,
    )
    rng = random.Random(seed)
    events = [Event("game_created", "system", created.to_json())]
    state = play.fold(ARKTIA, "bench", events)
    while play.status(ARKTIA, state) == "active":
        seat = play.to_act(ARKTIA, state)[0]
        actions = play.legal_actions(ARKTIA, state, seat)
        weights = [{"retire": 0.01}.get(a.type, 1.0) for a in actions]
        for event in play.decide(ARKTIA, state, seat, rng.choices(actions, weights)[0]):
            events.append(event)
            state = play.apply(ARKTIA, state, event)
    return events


def positions(events: Sequence[Event]) -> list[GameState[Any]]:
    state = play.fold(ARKTIA, "bench", events[:1])
    found = [state]
    for event in events[1:]:
        state = play.apply(ARKTIA, state, event)
        found.append(state)
    return found


# ----- timing --------------------------------------------------------------------------------


def best(repeats: int, work: Callable[[], Any]) -> float:
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        timings.append(time.perf_counter() - started)
    return min(timings)


def measure(events: Sequence[Event], repeats: int) -> dict[str, float]:
    states = positions(events)
    owing = [s for s in states if s.board.melt_owed]
    melt_at = max(owing, key=lambda s: len(s.board.meltable()), default=None)

    def legal() -> list[Any]:
        return [
            play.legal_actions(ARKTIA, s, seat) for s in states for seat in play.to_act(ARKTIA, s)
        ]

    def fold() -> GameState[Any]:
        return play.fold(ARKTIA, "bench", events)

    times = {"legal": best(repeats, legal), "fold": best(repeats, fold)}
    if melt_at is not None:
        seat = melt_at.board.current
        tile = melt_at.board.meltable()[-1]
        times["decide"] = best(repeats, lambda: play.decide(ARKTIA, melt_at, seat, Melt(tile)))
    return times


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args(argv)
    print(f"Arktia, boards of MAX_BOARD_TILES = {MAX_BOARD_TILES} tiles, {args.seats} seats")
    print(f"{'board':8} {'what':7} {'before s':>10} {'after s':>10} {'ratio':>7}")
    for name, make in BOARDS.items():
        board = make()
        events = random_game(board, args.seed, args.seats)
        after_states = positions(events)
        with brute_force():
            before_states = positions(events)
            same = all(
                [a.to_json() for a in play.legal_actions(ARKTIA, b, seat)]
                == [a.to_json() for a in play.legal_actions(ARKTIA, s, seat)]
                for b, s in zip(before_states, after_states, strict=True)
                for seat in play.to_act(ARKTIA, s)
            )
            before = measure(events, args.repeats)
        assert same, "the peer and the rules disagree"
        after = measure(events, args.repeats)
        final = after_states[-1].board
        owed = sum(1 for s in after_states if s.board.melt_owed)
        print(
            f"# {name}: {len(board)} tiles, {len(events)} events, {owed} melts owed, "
            f"{len(final.tiles)} tiles left"
        )
        for what in after:
            ratio = before[what] / after[what]
            print(f"{name:8} {what:7} {before[what]:10.4f} {after[what]:10.4f} {ratio:7.1f}x")


if __name__ == "__main__":
    main()
