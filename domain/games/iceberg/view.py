"""Iceberg's board and pending decisions as clients see them.

Everything hidden in Iceberg is hidden from everyone (hands are public counts), so there is
one view for every viewer. A tile shows its value and suit only once face-up: this module is
the only place the secret layout could leak, and it reads ``layout`` for face-up tiles only.
"""

from __future__ import annotations

from domain.engine.types import JSON
from domain.games.iceberg.board import SUITS, IcebergBoard, KeepChoice, RemoveChoice
from domain.games.iceberg.geometry import DEAL_ORDER, HOLE, Tile


def _xy(tile: Tile) -> list[int]:
    return [tile[0], tile[1]]


def _tile(board: IcebergBoard, tile: Tile) -> JSON:
    if tile not in board.present:
        return {"tile": _xy(tile), "state": "removed" if board.phase != "deal" else "face_down"}
    if tile not in board.face_up:
        return {"tile": _xy(tile), "state": "face_down"}
    k = board.layout[tile]
    return {"tile": _xy(tile), "state": "face_up", "value": k % 6, "suit": SUITS[k // 6]}


def board_view(board: IcebergBoard) -> JSON:
    """The whole public position: tiles, coins, each seat's hand and whether it is out."""
    dealt = board.phase != "deal"
    return {
        "phase": board.phase,
        "current": board.current if board.phase in ("start", "play") else None,
        "hole": _xy(HOLE),
        "tiles": [_tile(board, tile) for tile in DEAL_ORDER],
        "coins": [
            {"position": pos.to_json(), "seat": seat, "suit": SUITS[seat]}
            for pos, seat in sorted(board.coins.items())
        ],
        "players": [
            {
                "seat": seat,
                "suit": SUITS[seat],
                "hand": board.hands[seat],
                "on_board": board.on_board(seat),
                "out": dealt and board.is_out(seat),
            }
            for seat in range(board.seats)
        ],
        "awaiting_die": board.rolling,
        "pending": pending_view(board),
        "idle_turns": board.idle,
        "idle_turn_limit": board.idle_limit,
    }


def pending_view(board: IcebergBoard) -> JSON | None:
    """The choice the roller owes: which matching tile goes, or which tied group stays."""
    if board.phase != "play":
        return None
    if isinstance(board.choice, RemoveChoice):
        return {
            "type": "remove_tile",
            "seat": board.current,
            "die": board.choice.die,
            "tiles": [_xy(t) for t in board.choice.tiles],
        }
    if isinstance(board.choice, KeepChoice):
        return {
            "type": "keep_group",
            "seat": board.current,
            "groups": [[_xy(t) for t in sorted(group)] for group in board.choice.groups],
        }
    return None
