"""Arktia's rules: setup, the questions the engine asks, and checking an action.

``check`` refuses with stable codes; ``evolve`` trusts the log (``evolving``, event by event;
``folding``, a run of events at once). ``leave`` takes a seat out of the game (it resigned,
timed out or was forfeited), like a retirement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from domain.engine.departures import LeaveReason
from domain.engine.errors import IllegalAction
from domain.engine.rules import DeclaredRules, Draw
from domain.engine.types import JSON, Event, GameCreated, Outcome
from domain.games.arktia import evolving, folding
from domain.games.arktia.actions import (
    ArktiaAction,
    KeepGroup,
    Melt,
    Move,
    Place,
    Retire,
    parse_action,
)
from domain.games.arktia.board import ArktiaBoard, Phase, Player, keeps_together
from domain.games.arktia.info import INFO
from domain.games.arktia.setup import read_options
from domain.games.arktia.stacks import NEUTRAL, Colour, Stack
from domain.games.arktia.view import board_view, pending_view

__all__ = ["ARKTIA", "ArktiaRules"]


class ArktiaRules(DeclaredRules):
    """The Rules protocol for Arktia."""

    info = INFO
    secret_draw_labels: frozenset[str] = frozenset()

    # ----- setup --------------------------------------------------------------------------

    def initial_board(self, created: GameCreated) -> ArktiaBoard:
        options = read_options(created.options, len(created.seats))
        seats = len(created.seats)
        per_seat_neutrals = (1, 1, 1) if options.neutrals else (0, 0, 0)
        schedule: list[tuple[Phase, int]] = []
        if options.neutrals:
            schedule += [("neutral", i % seats) for i in range(3 * seats)]
        schedule += [("round1", s) for s in range(seats)]
        schedule += [("round2", s) for s in range(seats)]
        board = ArktiaBoard(
            shape=options.board,
            tiles=options.board,
            stacks={},
            players=tuple(
                Player(reserve=(3, 3, 3), neutrals=per_seat_neutrals) for _ in range(seats)
            ),
            schedule=tuple(schedule),
            step=0,
            current=0,
            turns=0,
            turn_limit=options.turn_limit,
        )
        return evolving.start_turn(board, 0)

    def parse_action(self, data: Mapping[str, Any]) -> ArktiaAction:
        return parse_action(data)

    # ----- questions ----------------------------------------------------------------------

    def to_act(self, board: ArktiaBoard) -> tuple[int, ...]:
        if board.finished or board.current is None:
            return ()
        return (board.current,)

    def pending(self, board: ArktiaBoard) -> JSON | None:
        return pending_view(board)

    def pending_draw(self, board: ArktiaBoard) -> Draw | None:
        return None  # Arktia has no dice and no cards.

    def legal_actions(self, board: ArktiaBoard, seat: int) -> Sequence[ArktiaAction]:
        if seat not in self.to_act(board):
            return []
        if board.ties:
            tie = board.ties[0]
            return [KeepGroup(tie.colour, tile) for group in tie.groups for tile in sorted(group)]
        if board.melt_owed:
            return [Melt(tile) for tile in board.meltable()]
        tiles = board.placement_tiles(seat)  # once, not once per size
        actions: list[ArktiaAction] = [
            Place(size, tile) for size in board.placement_sizes(seat) for tile in tiles
        ]
        if board.phase == "play":
            actions += [Move(src, unit, dst) for src, unit, dst in board.moves(seat)]
            actions.append(Retire())
        return actions

    def outcome(self, board: ArktiaBoard) -> Outcome | None:
        """Every seat's score; the best of the seats that did not leave win (ties share)."""
        if not board.finished:
            return None
        scores = {seat: board.score(seat) for seat in range(board.seats)}
        standing = {seat: points for seat, points in scores.items() if seat not in board.left}
        best = max(standing.values(), default=None)
        return Outcome(
            winners=tuple(seat for seat, points in standing.items() if points == best),
            scores=scores,
        )

    def view(self, board: ArktiaBoard, viewer: int | None) -> JSON:
        return board_view(board)  # Arktia hides nothing: every viewer sees the same board.

    # ----- deciding -----------------------------------------------------------------------

    def check(self, board: ArktiaBoard, seat: int, action: Any) -> None:
        if board.ties:
            if not isinstance(action, KeepGroup):
                raise IllegalAction("decision_pending", "choose which tied group stays first")
            return _check_keep(board, action)
        if board.melt_owed:
            if not isinstance(action, Melt):
                raise IllegalAction("decision_pending", "melt a tile first")
            return _check_melt(board, action)
        if isinstance(action, KeepGroup | Melt):
            raise IllegalAction("no_pending_decision", f"there is nothing to {action.type} now")
        if isinstance(action, Place):
            return _check_place(board, seat, action)
        if isinstance(action, Move):
            return _check_move(board, seat, action)
        if isinstance(action, Retire):
            if board.phase != "play":
                raise IllegalAction("opening", "nobody may retire during the opening")
            return None
        raise IllegalAction("unknown_action", f"arktia has no action {action!r}")

    # ----- evolving -----------------------------------------------------------------------

    def evolve(self, board: ArktiaBoard, event: Event) -> ArktiaBoard:
        return evolving.evolve(board, event)

    def evolve_all(self, board: ArktiaBoard, events: Iterable[Event]) -> ArktiaBoard:
        """``evolve`` over ``events`` in turn, on one working copy (``folding``)."""
        return folding.fold_events(board, events)

    def leave(self, board: ArktiaBoard, seat: int, reason: LeaveReason) -> ArktiaBoard:
        """``seat`` leaves, for either ``reason`` alike: its game ends as by retiring (rule
        (d); ``ended`` stays what it was if it had ended already) and it never wins.

        On its own turn the turn ends at once: a tie choice or melt it owes is dropped (the
        tied colours stay in pieces, ``unsettled``, until a move of theirs is checked), and
        play passes on as after a retirement. A leave before the turn's place or move
        counts as its turn for the limit, as ``retire`` does; after one (a decision owed),
        that turn was counted already. Out of turn, the turn in progress goes on.
        """
        board = board.but(left=board.left | {seat})
        if board.finished:
            return board
        if board.players[seat].ended is None:
            board = evolving.end_player(board, seat, "retired")
        if seat != board.current:
            return board
        acted = bool(board.ties) or board.melt_owed
        board = board.but(
            ties=(),
            unsettled=board.unsettled | {tie.colour for tie in board.ties},
            turns=board.turns if acted else board.turns + 1,
        )
        return evolving.end_turn(board, seat)


