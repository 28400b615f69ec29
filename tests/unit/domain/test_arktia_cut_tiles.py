"""Cut tiles in one pass: ``articulation_points`` and Arktia's linear ``meltable``/``moves``.

Each fast answer is checked against the brute-force definition it replaced (remove a tile,
ask ``is_connected`` again), kept here as the reference: on random connected hex sets, on
random boards with random stacks, and on every position of random games on random boards.
Derandomized, so every run checks the same cases.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.engine import graphs, play
from domain.engine.errors import InvalidSetup
from domain.engine.types import GameState
from domain.games.arktia import ARKTIA
from domain.games.arktia.board import ArktiaBoard
from domain.games.arktia.hexes import DIRECTIONS, Hex, is_connected, neighbours
from domain.games.arktia.setup import MAX_BOARD_TILES, read_options
from domain.games.arktia.stacks import Stack
from tests.support.positions.arktia import created

CHECKED = settings(derandomize=True, deadline=None, max_examples=150, database=None)


# ----- the references: what the rules used to compute, one connectivity check per tile ------


def brute_cuts(cells: frozenset[Hex]) -> frozenset[Hex]:
    """By definition: a cell whose removal leaves its group in more groups."""
    before = len(graphs.components(cells, neighbours))
    return frozenset(
        cell for cell in cells if len(graphs.components(cells - {cell}, neighbours)) > before
    )


def brute_meltable(board: ArktiaBoard) -> list[Hex]:
    """``ArktiaBoard.meltable`` as it was: one ``is_connected`` per empty border tile."""
    return sorted(
        tile
        for tile in board.empty_tiles()
        if sum(1 for nb in neighbours(tile) if nb in board.tiles) < 6
        and is_connected(board.tiles - {tile})
    )


def brute_moves(board: ArktiaBoard, seat: int) -> Iterator[tuple[Hex, str, Hex]]:
    """``ArktiaBoard.moves`` as it was: ``is_connected(rest | {target})`` per landing."""
    own = frozenset(tile for tile, stack in board.stacks.items() if seat in stack)
    for source, stack in sorted(board.stacks.items()):
        if stack.controller != seat:
            continue
        for unit_name, unit in stack.units().items():
            moving, staying = stack.take(unit)
            rest = own if seat in staying else own - {source}
            for dq, dr in DIRECTIONS:
                target = (source[0] + dq, source[1] + dr)
                while target in board.tiles:
                    if board.stacks.get(target, Stack()).accepts(moving) and is_connected(
                        rest | {target}
                    ):
                        yield source, unit_name, target
                    target = (target[0] + dq, target[1] + dr)


# ----- random shapes -------------------------------------------------------------------------


def grown(seed: int, size: int, spread: int = 8) -> frozenset[Hex]:
    """A connected set of ``size`` hexes grown from the origin, within ``spread`` of it, so it
    has necks, holes and bays as often as not (at most as many as fit in that radius)."""
    rng = random.Random(seed)
    size = min(size, 3 * spread * (spread + 1) + 1)  # the hexagon of radius ``spread`` holds
    cells = {(0, 0)}
    frontier = [(0, 0)]
    while len(cells) < size:
        tile = rng.choice(frontier)
        options = [
            nb
            for nb in neighbours(tile)
            if nb not in cells and max(abs(nb[0]), abs(nb[1]), abs(nb[0] + nb[1])) <= spread
        ]
        if not options:
            frontier.remove(tile)
            continue
        nb = rng.choice(options)
        cells.add(nb)
        frontier.append(nb)
    return frozenset(cells)


shapes = st.builds(grown, st.integers(0, 2**32), st.integers(1, 120), st.integers(2, 9))


@CHECKED
@given(shapes)
def test_articulation_points_are_the_cells_whose_loss_splits_the_group(
    cells: frozenset[Hex],
) -> None:
    assert graphs.articulation_points(cells, neighbours) == brute_cuts(cells)


@pytest.mark.slow
@CHECKED
@given(st.lists(shapes, min_size=1, max_size=3), st.integers(0, 40))
def test_articulation_points_of_separate_groups_are_found_in_each(
    groups: list[frozenset[Hex]], gap: int
) -> None:
    cells = frozenset().union(
        *({(q + 30 * i + gap, r) for q, r in group} for i, group in enumerate(groups))
    )
    assert graphs.articulation_points(cells, neighbours) == brute_cuts(cells)


def test_articulation_points_of_small_and_long_shapes() -> None:
    assert graphs.articulation_points(set(), neighbours) == frozenset()
    assert graphs.articulation_points({(0, 0)}, neighbours) == frozenset()
    assert graphs.articulation_points({(0, 0), (1, 0)}, neighbours) == frozenset()
    line = {(q, 0) for q in range(20_000)}  # deeper than any recursion limit
    assert graphs.articulation_points(line, neighbours) == line - {(0, 0), (19_999, 0)}
    ring = {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}
    assert graphs.articulation_points(ring, neighbours) == frozenset()
    assert graphs.articulation_points(ring | {(2, 0)}, neighbours) == {(1, 0)}


def board_of(tiles: frozenset[Hex], stacks: dict[Hex, Stack]) -> ArktiaBoard:
    board = ARKTIA.initial_board(created(2))
    return board.but(shape=tiles, tiles=tiles, stacks=stacks)


@CHECKED
@given(shapes, st.integers(0, 2**32), st.floats(0, 0.9))
def test_meltable_equals_the_brute_force_on_random_boards(
    tiles: frozenset[Hex], seed: int, occupied: float
) -> None:
    rng = random.Random(seed)
    stacks = {tile: Stack(g=rng.randrange(2)) for tile in sorted(tiles) if rng.random() < occupied}
    board = board_of(tiles, stacks)
    assert board.meltable() == brute_meltable(board)
    for seat in (0, 1):
        assert list(board.moves(seat)) == list(brute_moves(board, seat))


def random_game(seed: int, board: frozenset[Hex], seats: int) -> Iterator[GameState[Any]]:
    """Every position of one random game, melts and moves favoured so the ice shrinks."""
    rng = random.Random(seed)
    options = {"board": [list(t) for t in sorted(board)], "turn_limit": 150}
    state = play.new_game(ARKTIA, "random", created(seats, **options))
    yield state
    while play.status(ARKTIA, state) == "active":
        seat = play.to_act(ARKTIA, state)[0]
        actions = play.legal_actions(ARKTIA, state, seat)
        weights = [{"retire": 0.02, "place": 0.5}.get(a.type, 1.0) for a in actions]
        for event in play.decide(ARKTIA, state, seat, rng.choices(actions, weights)[0]):
            state = play.apply(ARKTIA, state, event)
        yield state


@pytest.mark.slow
@settings(derandomize=True, deadline=None, max_examples=25, database=None)
@given(st.integers(0, 2**32), st.integers(2, 4), st.integers(0, 40), st.integers(3, 9))
def test_meltable_and_moves_equal_the_brute_force_through_random_games(
    seed: int, seats: int, extra: int, spread: int
) -> None:
    in_play = 24 if seats == 2 else 9 * seats
    tiles = grown(seed, in_play + extra, max(spread, 5))
    for state in random_game(seed, tiles, seats):
        board: ArktiaBoard = state.board
        assert board.meltable() == brute_meltable(board)
        if board.current is not None:
            assert list(board.moves(board.current)) == list(brute_moves(board, board.current))


def test_random_games_melt_and_pinch_the_ice() -> None:
    """The games above do reach what they are meant to check: owed melts, with some border
    tile touching the ice twice, so the search for cut tiles runs (seeds fixed)."""
    for seed, seats in ((2, 4), (4, 3)):
        tiles = grown(seed * 7919, (24 if seats == 2 else 9 * seats) + 5 * seed, 6)
        boards = [state.board for state in random_game(seed, tiles, seats)]
        owed = [board for board in boards if board.melt_owed]
        assert len(owed) >= 10
        assert len(boards[-1].tiles) <= len(tiles) - 10
        assert any(brute_cuts(board.tiles) & set(board.empty_tiles()) for board in owed)


# ----- the largest board ---------------------------------------------------------------------


def hexagon(radius: int) -> list[list[int]]:
    return [
        [q, r]
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if abs(q + r) <= radius
    ]


def test_a_board_of_the_largest_size_is_accepted() -> None:
    tiles = sorted(grown(7, MAX_BOARD_TILES, 14))
    options = read_options({"board": [list(t) for t in tiles]}, 4)
    assert len(options.board) == MAX_BOARD_TILES


@pytest.mark.parametrize(
    "board",
    [
        [list(t) for t in sorted(grown(7, MAX_BOARD_TILES + 1, 14))],
        hexagon(40),  # 4,921 tiles: the board of the security finding
    ],
    ids=["one-over", "radius-40"],
)
def test_a_board_over_the_limit_is_refused_by_the_rules(board: list[list[int]]) -> None:
    with pytest.raises(InvalidSetup) as error:
        ARKTIA.initial_board(created(2, board=board))
    assert error.value.code == "invalid_option"
    assert f"at most {MAX_BOARD_TILES} tiles" in error.value.message
