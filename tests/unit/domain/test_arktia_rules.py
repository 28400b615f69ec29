"""Arktia rule examples: every case docs/reference/rules/arktia.md lists, and more.

Seats: 0 = yellow (Y), 1 = red (R), 2 = green (G). Positions are built by hand in the regular
phase (see arktia_positions.py); coordinates are axial (q, r) on the 36-tile board.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.engine import play
from domain.engine.errors import IllegalAction, InvalidSetup, NotAllowed
from domain.games.arktia import ARKTIA
from domain.games.arktia.hexes import BOARD_24, BOARD_36, rows
from domain.games.arktia.stacks import NEUTRAL, Stack
from tests.support.positions.arktia import act, created, d, events_of, g, legal, position, t

Y, R, GR = 0, 1, 2


def refused(state: Any, seat: int, action: dict[str, Any]) -> str:
    with pytest.raises(IllegalAction) as error:
        act(state, seat, action)
    return error.value.code


def move(src: tuple[int, int], dst: tuple[int, int], unit: str = "all") -> dict[str, Any]:
    return {"type": "move", "from": list(src), "unit": unit, "to": list(dst)}


# ----- the landing table, through real moves -------------------------------------------------


def test_g_onto_a_lone_t_is_rejected() -> None:
    state = position({(0, 0): g(Y), (-1, 0): d(Y), (1, 0): t(R), (2, 0): d(R)})
    assert refused(state, Y, move((0, 0), (1, 0))) == "illegal_landing"


def test_t_onto_a_lone_g_makes_c_controlled_by_the_torus() -> None:
    state = position({(0, 0): t(Y), (0, 1): d(Y), (1, 0): g(R), (2, 0): d(R)})
    after = act(state, Y, move((0, 0), (1, 0)))
    stack = after.board.stacks[(1, 0)]
    assert (stack.form, stack.controller) == ("C", Y)


@pytest.mark.parametrize("piece", [d(Y), g(Y)])
def test_d_or_g_onto_c_is_rejected(piece: Stack) -> None:
    state = position({(0, 0): piece, (0, 1): t(Y), (1, 0): Stack(t=R, g=R), (2, 0): d(R)})
    assert refused(state, Y, move((0, 0), (1, 0))) == "illegal_landing"


def test_a_onto_a_lone_t_makes_d() -> None:
    state = position({(0, 0): Stack(d=Y, g=Y), (0, 1): t(Y), (1, 0): t(R), (2, 0): d(R)})
    after = act(state, Y, move((0, 0), (1, 0)))
    assert after.board.stacks[(1, 0)] == Stack(t=R, d=Y, g=Y)
    assert after.board.stacks[(1, 0)].form == "D"


def test_b_onto_a_g_is_rejected() -> None:
    state = position({(0, 0): Stack(t=Y, d=Y), (0, 1): g(Y), (1, 0): g(R), (2, 0): d(R)})
    assert refused(state, Y, move((0, 0), (1, 0))) == "illegal_landing"


# ----- who may move what ---------------------------------------------------------------------


def test_from_d_the_top_owner_moves_g_dg_or_all_but_never_the_middle_d() -> None:
    state = position({(0, 0): Stack(t=Y, d=R, g=GR), (2, 2): g(Y), (-2, 2): g(R)}, current=GR)
    units = {a["unit"] for a in legal(state, GR) if a["type"] == "move" and a["from"] == [0, 0]}
    assert units == {"G", "DG", "all"}
    assert refused(state, GR, move((0, 0), (1, 0), "D")) == "invalid_unit"
    assert refused(state, GR, move((0, 0), (1, 0), "T")) == "invalid_unit"


def test_the_owner_of_the_bottom_t_moves_nothing_from_d() -> None:
    state = position({(0, 0): Stack(t=Y, d=R, g=GR), (0, 1): g(Y)}, current=Y)
    assert not [a for a in legal(state, Y) if a["type"] == "move" and a["from"] == [0, 0]]
    assert refused(state, Y, move((0, 0), (1, 0), "all")) == "not_your_stack"


def test_a_stack_topped_by_a_neutral_piece_cannot_be_moved() -> None:
    state = position({(0, 0): Stack(d=Y, g=NEUTRAL), (0, 1): g(Y)}, current=Y)
    assert refused(state, Y, move((0, 0), (1, 0))) == "not_your_stack"


def test_a_lone_piece_moves_only_as_all() -> None:
    state = position({(0, 0): g(Y), (0, 1): d(Y)})
    assert refused(state, Y, move((0, 0), (1, 0), "G")) == "invalid_unit"


def test_c_splits_into_its_torus_and_leaves_the_globus() -> None:
    state = position({(0, 0): Stack(t=Y, g=R), (0, 1): d(Y), (-1, 0): d(R)})
    after = act(state, Y, move((0, 0), (1, 0), "T"))
    assert after.board.stacks[(0, 0)] == g(R)
    assert after.board.stacks[(1, 0)] == t(Y)


# ----- straight lines and holes --------------------------------------------------------------


def test_moves_jump_over_pieces_in_a_straight_line() -> None:
    stacks = {(0, 0): d(Y), (0, 1): g(Y), (1, 1): t(Y), (1, 0): t(R), (-1, 0): d(R)}
    after = act(position(stacks), Y, move((0, 0), (2, 0)))
    assert after.board.stacks[(2, 0)] == d(Y)
    assert after.board.stacks[(1, 0)] == t(R)


def test_a_move_must_follow_one_direction() -> None:
    state = position({(0, 0): g(Y), (1, 0): d(Y)})
    assert refused(state, Y, move((0, 0), (2, 1))) == "not_straight"
    assert refused(state, Y, move((0, 0), (0, 0))) == "not_straight"


def test_a_straight_move_across_a_melted_hole_is_rejected() -> None:
    state = position({(0, 0): g(Y), (-1, 0): d(Y)}, tiles=BOARD_36 - {(1, 0)})
    assert refused(state, Y, move((0, 0), (2, 0))) == "path_broken"
    assert refused(state, Y, move((0, 0), (1, 0))) == "path_broken"
    assert all(a.get("to") not in ([1, 0], [2, 0], [3, 0]) for a in legal(state, Y))


def test_a_move_off_the_board_is_rejected() -> None:
    state = position({(0, 0): g(Y), (-1, 0): d(Y)})
    assert refused(state, Y, move((0, 0), (4, 0))) == "path_broken"


# ----- removal ----------------------------------------------------------------------------------


def test_carrying_away_an_opponents_d_under_your_g_removes_it_and_scores() -> None:
    stacks = {(0, 0): Stack(d=R, g=Y), (1, 0): d(Y), (-1, 0): t(R), (-2, 0): g(R)}
    state = position(stacks)
    before = state.board.score(Y)
    after = act(state, Y, move((0, 0), (2, 0)))
    assert after.board.stacks[(2, 0)] == g(Y)
    assert after.board.players[Y].kept == 1
    assert after.board.score(Y) == before + 1
    assert after.board.on_board(R) == 2


def test_a_d_stack_losing_its_middle_d_becomes_c_held_by_the_torus() -> None:
    stacks = {
        (0, 0): Stack(t=Y, d=R, g=GR),
        (1, 0): Stack(t=Y, g=R),
        (0, 1): d(Y),
        (2, 0): t(R),
    }
    after = act(position(stacks), Y, move((1, 0), (1, 1)))
    stack = after.board.stacks[(0, 0)]
    assert stack == Stack(t=Y, g=GR)
    assert (stack.form, stack.controller) == ("C", Y)
    assert after.board.players[Y].kept == 1


def test_moving_the_piece_that_links_your_own_colour_is_rejected() -> None:
    state = position({(-1, 0): g(Y), (0, 0): d(Y), (1, 0): t(Y), (3, 0): g(R), (3, -1): d(R)})
    assert refused(state, Y, move((0, 0), (0, -1))) == "splits_own_colour"
    assert move((0, 0), (0, -1)) not in legal(state, Y)


def _three_against_three() -> Any:
    stacks = {
        (-2, 0): g(R),
        (-1, 0): d(R),
        (-2, 1): t(R),
        (0, 0): Stack(d=R, g=Y),
        (1, 0): t(R),
        (2, 0): g(R),
        (2, -1): d(R),
        (0, 1): t(Y),
    }
    return act(position(stacks), Y, move((0, 0), (0, 2)))


def test_a_three_against_three_split_waits_for_the_active_players_choice() -> None:
    state = _three_against_three()
    assert play.to_act(ARKTIA, state) == (Y,)
    pending = ARKTIA.pending(state.board)
    assert pending is not None
    assert pending["type"] == "keep_group" and pending["colour"] == R
    assert len(pending["groups"]) == 2
    choices = legal(state, Y)
    assert {a["type"] for a in choices} == {"keep_group"}
    assert len(choices) == 6
    assert state.board.on_board(R) == 7  # nothing removed until the choice


def test_a_pending_tie_blocks_every_other_action() -> None:
    state = _three_against_three()
    assert refused(state, Y, {"type": "retire"}) == "decision_pending"
    assert refused(state, Y, {"type": "keep_group", "colour": 1, "tile": [0, 2]}) == (
        "not_in_tied_group"
    )
    assert refused(state, Y, {"type": "keep_group", "colour": 2, "tile": [1, 0]}) == (
        "wrong_colour"
    )


def test_choosing_a_group_removes_every_other_piece_of_that_colour() -> None:
    state = act(_three_against_three(), Y, {"type": "keep_group", "colour": 1, "tile": [2, 0]})
    assert state.board.on_board(R) == 3
    assert state.board.players[Y].kept == 4
    assert ARKTIA.pending(state.board) is None
    assert play.to_act(ARKTIA, state) == (R,)


def test_keep_group_without_a_tie_is_refused() -> None:
    state = position({(0, 0): g(Y), (0, 1): d(Y)})
    assert refused(state, Y, {"type": "keep_group", "colour": 0, "tile": [0, 0]}) == (
        "no_pending_decision"
    )


def test_after_captures_leave_one_moogloo_a_players_game_ends_at_once() -> None:
    stacks = {(0, 0): Stack(d=R, g=Y), (1, 0): d(Y), (-1, 0): t(R), (0, -3): g(GR), (1, -3): d(GR)}
    state = act(position(stacks), Y, move((0, 0), (2, 0)))
    assert ARKTIA.pending(state.board) is not None  # 1 against 1: a tie
    state = act(state, Y, {"type": "keep_group", "colour": 1, "tile": [-1, 0]})
    assert state.board.players[R].ended == "too_few"
    assert play.to_act(ARKTIA, state) == (GR,)


# ----- melting ------------------------------------------------------------------------------

LINE = rows([(0, 0, 9)])  # ten tiles in a row: only the two ends can melt without a split


def test_a_player_without_reserve_melts_after_moving() -> None:
    stacks = {(3, 0): g(Y), (4, 0): d(Y), (6, 0): g(R), (7, 0): d(R)}
    state = position(stacks, tiles=LINE, seats=2, reserves={Y: (0, 0, 0)})
    state = act(state, Y, move((3, 0), (5, 0)))
    assert ARKTIA.pending(state.board) == {
        "type": "melt",
        "seat": Y,
        "tiles": [[0, 0], [9, 0]],
    }
    assert legal(state, Y) == [
        {"type": "melt", "tile": [0, 0]},
        {"type": "melt", "tile": [9, 0]},
    ]
    assert refused(state, Y, {"type": "melt", "tile": [2, 0]}) == "not_meltable"  # splits
    assert refused(state, Y, {"type": "melt", "tile": [5, 0]}) == "not_meltable"  # occupied
    assert refused(state, Y, move((5, 0), (3, 0))) == "decision_pending"
    state = act(state, Y, {"type": "melt", "tile": [0, 0]})
    assert (0, 0) not in state.board.tiles
    assert state.board.players[Y].melted == 1
    assert play.to_act(ARKTIA, state) == (R,)


def test_an_interior_tile_cannot_melt() -> None:
    board = position({(2, -2): g(Y)}).board
    assert (0, 0) not in board.meltable()
    assert (1, -3) in board.meltable()


def test_a_player_with_reserve_cannot_melt() -> None:
    stacks = {(3, 0): g(Y), (4, 0): d(Y), (6, 0): g(R), (7, 0): d(R)}
    state = position(stacks, tiles=LINE, seats=2)
    state = act(state, Y, move((3, 0), (5, 0)))
    assert ARKTIA.pending(state.board) is None
    assert play.to_act(ARKTIA, state) == (R,)
    assert refused(state, R, {"type": "melt", "tile": [0, 0]}) == "no_pending_decision"


def test_a_player_who_must_melt_but_cannot_is_out_and_the_move_stands() -> None:
    tiles = frozenset({(0, 0), (1, 0), (2, 0)})
    stacks = {(0, 0): d(Y), (1, 0): g(Y), (2, 0): t(R)}
    state = position(stacks, tiles=tiles, seats=2, reserves={Y: (0, 0, 0)})
    # G onto D makes A; the only empty tile, (1, 0), would split the continent.
    state = act(state, Y, move((1, 0), (0, 0), "all"))
    assert state.board.stacks[(0, 0)] == Stack(d=Y, g=Y)
    assert state.board.players[Y].ended == "cannot_melt"


# ----- turns and the end ---------------------------------------------------------------------


def test_a_player_who_can_neither_place_nor_move_is_skipped_for_good() -> None:
    stacks = {
        (0, 0): Stack(d=R, g=Y),
        (1, 0): Stack(t=R, d=Y),
        (0, -3): g(GR),
        (1, -3): d(GR),
    }
    state = position(stacks, reserves={R: (0, 0, 0)})
    state = act(state, Y, {"type": "retire"})
    assert state.board.players[R].ended == "no_action"
    assert play.to_act(ARKTIA, state) == (GR,)


def test_retiring_ends_only_that_players_game() -> None:
    state = act(
        position({(0, 0): g(Y), (0, 1): d(Y), (2, 0): g(R), (2, 1): d(R)}, seats=2),
        Y,
        {"type": "retire"},
    )
    assert state.board.players[Y].ended == "retired"
    assert play.to_act(ARKTIA, state) == (R,)
    state = act(state, R, {"type": "place", "size": "G", "tile": [3, 0]})
    assert play.to_act(ARKTIA, state) == (R,)  # the last player keeps playing alone


def test_the_last_retirement_ends_the_game_with_scores() -> None:
    stacks = {(0, 0): g(Y), (0, 1): d(Y), (2, 0): Stack(t=R, g=Y), (2, 1): d(R)}
    state = position(stacks, seats=2)
    state = act(state, Y, {"type": "retire"})
    events = events_of(state, R, {"type": "retire"})
    assert [e.type for e in events] == ["retire", "game_over"]
    # Y: (0, 0), (0, 1); R: the C at (2, 0) counts for the Torus owner, and (2, 1).
    assert events[1].data == {"winners": [0, 1], "scores": {"0": 2, "1": 2}}


def test_a_tile_topped_by_a_neutral_piece_scores_for_nobody() -> None:
    board = position({(0, 0): Stack(d=Y, g=NEUTRAL), (1, 0): d(Y)}).board
    assert board.score(Y) == 1


def test_the_turn_limit_ends_every_game() -> None:
    state = position({(0, 0): g(Y), (0, 1): d(Y), (2, 0): g(R)}, turns=299, seats=2)
    events = events_of(state, Y, {"type": "place", "size": "T", "tile": [1, 1]})
    assert [e.type for e in events] == ["place", "game_over"]
    assert events[1].data["winners"] == [0]


def test_no_action_after_the_end() -> None:
    state = position({(0, 0): g(Y), (0, 1): d(Y), (2, 0): g(R)}, turns=299, seats=2)
    state = act(state, Y, {"type": "place", "size": "T", "tile": [1, 1]})
    assert state.over
    with pytest.raises(NotAllowed) as error:
        act(state, R, {"type": "retire"})
    assert error.value.code == "game_over"


def test_only_the_player_to_act_may_act() -> None:
    state = position({(0, 0): g(Y), (0, 1): d(Y), (2, 0): g(R)}, seats=2)
    with pytest.raises(NotAllowed) as error:
        act(state, R, {"type": "retire"})
    assert error.value.code == "not_your_turn"
    assert legal(state, R) == []


# ----- placing ---------------------------------------------------------------------------------


def test_place_needs_an_empty_tile_next_to_your_colour_and_a_piece_in_reserve() -> None:
    state = position({(0, 0): Stack(d=R, g=Y), (3, 0): d(R)}, reserves={Y: (0, 1, 1)})
    assert refused(state, Y, {"type": "place", "size": "G", "tile": [1, 0]}) == "not_in_reserve"
    assert refused(state, Y, {"type": "place", "size": "D", "tile": [3, 0]}) == "tile_occupied"
    assert refused(state, Y, {"type": "place", "size": "D", "tile": [2, 0]}) == "not_adjacent"
    assert refused(state, Y, {"type": "place", "size": "D", "tile": [9, 9]}) == "no_such_tile"
    after = act(state, Y, {"type": "place", "size": "D", "tile": [1, 0]})
    assert after.board.players[Y].reserve == (0, 0, 1)


def test_a_piece_anywhere_in_a_stack_counts_as_your_colour_for_placing() -> None:
    state = position({(0, 0): Stack(t=Y, d=R, g=GR)}, current=Y)
    places = {tuple(a["tile"]) for a in legal(state, Y) if a["type"] == "place"}
    assert places == {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}


# ----- setup and the opening -------------------------------------------------------------------


def test_two_players_open_by_placing_the_neutrals_anywhere_then_as_one_group() -> None:
    state = play.new_game(ARKTIA, "g", created(2))
    first = legal(state, 0)
    assert len(first) == 24 * 3
    assert {a["type"] for a in first} == {"place"}
    state = act(state, 0, {"type": "place", "size": "T", "tile": [0, 0]})
    assert state.board.stacks[(0, 0)] == t(NEUTRAL)
    assert state.board.players[0].neutrals == (1, 1, 0)
    assert state.board.players[0].reserve == (3, 3, 3)
    assert refused(state, 1, {"type": "place", "size": "G", "tile": [2, 0]}) == "not_adjacent"
    assert {tuple(a["tile"]) for a in legal(state, 1)} == {
        (1, 0),
        (1, -1),
        (0, -1),
        (-1, 0),
        (-1, 1),
        (0, 1),
    }


def _after_neutrals() -> Any:
    state = play.new_game(ARKTIA, "g", created(2))
    tiles = [(0, 0), (1, 0), (2, 0), (-1, 0), (-1, 1), (0, 1)]
    sizes = ["G", "G", "D", "D", "T", "T"]
    for i, (tile, size) in enumerate(zip(tiles, sizes, strict=True)):
        state = act(state, i % 2, {"type": "place", "size": size, "tile": list(tile)})
    return state


def test_round_one_goes_next_to_a_neutral_or_an_opponent_and_round_two_next_to_your_own() -> None:
    state = _after_neutrals()
    assert state.board.phase == "round1"
    assert refused(state, 0, {"type": "place", "size": "G", "tile": [3, -2]}) == "not_adjacent"
    assert refused(state, 0, {"type": "retire"}) == "opening"
    state = act(state, 0, {"type": "place", "size": "G", "tile": [0, -1]})
    state = act(state, 1, {"type": "place", "size": "G", "tile": [-2, 2]})
    assert state.board.phase == "round2"
    own = {tuple(a["tile"]) for a in legal(state, 0)}
    assert own == {(1, -1), (0, -2), (1, -2), (-1, -1)} - set(state.board.stacks)
    state = act(state, 0, {"type": "place", "size": "D", "tile": [1, -1]})
    state = act(state, 1, {"type": "place", "size": "D", "tile": [-2, 1]})
    assert state.board.phase == "play"
    assert play.to_act(ARKTIA, state) == (0,)
    assert {"retire"} <= {a["type"] for a in legal(state, 0)}


def test_four_players_have_no_neutrals_and_open_anywhere() -> None:
    state = play.new_game(ARKTIA, "g", created(4))
    assert state.board.shape == BOARD_36
    assert state.board.phase == "round1"
    assert len(legal(state, 0)) == 36 * 3
    state = act(state, 0, {"type": "place", "size": "D", "tile": [0, 0]})
    assert state.board.players[0].reserve == (3, 2, 3)
    assert len(legal(state, 1)) == 6 * 3


def test_three_players_with_neutrals_place_nine_on_the_big_board() -> None:
    state = play.new_game(ARKTIA, "g", created(3, neutrals_3p=True))
    assert state.board.shape == BOARD_36
    assert [step for step in state.board.schedule if step[0] == "neutral"] == [
        ("neutral", s % 3) for s in range(9)
    ]


def test_default_boards_follow_the_moogloos_in_play() -> None:
    assert play.new_game(ARKTIA, "g", created(2)).board.shape == BOARD_24
    assert len(play.new_game(ARKTIA, "g", created(3)).board.shape) == 27


@pytest.mark.parametrize(
    ("options", "seats", "code"),
    [
        ({"colour": "red"}, 2, "unknown_option"),
        ({"turn_limit": 0}, 2, "invalid_option"),
        ({"turn_limit": True}, 2, "invalid_option"),
        ({"neutrals_3p": "yes"}, 3, "invalid_option"),
        ({"neutrals_3p": "yes"}, 2, "invalid_option"),
        ({"board": [[0, 0], [5, 5]] + [[q, 0] for q in range(1, 30)]}, 2, "invalid_option"),
        ({"board": [[q, 0] for q in range(10)]}, 2, "invalid_option"),
        ({"board": [[0, 0], [0, 0]]}, 2, "invalid_option"),
        ({"board": "big"}, 2, "invalid_option"),
        ({}, 5, "player_count"),
    ],
)
def test_bad_options_are_refused_at_setup(options: dict[str, Any], seats: int, code: str) -> None:
    with pytest.raises(InvalidSetup) as error:
        play.new_game(ARKTIA, "g", created(seats, **options))
    assert error.value.code == code


def test_a_custom_board_is_used_as_given() -> None:
    tiles = [[q, r] for q in range(6) for r in range(5)]
    state = play.new_game(ARKTIA, "g", created(2, board=tiles, turn_limit=50))
    assert len(state.board.tiles) == 30
    assert state.board.turn_limit == 50
