"""The events-per-game cap: how long a game's log may grow when anyone but the organizer
created it.

A game's events stay in Redis while it is played, and an anonymous client could otherwise
grow one game without end. Past ``FLOE_EVENTS_PER_GAME`` events a capped game takes no
action but ``resign`` (409 ``game_too_long``, nothing written); what ends a game is always
taken, so it can still end: a resignation, the service's ``timeout`` events, the
organizer's decisions. The draws a move leaves owed are made too (the game could not go on
or end without them). A bot's move past the cap is a recorded bot failure: the game then
waits for a person to resign, its clock, or the organizer.

Whether a game is capped is fixed at create and kept in its record (``GameMeta.length_capped``:
the organizer's games are not), so the check reads nothing: it compares the length the
action would make with the limit.
"""

from __future__ import annotations

from service.errors import Conflict


def game_too_long(limit: int) -> Conflict:
    """409 ``game_too_long``: nothing but an ending is taken now."""
    return Conflict(
        "game_too_long",
        f"this game reached its length limit of {limit} events (FLOE_EVENTS_PER_GAME) and "
        "takes no other action now: a seat may resign, or the organizer may decide the game",
    )


def check_length(limit: int, length: int) -> None:
    """``game_too_long`` when a capped game's log would be ``length`` events, past ``limit``
    (0: no limit)."""
    if 0 < limit < length:
        raise game_too_long(limit)
