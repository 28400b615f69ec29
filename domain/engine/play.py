"""Deciding and folding, the same way for every game.

``decide`` turns a command into the events to append; ``apply`` folds one stored event into
the state. Guards run in one fixed, documented order so every game refuses alike:

1. the game is over                       -> NotAllowed ``game_over``
2. a random draw is pending               -> NotAllowed ``awaiting_random``
3. a clock ran out (the time is known)    -> TimeoutDue, naming every seat whose timeout is
                                             due; the caller records them first
4. the seat has left the game             -> NotAllowed ``seat_left``
5. ``resign``: nothing more; any other action:
   the seat is not among those to act     -> NotAllowed ``not_your_turn``
6. the game's own rules (pending decisions first) -> IllegalAction with the game's code

``at`` is a stored event's time (``2026-11-27T18:00:05Z``). The service passes the time it
will store, the audit the time it reads; a bot's search passes none, and then clocks are
neither checked nor advanced (``domain.engine.clock``).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from domain.engine import departures
from domain.engine.canonical import canonical_json
from domain.engine.clock import Clocks, epoch_seconds
from domain.engine.departures import (
    RESIGN,
    Forfeit,
    LeaveReason,
    OrganizerDecision,
    Resign,
    Result,
)
from domain.engine.errors import IllegalAction, NotAllowed, TimeoutDue
from domain.engine.rules import Action, Rules
from domain.engine.status import GameStatus
from domain.engine.types import (
    DECISION,
    GAME_CREATED,
    GAME_OVER,
    JSON,
    RANDOM,
    SEED_REVEALED,
    SYSTEM,
    TIMEOUT,
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


def new_game(
    rules: Rules[Any], game_id: str, created: GameCreated, at: str | None = None
) -> GameState[Any]:
    """The state at version 1, right after ``game_created`` (stored at ``at``, which a game
    with a clock needs: its first turns start then)."""
    state: GameState[Any] = GameState(
        game_id=game_id, version=1, created=created, board=rules.initial_board(created)
    )
    if created.clock is None:
        return state
    if at is None:
        raise ValueError(f"game {game_id} has a clock: its creation time is needed")
    clocks = Clocks.start(
        created.clock, len(created.seats), epoch_seconds(at), to_act(rules, state)
    )
    return _replace(state, 1, clocks=clocks)


def parse_action(rules: Rules[Any], data: Mapping[str, Any]) -> Action:
    """The action a JSON object names: ``resign``, which every game has, or one of the
    game's own (``MalformedAction`` when it fits no schema)."""
    if data.get("type") == RESIGN:
        return Resign.parse(data)
    return rules.parse_action(data)


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


def legal_actions_json(
    rules: Rules[Any], state: GameState[Any], seat: int, *, encode: ActionKey = canonical_bytes
) -> list[JSON]:
    """``legal_actions`` as the API sends them: each action's JSON, in the same order.

    Each action is written once, and its JSON sorted by ``encode``: asking ``legal_actions``
    and then writing each action wrote every one twice (live play lists them after every
    event)."""
    if seat not in to_act(rules, state):
        return []
    return sorted((a.to_json() for a in rules.legal_actions(state.board, seat)), key=encode)


def decide(
    rules: Rules[Any], state: GameState[Any], seat: int, action: Action, at: str | None = None
) -> list[Event]:
    """The events ``seat`` taking ``action`` at ``at`` appends, or a ``GameError`` saying
    why not.

    The action is one event; when it ends the game a ``game_over`` event follows it (the
    service then adds ``seed_revealed``, since only it holds the seed).
    """
    return step(rules, state, seat, action, at)[0]


def step(
    rules: Rules[Any],
    state: GameState[Any],
    seat: int,
    action: Action,
    at: str | None = None,
    *,
    signature: str | None = None,
) -> tuple[list[Event], GameState[Any]]:
    """``decide``, and the state after its events: deciding folds them anyway, so a caller
    that needs the new state does not fold them twice. A keyed seat's ``signature``
    (checked by the caller: ``domain.engine.signing``) is recorded beside the action."""
    _check_live(rules, state, at)
    if seat in state.left:
        raise NotAllowed("seat_left", f"seat {seat} has left the game")
    if not isinstance(action, Resign):
        if seat not in rules.to_act(state.board):
            raise NotAllowed("not_your_turn", f"seat {seat} may not act now")
        rules.check(state.board, seat, action)
    data: JSON = {"action": action.to_json()}
    if signature is not None:
        data["signature"] = signature
    event = Event(type=action.type, actor=seat, data=data)
    return _with_outcome(rules, state, event, at)


