"""Ice Breakers' rules: the Rules protocol, checking an action, and evolving the board.

Refusals (``IllegalAction``, HTTP 422) carry stable codes, listed in
docs/reference/rules/ice-breakers.md and in ``checks.py``. No refusal or view names an Ice
Report card before it is exposed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.engine.departures import LeaveReason
from domain.engine.rules import DeclaredRules, Draw
from domain.engine.types import JSON, RANDOM, Event, GameCreated, Outcome
from domain.games.ice_breakers import turns
from domain.games.ice_breakers.actions import (
    ACTIONS,
    Boost,
    CashAb2,
    Clear,
    EndTurn,
    Give,
    IceBreakersAction,
    MoveShip,
    Pass,
    PlayPower,
    parse_action,
)
from domain.games.ice_breakers.board import SETUP_PHASES, IceBreakersBoard
from domain.games.ice_breakers.cards import is_power, kind
from domain.games.ice_breakers.checks import check_action
from domain.games.ice_breakers.info import INFO
from domain.games.ice_breakers.setup import read_options, remaining_cards, ships_in_play
from domain.games.ice_breakers.view import board_view, pending_view

__all__ = ["ICE_BREAKERS", "IceBreakersRules"]


class IceBreakersRules(DeclaredRules):
    """The Rules protocol for Ice Breakers to the Rescue (co-operative)."""

    info = INFO
    #: The Ice Report order stays secret until the game ends; exposed cards are in the view.
    secret_draw_labels: frozenset[str] = frozenset({"reports_upper", "reports_lower"})

    # ----- setup --------------------------------------------------------------------------

    def initial_board(self, created: GameCreated) -> IceBreakersBoard:
        options = read_options(created.options, len(created.seats))
        return IceBreakersBoard(
            seats=len(created.seats),
            intro=options.intro,
            in_play=ships_in_play(options.intro),
            hands=((),) * len(created.seats),
        )

    def parse_action(self, data: Mapping[str, Any]) -> IceBreakersAction:
        return parse_action(data)

    # ----- questions ----------------------------------------------------------------------

    def to_act(self, board: IceBreakersBoard) -> tuple[int, ...]:
        if board.phase != "play" or board.draws_left:
            return ()
        if board.waiting:
            return (board.giver,)
        current, gone = board.current, board.timed_out
        return tuple(
            seat
            for seat in range(board.seats)
            if seat not in gone and (seat == current or board.can_chip_in(seat))
        )

    def pending(self, board: IceBreakersBoard) -> JSON | None:
        return pending_view(board)

    def pending_draw(self, board: IceBreakersBoard) -> Draw | None:
        phase = board.phase
        if phase in SETUP_PHASES:
            if phase == "pieces":
                return Draw("pieces", "shuffle", 66)
            if phase == "ships":
                return Draw("ships", "derangement", len(board.in_play))
            if phase == "reports_upper":
                return Draw("reports_upper", "shuffle", 13)
            if phase == "reports_lower":
                return Draw("reports_lower", "shuffle", 5)
            return Draw("deck", "shuffle", len(remaining_cards(board.seats)))
        if phase == "play" and board.draws_left:
            return Draw("ab2", "uniform", len(board.discard))
        return None

    def legal_actions(self, board: IceBreakersBoard, seat: int) -> Sequence[IceBreakersAction]:
        if seat not in self.to_act(board):
            return []
        if board.waiting:
            cards = sorted(set(board.waiting))
            return [Give(card, to) for card in cards for to in range(board.seats)]
        hand = board.hands[seat]
        actions: list[IceBreakersAction] = []
        active = seat == board.current
        if board.power is None:
            if active:
                actions += [PlayPower(c) for c in hand if is_power(c)]
                actions += [CashAb2(c) for c in hand if kind(c) == "AB2"]
                actions.append(Pass())
            return actions
        actions += [Boost(c) for c in hand if board.may_boost_with(c)]
        actions += [CashAb2(c) for c in hand if kind(c) == "AB2"]
        if not active:
            return actions
        left = board.left
        actions += [Clear(cell) for cell in board.ice_cells() if board.pieces[cell] <= left]
        for ship in sorted(board.ships):
            actions += [MoveShip(ship, path) for path in board.stops(ship).values()]
        actions.append(EndTurn())
        return actions

    def leave(self, board: IceBreakersBoard, seat: int, reason: LeaveReason) -> IceBreakersBoard:
        """A resignation ends the game as a failure; a timed-out seat's turns pass from then
        on (``turns.leave``). Winners on success stay every seat: the team wins together."""
        return turns.leave(board, seat, reason)

    def outcome(self, board: IceBreakersBoard) -> Outcome | None:
        if board.phase != "over":
            return None
        return Outcome(
            winners=tuple(range(board.seats)) if board.success else (),
            scores={},
            extra={
                "delivered": len(board.delivered),
                "in_play": len(board.in_play),
                "turns": board.turns + (1 if board.success else 0),
            },
        )

    def view(self, board: IceBreakersBoard, viewer: int | None) -> JSON:
        return board_view(board)  # hands are open; the report order is hidden from everyone

    # ----- deciding and evolving ----------------------------------------------------------

    def check(self, board: IceBreakersBoard, seat: int, action: Any) -> None:
        check_action(board, seat, action)

    def evolve(self, board: IceBreakersBoard, event: Event) -> IceBreakersBoard:
        if event.type == RANDOM:
            label, outcome = event.data.get("label"), event.data["outcome"]
            if label == "ab2":
                return turns.ab2_draw(board, int(outcome))
            return turns.setup_draw(board, str(label), outcome)
        if event.type not in ACTIONS.types or not isinstance(event.actor, int):
            return board
        if board.phase != "play":
            return board
        return turns.act(board, event.actor, parse_action(event.data["action"]))


ICE_BREAKERS = IceBreakersRules()
