"""The generic random playthrough (after OpenSpiel) every game must pass: seeded games played
from legal actions only, checked at every step. ``tests/unit/domain/test_playthrough.py`` plays
every hosted game through it; the plugin game's tests play theirs.

At every step: the seats to act have legal actions and nobody else does; each chosen action
is accepted by ``decide``; a few other listed actions are accepted by ``check`` too. At the
end: the game ended within its bound, versions have no gaps, and folding the log from
scratch gives the live state. Game-specific invariants (Arktia's conservation of pieces) run
after every event.

One game in four also has seats leave at random moments (a ``resign``, in turn or out of it,
or an organizer's ``forfeit``): a seat that left never acts again, and in a competitive game
it is never among the winners.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from domain.engine import play, rng
from domain.engine.departures import Forfeit
from domain.engine.game import Game
from domain.engine.rules import Rules
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, GameState, SeatInfo
from domain.games.arktia.board import ArktiaBoard, keeps_together
from domain.games.arktia.stacks import NEUTRAL

Invariant = Callable[[GameState[Any], GameState[Any], Event], None]

GAMES_PER_SETUP = 48
SEED = bytes(range(32))  # the draws come from the format's derivation, as in a real game
MAX_STEPS = 5_000


def _arktia_conservation(before: GameState[Any], after: GameState[Any], event: Event) -> None:
    """Pieces are conserved: board + reserve + removed = 9 per colour, 3 per player neutral.

    And every removed piece was kept by someone: the removals balance the captures.
    """
    board: ArktiaBoard = after.board
    for colour, player in enumerate(board.players):
        assert board.on_board(colour) + sum(player.reserve) + player.lost == 9, (colour, event)
    neutral_total = 3 * board.seats if _has_neutrals(after) else 0
    neutral_reserve = sum(sum(p.neutrals) for p in board.players)
    assert board.on_board(NEUTRAL) + neutral_reserve + board.neutral_lost == neutral_total
    removed = sum(p.lost for p in board.players) + board.neutral_lost
    assert removed == sum(p.kept for p in board.players)
    if not board.ties:  # every colour is one group again once the turn's removals are done
        # (but a tie dropped when its chooser left stays unsettled until a move touches it)
        for colour in [c for c in [*range(board.seats), NEUTRAL] if c not in board.unsettled]:
            assert keeps_together(board.stacks, colour), (colour, event)
    old: ArktiaBoard = before.board
    assert all(new.kept >= was.kept for new, was in zip(board.players, old.players, strict=True))


def _has_neutrals(state: GameState[Any]) -> bool:
    seats = len(state.created.seats)
    return seats == 2 or (seats == 3 and bool(state.created.options.get("neutrals_3p")))


INVARIANTS: dict[str, Invariant] = {"arktia": _arktia_conservation}


def _step(
    rules: Rules[Any],
    state: GameState[Any],
    event: Event,
    invariant: Invariant | None,
    log: list[Event],
) -> GameState[Any]:
    after = play.apply(rules, state, event)
    if invariant is not None:
        invariant(state, after, event)
    log.append(event)
    return after


def _created(game: Game[Any], seats: int, options: dict[str, Any]) -> GameCreated:
    return GameCreated(
        game=game.name,
        rules_version=game.rules.rules_version,
        options=options,
        seats=tuple(SeatInfo(i, f"p{i}") for i in range(seats)),
        seed_commitment="0" * 64,
    )


def play_through(
    game: Game[Any], players: int, options: dict[str, Any], games: int = GAMES_PER_SETUP
) -> None:
    """Play ``games`` seeded random games of ``game`` (a bundle, registered or not), with
    every check of this module."""
    for seed in range(games):
        play_one(game, players, options, seed)


def play_one(game: Game[Any], seats: int, options: dict[str, Any], seed: int) -> None:
    """One seeded random game of ``game`` from legal actions only, checked throughout."""
    rules = game.rules
    chooser = random.Random(f"{game.name}/{seats}/{options}/{seed}")
    created = _created(game, seats, options)
    log = [Event(GAME_CREATED, SYSTEM, created.to_json())]
    state = play.fold(rules, f"p{seed}", log)
    invariant = INVARIANTS.get(game.name)
    leaving = seed % 4 == 1
    for _ in range(MAX_STEPS):
        to_act = play.to_act(rules, state)
        for seat in range(seats):
            actions = play.legal_actions(rules, state, seat)
            assert bool(actions) == (seat in to_act), f"seat {seat} at {state.version}"
            assert seat not in state.left or not actions, f"seat {seat} left but may act"
        if state.over:
            break
        draw = rules.pending_draw(state.board)
        if leaving and draw is None and chooser.random() < 0.02:
            for event in _leave(rules, state, chooser):
                state = _step(rules, state, event, invariant, log)
            continue
        if draw is not None:
            assert not to_act, "nobody acts while a draw is pending"
            outcome = rng.draw(
                SEED, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
            )
            for event in play.resolve_draw(rules, state, outcome):
                state = _step(rules, state, event, invariant, log)
            continue
        assert to_act, "a live game always has someone to act"
        seat = chooser.choice(to_act)
        actions = play.legal_actions(rules, state, seat)
        for other in chooser.sample(actions, min(3, len(actions))):
            rules.check(state.board, seat, other)
        # Retiring ends a player's game at once; keep it rare so games run long.
        weights = [0.05 if a.type == "retire" else 1.0 for a in actions]
        action = chooser.choices(actions, weights)[0]
        for event in play.decide(rules, state, seat, action):
            state = _step(rules, state, event, invariant, log)
    else:
        pytest.fail(f"the game did not end within {MAX_STEPS} steps")
    assert state.version == len(log)
    assert play.fold(rules, f"p{seed}", log) == state
    assert state.outcome is not None
    assert set(state.outcome.winners) <= set(range(seats))
    if game.info.play == "competitive":
        assert not set(state.outcome.winners) & set(state.left), "a seat that left won"


def _leave(rules: Rules[Any], state: GameState[Any], chooser: random.Random) -> list[Event]:
    """A seat still in leaves: it resigns (in turn or out of it) or is forfeited."""
    still_in = [s for s in range(len(state.created.seats)) if s not in state.left]
    seat = chooser.choice(still_in)
    if chooser.random() < 0.5:
        return play.decide(rules, state, seat, play.parse_action(rules, {"type": "resign"}))
    forfeit = Forfeit(seat, "the playthrough")
    return play.decide_decision(rules, state, forfeit)[0]
