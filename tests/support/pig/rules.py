"""Pig's rules: the ``Rules`` protocol over ``PigBoard``.

The only refusal of its own is ``nothing_to_hold`` (IllegalAction, HTTP 422): holding with
a turn total of 0 would just pass the turn, and an endless pass loop is no game. Everything
else (whose turn, a pending die) is the engine's guards' job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain.engine.departures import LeaveReason
from domain.engine.errors import IllegalAction
from domain.engine.rules import Action, DeclaredRules, Draw
from domain.engine.types import JSON, RANDOM, Event, GameCreated, Outcome
from tests.support.pig.actions import Hold, PigAction, Roll, parse_action
from tests.support.pig.board import TURN_LIMIT, PigBoard, read_target
from tests.support.pig.info import INFO

DIE = Draw("die", "uniform", 6)


class PigRules(DeclaredRules):
    """The Rules protocol for Pig: 2–4 players race to ``target`` with one die."""

    info = INFO
    #: Die rolls are public the moment they are drawn.
    secret_draw_labels: frozenset[str] = frozenset()

    def initial_board(self, created: GameCreated) -> PigBoard:
        seats = len(created.seats)
        return PigBoard(scores=(0,) * seats, target=read_target(created.options, seats))

    def parse_action(self, data: Mapping[str, Any]) -> PigAction:
        return parse_action(data)

    def to_act(self, board: PigBoard) -> tuple[int, ...]:
        return () if board.over or board.rolling else (board.current,)

    def pending(self, board: PigBoard) -> JSON | None:
        return None  # Pig never owes a decision besides roll-or-hold

    def pending_draw(self, board: PigBoard) -> Draw | None:
        return DIE if board.rolling and not board.over else None

    def legal_actions(self, board: PigBoard, seat: int) -> Sequence[PigAction]:
        if seat not in self.to_act(board):
            return []
        return [Roll(), Hold()] if board.turn_total > 0 else [Roll()]

    def check(self, board: PigBoard, seat: int, action: Action) -> None:
        if isinstance(action, Hold) and board.turn_total == 0:
            raise IllegalAction("nothing_to_hold", "roll at least once before holding")
        if not isinstance(action, Roll | Hold):
            raise IllegalAction("unknown_action", f"pig has no action {action!r}")

    def evolve(self, board: PigBoard, event: Event) -> PigBoard:
        if event.type == RANDOM:
            if event.data.get("label") == DIE.label and board.rolling:
                return board.rolled(int(event.data["outcome"]) + 1)
            return board
        if event.type == Roll.type:
            return replace(board, rolling=True)
        if event.type == Hold.type:
            return board.held()
        return board  # no other event changes a Pig board

    def leave(self, board: PigBoard, seat: int, reason: LeaveReason) -> PigBoard:
        """A seat that leaves is skipped from then on (the engine ends a game with one left)."""
        return board.without(seat)

    def outcome(self, board: PigBoard) -> Outcome | None:
        if not board.over:
            return None
        winner = board.winner
        winners = () if winner is None else (winner,)
        return Outcome(winners=winners, scores=dict(enumerate(board.scores)))

    def view(self, board: PigBoard, viewer: int | None) -> JSON:
        """Everything: Pig hides nothing, so every viewer sees the same JSON."""
        return {
            "target": board.target,
            "scores": list(board.scores),
            "current": None if board.over else board.current,
            "turn_total": board.turn_total,
            "rolling": board.rolling,
            "last_roll": board.last_roll,
            "turns": board.turns,
            "turn_limit": TURN_LIMIT,
            "winner": board.winner,
        }


PIG = PigRules()
