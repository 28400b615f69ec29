"""Bots playing whole games in the domain alone, as the workers would: new games, play-outs,
and the positions of a random game where someone must act."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

from domain.ai import POLICIES, MctsPolicy, PlayoutSettings, Policy, bot_to_move
from domain.engine import play, rng
from domain.engine.rng import DrawStream
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, GameState, SeatInfo
from domain.games import GAMES

SEED = bytes(range(32))


def new_game(
    game: str, seats: int, game_id: str, bots: list[str] | None = None, **options: Any
) -> GameState[Any]:
    """A new game; ``bots`` names each seat's strength (no bots: the domain plays alone)."""
    rules = GAMES[game].rules
    strengths: list[str | None] = list(bots) if bots else [None] * seats
    created = GameCreated(
        game,
        rules.rules_version,
        options,
        tuple(SeatInfo(i, f"p{i}", strengths[i]) for i in range(seats)),
        "0" * 64,
    )
    return play.fold(rules, game_id, [Event(GAME_CREATED, SYSTEM, created.to_json())])


#: ``mcts`` at a fraction of its strength: the same code paths, for legality checks that
#: need not wait for full-strength thinking (``make bench-ai`` measures the real thing).
LIGHT: Mapping[str, Policy] = {
    **POLICIES,
    "mcts": MctsPolicy(iterations=60, playouts=PlayoutSettings(playouts=2)),
}


def play_out(
    state: GameState[Any],
    strengths: list[str],
    seed: bytes = SEED,
    policies: Mapping[str, Policy] = POLICIES,
) -> GameState[Any]:
    """Play a whole game with bots in every seat, as the workers would."""
    game = GAMES[state.created.game]
    rules = game.rules
    for _ in range(20_000):
        if state.over:
            return state
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = rng.draw(
                seed, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
            )
            for event in play.resolve_draw(rules, state, outcome):
                state = play.apply(rules, state, event)
            continue
        seat = bot_to_move(game, state)
        assert seat is not None, "a game of bots waits for no bot"
        stream = DrawStream(seed, state.game_id, state.version + 1, f"bot-{seat}")
        action = policies[strengths[seat]].choose(game, state, seat, stream)
        assert action in play.legal_actions(rules, state, seat)
        for event in play.decide(rules, state, seat, action):
            state = play.apply(rules, state, event)
    raise AssertionError("the bots' game did not end")


def positions(
    game: str, seats: int, game_id: str, overrides: Mapping[str, Any] | None = None, **options: Any
) -> Iterator[GameState[Any]]:
    """Every position of a random game where a seat must act; ``overrides`` replaces the
    outcome of the setup draws with those labels (a different hidden deal)."""
    rules = GAMES[game].rules
    state = new_game(game, seats, game_id, **options)
    chooser = random.Random(7)
    while not state.over:
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = (overrides or {}).get(draw.label)
            if outcome is None:
                outcome = rng.draw(
                    SEED, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
                )
            state = play.resolve_draw_step(rules, state, outcome)[1]
            continue
        yield state
        seat = play.to_act(rules, state)[0]
        actions = play.legal_actions(rules, state, seat)
        state = play.step(rules, state, seat, chooser.choice(actions))[1]
