"""Where a game stands, in the one word the API, the store and the workers use."""

from __future__ import annotations

from enum import StrEnum


class GameStatus(StrEnum):
    """A game is ``active`` (someone may act), ``awaiting_random`` (nobody may act until a
    worker records the draw it waits for) or ``over``. A ``StrEnum``: each member is its
    wire word, so it is stored and served as is."""

    ACTIVE = "active"
    AWAITING_RANDOM = "awaiting_random"
    OVER = "over"
