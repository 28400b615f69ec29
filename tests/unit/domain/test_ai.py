"""Bot policies: legal, reproducible, blind to hidden information, and stronger by strength."""

from __future__ import annotations

from typing import Any

import pytest

from domain.ai import POLICIES
from domain.engine import play
from domain.engine.rng import DrawStream
from domain.engine.types import SYSTEM, Event
from domain.games import GAMES
from tests.support.bots import LIGHT, SEED, new_game, play_out


@pytest.mark.parametrize(
    "strength",
    # mcts plays whole games slowly (a minute for Iceberg on a busy machine): make test only.
    [pytest.param(s, marks=pytest.mark.slow) if s == "mcts" else s for s in sorted(POLICIES)],
)
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
