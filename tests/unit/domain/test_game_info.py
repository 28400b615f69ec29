"""Each game declares itself once (``GameInfo``): name, seats, information, co-operative or
not, rules version and options. The rules, the bots, setup and the API's contract read the
declaration; the refusals for bad setups keep their codes and messages."""

from __future__ import annotations

from typing import Any

import pytest

from domain.engine.errors import InvalidSetup
from domain.engine.game import GameInfo, OptionParameter
from domain.games import GAMES
from tests.support.pig import GAME as PIG


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_rules_read_their_games_declaration(name: str) -> None:
    game = GAMES[name]
    info = game.info
    assert isinstance(info, GameInfo) and game.rules.info is info and game.name == info.name
    assert (game.rules.name, game.rules.rules_version) == (info.name, info.rules_version)
    assert (game.rules.min_players, game.rules.max_players) == (info.min_seats, info.max_seats)
    assert info.title and info.summary and info.options


def test_what_each_game_declares() -> None:
    facts = {
        name: (g.info.information, g.info.play, g.info.chance, g.info.deterministic)
        for name, g in {**GAMES, PIG.name: PIG}.items()
    }
    assert facts == {
        "arktia": ("perfect", "competitive", False, True),
        "iceberg": ("hidden", "competitive", True, False),
        "ice-breakers": ("hidden", "co-operative", True, False),
        "pig": ("perfect", "competitive", True, False),
    }
    assert [g.info.cooperative for g in GAMES.values()].count(True) == 1


def refusal(info: GameInfo, given: dict[str, Any], seats: int = 2) -> tuple[str, str]:
    with pytest.raises(InvalidSetup) as refused:
        info.read_options(given, seats)
    return refused.value.code, refused.value.message


def test_bad_setups_keep_their_codes_and_messages() -> None:
    arktia, iceberg, ice = GAMES["arktia"].info, GAMES["iceberg"].info, GAMES["ice-breakers"].info
    assert refusal(arktia, {}, 5) == ("player_count", "arktia is for 2 to 4 players")
    assert refusal(arktia, {"dice": 2}) == ("unknown_option", "arktia has no option 'dice'")
    assert refusal(arktia, {"turn_limit": 0}) == (
        "invalid_option",
        "turn_limit must be an integer 1..1000000",
    )
    assert refusal(arktia, {"neutrals_3p": 1}) == (
        "invalid_option",
        "neutrals_3p must be true or false",
    )
    assert refusal(iceberg, {"idle_turn_limit": True}) == (
        "invalid_option",
        "idle_turn_limit must be an integer 0..1000000",
    )
    assert refusal(ice, {"open_hands": False}) == (
        "invalid_option",
        "open_hands must be true: closed hands are not supported",
    )
    assert refusal(ice, {"open_hands": "yes"}) == (
        "invalid_option",
        "open_hands must be true or false",
    )
    for option in ("map", "ice_reports"):
        assert refusal(ice, {option: 5}) == (
            "invalid_option",
            f"{option} supports only 'standard' (the reconstruction)",
        )
    assert ice.read_options({}, 3) == {
        "intro": False,
        "open_hands": True,
        "map": "standard",
        "ice_reports": "standard",
    }
    assert arktia.read_options({"board": None}, 2)["board"] is None


def test_an_option_states_itself_as_json_schema() -> None:
    limit = GAMES["arktia"].info.option("turn_limit").json_schema()
    assert limit == {
        "type": "integer",
        "minimum": 1,
        "maximum": 1_000_000,
        "description": "The game ends after this many turns (places, moves and retires). "
        "Default: 300.",
    }
    board = GAMES["arktia"].info.option("board").json_schema()
    assert board["type"] == ["array", "null"] and board["maxItems"] == 200
    hands = GAMES["ice-breakers"].info.option("open_hands").json_schema()
    assert hands["const"] is True and "default" not in hands


def test_a_parameter_must_say_what_it_takes() -> None:
    with pytest.raises(ValueError, match="default and bounds"):
        OptionParameter("n", "integer", 1, "a number")
    with pytest.raises(ValueError, match="why"):
        OptionParameter("s", "string", "a", "a word", choices=("a",))