def _check_live(rules: Rules[Any], state: GameState[Any], at: str | None) -> None:
    """Guards 1 to 3, which every event but a timeout passes alike."""
    if state.over:
        raise NotAllowed("game_over", "the game is over")
    if rules.pending_draw(state.board) is not None:
        raise NotAllowed("awaiting_random", "the game is waiting for a random draw")
    if at is not None and state.clocks is not None:
        due = state.clocks.overdue(epoch_seconds(at))
        if due:
            raise TimeoutDue(due)


def time_out(
    rules: Rules[Any], state: GameState[Any], seat: int, at: str
) -> tuple[list[Event], GameState[Any]]:
    """The ``timeout`` of ``seat`` at ``at`` (and ``game_over`` if it ends the game), and the
    state after them; ``IllegalAction`` ``timeout_not_due`` unless the seat is to act and its
    deadline has passed by ``at``."""
    if state.over or state.clocks is None or seat not in state.clocks.overdue(epoch_seconds(at)):
        raise IllegalAction("timeout_not_due", f"seat {seat} has time left at {at}")
    event = Event(type=TIMEOUT, actor=SYSTEM, data={"seat": seat})
    return _with_outcome(rules, state, event, at)


def decide_decision(
    rules: Rules[Any], state: GameState[Any], decision: OrganizerDecision, at: str | None = None
) -> tuple[list[Event], GameState[Any]]:
    """An organizer's decision at ``at``: its ``decision`` event (and ``game_over`` when the
    game ends), and the state after them. Refused like an action (guards 1 to 3), and
    with ``unknown_seat`` or ``already_left`` for a seat it cannot name."""
    _check_live(rules, state, at)
    departures.check_seats(decision, len(state.created.seats))
    if isinstance(decision, Forfeit) and decision.seat in state.left:
        raise IllegalAction("already_left", f"seat {decision.seat} has left the game already")
    event = Event(type=DECISION, actor=SYSTEM, data=decision.to_json())
    if isinstance(decision, Forfeit):
        return _with_outcome(rules, state, event, at)
    after = apply(rules, state, event, at)
    ended = game_over_event(Outcome(winners=decision.winners, scores={}))
    return [event, ended], apply(rules, after, ended, at)


def _with_outcome(
    rules: Rules[Any], state: GameState[Any], event: Event, at: str | None = None
) -> tuple[list[Event], GameState[Any]]:
    after = apply(rules, state, event, at)
    outcome = rules.outcome(after.board) or _last_seat_standing(rules, after)
    if outcome is None:
        return [event], after
    ended = game_over_event(outcome)
    return [event, ended], apply(rules, after, ended, at)


def _last_seat_standing(rules: Rules[Any], state: GameState[Any]) -> Outcome | None:
    """A competitive game with one seat left in ends: that seat wins (``scores`` ``{}``)."""
    if not state.left or rules.info.play != "competitive":
        return None
    still_in = [s for s in range(len(state.created.seats)) if s not in state.left]
    if len(still_in) != 1:
        return None
    return Outcome(winners=(still_in[0],), scores={})


def resolve_draw(rules: Rules[Any], state: GameState[Any], outcome: int | list[int]) -> list[Event]:
    """The events that record the pending draw's ``outcome`` (and end the game, if it does).

    The outcome itself comes from ``rng.draw`` with the seed, in the worker: the domain only
    says which draw it waits for and folds what was drawn.
    """
    return resolve_draw_step(rules, state, outcome)[0]


def resolve_draw_step(
    rules: Rules[Any], state: GameState[Any], outcome: int | list[int], at: str | None = None
) -> tuple[list[Event], GameState[Any]]:
    """``resolve_draw``, and the state after its events (recorded at ``at``)."""
    draw = rules.pending_draw(state.board)
    if state.over or draw is None:
        raise ValueError(f"game {state.game_id} awaits no draw at version {state.version}")
    data = {"label": draw.label, "kind": draw.kind, "n": draw.n, "outcome": outcome}
    return _with_outcome(rules, state, Event(type=RANDOM, actor=SYSTEM, data=data), at)


def game_over_event(outcome: Outcome) -> Event:
    return Event(type=GAME_OVER, actor=SYSTEM, data=outcome.to_json())


