"""Iceberg's rules: the Rules protocol, checking an action, and evolving the board.

Refusals (``IllegalAction``, HTTP 422) carry these stable codes; no message ever names the
value of a face-down tile (positions and face-up values only):

=========================  ===============================================================
``start_pending``          every seat places its starting coin before anything else
``setup_over``             ``place_start`` after the starting coins are down
``not_a_start_square``     ``place_start`` on a square that is not one of the four
``decision_pending``       a ``remove_tile`` / ``keep_group`` choice is owed first
``no_pending_decision``    ``remove_tile`` / ``keep_group`` with no such choice owed
``not_a_match``            ``remove_tile`` names a tile that does not show the die
``not_in_tied_group``      ``keep_group`` names a tile outside the tied largest groups
``no_coin_in_hand``        ``play`` with an empty hand
``off_board``              a position or tile off the grid or in the hole
``tile_removed``           a position or tile on a removed tile
``tile_face_up``           a square of a face-up tile (name the tile instead)
``tile_face_down``         a face-down tile as a position (name one of its squares)
``occupied``               the target position already holds a coin
``no_coin_there``          ``move`` from a position holding no coin
``not_your_coin``          ``move`` of another player's coin
``not_adjacent``           ``move`` to a position not one orthogonal step away
``already_face_up``        ``flip`` of a face-up tile
``no_open_side``           ``flip`` of a tile with a tile on all four sides
=========================  ===============================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.engine.departures import LeaveReason
from domain.engine.errors import IllegalAction
from domain.engine.rules import DeclaredRules, Draw
from domain.engine.types import JSON, RANDOM, Event, GameCreated, Outcome
from domain.games.iceberg import turns
from domain.games.iceberg.actions import (
    ACTIONS,
    Flip,
    IcebergAction,
    KeepGroup,
    Move,
    PlaceStart,
    Play,
    RemoveTile,
    Roll,
    parse_action,
)
from domain.games.iceberg.board import COINS_PER_SEAT, IcebergBoard, KeepChoice, RemoveChoice
from domain.games.iceberg.geometry import START_SQUARES, Pos, Tile, on_grid, square
from domain.games.iceberg.info import INFO
from domain.games.iceberg.setup import read_options
from domain.games.iceberg.view import board_view, pending_view

__all__ = ["ICEBERG", "IcebergRules"]


class IcebergRules(DeclaredRules):
    """The Rules protocol for Iceberg."""

    info = INFO
    #: ``random`` events whose outcome the service masks until the game ends: the layout.
    secret_draw_labels: frozenset[str] = frozenset({"tiles"})

    # ----- setup --------------------------------------------------------------------------

    def initial_board(self, created: GameCreated) -> IcebergBoard:
        options = read_options(created.options, len(created.seats))
        seats = len(created.seats)
        return IcebergBoard(
            seats=seats, idle_limit=options.idle_turn_limit, hands=(COINS_PER_SEAT,) * seats
        )

    def parse_action(self, data: Mapping[str, Any]) -> IcebergAction:
        return parse_action(data)

    # ----- questions ----------------------------------------------------------------------

    def to_act(self, board: IcebergBoard) -> tuple[int, ...]:
        if board.phase in ("start", "play") and not board.rolling:
            return (board.current,)
        return ()

    def pending(self, board: IcebergBoard) -> JSON | None:
        return pending_view(board)

    def pending_draw(self, board: IcebergBoard) -> Draw | None:
        if board.phase == "deal":
            return Draw("tiles", "shuffle", 24)
        if board.rolling:
            return Draw("die", "uniform", 6)
        return None

    def legal_actions(self, board: IcebergBoard, seat: int) -> Sequence[IcebergAction]:
        if seat not in self.to_act(board):
            return []
        if board.phase == "start":
            return [PlaceStart(pos.xy) for pos in board.start_squares()]
        if isinstance(board.choice, RemoveChoice):
            return [RemoveTile(tile) for tile in board.choice.tiles]
        if isinstance(board.choice, KeepChoice):
            return [KeepGroup(t) for group in board.choice.groups for t in sorted(group)]
        actions: list[IcebergAction] = []
        if board.hands[seat] > 0:
            actions += [Play(pos) for pos in board.free_positions()]
        actions += [Move(source, target) for source, target in board.moves(seat)]
        actions += [Flip(tile) for tile in board.flippable()]
        actions.append(Roll())
        return actions

    def outcome(self, board: IcebergBoard) -> Outcome | None:
        if board.phase != "over":
            return None
        return Outcome(winners=tuple(sorted(board.winners)), scores={})

    def view(self, board: IcebergBoard, viewer: int | None) -> JSON:
        return board_view(board)  # hidden values are hidden from everyone alike

    # ----- deciding -----------------------------------------------------------------------

    def check(self, board: IcebergBoard, seat: int, action: Any) -> None:
        if board.phase == "start":
            if not isinstance(action, PlaceStart):
                raise IllegalAction("start_pending", "every seat places its starting coin first")
            return _check_start(board, action)
        if isinstance(action, PlaceStart):
            raise IllegalAction("setup_over", "the starting coins are already placed")
        if board.choice is not None:
            return _check_choice(board, board.choice, action)
        if isinstance(action, RemoveTile | KeepGroup):
            raise IllegalAction("no_pending_decision", f"there is nothing to {action.type} now")
        if isinstance(action, Play):
            if board.hands[seat] == 0:
                raise IllegalAction("no_coin_in_hand", "you have no coin left to play")
            return _check_target(board, action.target)
        if isinstance(action, Move):
            return _check_move(board, seat, action)
        if isinstance(action, Flip):
            return _check_flip(board, action.tile)
        if isinstance(action, Roll):
            return None
        raise IllegalAction("unknown_action", f"iceberg has no action {action!r}")

    # ----- evolving -----------------------------------------------------------------------

    def evolve(self, board: IcebergBoard, event: Event) -> IcebergBoard:
        if event.type == RANDOM:
            label, outcome = event.data.get("label"), event.data["outcome"]
            if label == "tiles" and board.phase == "deal":
                return turns.deal(board, outcome)
            if label == "die" and board.rolling:
                return turns.roll_die(board, int(outcome))
            return board
        if event.type not in ACTIONS.types or not isinstance(event.actor, int):
            return board  # no other event changes an Iceberg board
        return turns.act(board, event.actor, parse_action(event.data["action"]))

    def leave(self, board: IcebergBoard, seat: int, reason: LeaveReason) -> IcebergBoard:
        """``seat`` is out at once with all its coins, whichever the ``reason``
        (docs/reference/rules/iceberg.md, "Leaving the game")."""
        return turns.leave(board, seat)


ICEBERG = IcebergRules()


# ----- checks --------------------------------------------------------------------------------


def _check_start(board: IcebergBoard, action: PlaceStart) -> None:
    if action.square not in START_SQUARES:
        raise IllegalAction(
            "not_a_start_square",
            f"starting coins go on one of {[list(s) for s in START_SQUARES]}",
        )
    if square(*action.square) in board.coins:
        raise IllegalAction("occupied", f"square {list(action.square)} already holds a coin")


def _check_choice(board: IcebergBoard, choice: RemoveChoice | KeepChoice, action: Any) -> None:
    if isinstance(choice, RemoveChoice):
        if not isinstance(action, RemoveTile):
            raise IllegalAction("decision_pending", "choose which matching tile to remove first")
        if action.tile not in choice.tiles:
            raise IllegalAction(
                "not_a_match",
                f"remove one of the tiles showing {choice.die}: {[list(t) for t in choice.tiles]}",
            )
        return
    if not isinstance(action, KeepGroup):
        raise IllegalAction("decision_pending", "choose which largest group stays first")
    if not any(action.tile in group for group in choice.groups):
        raise IllegalAction("not_in_tied_group", "the tile is in none of the tied groups")


def _check_tile(board: IcebergBoard, tile: Tile, named: str) -> None:
    """Is ``tile`` still on the board? ``named`` is what the player named, for the message."""
    if not on_grid(tile):
        raise IllegalAction("off_board", f"{named} is not on the board")
    if tile not in board.present:
        raise IllegalAction("tile_removed", f"{named}: tile {list(tile)} has been removed")


def _check_position(board: IcebergBoard, pos: Pos) -> None:
    """Is ``pos`` a position now? Face state is public, so saying which is wrong leaks nothing."""
    _check_tile(board, pos.tile, f"{pos.kind} {list(pos.xy)}")
    if pos.kind == "square" and pos.tile in board.face_up:
        raise IllegalAction(
            "tile_face_up", f"square {list(pos.xy)} is on face-up tile {list(pos.tile)}"
        )
    if pos.kind == "tile" and pos.tile not in board.face_up:
        raise IllegalAction(
            "tile_face_down", f"tile {list(pos.xy)} is face-down: name one of its squares"
        )


def _check_target(board: IcebergBoard, pos: Pos) -> None:
    _check_position(board, pos)
    if pos in board.coins:
        raise IllegalAction("occupied", f"{pos.kind} {list(pos.xy)} already holds a coin")


def _check_move(board: IcebergBoard, seat: int, action: Move) -> None:
    owner = board.coins.get(action.source)
    if owner is None:
        raise IllegalAction("no_coin_there", f"no coin stands on {action.source.to_json()}")
    if owner != seat:
        raise IllegalAction("not_your_coin", "you may move only your own coins")
    _check_target(board, action.target)
    if action.target not in board.steps_from(action.source):
        raise IllegalAction("not_adjacent", "a coin moves one step orthogonally")


def _check_flip(board: IcebergBoard, tile: Tile) -> None:
    _check_tile(board, tile, f"tile {list(tile)}")
    if tile in board.face_up:
        raise IllegalAction("already_face_up", f"tile {list(tile)} is already face-up")
    if tile not in board.flippable():
        raise IllegalAction("no_open_side", f"tile {list(tile)} has a tile on every side")
