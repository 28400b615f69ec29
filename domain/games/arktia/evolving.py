"""Evolving an Arktia board by one stored event, which the log vouches for: nothing is checked.

The turn: one place, move or retire; then removals (ties wait for ``keep_group``); then a
``melt`` if the player began the turn with an empty reserve; then the next player who can
act. ``after_action``, ``after_removal``, ``end_turn`` and ``next_in_play`` are those steps,
each carrying on to the next; ``folding`` hands a turn back to them at whichever step its
shortcut stops.
"""

from __future__ import annotations

from dataclasses import replace

from domain.engine.types import Event
from domain.games.arktia.actions import ACTIONS, KeepGroup, Melt, Place, Retire, trusted_action
from domain.games.arktia.board import (
    ArktiaBoard,
    EndReason,
    Tie,
    colour_order,
    copied,
    keeps_together,
    may_split,
    split_groups,
)
from domain.games.arktia.hexes import Hex
from domain.games.arktia.stacks import NEUTRAL, Colour, Stack

#: The type of every event that changes an Arktia board: its actions (no draws).
ACTION_TYPES = ACTIONS.types
#: What a move of a whole stack leaves on its tile.
NOTHING = Stack()


def evolve(board: ArktiaBoard, event: Event) -> ArktiaBoard:
    """The board after ``event`` (``Rules.evolve``)."""
    if event.type not in ACTION_TYPES:
        return board  # no other event changes an Arktia board
    data = event.data["action"]
    seat = event.actor if isinstance(event.actor, int) else board.current or 0
    if data["type"] == "move":  # most events of a long game: read in place, no ``Move``
        source, target = data["from"], data["to"]
        moved_board, colours = _move(
            board, (source[0], source[1]), data["unit"], (target[0], target[1])
        )
        return after_action(moved_board, seat, colours)
    action = trusted_action(data)
    if isinstance(action, Place):
        return after_action(_place(board, seat, action), seat, set())
    if isinstance(action, Retire):
        board = board.but(turns=board.turns + 1)
        return end_turn(end_player(board, seat, "retired"), seat)
    if isinstance(action, KeepGroup):
        return after_removal(_keep(board, seat, action), seat)
    assert isinstance(action, Melt)  # "move" was read above
    return end_turn(_melt(board, seat, action), seat)


def _place(board: ArktiaBoard, seat: int, action: Place) -> ArktiaBoard:
    neutral = board.phase == "neutral"
    owner: Colour = NEUTRAL if neutral else seat
    players = list(board.players)
    players[seat] = players[seat].taking(action.size, neutral=neutral)
    stacks = copied(board.stacks)
    stacks[action.tile] = Stack.single(action.size, owner)
    return board.but(stacks=stacks, players=tuple(players), turns=board.turns + 1)


def _move(
    board: ArktiaBoard, source: Hex, unit: str, target: Hex
) -> tuple[ArktiaBoard, set[Colour]]:
    """The board after ``unit`` moves from ``source`` to ``target``, and the colours whose
    groups may now be split.

    Only the colours of the moving pieces change which tiles they stand on, so only they can
    fall apart into groups. One that a dropped tie left in pieces (``unsettled``) may be in
    pieces still, so it is always checked.
    """
    before = board.stacks
    stack = before[source]
    if unit == "all":  # the whole stack moves (most moves): no need to split it
        moving, staying = stack, NOTHING
    else:
        moving, staying = stack.take(stack.units()[unit])
    stacks = board.with_move(source, moving, staying, target)
    unsettled = board.unsettled
    suspects = {
        colour
        for colour in moving  # its slots: a colour, or None
        if colour is not None
        and (colour in unsettled or may_split(before, stacks, colour, source, target, staying))
    }
    return board.but(stacks=stacks, turns=board.turns + 1), suspects


def after_action(board: ArktiaBoard, seat: int, colours: set[Colour]) -> ArktiaBoard:
    """Remove the lighter groups of every split colour; ties wait for the active player."""
    if not colours:
        return after_removal(board, seat)  # the common case: nothing can have split
    if board.unsettled:
        board = board.but(unsettled=board.unsettled - colours)  # each is settled below
    ties: list[Tie] = []
    for colour in sorted(colours, key=colour_order):
        if keeps_together(board.stacks, colour):
            continue  # the common case, and much cheaper than weighing groups
        groups = split_groups(board.stacks, colour)
        heaviest = max(weight for _, weight in groups)
        tied = [group for group, weight in groups if weight == heaviest]
        if len(tied) > 1:
            ties.append(Tie(colour, tuple(tied)))
        else:
            board = _capture(board, seat, colour, tied[0])
    if ties:
        return board.but(ties=tuple(ties))
    return after_removal(board, seat)


