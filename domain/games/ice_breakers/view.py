"""Ice Breakers' board and pending decisions as clients see them.

Hands are open (the only supported setting), so every viewer sees the same thing. The Ice
Report stack is the one secret: only the exposed forecast card is shown, and the number of
cards still face down; the whole stack only once the game is over.
"""

from __future__ import annotations

from domain.engine.types import JSON
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.cards import Card, Report, card_json
from domain.games.ice_breakers.geometry import CHANNELS, HARBORS, LARGE, Cell


def _xy(cell: Cell) -> list[int]:
    return [cell[0], cell[1]]


def _report(report: Report) -> list[int]:
    return sorted(report)


def _cards(cards: tuple[Card, ...]) -> list[JSON]:
    return [card_json(c) for c in cards]


def board_view(board: IceBreakersBoard) -> JSON:
    """The whole public position."""
    dealt = board.phase in ("play", "over")
    out: JSON = {
        "phase": board.phase,
        "intro": board.intro,
        "current": board.current if board.phase == "play" else None,
        "turns": board.turns,
        "passes_in_a_row": board.passes,
        "channels": [
            {
                "cell": _xy(c),
                "value": board.pieces[c],
                "side": "water" if c in board.water else "ice",
            }
            for c in CHANNELS
            if c in board.pieces
        ],
        "destinations": [
            {
                "destination": dest,
                "harbor": _xy(cell),
                "size": "large" if dest in LARGE else "small",
                "in_play": dest in board.in_play,
                "delivered": dest not in board.in_play or dest in board.delivered,
                "cards": _cards(board.rewards.get(dest, ())),
            }
            for dest, cell in sorted(HARBORS.items())
        ],
        "ships": [
            {
                "ship": ship,
                "cell": _xy(board.ships[ship]) if ship in board.ships else None,
                "delivered": ship in board.delivered,
                "pinned": ship in board.ships and board.pinned(ship),
            }
            for ship in board.in_play
        ],
        "delivered": list(board.delivered),
        "row": _cards(board.row),
        "discard": _cards(board.discard),
        "hands": [{"seat": seat, "cards": _cards(hand)} for seat, hand in enumerate(board.hands)],
        "forecast": _report(board.forecast) if dealt and board.reports else None,
        "reports_face_down": (
            len(board.reports) - 1 - board.report_index if dealt and board.reports else None
        ),
        "turn": {
            "power": card_json(board.power) if board.power else None,
            "boosts": _cards(board.boosts),
            "points": board.points,
            "spent": board.spent,
            "left": board.left,
        },
        "pending": pending_view(board),
    }
    if board.phase == "over" and board.reports:
        out["report_stack"] = [_report(r) for r in board.reports]
    return out


def pending_view(board: IceBreakersBoard) -> JSON | None:
    """Cards waiting to be given out (after a delivery or an AB2), or AB2 draws still owed."""
    if board.phase != "play":
        return None
    if board.draws_left:
        return {"type": "ab2_draw", "seat": board.giver, "draws_left": board.draws_left}
    if board.waiting:
        return {"type": "give", "seat": board.giver, "cards": _cards(board.waiting)}
    return None
