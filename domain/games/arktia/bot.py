"""What the generic bots (``domain.ai``) need to know to play Arktia: ``BOT``.

Arktia hides nothing and has no chance (``INFO``), so a search needs no sampled worlds and
may keep the positions it reaches; all it needs is a heuristic and how hard to think.
"""

from __future__ import annotations

from domain.engine.game import BotKit, SearchSettings
from domain.games.arktia.board import ArktiaBoard


def heuristic(board: ArktiaBoard, seat: int) -> float:
    """Points ahead of the best opponent (kept pieces, melted tiles, tiles held), counting
    the empty tiles as points still to be won by whoever is still playing.

    Without that share, a lead looks safe to retire on; but the players still in go on
    melting and capturing alone, and a search with a short horizon cannot see how far.
    """
    playing = [p for p in range(board.seats) if board.players[p].ended is None]
    empty = len(board.tiles) - len(board.stacks)
    share = empty / len(playing) if playing else 0.0

    def outlook(player: int) -> float:
        return board.score(player) + (share if player in playing else 0.0)

    others = [outlook(other) for other in range(board.seats) if other != seat]
    return outlook(seat) - max(others, default=0)


BOT: BotKit[ArktiaBoard] = BotKit(
    heuristic=heuristic,
    # Chosen so a move takes well under a second on one core (``make bench-ai``).
    search=SearchSettings(iterations=4000, scale=3.0),
    sample_world=None,
)
