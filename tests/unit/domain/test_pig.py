"""Pig, a game that lives in tests/fixtures, played through the engine alone.

Nothing here goes through a registry: ``GAME.rules`` is handed to ``domain.engine.play``
directly, which is the point. If these pass, a game is a plugin bundle and nothing more.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from domain.engine import play, rng
from domain.engine.errors import IllegalAction, InvalidSetup, MalformedAction, NotAllowed
from domain.engine.game import Scene
from domain.engine.rules import Draw
from domain.engine.types import (
    GAME_CREATED,
    GAME_OVER,
    RANDOM,
    SYSTEM,
    Event,
    GameCreated,
    GameState,
    SeatInfo,
)
from tests.support.pig import GAME, PigBoard
from tests.support.pig.board import TURN_LIMIT

RULES = GAME.rules
SEED = bytes(range(32))
SVG = "{http://www.w3.org/2000/svg}"


def created(seats: int = 2, **options: Any) -> GameCreated:
    return GameCreated(
        game="pig",
        rules_version=RULES.rules_version,
        options=options,
        seats=tuple(SeatInfo(i, f"p{i}") for i in range(seats)),
        seed_commitment="0" * 64,
    )


def new_game(seats: int = 2, **options: Any) -> tuple[GameState[Any], list[Event]]:
    log = [Event(GAME_CREATED, SYSTEM, created(seats, **options).to_json())]
    return play.fold(RULES, "pig-game", log), log


def act(state: GameState[Any], seat: int, kind: str, log: list[Event]) -> GameState[Any]:
    events, after = play.step(RULES, state, seat, RULES.parse_action({"type": kind}))
    log += events
    return after


def roll(state: GameState[Any], seat: int, face: int, log: list[Event]) -> GameState[Any]:
    """``seat`` rolls and the die shows ``face`` (1..6)."""
    return land(act(state, seat, "roll", log), face, log)


def land(state: GameState[Any], face: int, log: list[Event]) -> GameState[Any]:
    """The pending die shows ``face`` (1..6): draw outcome ``face - 1``."""
    events, after = play.resolve_draw_step(RULES, state, face - 1)
    log += events
    return after


def legal(state: GameState[Any], seat: int) -> list[str]:
    return [a.type for a in play.legal_actions(RULES, state, seat)]


def board(state: GameState[Any]) -> PigBoard:
    assert isinstance(state.board, PigBoard)
    return state.board


# ----- the contract ------------------------------------------------------------------------


def test_the_bundle_names_the_game_and_hides_nothing() -> None:
    assert (GAME.name, RULES.rules_version) == ("pig", "pig-1")
    assert (RULES.min_players, RULES.max_players) == (2, 4)
    assert RULES.secret_draw_labels == frozenset()
    assert GAME.bot.sample_world is None
    assert GAME.info.deterministic is False  # the die is chance
    assert GAME.bot.planner is None
    assert GAME.bot.search.iterations == 200


# ----- parsing and setup -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"type": "pass"}, "unknown_action_type"),
        ({}, "unknown_action_type"),
        ({"type": 3}, "unknown_action_type"),
        ({"type": "roll", "dice": 2}, "unexpected_field"),
        ({"type": "hold", "points": 5}, "unexpected_field"),
    ],
)
def test_malformed_actions_are_refused_with_the_standard_codes(
    data: dict[str, Any], code: str
) -> None:
    with pytest.raises(MalformedAction) as error:
        RULES.parse_action(data)
    assert error.value.code == code
    assert error.value.kind == "malformed"


def test_actions_print_what_they_parse_from() -> None:
    for kind in ("roll", "hold"):
        assert RULES.parse_action({"type": kind}).to_json() == {"type": kind}


@pytest.mark.parametrize(
    ("seats", "options", "code"),
    [
        (1, {}, "player_count"),
        (5, {}, "player_count"),
        (2, {"goal": 50}, "unknown_option"),
        (2, {"target": 4}, "invalid_option"),
        (2, {"target": 101}, "invalid_option"),
        (2, {"target": "20"}, "invalid_option"),
        (2, {"target": True}, "invalid_option"),
    ],
)
def test_unusable_setups_are_refused(seats: int, options: dict[str, Any], code: str) -> None:
    with pytest.raises(InvalidSetup) as error:
        new_game(seats, **options)
    assert error.value.code == code


def test_a_new_game_starts_with_seat_0_on_zero_points() -> None:
    state, _ = new_game(3)
    assert board(state) == PigBoard(scores=(0, 0, 0), target=20)
    assert new_game(2, target=5)[0].board.target == 5
    assert play.to_act(RULES, state) == (0,)
    assert RULES.pending(state.board) is None
    assert play.status(RULES, state) == "active"


# ----- turns -------------------------------------------------------------------------------


def test_a_roll_awaits_the_die_and_nobody_acts_meanwhile() -> None:
    state, log = new_game()
    state = act(state, 0, "roll", log)
    assert RULES.pending_draw(state.board) == Draw("die", "uniform", 6)
    assert play.to_act(RULES, state) == ()
    assert play.status(RULES, state) == "awaiting_random"
    assert legal(state, 0) == legal(state, 1) == []
    with pytest.raises(NotAllowed) as error:
        play.decide(RULES, state, 0, RULES.parse_action({"type": "roll"}))
    assert error.value.code == "awaiting_random"


def test_rolling_a_one_loses_the_turn_total_and_passes_the_die() -> None:
    state, log = new_game()
    state = roll(state, 0, 5, log)
    assert board(state).turn_total == 5
    state = act(state, 0, "roll", log)
    events, state = play.resolve_draw_step(RULES, state, 0)
    assert [e.type for e in events] == [RANDOM]
    assert events[0].data == {"label": "die", "kind": "uniform", "n": 6, "outcome": 0}
    after = board(state)
    assert (after.scores, after.current, after.turn_total, after.last_roll) == ((0, 0), 1, 0, 1)
    assert play.to_act(RULES, state) == (1,)


def test_other_faces_add_to_the_turn_total() -> None:
    state, log = new_game()
    for face in (2, 3, 6):
        state = roll(state, 0, face, log)
    assert (board(state).turn_total, board(state).last_roll, board(state).current) == (11, 6, 0)


def test_holding_banks_the_turn_total_and_passes_the_die() -> None:
    state, log = new_game(3)
    state = roll(state, 0, 4, log)
    state = roll(state, 0, 3, log)
    state = act(state, 0, "hold", log)
    assert (board(state).scores, board(state).current, board(state).turn_total) == ((7, 0, 0), 1, 0)
    assert board(state).turns == 1
    assert play.fold(RULES, "pig-game", log) == state


def test_holding_nothing_is_illegal() -> None:
    state, _ = new_game()
    with pytest.raises(IllegalAction) as error:
        play.decide(RULES, state, 0, RULES.parse_action({"type": "hold"}))
    assert error.value.code == "nothing_to_hold"
    assert error.value.kind == "illegal"


def test_only_the_current_seat_acts() -> None:
    state, _ = new_game()
    with pytest.raises(NotAllowed) as error:
        play.decide(RULES, state, 1, RULES.parse_action({"type": "roll"}))
    assert error.value.code == "not_your_turn"


def test_legal_actions_in_every_phase() -> None:
    state, log = new_game()
    assert (legal(state, 0), legal(state, 1)) == (["roll"], [])  # nothing to hold yet
    state = act(state, 0, "roll", log)
    assert (legal(state, 0), legal(state, 1)) == ([], [])  # the die is in the air
    state = land(state, 4, log)
    assert (legal(state, 0), legal(state, 1)) == (["hold", "roll"], [])
    state = act(state, 0, "hold", log)
    assert (legal(state, 0), legal(state, 1)) == ([], ["roll"])
    state = roll(state, 1, 1, log)
    assert (legal(state, 0), legal(state, 1)) == (["roll"], [])


def test_reaching_the_target_ends_the_game() -> None:
    state, log = new_game(2, target=5)
    state = roll(state, 0, 2, log)
    state = act(state, 0, "hold", log)
    state = roll(state, 1, 6, log)
    events, state = play.step(RULES, state, 1, RULES.parse_action({"type": "hold"}))
    assert [e.type for e in events] == ["hold", GAME_OVER]
    assert events[1].data == {"winners": [1], "scores": {"0": 2, "1": 6}}
    assert state.over
    assert state.outcome is not None
    assert state.outcome.winners == (1,)
    assert dict(state.outcome.scores) == {0: 2, 1: 6}
    assert play.to_act(RULES, state) == ()
    assert legal(state, 0) == legal(state, 1) == []
    assert RULES.pending_draw(state.board) is None
    with pytest.raises(NotAllowed) as error:
        play.decide(RULES, state, 0, RULES.parse_action({"type": "roll"}))
    assert error.value.code == "game_over"
    log += events
    assert play.fold(RULES, "pig-game", log) == state


def test_the_turn_limit_ends_the_game_in_a_draw() -> None:
    state, log = new_game()
    for turn in range(TURN_LIMIT):
        state = roll(state, turn % 2, 1, log)
    assert state.outcome is not None
    assert state.outcome.winners == ()
    assert log[-1].type == GAME_OVER
    assert play.to_act(RULES, state) == ()


def test_a_seeded_random_playthrough_always_ends_and_folds_back() -> None:
    for seed in range(40):
        seats = 2 + seed % 3
        chooser = random.Random(seed)
        state, log = new_game(seats, target=5 + seed * 2)
        for _ in range(10_000):
            if state.over:
                break
            draw = RULES.pending_draw(state.board)
            if draw is not None:
                outcome = rng.draw(
                    SEED, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
                )
                events, state = play.resolve_draw_step(RULES, state, outcome)
            else:
                (seat,) = play.to_act(RULES, state)
                action = chooser.choice(play.legal_actions(RULES, state, seat))
                events, state = play.step(RULES, state, seat, action)
            log += events
        else:
            pytest.fail(f"seed {seed}: the game did not end")
        assert state.version == len(log)
        assert log[-1].type == GAME_OVER
        assert play.fold(RULES, "pig-game", log) == state


# ----- heuristic and pictures --------------------------------------------------------------


def test_the_heuristic_counts_own_points_at_stake_against_the_best_opponent() -> None:
    position = PigBoard(scores=(10, 15, 4), target=20, current=0, turn_total=3)
    assert GAME.bot.heuristic(position, 0) == 10 + 3 - 15
    assert GAME.bot.heuristic(position, 1) == 15 - 10


def _positions() -> list[GameState[Any]]:
    state, log = new_game(4, target=100)
    out = [state]
    state = act(state, 0, "roll", log)
    out.append(state)
    state = land(state, 6, log)
    out.append(state)
    state = act(state, 0, "hold", log)
    out.append(state)
    won, won_log = new_game(2, target=5)
    won = roll(won, 0, 6, won_log)
    out.append(act(won, 0, "hold", won_log))
    return out


def test_the_view_is_plain_json_and_the_same_for_everyone() -> None:
    for state in _positions():
        view = RULES.view(state.board, 0)
        assert view == RULES.view(state.board, None) == RULES.view(state.board, 1)
        assert _plain(view), view


def _plain(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, bool | int | str)


def _scene(state: GameState[Any], title: str = "") -> Scene:
    return Scene.of(
        RULES.view(state.board, None),
        names=[seat.name for seat in state.created.seats],
        outcome=None if state.outcome is None else state.outcome.to_json(),
        title=title,
    )


def test_the_text_picture_fits_80_columns() -> None:
    ansi = re.compile(r"\x1b\[[0-9;]*m")
    for state in _positions():
        plain = GAME.text(_scene(state), False)
        assert plain and all(len(line) <= 80 for line in plain), plain
        painted = GAME.text(_scene(state), True)
        assert [ansi.sub("", line) for line in painted] == plain
    assert f"Game over: {state.created.seats[0].name} wins 6–0" in plain


def test_the_svg_picture_is_a_standalone_document_with_its_title() -> None:
    title = 'Pig <game> & "friends"'
    for state in _positions():
        picture = GAME.svg(_scene(state, title))
        assert picture == GAME.svg(_scene(state, title))  # deterministic
        root = ET.fromstring(picture)
        assert root.tag == f"{SVG}svg"
        assert root.findtext(f"{SVG}title") == title
