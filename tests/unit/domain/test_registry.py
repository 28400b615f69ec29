"""Games are bundles: the registry hosts them by name, plugins join it, and nothing outside a
game's package (the bots, the engine, the pictures, replay) needs to know any of them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from domain.ai import POLICIES, MctsPolicy, PlayoutSettings, bot_to_move
from domain.ai import policy as policy_module
from domain.engine.game import Game
from domain.engine.rng import DrawStream
from domain.games import GAMES, load_game_module, register
from tests.support.bots import SEED, new_game, play_out

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = "tests.support.pig"


@pytest.fixture
def registry() -> Iterator[dict[str, Game[Any]]]:
    """``GAMES``, restored afterwards: registering is global, tests must not leak it."""
    saved = dict(GAMES)
    try:
        yield GAMES
    finally:
        GAMES.clear()
        GAMES.update(saved)


def test_every_hosted_game_is_a_bundle_under_its_rules_name() -> None:
    assert GAMES
    for name, game in GAMES.items():
        assert isinstance(game, Game)
        assert game.name == game.rules.name == name
        assert game.bot.search.iterations > 0


def test_loading_a_plugin_module_registers_its_bundle(registry: dict[str, Game[Any]]) -> None:
    from tests.support.pig import GAME

    assert GAME.name not in registry
    assert load_game_module(PLUGIN) is GAME
    assert registry[GAME.name] is GAME
    assert load_game_module(PLUGIN) is GAME  # loading again is harmless


def test_registering_the_same_bundle_twice_is_a_no_op(registry: dict[str, Game[Any]]) -> None:
    game = registry["arktia"]
    register(game)
    assert registry["arktia"] is game


def test_another_bundle_cannot_take_a_name(registry: dict[str, Game[Any]]) -> None:
    hosted = registry["iceberg"]
    impostor = replace(hosted, text=registry["arktia"].text)
    with pytest.raises(ValueError, match="iceberg"):
        register(impostor)
    assert registry["iceberg"] is hosted


def test_a_module_without_a_bundle_is_refused(registry: dict[str, Game[Any]]) -> None:
    before = dict(registry)
    with pytest.raises(ValueError, match="GAME"):
        load_game_module("domain.engine.play")
    assert registry == before


@pytest.mark.parametrize("strength", sorted(POLICIES))
def test_the_bots_play_a_plugin_game_they_have_never_heard_of(
    registry: dict[str, Game[Any]], strength: str
) -> None:
    game = load_game_module(PLUGIN)
    seats = 3
    strengths = [strength] * seats
    state = new_game(game.name, seats, f"pig-{strength}", strengths)
    light = {**POLICIES, "mcts": MctsPolicy(iterations=30, playouts=PlayoutSettings(2))}
    final = play_out(state, strengths, policies=light)
    assert final.over and final.outcome is not None
    assert bot_to_move(game, final) is None


def test_mcts_thinks_as_hard_as_the_game_says_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``MctsPolicy()`` uses each game's own search settings; ``iterations`` overrides only
    the iteration count."""
    seen: list[Any] = []

    class Spy:
        def __init__(self, game: Game[Any], settings: Any, *rest: Any) -> None:
            seen.append(settings)

        def choose(self, state: Any, seat: int) -> Any:
            return None

    monkeypatch.setattr(policy_module, "Search", Spy)
    game = GAMES["iceberg"]
    state = new_game("iceberg", 2, "spy")
    stream = DrawStream(SEED, "spy", 2, "bot-0")
    MctsPolicy().choose(game, state, 0, stream)
    MctsPolicy(iterations=7).choose(game, state, 0, stream)
    assert seen == [game.bot.search, replace(game.bot.search, iterations=7)]
