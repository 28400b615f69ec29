"""One generic random playthrough that every game must pass (after OpenSpiel).

Hundreds of seeded games are played from legal actions only. At every step: the seats to act
have legal actions and nobody else does; each chosen action is accepted by ``decide``; a few
other listed actions are accepted by ``check`` too. At the end: the game ended within its
bound, versions have no gaps, and folding the log from scratch gives the live state.
Game-specific invariants (Arktia's conservation of pieces) run after every event.

Every game in the registry is played, so a newly registered game is covered at once:
``SETUPS`` lists the setups worth playing for the games that have options, and a game
without an entry is played at each player count it allows, with no options.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.engine.game import Game
from domain.games import GAMES
from tests.support.playthrough import GAMES_PER_SETUP, play_one, play_through

Setup = tuple[int, dict[str, Any]]

#: Setups to play, for games whose options deserve their own games (by wire name).
SETUPS: dict[str, list[Setup]] = {
    "arktia": [
        (2, {}),
        (3, {}),
        (3, {"neutrals_3p": True}),
        (4, {}),
        (2, {"turn_limit": 40}),
    ],
    "iceberg": [(2, {}), (3, {}), (4, {}), (2, {"idle_turn_limit": 5})],
    "ice-breakers": [(2, {}), (3, {}), (4, {}), (2, {"intro": True}), (4, {"intro": True})],
}


def _setups(game: Game[Any]) -> list[Setup]:
    """``SETUPS``' entry for ``game``, else every player count it allows with no options."""
    explicit = SETUPS.get(game.name)
    if explicit is not None:
        return explicit
    return [(seats, {}) for seats in range(game.rules.min_players, game.rules.max_players + 1)]


#: Seeds of each setup the fast lane (``make check``) plays; the rest are marked slow.
FAST_SEEDS = 3


def _cases() -> list[tuple[str, int, dict[str, Any], int]]:
    return [
        (name, seats, options, seed)
        for name, game in sorted(GAMES.items())
        for seats, options in _setups(game)
        for seed in range(GAMES_PER_SETUP)
    ]


def _params() -> list[Any]:
    return [
        pytest.param(*case, marks=() if case[-1] < FAST_SEEDS else pytest.mark.slow)
        for case in _cases()
    ]


def test_every_hosted_game_is_played_through() -> None:
    assert set(SETUPS) <= set(GAMES), "a setup for a game that is not hosted"
    assert {case[0] for case in _cases()} == set(GAMES)


def test_a_game_without_setups_plays_every_player_count_without_options() -> None:
    from tests.support.pig import GAME as PIG

    assert PIG.name not in SETUPS
    low, high = PIG.rules.min_players, PIG.rules.max_players
    assert _setups(PIG) == [(seats, {}) for seats in range(low, high + 1)]
    play_through(PIG, players=low, options={}, games=2)  # a bundle plays, registered or not


@pytest.mark.parametrize(
    ("game", "seats", "options", "seed"),
    _params(),
    ids=lambda v: str(v) if not isinstance(v, dict) else "-".join(map(str, v.items())) or "default",
)
def test_random_playthrough(game: str, seats: int, options: dict[str, Any], seed: int) -> None:
    play_one(GAMES[game], seats, options, seed)