def _keep(board: ArktiaBoard, seat: int, action: KeepGroup) -> ArktiaBoard:
    tie = board.ties[0]
    group = next(g for g in tie.groups if action.tile in g)
    return _capture(board.but(ties=board.ties[1:]), seat, tie.colour, group)


def _capture(board: ArktiaBoard, seat: int, colour: Colour, group: frozenset[Hex]) -> ArktiaBoard:
    """Take every piece of ``colour`` outside ``group`` off the board: ``seat`` keeps them."""
    stacks = copied(board.stacks)
    removed = 0
    for tile, stack in board.stacks.items():
        if tile in group or colour not in stack:
            continue
        removed += stack.count(colour)
        rest = stack.without(colour)
        if rest.empty:
            del stacks[tile]
        else:
            stacks[tile] = rest
    players = list(board.players)
    players[seat] = replace(players[seat], kept=players[seat].kept + removed)
    if colour == NEUTRAL:
        return board.but(
            stacks=stacks, players=tuple(players), neutral_lost=board.neutral_lost + removed
        )
    players[colour] = replace(players[colour], lost=players[colour].lost + removed)
    return board.but(stacks=stacks, players=tuple(players))


def after_removal(board: ArktiaBoard, seat: int) -> ArktiaBoard:
    """Once ties are settled: owe a melt if the turn began with an empty reserve."""
    if board.ties:
        return board
    if board.melt_due and board.phase == "play":
        if board.meltable():
            return board.but(melt_owed=True)
        board = end_player(board, seat, "cannot_melt")
    return end_turn(board, seat)


def _melt(board: ArktiaBoard, seat: int, action: Melt) -> ArktiaBoard:
    board = board.but(tiles=board.tiles - {action.tile}, melt_owed=False)
    return _credit_melt(board, seat)


def _credit_melt(board: ArktiaBoard, seat: int) -> ArktiaBoard:
    players = list(board.players)
    players[seat] = replace(players[seat], melted=players[seat].melted + 1)
    return board.but(players=tuple(players))


def end_player(board: ArktiaBoard, seat: int, reason: EndReason) -> ArktiaBoard:
    players = list(board.players)
    players[seat] = replace(players[seat], ended=reason)
    return board.but(players=tuple(players))


def end_turn(board: ArktiaBoard, seat: int) -> ArktiaBoard:
    """Close ``seat``'s turn: apply rule (c) and the turn limit, then find who plays next."""
    opening = board.step < len(board.schedule)
    if opening or board.melt_owed or board.melt_due:
        board = board.but(
            melt_owed=False, melt_due=False, step=board.step + 1 if opening else board.step
        )
    in_play = board.step >= len(board.schedule)  # the phase is "play"
    if in_play:
        # Everyone has two pieces when play begins and only captures take pieces away, so
        # only a player who has lost some can be down to one.
        for other, player in enumerate(board.players):
            if player.lost and player.ended is None and board.on_board(other) <= 1:
                board = end_player(board, other, "too_few")
    if board.turns >= board.turn_limit:
        for other, player in enumerate(board.players):
            if player.ended is None:
                board = end_player(board, other, "turn_limit")
        return board.but(current=None, finished=True)
    if not in_play:
        return start_turn(board, board.step)
    return next_in_play(board, seat if not opening else board.seats - 1)


def start_turn(board: ArktiaBoard, step: int) -> ArktiaBoard:
    """Find the next opening step whose seat can place; a seat that cannot is out (rule a)."""
    while step < len(board.schedule):
        seat = board.schedule[step][1]
        candidate = board.but(step=step)
        if board.players[seat].ended is None:
            if candidate.can_act(seat):
                return candidate.but(current=seat)
            board = end_player(candidate, seat, "no_action")
        step += 1
    board = board.but(step=step)
    return next_in_play(board, board.seats - 1)


def next_in_play(board: ArktiaBoard, last: int) -> ArktiaBoard:
    """The next seat after ``last`` still playing and able to; none left ends the game."""
    seats = len(board.players)
    for offset in range(1, seats + 1):
        seat = (last + offset) % seats
        player = board.players[seat]
        if player.ended is not None:
            continue
        if board.can_act(seat):
            melt_due = not any(player.reserve)
            if seat == board.current and melt_due == board.melt_due:
                return board  # the seat that just played plays again (the others are out)
            return board.but(current=seat, melt_due=melt_due)
        board = end_player(board, seat, "no_action")
    return board.but(current=None, finished=True)
