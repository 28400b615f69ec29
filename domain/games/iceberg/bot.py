"""What the generic bots (``domain.ai``) need to know to play Iceberg: ``BOT``.

The face-down tiles are Iceberg's secret, so the sampler deals their values again at random
before a search looks, and the heuristic counts only coins, which everyone sees.
"""

from __future__ import annotations

from domain.engine.game import BotKit, SearchSettings, Shuffler
from domain.engine.values import replaced
from domain.games.iceberg.board import IcebergBoard


def heuristic(board: IcebergBoard, seat: int) -> float:
    """Coins still alive (on the board or in hand), ahead of the best opponent's."""

    def alive(player: int) -> int:
        on_board = sum(1 for owner in board.coins.values() if owner == player)
        return on_board + board.hands[player]

    others = [alive(other) for other in range(board.seats) if other != seat]
    return alive(seat) - max(others, default=0)


def sample_world(board: IcebergBoard, generator: Shuffler) -> IcebergBoard:
    """The ids of tiles not face-up now dealt again at random to the positions not face-up
    now (values shown on face-up tiles stay where they are)."""
    if not board.layout:
        return board
    known = {tile: board.layout[tile] for tile in board.face_up}
    hidden = sorted(tile for tile in board.layout if tile not in known)
    shown = set(known.values())
    pool = sorted(k for k in range(len(board.layout)) if k not in shown)
    generator.shuffle(pool)
    layout = {**known, **dict(zip(hidden, pool, strict=True))}
    return replaced(board, layout=layout)


BOT: BotKit[IcebergBoard] = BotKit(
    heuristic=heuristic,
    # Chosen so a move takes well under a second on one core (``make bench-ai``).
    search=SearchSettings(iterations=300, scale=1.5),
    sample_world=sample_world,
)
