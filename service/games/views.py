"""What each viewer may see: one place for every route that shows events or state.

Until a game ends no event shown to anyone carries ``hash`` or ``prev_hash`` (they would let
a viewer brute-force a hidden outcome) and secret ``random`` outcomes are masked; after the
end everything is public. The organizer sees what a spectator sees, except in the export.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.engine import play
from domain.engine.log import StoredEvent
from domain.engine.rules import Rules
from domain.engine.types import JSON, RANDOM, GameState


def event_view(
    event: StoredEvent, *, game_over: bool, secret_labels: frozenset[str] = frozenset()
) -> JSON:
    """A stored event as any viewer may see it, given whether the game has ended.

    Before the end: no ``hash`` or ``prev_hash``, and a secret draw (a hidden layout, say)
    shows ``outcome: null`` so versions stay contiguous but nothing leaks.
    """
    shown = event.to_json()
    if not game_over:
        del shown["hash"], shown["prev_hash"]
        if event.type == RANDOM and event.data.get("label") in secret_labels:
            shown["data"] = {**event.data, "outcome": None}
    return shown


def shown_events(
    rules: Rules[Any], events: Iterable[StoredEvent], *, game_over: bool
) -> list[JSON]:
    """Events as every viewer may see them (the game's secret draws masked until the end)."""
    secret = rules.secret_draw_labels
    return [event_view(e, game_over=game_over, secret_labels=secret) for e in events]


def game_view(
    rules: Rules[Any],
    state: GameState[Any],
    seat: int | None,
    *,
    seats: list[JSON],
    revealed_seed: str | None = None,
    bot_failure: JSON | None = None,
) -> JSON:
    """The game at ``state.version`` as ``seat`` (None: spectator) may see it.

    ``revealed_seed`` is set once the game has ended: then every version is public, and an
    earlier version is shown unmasked, with the seed. ``bot_failure``: the bot move that
    failed at this version, if any (public: the bot's seat, its strength and why).
    """
    public = state.over or revealed_seed is not None
    return {
        "id": state.game_id,
        "game": state.created.game,
        "version": state.version,
        "status": play.status(rules, state),
        "to_act": list(play.to_act(rules, state)),
        "pending": None if state.over else rules.pending(state.board),
        "state": rules.view(state.board, None if public else seat),
        "outcome": None if state.outcome is None else state.outcome.to_json(),
        "seats": seats,
        "viewer": seat,
        "seed_commitment": state.created.seed_commitment,
        "seed": state.seed or revealed_seed,
        "bot_failure": bot_failure,
        "clock": None if state.clocks is None else state.clocks.to_json(),
        "left": list(state.left),
    }
