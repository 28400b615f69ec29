"""Arktia's board and pending decisions as clients see them (Arktia hides nothing)."""

from __future__ import annotations

from domain.engine.types import JSON
from domain.games.arktia.board import ArktiaBoard
from domain.games.arktia.hexes import Hex
from domain.games.arktia.stacks import NEUTRAL, SIZES, Colour


def colour_json(colour: Colour) -> int | str:
    return "neutral" if colour == NEUTRAL else colour


def _tile(tile: Hex) -> list[int]:
    return [tile[0], tile[1]]


def board_view(board: ArktiaBoard) -> JSON:
    """The whole position: tiles, holes, stacks bottom to top, each seat's holdings."""
    return {
        "phase": "over" if board.finished else board.phase,
        "turn": board.turns,
        "turn_limit": board.turn_limit,
        "current": board.current,
        "tiles": [_tile(t) for t in sorted(board.tiles)],
        "holes": [_tile(t) for t in sorted(board.shape - board.tiles)],
        "stacks": [
            {
                "tile": _tile(tile),
                "form": stack.form,
                "controller": colour_json(stack.controller),
                "pieces": [
                    {"size": size, "colour": colour_json(colour)} for size, colour in stack.pieces
                ],
            }
            for tile, stack in sorted(board.stacks.items())
        ],
        "players": [
            {
                "seat": seat,
                "reserve": dict(zip(SIZES, player.reserve, strict=True)),
                "neutral_reserve": dict(zip(SIZES, player.neutrals, strict=True)),
                "on_board": board.on_board(seat),
                "kept": player.kept,
                "lost": player.lost,
                "melted": player.melted,
                "score": board.score(seat),
                "ended": player.ended,
            }
            for seat, player in enumerate(board.players)
        ],
    }


def pending_view(board: ArktiaBoard) -> JSON | None:
    """The decision the active player owes before the turn can pass: a tie, then a melt."""
    if board.finished or board.current is None:
        return None
    if board.ties:
        tie = board.ties[0]
        return {
            "type": "keep_group",
            "seat": board.current,
            "colour": colour_json(tie.colour),
            "groups": [[_tile(t) for t in sorted(group)] for group in tie.groups],
            "queued": [colour_json(t.colour) for t in board.ties[1:]],
        }
    if board.melt_owed:
        return {
            "type": "melt",
            "seat": board.current,
            "tiles": [_tile(t) for t in board.meltable()],
        }
    return None
