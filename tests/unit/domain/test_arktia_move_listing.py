"""Listing legal actions, pinned against the rules read literally.

Live play lists the seat to act's legal actions after every event, so Arktia's
``ArktiaBoard.moves`` is tuned for speed: the landings that keep a colour whole are found once
per source (``Joins``), and the straight lines from each tile once per board (``rays``). Here
it must list exactly what the rules say, in the same order: from each stack the seat controls
(sources ascending), each unit (in ``units`` order), along each direction (``DIRECTIONS``
order) up to the first hole or the edge, every landing the landing table allows after which
``keeps_together`` finds the seat's colour in one group, as ``check`` decides. On every
position of seeded random games (captures, ties, melts, colours left split by a dropped tie,
2 to 4 seats) and on random boards with any stacks, holes and colours in pieces.

``play.legal_actions_json`` writes what ``play.legal_actions`` lists, in its order, for every
hosted game.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from domain.engine import play, rng
from domain.engine.canonical import canonical_json
from domain.engine.departures import Resign
from domain.engine.types import GameCreated, GameState, SeatInfo
from domain.games import GAMES
from domain.games.arktia import ARKTIA
from domain.games.arktia.actions import Move
from domain.games.arktia.board import ArktiaBoard, keeps_together, rays
from domain.games.arktia.hexes import BOARD_36, DIRECTIONS, Hex, rows
from domain.games.arktia.stacks import NEUTRAL, Stack
from service.store import codec
from tests.support.positions.arktia import created, position

Listed = tuple[Hex, str, Hex]
#: The sizes a stack may hold, as ``Stack.of``'s keywords: the three singles and A to D.
SIZED_FORMS = ["g", "d", "t", "dg", "td", "tg", "tdg"]

#: Two players on exactly the tiles they need, and a narrow board: both melt and pinch.
TIGHT_24 = rows([(0, 0, 5), (1, -1, 4), (2, -2, 3), (3, -3, 2)])
NARROW = rows([(0, 0, 8), (1, -1, 5), (2, -1, 3), (3, -2, 2)])


def literal_moves(board: ArktiaBoard, seat: int) -> Iterator[Listed]:
    """Every move the rules allow ``seat``, each tried on its own: the board after it is
    built and asked whether the seat's colour is still one group."""
    for source, stack in sorted(board.stacks.items()):
        if stack.controller != seat:
            continue
        for unit_name, unit in stack.units().items():
            moving, _ = stack.take(unit)
            for dq, dr in DIRECTIONS:
                target = (source[0] + dq, source[1] + dr)
                while target in board.tiles:
                    if board.stacks.get(target, Stack()).accepts(moving) and keeps_together(
                        board.moved(source, unit, target), seat
                    ):
                        yield source, unit_name, target
                    target = (target[0] + dq, target[1] + dr)


def game_positions(seed: int, seats: int, options: dict[str, Any]) -> Iterator[ArktiaBoard]:
    """Every board of one seeded random game. Moves that split a colour are favoured and
    places are not (so reserves run dry and tiles melt); a seat owing a tie choice often
    resigns, which leaves that colour in pieces (``unsettled``)."""
    chooser = random.Random(seed)
    state = play.new_game(ARKTIA, "listing", created(seats, turn_limit=120, **options))
    while not state.over:
        yield state.board
        [seat] = play.to_act(ARKTIA, state)
        if state.board.ties and chooser.random() < 0.7:
            state = play.step(ARKTIA, state, seat, Resign())[1]
            continue
        actions = play.legal_actions(ARKTIA, state, seat)
        weights = [{"retire": 0.01, "place": 0.3}.get(a.type, 1.0) for a in actions]
        tries = [after for _, after in (play.step(ARKTIA, state, seat, a) for a in actions[:12])]
        splits = [after for after in tries if after.board.ties]
        if splits and chooser.random() < 0.8:
            state = chooser.choice(splits)
        else:
            state = play.step(ARKTIA, state, seat, chooser.choices(actions, weights)[0])[1]