def apply(
    rules: Rules[Any], state: GameState[Any], event: Event, at: str | None = None
) -> GameState[Any]:
    """The state after one more stored event, stored at ``at``. Trusts the log: never
    validates."""
    version = state.version + 1
    kind = event.type
    if kind == GAME_OVER:
        after = _replace(state, version, outcome=Outcome.from_json(event.data))
    elif kind == SEED_REVEALED:
        after = _replace(state, version, seed=str(event.data["seed"]))
    elif kind in _LEAVING:
        after = _leave(rules, state, version, event)
    else:
        board = rules.evolve(state.board, event)  # the hot path of every fold: no dict detour
        after = GameState(
            state.game_id,
            version,
            state.created,
            board,
            state.outcome,
            state.seed,
            state.clocks,
            state.left,
        )
    if state.clocks is None or at is None:
        return after
    actor = event.actor if isinstance(event.actor, int) else None
    clocks = state.clocks.after(epoch_seconds(at), actor, to_act(rules, after))
    return _replace(after, version, clocks=clocks)


#: The event types that may take a seat out of the game.
_LEAVING = frozenset({RESIGN, TIMEOUT, DECISION})
#: The event types that change more of the state than the board and the version.
_NOT_BOARD_ONLY = _LEAVING | {GAME_OVER, SEED_REVEALED}


def _leave(rules: Rules[Any], state: GameState[Any], version: int, event: Event) -> GameState[Any]:
    """A ``resign``, ``timeout`` or ``decision`` folded: the seat it takes out leaves (as the
    game's rules say); a ``result`` changes nothing until its ``game_over``."""
    reason: LeaveReason = "resigned"
    if event.type == RESIGN:
        seat = int(str(event.actor))
    elif event.type == TIMEOUT:
        seat, reason = int(event.data["seat"]), "timed_out"
    else:
        decision = departures.decision_from_json(event.data)
        if isinstance(decision, Result):
            return _replace(state, version)
        seat = decision.seat
    board = rules.leave(state.board, seat, reason)
    return _replace(state, version, board=board, left=(*state.left, seat))


def fold(rules: Rules[Any], game_id: str, events: Iterable[Event]) -> GameState[Any]:
    """The state after all ``events``, the first of which must be ``game_created``; a game
    with a clock needs ``fold_timed``.

    Most events change the board alone (``apply`` then makes a ``GameState`` for each just
    to replace its board): each run of them is folded into the board at once, by the game's
    ``evolve_all`` where it has one, which may fold a run faster than event by event.
    """
    iterator = iter(events)
    first = next(iterator)
    if first.type != GAME_CREATED:
        raise ValueError(f"a game's first event is game_created, not {first.type}")
    return fold_onto(rules, new_game(rules, game_id, GameCreated.from_json(first.data)), iterator)


def fold_onto(rules: Rules[Any], state: GameState[Any], events: Iterable[Event]) -> GameState[Any]:
    """``fold`` from ``state`` on: the state after ``events`` past it, as ``apply`` makes it
    event by event. Clocks are not run: a game with a clock needs ``apply`` with each time."""
    for board_only, run in itertools.groupby(events, _changes_the_board_alone):
        if board_only:
            # Counted as they go by (``zip`` stops at the end of ``run`` before taking a
            # number), not listed: no event need outlive its turn.
            counter = itertools.count()
            counted = map(operator.itemgetter(0), zip(run, counter, strict=False))
            board = _evolve_all(rules, state.board, counted)
            state = _replace(state, state.version + next(counter), board=board)
        else:
            for event in run:
                state = apply(rules, state, event)
    return state


def _changes_the_board_alone(event: Event) -> bool:
    return event.type not in _NOT_BOARD_ONLY


def _evolve_all(rules: Rules[Any], board: Any, events: Iterable[Event]) -> Any:
    """``rules.evolve`` over ``events`` in turn, or the rules' own ``evolve_all`` where they
    have one (it reaches the same board faster, and takes every event: ``fold`` counts them
    as they go)."""
    evolve_all = getattr(rules, "evolve_all", None)
    if evolve_all is not None:
        return evolve_all(board, events)
    for event in events:
        board = rules.evolve(board, event)
    return board


def fold_timed(
    rules: Rules[Any], game_id: str, events: Iterable[tuple[Event, str]]
) -> GameState[Any]:
    """``fold`` over events with the times they were stored at, so clocks run too."""
    iterator = iter(events)
    first, at = next(iterator)
    if first.type != GAME_CREATED:
        raise ValueError(f"a game's first event is game_created, not {first.type}")
    state = new_game(rules, game_id, GameCreated.from_json(first.data), at)
    for event, at in iterator:
        state = apply(rules, state, event, at)
    return state


def _replace(state: GameState[Any], version: int, **changes: Any) -> GameState[Any]:
    fields = {
        "game_id": state.game_id,
        "version": version,
        "created": state.created,
        "board": state.board,
        "outcome": state.outcome,
        "seed": state.seed,
        "clocks": state.clocks,
        "left": state.left,
    }
    fields.update(changes)
    return GameState(**fields)