ARKTIA = ArktiaRules()


# ----- checks --------------------------------------------------------------------------------


def _check_place(board: ArktiaBoard, seat: int, action: Place) -> None:
    neutral = board.phase == "neutral"
    if board.players[seat].in_reserve(action.size, neutral=neutral) <= 0:
        what = "neutral " if neutral else ""
        raise IllegalAction("not_in_reserve", f"no {what}{action.size} left to place")
    if action.tile not in board.tiles:
        raise IllegalAction("no_such_tile", f"{list(action.tile)} is not a tile of the board")
    if action.tile in board.stacks:
        raise IllegalAction("tile_occupied", f"{list(action.tile)} is not empty")
    if action.tile not in board.placement_tiles(seat):
        raise IllegalAction("not_adjacent", _PLACEMENT_RULE[board.phase])


_PLACEMENT_RULE: dict[Phase, str] = {
    "neutral": "a neutral piece goes next to a tile holding a neutral piece",
    "round1": "an opening piece goes next to an occupied tile",
    "round2": "the second opening piece goes next to a tile holding your colour",
    "play": "place next to a tile holding a piece of your colour",
}


def _check_move(board: ArktiaBoard, seat: int, action: Move) -> None:
    if board.phase != "play":
        raise IllegalAction("opening", "the opening rounds allow placements only")
    stack = board.stacks.get(action.source)
    if stack is None:
        raise IllegalAction("empty_tile", f"nothing stands on {list(action.source)}")
    if stack.controller != seat:
        raise IllegalAction("not_your_stack", "only the owner of the topmost piece moves it")
    units = stack.units()
    if action.unit not in units:
        raise IllegalAction("invalid_unit", f"from this stack you may move {sorted(units)}")
    path = board.path(action.source, action.target)
    if path is None:
        raise IllegalAction("not_straight", "moves go in a straight line along one direction")
    if any(tile not in board.tiles for tile in path):
        raise IllegalAction("path_broken", "a move may not cross a hole or leave the board")
    moving, _ = stack.take(units[action.unit])
    if not board.stacks.get(action.target, Stack()).accepts(moving):
        raise IllegalAction("illegal_landing", "the landing table does not allow this stack")
    if not keeps_together(board.moved(action.source, units[action.unit], action.target), seat):
        raise IllegalAction("splits_own_colour", "this move would remove pieces of your colour")


def _check_keep(board: ArktiaBoard, action: KeepGroup) -> None:
    tie = board.ties[0]
    if action.colour != tie.colour:
        raise IllegalAction(
            "wrong_colour", f"settle the tie of colour {_colour_name(tie.colour)} first"
        )
    if not any(action.tile in group for group in tie.groups):
        raise IllegalAction("not_in_tied_group", "the tile is in none of the tied groups")


def _check_melt(board: ArktiaBoard, action: Melt) -> None:
    if action.tile not in board.meltable():
        raise IllegalAction(
            "not_meltable", "melt an empty border tile whose loss keeps the continent whole"
        )


def _colour_name(colour: Colour) -> str:
    return "neutral" if colour == NEUTRAL else str(colour)
