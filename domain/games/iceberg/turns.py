"""How events change an Iceberg board: dealing, the four turn actions, the die and its choices.

A turn is one action, except a roll: ``roll`` waits for the ``die`` draw, which may owe a
``remove_tile`` choice and then a ``keep_group`` choice, all by the roller. Only when the turn's
effects are complete are the end conditions checked and the turn passed on. A seat may also
leave the game (``leave``), at any time. Everything here trusts the log: no validation, never
fails on a stored event.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.engine.values import replaced as replace
from domain.games.iceberg import bumping
from domain.games.iceberg.actions import (
    Flip,
    IcebergAction,
    KeepGroup,
    Move,
    PlaceStart,
    Play,
    RemoveTile,
    Roll,
)
from domain.games.iceberg.board import IcebergBoard, KeepChoice, RemoveChoice
from domain.games.iceberg.geometry import DEAL_ORDER, Pos, Tile, components, square


def deal(board: IcebergBoard, outcome: Sequence[int]) -> IcebergBoard:
    """Lay the shuffled tiles face-down: position ``i`` in deal order gets tile ``outcome[i]``."""
    layout = {tile: int(k) for tile, k in zip(DEAL_ORDER, outcome, strict=True)}
    dealt = replace(board, phase="start", layout=layout, present=frozenset(layout), current=0)
    return _next_to_place(dealt, 0)


def act(board: IcebergBoard, seat: int, action: IcebergAction) -> IcebergBoard:
    """The board after ``seat`` took ``action`` (already checked when it was decided)."""
    if isinstance(action, PlaceStart):
        return _next_to_place(_played(board, seat, square(*action.square)), seat + 1)
    if isinstance(action, RemoveTile):
        return _strand(_remove(replace(board, choice=None), {action.tile}))
    if isinstance(action, KeepGroup):
        assert isinstance(board.choice, KeepChoice)
        doomed = board.present - next(g for g in board.choice.groups if action.tile in g)
        return end_turn(_remove(replace(board, choice=None), doomed), idle=False)
    board = replace(board, in_before=board.still_in())
    if isinstance(action, Play):
        return end_turn(_played(board, seat, action.target), idle=False)
    if isinstance(action, Move):
        coins = dict(board.coins)
        coins[action.target] = coins.pop(action.source)
        return end_turn(replace(board, coins=coins), idle=True)
    if isinstance(action, Flip):
        face_up = board.face_up | {action.tile}
        coins, _ = bumping.flip(board.coins, board.present, face_up, action.tile)
        return end_turn(replace(board, face_up=face_up, coins=coins), idle=False)
    assert isinstance(action, Roll)
    return replace(board, rolling=True)


def roll_die(board: IcebergBoard, die: int) -> IcebergBoard:
    """Apply the die: nothing on no match, one match goes at once, several owe a choice."""
    board = replace(board, rolling=False)
    matches = board.matching(die)
    if not matches:
        return end_turn(board, idle=True)
    if len(matches) > 1:
        return replace(board, choice=RemoveChoice(die, matches))
    return _strand(_remove(board, set(matches)))


def _next_to_place(board: IcebergBoard, first: int) -> IcebergBoard:
    """Seat ``first`` or the next after it still to place a starting coin (seats that left
    are skipped); once every seat has, regular turns begin with the first seat still in."""
    for seat in range(first, board.seats):
        if seat not in board.left:
            return replace(board, current=seat)
    opener = next((seat for seat in range(board.seats) if seat not in board.left), 0)
    return replace(board, phase="play", current=opener)


def leave(board: IcebergBoard, seat: int) -> IcebergBoard:
    """``seat`` leaves the game (docs/reference/rules/iceberg.md, "Leaving the game").

    Its coins leave play, on the board and in hand, and it is out for good; nothing else on
    the board changes. On its own turn, even midway through a roll's choices, the turn ends
    there (a pending choice lapses) and passes on as any turn does: not idle when a coin left
    play or a tile went earlier in the turn. On another seat's turn that turn goes on; the end
    is checked at once, unless that turn is midway (a roll's choices owed), in which case it
    is checked when the turn is complete, as always.
    """
    if seat in board.left or board.phase == "over":
        return board
    lost = board.hands[seat] + board.on_board(seat)
    hands = tuple(0 if s == seat else n for s, n in enumerate(board.hands))
    gone = replace(
        board,
        left=board.left | {seat},
        hands=hands,
        coins={pos: owner for pos, owner in board.coins.items() if owner != seat},
        in_before=tuple(s for s in board.in_before if s != seat),
    )
    if board.phase == "deal":
        return gone  # nobody has a coin out yet; the deal hands the first turn on
    if board.phase == "start":
        if seat == board.current:
            gone = _next_to_place(gone, seat + 1)
        return _checked(gone)
    midway = board.rolling or board.choice is not None
    if seat != board.current:
        return gone if midway else _checked(gone)
    if not midway:
        gone = replace(gone, in_before=gone.still_in())  # the turn began, and ends, now
    removed = isinstance(board.choice, KeepChoice)  # a tile went before the tie arose
    return end_turn(replace(gone, rolling=False, choice=None), idle=not lost and not removed)


def _checked(board: IcebergBoard) -> IcebergBoard:
    """The end conditions applied between turns: the game is over if one holds."""
    winners = _winners(board)
    if winners is None:
        return board
    return replace(board, phase="over", winners=winners)


def _played(board: IcebergBoard, seat: int, target: Pos) -> IcebergBoard:
    hands = list(board.hands)
    hands[seat] -= 1
    return replace(board, coins={**board.coins, target: seat}, hands=tuple(hands))


def _remove(board: IcebergBoard, tiles: set[Tile] | frozenset[Tile]) -> IcebergBoard:
    """Take ``tiles`` away with every coin on them."""
    coins = {pos: owner for pos, owner in board.coins.items() if pos.tile not in tiles}
    return replace(board, present=board.present - tiles, face_up=board.face_up - tiles, coins=coins)


def _strand(board: IcebergBoard) -> IcebergBoard:
    """Remove every group but the largest; a tie for largest waits for the roller's choice."""
    groups = components(board.present)
    if len(groups) <= 1:
        return end_turn(board, idle=False)
    biggest = max(len(g) for g in groups)
    tied = tuple(g for g in groups if len(g) == biggest)
    board = _remove(board, frozenset().union(*(g for g in groups if len(g) < biggest)))
    if len(tied) > 1:
        return replace(board, choice=KeepChoice(tied))
    return end_turn(board, idle=False)


def end_turn(board: IcebergBoard, *, idle: bool) -> IcebergBoard:
    """Count idle turns, apply the end conditions in the rules' order, else pass the turn."""
    idle_turns = board.idle + 1 if idle else 0
    board = replace(board, idle=idle_turns)
    winners = _winners(board)
    if winners is not None:
        return replace(board, phase="over", winners=winners)
    for offset in range(1, board.seats + 1):
        seat = (board.current + offset) % board.seats
        if not board.is_out(seat):
            return replace(board, current=seat)
    raise AssertionError("a game with two seats still in always has a next seat")


def _winners(board: IcebergBoard) -> tuple[int, ...] | None:
    """Who won if the game is over now: last on the iceberg, last in, or a draw."""
    owners = set(board.coins.values())
    if len(board.present) == 1 and len(owners) == 1:
        return tuple(owners)
    still_in = board.still_in()
    if len(still_in) == 1:
        return still_in
    if not still_in:
        return board.in_before
    if board.idle_limit and board.idle >= board.idle_limit:
        return still_in
    return None
