"""Bot policies: legal, reproducible, blind to hidden information, and stronger by strength."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

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


@pytest.mark.parametrize("strength", sorted(POLICIES))
@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("arktia", 2, {}),
        ("arktia", 4, {}),
        ("iceberg", 3, {}),
        ("ice-breakers", 2, {"intro": True}),
        ("ice-breakers", 3, {}),
    ],
)
def test_bots_only_play_legal_actions_and_finish(
    game: str, seats: int, options: dict[str, Any], strength: str
) -> None:
    strengths = [strength] * seats
    state = new_game(game, seats, f"{game}-{strength}", strengths, **options)
    final = play_out(state, strengths, policies=LIGHT)
    assert final.over and final.outcome is not None


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [("arktia", 2, {}), ("ice-breakers", 3, {})],
)
def test_full_strength_mcts_plays_a_legal_game(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    strengths = ["mcts"] * seats
    final = play_out(new_game(game, seats, f"{game}-full", strengths, **options), strengths)
    assert final.over and final.outcome is not None


def test_mcts_beats_greedy_at_arktia() -> None:
    """Deterministic games, so this is a fixed fact of the code, not a flaky sample."""
    wins = 0.0
    for index in range(2):
        strengths = ["greedy", "mcts"] if index % 2 else ["mcts", "greedy"]
        final = play_out(new_game("arktia", 2, f"mcts-duel-{index}", strengths), strengths)
        assert final.outcome is not None
        wins += final.outcome.winners == (strengths.index("mcts"),)
    assert wins == 2, f"mcts beat greedy in only {wins} of 2 (one game in each seat)"


def test_a_bots_move_is_reproducible() -> None:
    state = new_game("arktia", 2, "same")
    game = GAMES["arktia"]
    for name, policy in POLICIES.items():
        picks = {
            policy.choose(game, state, 0, DrawStream(SEED, "same", 2, "bot-0")) for _ in range(3)
        }
        assert len(picks) == 1, name
    other = DrawStream(bytes(32), "same", 2, "bot-0")
    legal = play.legal_actions(game.rules, state, 0)
    assert POLICIES["random"].choose(game, state, 0, other) in legal


def test_bots_cannot_tell_hidden_iceberg_layouts_apart() -> None:
    """Two deals that differ only in hidden values give every policy the same choices."""
    game = GAMES["iceberg"]
    rules = game.rules
    states = []
    for layout in (list(range(24)), list(reversed(range(24)))):
        state = new_game("iceberg", 2, "blind")
        deal = Event(
            "random", SYSTEM, {"label": "tiles", "kind": "shuffle", "n": 24, "outcome": layout}
        )
        states.append(play.apply(rules, state, deal))
    for seat, square in ((0, [3, 3]), (1, [6, 6])):
        action = rules.parse_action({"type": "place_start", "square": square})
        states = [play.apply(rules, s, play.decide(rules, s, seat, action)[0]) for s in states]
    for name, policy in POLICIES.items():
        picks = [
            policy.choose(game, s, 0, DrawStream(SEED, "blind", s.version + 1, "bot-0")).to_json()
            for s in states
        ]
        assert picks[0] == picks[1], name


def test_greedy_beats_random_at_arktia() -> None:
    wins = 0
    games = 20
    for index in range(games):
        greedy_seat = index % 2
        strengths = ["random", "random"]
        strengths[greedy_seat] = "greedy"
        final = play_out(new_game("arktia", 2, f"duel-{index}", strengths), strengths)
        assert final.outcome is not None
        wins += final.outcome.winners == (greedy_seat,)
    assert wins >= 0.8 * games, f"greedy won only {wins} of {games}"
