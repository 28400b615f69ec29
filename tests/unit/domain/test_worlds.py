"""Determinization: what a search bot plans on holds nothing its seat may not see.

``rules.view`` is the definition of what a seat may see. A sampled world must look exactly
the same through it as the true state, to every seat and to spectators; and two games that
differ only in hidden information must give the bot the very same sampled world.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.ai.generator import SplitMix64
from domain.ai.worlds import sample_world
from domain.engine import play
from domain.engine.rng import DrawStream
from domain.games import GAMES
from tests.support.bots import LIGHT, SEED, positions

CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("iceberg", 2, {}),
    ("iceberg", 4, {}),
    ("ice-breakers", 3, {}),
    ("arktia", 2, {}),
]


@pytest.mark.parametrize(("game", "seats", "options"), CASES)
def test_every_viewer_sees_the_sampled_world_as_the_true_one(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    bundle = GAMES[game]
    rules = bundle.rules
    generator = SplitMix64(1)
    checked = 0
    for state in positions(game, seats, f"views-{game}", **options):
        world = sample_world(bundle, state, generator)
        for viewer in (*range(seats), None):
            assert rules.view(world.board, viewer) == rules.view(state.board, viewer)
        assert play.legal_actions(rules, world, play.to_act(rules, state)[0]) == (
            play.legal_actions(rules, state, play.to_act(rules, state)[0])
        )
        checked += 1
    assert checked > 20


@pytest.mark.parametrize(
    ("game", "seats", "deals"),
    [
        ("iceberg", 3, ({"tiles": list(range(24))}, {"tiles": list(reversed(range(24)))})),
        (
            "ice-breakers",
            2,
            # The same first (exposed) report; every later one differs.
            (
                {"reports_upper": list(range(13)), "reports_lower": [0, 1, 2, 3, 4]},
                {"reports_upper": [0, *range(12, 0, -1)], "reports_lower": [4, 3, 2, 1, 0]},
            ),
        ),
    ],
)
def test_games_differing_only_in_secrets_give_the_same_sampled_worlds(
    game: str, seats: int, deals: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    """The bot's world is a function of the public state and its own generator alone."""
    # The same random actions in both games, as long as their public states agree.
    truth = positions(game, seats, "twins", deals[0])
    twin = positions(game, seats, "twins", deals[1])
    bundle = GAMES[game]
    rules = bundle.rules
    compared = 0
    for real, other in zip(truth, twin, strict=False):
        if rules.view(real.board, None) != rules.view(other.board, None):
            break  # a secret came out (a tile flipped, a report exposed): the twins part
        assert real.board != other.board, "the twins must differ in a secret"
        for seed in range(3):
            mine = sample_world(bundle, real, SplitMix64(seed))
            theirs = sample_world(bundle, other, SplitMix64(seed))
            assert mine.board == theirs.board
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize(("game", "seats"), [("iceberg", 2), ("ice-breakers", 2)])
def test_samples_really_are_guesses(game: str, seats: int) -> None:
    """Not the truth handed through: different generators guess different secrets."""
    state = next(s for s in positions(game, seats, "guess") if s.version > 8)
    bundle = GAMES[game]
    boards = {repr(sample_world(bundle, state, SplitMix64(seed)).board) for seed in range(8)}
    assert len(boards) > 1


@pytest.mark.slow
def test_bots_cannot_tell_hidden_ice_report_orders_apart() -> None:
    """Every strength makes the same choices in two games whose unexposed reports differ."""
    deals = (
        {"reports_upper": list(range(13)), "reports_lower": [0, 1, 2, 3, 4]},
        {"reports_upper": [0, *range(12, 0, -1)], "reports_lower": [4, 3, 2, 1, 0]},
    )
    game = GAMES["ice-breakers"]
    rules = game.rules
    twins = zip(
        positions("ice-breakers", 3, "blind", deals[0]),
        positions("ice-breakers", 3, "blind", deals[1]),
        strict=False,
    )
    compared = 0
    for real, other in twins:
        if rules.view(real.board, None) != rules.view(other.board, None):
            break
        seat = play.to_act(rules, real)[0]
        for name, policy in LIGHT.items():
            picks = [
                policy.choose(game, s, seat, DrawStream(SEED, "blind", s.version + 1, "bot-0"))
                for s in (real, other)
            ]
            assert picks[0] == picks[1], name
        compared += 1
    assert compared >= 3


def test_a_game_that_hides_nothing_is_its_own_world() -> None:
    """No sampler (Arktia): the world is the very state, and the generator is not touched."""
    bundle = GAMES["arktia"]
    assert bundle.bot.sample_world is None
    state = next(positions("arktia", 2, "own-world"))
    generator = SplitMix64(3)
    assert sample_world(bundle, state, generator) is state
    assert generator.next64() == SplitMix64(3).next64()