def random_board(seed: int) -> ArktiaBoard:
    """Any stacks (every form, neutral pieces, colours in pieces) on the big board with holes
    melted out of it; the board's ``shape`` now and then smaller than its tiles, which no
    game makes but the listing must not depend on."""
    chooser = random.Random(seed)
    tiles = frozenset(t for t in BOARD_36 if chooser.random() > 0.15)
    stacks: dict[Hex, Stack] = {}
    for tile in chooser.sample(sorted(tiles), chooser.randrange(1, len(tiles))):
        form = chooser.choice(SIZED_FORMS)
        stacks[tile] = Stack.of(**{size: chooser.choice([0, 1, 2, NEUTRAL]) for size in form})
    board = position(stacks, tiles=tiles, current=chooser.randrange(3)).board
    if seed % 5 == 0:
        board = board.but(shape=frozenset(chooser.sample(sorted(tiles), len(tiles) // 2)))
    else:
        board = board.but(shape=BOARD_36)
    return board


def test_moves_are_the_literal_rules_through_random_games() -> None:
    setups: list[tuple[int, dict[str, Any]]] = [
        (2, {}),
        (2, {"board": [list(t) for t in sorted(TIGHT_24)]}),
        (3, {}),
        (3, {"neutrals_3p": True}),
        (4, {}),
        (2, {"board": [list(t) for t in sorted(NARROW)]}),
    ]
    listed = melted = split = 0
    for index, (seats, options) in enumerate(setups):
        for seed in range(3):
            for board in game_positions(100 * index + seed, seats, options):
                melted += board.tiles != board.shape
                split += bool(board.unsettled)
                for seat in range(seats):
                    moves = list(board.moves(seat))
                    assert moves == list(literal_moves(board, seat)), (seed, seat, board)
                    listed += len(moves)
                mover, owed = board.current, board.ties or board.melt_owed
                if board.phase == "play" and mover is not None and not owed:
                    for source, unit, target in board.moves(mover):
                        ARKTIA.check(board, mover, Move(source, unit, target))
    # the games reach what the tuned listing treats apart: holes, and colours in pieces
    assert listed > 10_000
    assert melted > 100
    assert split > 50


def test_moves_are_the_literal_rules_on_random_boards() -> None:
    listed = 0
    for seed in range(1_500):
        board = random_board(seed)
        for seat in (0, 1, 2):
            moves = list(board.moves(seat))
            assert moves == list(literal_moves(board, seat)), (seed, seat, board)
            listed += len(moves)
    assert listed > 5_000


def test_a_move_stops_at_a_melted_hole() -> None:
    line = rows([(0, 0, 5)])
    board = position({(0, 0): Stack(g=0)}, tiles=line - {(3, 0)}, seats=2).board
    board = board.but(shape=line)
    assert list(board.moves(0)) == [((0, 0), "all", (1, 0)), ((0, 0), "all", (2, 0))]
    whole = board.but(tiles=line)
    assert [target for _, _, target in whole.moves(0)] == [(q, 0) for q in range(1, 6)]


def test_accepts_sizes_is_the_landing_table() -> None:
    forms = [Stack.of(**{size: 0 for size in form}) for form in SIZED_FORMS]
    for there in [Stack(), *forms]:
        for unit in forms:
            assert there.accepts_sizes(unit.sizes) is there.accepts(unit), (there, unit)
    assert Stack(d=1).accepts_sizes(Stack(g=0).sizes)  # G onto D makes A
    assert not Stack(g=1).accepts_sizes(Stack(d=0).sizes)


def test_rays_walk_the_board_in_straight_lines() -> None:
    for tiles in (BOARD_36, NARROW, TIGHT_24 - {(2, 0), (0, 2)}):
        found = rays(tiles)
        assert set(found) == tiles
        for source, lines in found.items():
            walked = []
            for dq, dr in DIRECTIONS:
                line = []
                target = (source[0] + dq, source[1] + dr)
                while target in tiles:
                    line.append(target)
                    target = (target[0] + dq, target[1] + dr)
                walked += [tuple(line)] if line else []
            assert list(lines) == walked


def _states(game: str, seats: int, seed: int, steps: int) -> Iterator[GameState[Any]]:
    """The states of a seeded random game of ``game``: its draws as a real game makes them."""
    rules = GAMES[game].rules
    chooser = random.Random(seed)
    data = GameCreated(
        game=game,
        rules_version=rules.rules_version,
        options={},
        seats=tuple(SeatInfo(i, f"p{i}") for i in range(seats)),
        seed_commitment="0" * 64,
    )
    state = play.new_game(rules, f"json-{seed}", data)
    for _ in range(steps):
        if state.over:
            return
        yield state
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = rng.draw(
                bytes(32), state.game_id, state.version + 1, draw.label, draw.kind, draw.n
            )
            events = play.resolve_draw(rules, state, outcome)
        else:
            seat = chooser.choice(play.to_act(rules, state))
            action = chooser.choice(play.legal_actions(rules, state, seat))
            events = play.decide(rules, state, seat, action)
        for event in events:
            state = play.apply(rules, state, event)


def test_legal_actions_json_writes_the_listed_actions_in_order_for_every_game() -> None:
    checked = 0
    for game, bundle in sorted(GAMES.items()):
        rules = bundle.rules
        for seats in sorted({rules.min_players, rules.max_players}):
            for state in _states(game, seats, seed=seats, steps=120):
                for seat in range(seats):
                    listed = [a.to_json() for a in play.legal_actions(rules, state, seat)]
                    written = play.legal_actions_json(rules, state, seat)
                    assert written == listed, (game, state.version, seat)
                    texts = [canonical_json(action) for action in written]
                    assert texts == sorted(texts)
                    fast = play.legal_actions_json(rules, state, seat, encode=codec.canonical_bytes)
                    assert fast == written
                    checked += len(written)
    assert checked > 1_000
