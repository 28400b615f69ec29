"""Deciding and folding, the same way for every game.

``decide`` turns a command into the events to append; ``apply`` folds one stored event into
the state. Guards run in one fixed, documented order so every game refuses alike:

1. the game is over                       -> NotAllowed ``game_over``
2. a random draw is pending               -> NotAllowed ``awaiting_random``
3. the seat is not among those to act     -> NotAllowed ``not_your_turn``
4. the game's own rules (pending decisions first) -> IllegalAction with the game's code
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.engine.canonical import canonical_json
from domain.engine.errors import NotAllowed
from domain.engine.rules import Action, Rules
from domain.engine.status import GameStatus
from domain.engine.types import (
    GAME_CREATED,
    GAME_OVER,
    JSON,
    RANDOM,
    SEED_REVEALED,
    SYSTEM,
    Event,
    GameCreated,
    GameState,
    Outcome,
)

#: An action's canonical JSON as UTF-8 bytes: legal actions are listed in this order (UTF-8
#: keeps code point order, so it is the canonical text's order). The service hands in a
#: faster encoder that writes the same bytes; the default needs only the standard library.
ActionKey = Callable[[JSON], bytes]


def canonical_bytes(value: JSON) -> bytes:
    """``value``'s canonical JSON (``canonical.canonical_json``) as UTF-8."""
    return canonical_json(value).encode()


def new_game(rules: Rules[Any], game_id: str, created: GameCreated) -> GameState[Any]:
    """The state at version 1, right after ``game_created``."""
    return GameState(
        game_id=game_id, version=1, created=created, board=rules.initial_board(created)
    )


def to_act(rules: Rules[Any], state: GameState[Any]) -> tuple[int, ...]:
    """Seats that may act now: none once the game is over or while a draw is pending."""
    if state.over or rules.pending_draw(state.board) is not None:
        return ()
    return rules.to_act(state.board)


def status(rules: Rules[Any], state: GameState[Any]) -> GameStatus:
    """Where the game stands at ``state``, as the API reports it."""
    if state.over:
        return GameStatus.OVER
    if rules.pending_draw(state.board) is not None:
        return GameStatus.AWAITING_RANDOM
    return GameStatus.ACTIVE


def legal_actions(
    rules: Rules[Any], state: GameState[Any], seat: int, *, encode: ActionKey = canonical_bytes
) -> list[Action]:
    """Every action ``seat`` may post now, in a stable order (by their canonical JSON, which
    ``encode`` writes)."""
    if seat not in to_act(rules, state):
        return []
    return sorted(rules.legal_actions(state.board, seat), key=lambda a: encode(a.to_json()))


def decide(rules: Rules[Any], state: GameState[Any], seat: int, action: Action) -> list[Event]:
    """The events ``seat`` taking ``action`` appends, or a ``GameError`` saying why not.

    The action is one event; when it ends the game a ``game_over`` event follows it (the
    service then adds ``seed_revealed``, since only it holds the seed).
    """
    return step(rules, state, seat, action)[0]


def step(
    rules: Rules[Any], state: GameState[Any], seat: int, action: Action
) -> tuple[list[Event], GameState[Any]]:
    """``decide``, and the state after its events: deciding folds them anyway, so a caller
    that needs the new state does not fold them twice."""
    if state.over:
        raise NotAllowed("game_over", "the game is over")
    if rules.pending_draw(state.board) is not None:
        raise NotAllowed("awaiting_random", "the game is waiting for a random draw")
    if seat not in rules.to_act(state.board):
        raise NotAllowed("not_your_turn", f"seat {seat} may not act now")
    rules.check(state.board, seat, action)
    event = Event(type=action.type, actor=seat, data={"action": action.to_json()})
    return _with_outcome(rules, state, event)


def _with_outcome(
    rules: Rules[Any], state: GameState[Any], event: Event
) -> tuple[list[Event], GameState[Any]]:
    after = apply(rules, state, event)
    outcome = rules.outcome(after.board)
    if outcome is None:
        return [event], after
    ended = game_over_event(outcome)
    return [event, ended], apply(rules, after, ended)


def resolve_draw(rules: Rules[Any], state: GameState[Any], outcome: int | list[int]) -> list[Event]:
    """The events that record the pending draw's ``outcome`` (and end the game, if it does).

    The outcome itself comes from ``rng.draw`` with the seed, in the worker: the domain only
    says which draw it waits for and folds what was drawn.
    """
    return resolve_draw_step(rules, state, outcome)[0]


def resolve_draw_step(
    rules: Rules[Any], state: GameState[Any], outcome: int | list[int]
) -> tuple[list[Event], GameState[Any]]:
    """``resolve_draw``, and the state after its events."""
    draw = rules.pending_draw(state.board)
    if state.over or draw is None:
        raise ValueError(f"game {state.game_id} awaits no draw at version {state.version}")
    data = {"label": draw.label, "kind": draw.kind, "n": draw.n, "outcome": outcome}
    return _with_outcome(rules, state, Event(type=RANDOM, actor=SYSTEM, data=data))


def game_over_event(outcome: Outcome) -> Event:
    return Event(type=GAME_OVER, actor=SYSTEM, data=outcome.to_json())


def apply(rules: Rules[Any], state: GameState[Any], event: Event) -> GameState[Any]:
    """The state after one more stored event. Trusts the log: never validates."""
    version = state.version + 1
    if event.type == GAME_OVER:
        return _replace(state, version, outcome=Outcome.from_json(event.data))
    if event.type == SEED_REVEALED:
        return _replace(state, version, seed=str(event.data["seed"]))
    board = rules.evolve(state.board, event)  # the hot path of every fold: no dict detour
    return GameState(state.game_id, version, state.created, board, state.outcome, state.seed)


def fold(rules: Rules[Any], game_id: str, events: Iterable[Event]) -> GameState[Any]:
    """The state after all ``events``, the first of which must be ``game_created``."""
    iterator = iter(events)
    first = next(iterator)
    if first.type != GAME_CREATED:
        raise ValueError(f"a game's first event is game_created, not {first.type}")
    state = new_game(rules, game_id, GameCreated.from_json(first.data))
    for event in iterator:
        state = apply(rules, state, event)
    return state


def _replace(state: GameState[Any], version: int, **changes: Any) -> GameState[Any]:
    fields = {
        "game_id": state.game_id,
        "version": version,
        "created": state.created,
        "board": state.board,
        "outcome": state.outcome,
        "seed": state.seed,
    }
    fields.update(changes)
    return GameState(**fields)
