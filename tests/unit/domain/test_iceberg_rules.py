"""Iceberg rule examples: every case docs/reference/rules/iceberg.md lists, and more.

Seats: A = 0, B = 1, C = 2. Positions are built by hand (see iceberg_positions.py); squares
are ``sq(sx, sy)``, face-up tiles ``tl(tx, ty)``. In the identity deal tile (tx, ty) at deal
index i shows i % 6, but most tests name the values they rely on.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from domain.engine import play
from domain.engine.errors import GameError, IllegalAction, InvalidSetup, MalformedAction, NotAllowed
from domain.engine.rules import Draw, Rules
from domain.games.iceberg import ICEBERG, IcebergRules
from domain.games.iceberg.geometry import DEAL_ORDER
from tests.support.positions.iceberg import (
    IDENTITY,
    act,
    coins_of,
    created,
    draw,
    legal,
    new_game,
    position,
    roll,
    sq,
    started,
    tl,
)

A, B, C = 0, 1, 2


def refused(state: Any, seat: int, action: dict[str, Any]) -> str:
    with pytest.raises(IllegalAction) as error:
        act(state, seat, action)
    return error.value.code


def flip(x: int, y: int) -> dict[str, Any]:
    return {"type": "flip", "tile": [x, y]}


def move(source: dict[str, Any], target: dict[str, Any]) -> dict[str, Any]:
    return {"type": "move", "from": source, "to": target}


def play_to(target: dict[str, Any]) -> dict[str, Any]:
    return {"type": "play", "to": target}


def S(x: int, y: int) -> dict[str, Any]:
    return {"square": [x, y]}


def T(x: int, y: int) -> dict[str, Any]:
    return {"tile": [x, y]}


# ----- the cases docs/reference/rules/iceberg.md lists -------------------------------------------------


def test_flipping_a_corner_with_four_coins_bumps_them_by_the_pinwheel() -> None:
    state = position({sq(0, 0): A, sq(1, 0): B, sq(1, 1): A, sq(0, 1): B})
    after = act(state, A, flip(0, 0)).board
    assert dict(after.coins) == {sq(2, 0): B, sq(1, 2): A}
    assert (0, 0) in after.face_up


def test_a_chain_runs_through_a_face_up_tile_in_its_lane() -> None:
    coins = {tl(1, 2): C, sq(3, 3): A, sq(3, 6): B}
    state = position(coins, seats=3, face_up=[(1, 2)], removed=[(1, 0)])
    after = act(state, A, flip(1, 1)).board
    assert dict(after.coins) == {tl(1, 2): A, sq(3, 6): C, sq(3, 7): B}


def test_a_coin_bumped_south_from_the_se_square_of_2_1_falls_into_the_hole() -> None:
    state = position({sq(5, 3): A, sq(0, 0): A, sq(9, 9): B})
    assert coins_of(act(state, A, flip(2, 1))) == {sq(0, 0): A, sq(9, 9): B}


def test_1_1_cannot_be_flipped_at_setup_but_can_once_1_0_is_removed() -> None:
    state = started()
    assert refused(state, A, flip(1, 1)) == "no_open_side"
    assert flip(1, 1) not in legal(state, A)
    state = position({sq(9, 9): A, sq(0, 9): B}, face_up=[(1, 0)], values={(1, 0): 4})
    assert refused(state, A, flip(1, 1)) == "no_open_side"
    state = roll(state, A, 4)
    assert (1, 0) not in state.board.present
    assert flip(1, 1) in legal(state, B)
    act(state, B, flip(1, 1))


def test_a_roll_matching_nothing_changes_nothing_but_ends_the_turn() -> None:
    state = position({sq(0, 0): A, sq(9, 9): B}, face_up=[(0, 1)], values={(0, 1): 2})
    after = roll(state, A, 5)
    assert after.board.coins == state.board.coins
    assert after.board.present == state.board.present
    assert after.board.face_up == state.board.face_up
    assert play.to_act(ICEBERG, after) == (B,)
    assert after.board.idle == state.board.idle + 1


def test_two_matching_tiles_make_the_roller_choose_and_declining_is_impossible() -> None:
    values = {(0, 1): 3, (4, 3): 3, (0, 0): 1}
    state = position({sq(5, 0): A, sq(9, 9): B}, face_up=[(0, 1), (4, 3), (0, 0)], values=values)
    state = roll(state, A, 3)
    assert play.to_act(ICEBERG, state) == (A,)
    assert legal(state, A) == [
        {"type": "remove_tile", "tile": [0, 1]},
        {"type": "remove_tile", "tile": [4, 3]},
    ]
    assert ICEBERG.pending(state.board) == {
        "type": "remove_tile",
        "seat": A,
        "die": 3,
        "tiles": [[0, 1], [4, 3]],
    }
    assert refused(state, A, {"type": "roll"}) == "decision_pending"
    assert refused(state, A, flip(4, 4)) == "decision_pending"
    assert refused(state, A, {"type": "remove_tile", "tile": [0, 0]}) == "not_a_match"
    with pytest.raises(NotAllowed):
        act(state, B, {"type": "remove_tile", "tile": [0, 1]})
    after = act(state, A, {"type": "remove_tile", "tile": [4, 3]})
    assert (4, 3) not in after.board.present and (0, 1) in after.board.present
    assert play.to_act(ICEBERG, after) == (B,)


def test_removing_4_2_after_3_0_and_3_1_strands_4_0_and_4_1_with_their_coins() -> None:
    coins = {sq(8, 0): B, sq(9, 3): A, sq(0, 9): A, sq(1, 9): B}
    state = position(coins, face_up=[(4, 2)], removed=[(3, 0), (3, 1)], values={(4, 2): 2})
    after = roll(state, A, 2).board
    assert not after.present & {(4, 0), (4, 1), (4, 2)}
    assert dict(after.coins) == {sq(0, 9): A, sq(1, 9): B}
    assert after.phase == "play"


def test_one_tile_left_holding_only_a_coins_wins_though_b_holds_coins_in_hand() -> None:
    keep, gone = (0, 0), (1, 0)
    removed = [t for t in DEAL_ORDER if t not in (keep, gone)]
    coins = {sq(0, 0): A, sq(1, 1): A, tl(1, 0): B}
    state = position(coins, face_up=[gone], removed=removed, values={gone: 5}, hands=(0, 4))
    after = roll(state, A, 5)
    assert after.over
    assert after.outcome is not None and after.outcome.to_json() == {"winners": [A], "scores": {}}


def test_a_roll_removing_the_last_tile_with_a_last_coin_draws_with_b_in_hand() -> None:
    last = (4, 4)
    removed = [t for t in DEAL_ORDER if t != last]
    state = position({tl(4, 4): A}, face_up=[last], removed=removed, values={last: 0}, hands=(0, 6))
    after = roll(state, A, 0)
    assert after.outcome is not None
    assert after.outcome.to_json() == {"winners": [A, B], "scores": {}}


def _observe(state: Any) -> list[Any]:
    """Everything any viewer or seat may learn from a state, as JSON text."""
    seats = range(len(state.created.seats))
    return [
        json.dumps(ICEBERG.view(state.board, viewer), sort_keys=True) for viewer in [None, *seats]
    ] + [
        json.dumps(ICEBERG.pending(state.board)),
        repr(ICEBERG.pending_draw(state.board)),
        play.to_act(ICEBERG, state),
        play.status(ICEBERG, state),
        [[a.to_json() for a in play.legal_actions(ICEBERG, state, s)] for s in seats],
    ]


def _errors(state: Any, seat: int) -> list[tuple[str, str]]:
    attempts = [
        flip(1, 1),
        flip(2, 2),
        play_to(T(0, 0)),
        play_to(S(3, 3)),
        move(S(3, 3), S(5, 5)),
        {"type": "remove_tile", "tile": [0, 0]},
    ]
    out = []
    for attempt in attempts:
        try:
            act(state, seat, attempt)
        except GameError as error:
            out.append((error.code, error.message))
    return out


def test_games_with_different_deals_look_the_same_until_the_first_flip() -> None:
    one = new_game(3, deal=[])
    two = new_game(3, deal=[])
    assert _observe(one) == _observe(two)
    one, two = draw(one, IDENTITY), draw(two, IDENTITY[::-1])
    script: list[tuple[int, dict[str, Any] | int]] = [
        (A, {"type": "place_start", "square": [3, 3]}),
        (B, {"type": "place_start", "square": [6, 6]}),
        (C, {"type": "place_start", "square": [3, 6]}),
        (A, play_to(S(0, 0))),
        (B, {"type": "roll"}),
        (B, 4),  # the die: no face-up tile, so nothing matches
        (C, move(S(3, 6), S(3, 7))),
    ]
    for seat, step in script:
        assert _observe(one) == _observe(two)
        assert _errors(one, seat) == _errors(two, seat)
        if isinstance(step, int):
            one, two = draw(one, step), draw(two, step)
        else:
            one, two = act(one, seat, step), act(two, seat, step)
    assert _observe(one) == _observe(two)
    one, two = act(one, A, flip(0, 0)), act(two, A, flip(0, 0))
    assert _observe(one) != _observe(two)  # identity shows 0 at (0, 0), the reverse 5


def test_the_view_shows_values_of_face_up_tiles_only() -> None:
    state = position({sq(0, 0): A}, face_up=[(4, 4)], removed=[(3, 0)], values={(4, 4): 2})
    tiles = {tuple(t["tile"]): t for t in ICEBERG.view(state.board, None)["tiles"]}
    assert tiles[(4, 4)] == {"tile": [4, 4], "state": "face_up", "value": 2, "suit": "arms"}
    assert tiles[(3, 0)] == {"tile": [3, 0], "state": "removed"}
    assert tiles[(0, 0)] == {"tile": [0, 0], "state": "face_down"}
    assert sum("value" in t for t in tiles.values()) == 1
    assert ICEBERG.view(state.board, A) == ICEBERG.view(state.board, None)


# ----- setup and starting squares ------------------------------------------------------------


def test_a_new_game_awaits_the_tile_shuffle_and_nobody_acts() -> None:
    state = new_game(2, deal=[])
    assert ICEBERG.pending_draw(state.board) == Draw("tiles", "shuffle", 24)
    assert play.to_act(ICEBERG, state) == ()
    assert ICEBERG.secret_draw_labels == frozenset({"tiles"})


def test_the_deal_lays_tile_outcome_i_on_board_position_i_in_row_major_order() -> None:
    deal = list(range(23, -1, -1))
    state = new_game(2, deal=deal)
    assert state.board.layout[(0, 0)] == 23
    assert state.board.layout[(3, 2)] == 23 - 12  # index 12: row 2 skips the hole
    assert state.board.face_up == frozenset()


def test_seats_place_starting_coins_in_order_then_seat_0_begins() -> None:
    state = new_game(3)
    starts = [{"type": "place_start", "square": s} for s in ([3, 3], [3, 6], [6, 3], [6, 6])]
    assert legal(state, A) == starts
    assert refused(state, A, {"type": "place_start", "square": [4, 4]}) == "not_a_start_square"
    assert refused(state, A, {"type": "roll"}) == "start_pending"
    state = act(state, A, {"type": "place_start", "square": [6, 3]})
    assert play.to_act(ICEBERG, state) == (B,)
    assert refused(state, B, {"type": "place_start", "square": [6, 3]}) == "occupied"
    assert len(legal(state, B)) == 3
    state = act(state, B, {"type": "place_start", "square": [3, 3]})
    state = act(state, C, {"type": "place_start", "square": [6, 6]})
    assert play.to_act(ICEBERG, state) == (A,)
    assert state.board.hands == (5, 5, 5)
    assert refused(state, A, {"type": "place_start", "square": [3, 6]}) == "setup_over"


def test_at_setup_twenty_tiles_can_be_flipped_and_every_free_square_played() -> None:
    actions = legal(started(), A)
    flips = {tuple(a["tile"]) for a in actions if a["type"] == "flip"}
    assert flips == set(DEAL_ORDER) - {(1, 1), (3, 1), (1, 3), (3, 3)}
    assert sum(a["type"] == "play" for a in actions) == 96 - 2
    assert {"type": "roll"} in actions


@pytest.mark.parametrize(
    ("seats", "options", "code"),
    [
        (1, {}, "player_count"),
        (5, {}, "player_count"),
        (2, {"turn_limit": 5}, "unknown_option"),
        (2, {"idle_turn_limit": -1}, "invalid_option"),
        (2, {"idle_turn_limit": True}, "invalid_option"),
        (2, {"idle_turn_limit": "100"}, "invalid_option"),
        (2, {"idle_turn_limit": 1.5}, "invalid_option"),
    ],
)
def test_bad_setups_are_refused(seats: int, options: dict[str, Any], code: str) -> None:
    with pytest.raises(InvalidSetup) as error:
        ICEBERG.initial_board(created(seats, **options))
    assert error.value.code == code


def test_idle_turn_limit_defaults_to_100_and_0_is_accepted() -> None:
    assert ICEBERG.initial_board(created(2)).idle_limit == 100
    assert ICEBERG.initial_board(created(4, idle_turn_limit=0)).idle_limit == 0


def test_the_rules_object_names_itself() -> None:
    rules: Rules[Any] = ICEBERG  # mypy checks the whole protocol here
    assert isinstance(rules, IcebergRules)
    assert (ICEBERG.name, ICEBERG.rules_version) == ("iceberg", "1")
    assert (ICEBERG.min_players, ICEBERG.max_players) == (2, 4)


# ----- playing and moving --------------------------------------------------------------------


def test_a_coin_is_played_on_a_free_square_or_face_up_tile() -> None:
    state = position({sq(0, 0): B, tl(4, 4): B}, face_up=[(1, 0), (4, 4)])
    after = act(state, A, play_to(T(1, 0)))
    assert after.board.coins[tl(1, 0)] == A and after.board.hands == (2, 3)
    assert refused(state, A, play_to(S(2, 0))) == "tile_face_up"
    assert refused(state, A, play_to(T(0, 0))) == "tile_face_down"
    assert refused(state, A, play_to(S(0, 0))) == "occupied"
    assert refused(state, A, play_to(T(4, 4))) == "occupied"
    assert refused(state, A, play_to(S(4, 4))) == "off_board"  # the hole
    assert refused(state, A, play_to(S(10, 0))) == "off_board"
    targets = [a["to"] for a in legal(state, A) if a["type"] == "play"]
    assert T(1, 0) in targets and S(2, 0) not in targets and T(4, 4) not in targets
    assert len(targets) == 22 * 4 - 1 + 1


def test_no_play_with_an_empty_hand() -> None:
    state = position({sq(0, 0): A, sq(9, 9): B}, hands=(0, 3))
    assert refused(state, A, play_to(S(5, 0))) == "no_coin_in_hand"
    assert not [a for a in legal(state, A) if a["type"] == "play"]


def test_moves_from_a_square_enter_squares_and_face_up_tiles_but_not_holes() -> None:
    state = position({sq(2, 3): A, sq(9, 9): B}, face_up=[(0, 1)], removed=[(1, 2)])
    targets = [a["to"] for a in legal(state, A) if a["type"] == "move"]
    assert targets == [S(2, 2), S(3, 3), T(0, 1)]  # south is the removed tile (1, 2)
    assert refused(state, A, move(S(2, 3), S(2, 4))) == "tile_removed"
    assert refused(state, A, move(S(2, 3), S(3, 4))) == "tile_removed"
    assert refused(state, A, move(S(2, 3), S(4, 3))) == "not_adjacent"
    after = act(state, A, move(S(2, 3), T(0, 1)))
    assert coins_of(after) == {tl(0, 1): A, sq(9, 9): B}


def test_a_coin_beside_the_hole_cannot_move_into_it() -> None:
    state = position({sq(3, 4): A, sq(9, 9): B})
    targets = [a["to"] for a in legal(state, A) if a["type"] == "move"]
    assert S(4, 4) not in targets and len(targets) == 3
    assert refused(state, A, move(S(3, 4), S(4, 4))) == "off_board"


def test_moves_from_a_face_up_tile_name_an_edge_square_or_a_face_up_tile() -> None:
    state = position(
        {tl(1, 0): A, sq(4, 0): B, sq(9, 9): B}, face_up=[(1, 0), (0, 0)], removed=[(1, 1)]
    )
    targets = [a["to"] for a in legal(state, A) if a["type"] == "move"]
    assert targets == [S(4, 1), T(0, 0)]  # (4, 0) is taken; south is removed
    assert refused(state, A, move(T(1, 0), S(5, 0))) == "not_adjacent"
    assert refused(state, A, move(T(1, 0), S(4, 0))) == "occupied"
    assert coins_of(act(state, A, move(T(1, 0), S(4, 1))))[sq(4, 1)] == A


def test_only_own_coins_move() -> None:
    state = position({sq(0, 0): A, sq(9, 9): B})
    assert refused(state, A, move(S(9, 9), S(9, 8))) == "not_your_coin"
    assert refused(state, A, move(S(5, 5), S(5, 6))) == "no_coin_there"


# ----- flipping and bumping ------------------------------------------------------------------


def test_flips_need_a_face_down_tile_on_the_board() -> None:
    state = position({sq(0, 0): A, sq(9, 9): B}, face_up=[(4, 4)], removed=[(0, 4)])
    assert refused(state, A, flip(4, 4)) == "already_face_up"
    assert refused(state, A, flip(0, 4)) == "tile_removed"
    assert refused(state, A, flip(2, 2)) == "off_board"
    assert refused(state, A, flip(5, 0)) == "off_board"


def test_a_bumped_coin_pushes_a_chain_of_occupants_onward() -> None:
    state = position({sq(8, 1): A, sq(7, 1): B, sq(6, 1): B, sq(0, 9): A})
    after = act(state, A, flip(4, 0))  # (8, 1) is the SW square: west along row 1
    assert coins_of(after) == {sq(7, 1): A, sq(6, 1): B, sq(5, 1): B, sq(0, 9): A}


def test_a_chain_pushes_its_last_coin_off_the_board() -> None:
    state = position({sq(2, 1): A, sq(1, 1): B, sq(0, 1): B, sq(9, 9): A}, hands=(3, 0))
    after = act(state, A, flip(1, 0))  # (2, 1) is the SW square: west to the edge
    assert coins_of(after) == {sq(1, 1): A, sq(0, 1): B, sq(9, 9): A}
    assert not after.over and play.to_act(ICEBERG, after) == (B,)


def test_a_coin_bumped_onto_an_empty_face_up_tile_lands_on_it() -> None:
    state = position({sq(3, 2): A, sq(9, 9): B}, face_up=[(2, 1)], removed=[(1, 0)])
    after = act(state, A, flip(1, 1))  # NE (3, 2) goes east onto face-up (2, 1)
    assert coins_of(after) == {tl(2, 1): A, sq(9, 9): B}


def test_a_coin_bumped_onto_a_removed_tile_is_out() -> None:
    state = position({sq(6, 2): A, sq(9, 9): B, sq(0, 9): A}, removed=[(3, 0)])
    after = act(state, A, flip(3, 1))  # NW (6, 2) goes north onto removed (3, 0)
    assert coins_of(after) == {sq(9, 9): B, sq(0, 9): A}


# ----- groups, ties and the end --------------------------------------------------------------


def _split_position(**kwargs: Any) -> Any:
    """Columns 0-1 and 3-4 (ten tiles each) joined only by face-up (2, 0), showing 5."""
    removed = [(2, 1), (2, 3), (2, 4)]
    coins = kwargs.pop("coins", {sq(0, 0): A, sq(9, 9): B, sq(8, 0): A})
    return position(coins, face_up=[(2, 0)], removed=removed, values={(2, 0): 5}, **kwargs)


def test_a_tie_for_largest_group_makes_the_roller_choose_one_tile_of_a_group() -> None:
    state = roll(_split_position(), A, 5)
    west = sorted(t for t in DEAL_ORDER if t[0] < 2)
    east = sorted(t for t in DEAL_ORDER if t[0] > 2)
    assert legal(state, A) == [{"type": "keep_group", "tile": list(t)} for t in west + east]
    pending = ICEBERG.pending(state.board)
    assert pending is not None and pending["type"] == "keep_group" and pending["seat"] == A
    assert refused(state, A, {"type": "keep_group", "tile": [2, 0]}) == "not_in_tied_group"
    assert refused(state, A, {"type": "roll"}) == "decision_pending"
    after = act(state, A, {"type": "keep_group", "tile": [4, 4]})
    assert after.board.present == frozenset(east)
    assert coins_of(after) == {sq(9, 9): B, sq(8, 0): A}
    assert play.to_act(ICEBERG, after) == (B,)


def test_no_pending_decision_refuses_choices() -> None:
    state = position({sq(0, 0): A, sq(9, 9): B})
    assert refused(state, A, {"type": "keep_group", "tile": [0, 0]}) == "no_pending_decision"
    assert refused(state, A, {"type": "remove_tile", "tile": [0, 0]}) == "no_pending_decision"


def test_the_end_waits_for_the_whole_turn_and_a_draw_counts_who_was_in_before_it() -> None:
    # A's last coin goes with the matched tile; B then keeps the empty group: both are out.
    state = _split_position(coins={tl(2, 0): A, sq(9, 9): B}, hands=(0, 0), current=B)
    state = roll(state, B, 5)
    assert not state.over and state.board.still_in() == (B,)
    after = act(state, B, {"type": "keep_group", "tile": [0, 0]})
    assert after.outcome is not None and after.outcome.winners == (A, B)


def test_the_last_player_in_wins() -> None:
    state = position({sq(0, 0): B, sq(9, 9): A}, hands=(2, 0))
    after = act(state, A, flip(0, 0))  # B's only coin, NW, goes north off the board
    assert after.outcome is not None and after.outcome.to_json()["winners"] == [A]


def test_out_players_are_skipped() -> None:
    state = position({sq(0, 0): A, sq(9, 9): C}, seats=3, hands=(1, 0, 1))
    assert state.board.still_in() == (A, C)
    after = act(state, A, move(S(0, 0), S(1, 0)))
    assert play.to_act(ICEBERG, after) == (C,)
    assert ICEBERG.view(after.board, None)["players"][B]["out"] is True


def test_a_player_with_coins_only_in_hand_is_still_in() -> None:
    state = position({sq(0, 0): A}, hands=(0, 2))
    assert state.board.still_in() == (A, B)
    assert play.to_act(ICEBERG, act(state, A, move(S(0, 0), S(1, 0)))) == (B,)


def test_the_idle_limit_ends_the_game_as_a_draw_among_those_in() -> None:
    state = position(
        {sq(0, 0): A, sq(9, 9): B, sq(5, 0): C}, seats=3, idle_limit=3, hands=(0, 0, 1)
    )
    state = act(state, A, move(S(0, 0), S(1, 0)))
    state = roll(state, B, 5)  # nothing face-up: idle
    assert state.board.idle == 2 and not state.over
    after = act(state, C, move(S(5, 0), S(5, 1)))
    assert after.outcome is not None and after.outcome.winners == (A, B, C)
    reset = act(state, C, play_to(S(5, 6)))
    assert reset.board.idle == 0 and not reset.over


def test_an_idle_limit_of_zero_never_ends_the_game() -> None:
    state = position({sq(0, 0): A, sq(9, 9): B}, idle_limit=0, idle=10_000)
    assert not act(state, A, move(S(0, 0), S(1, 0))).over


def test_rolling_awaits_the_die_and_nobody_acts_meanwhile() -> None:
    state = act(started(), A, {"type": "roll"})
    assert ICEBERG.pending_draw(state.board) == Draw("die", "uniform", 6)
    assert play.to_act(ICEBERG, state) == () and play.status(ICEBERG, state) == "awaiting_random"
    with pytest.raises(NotAllowed):
        act(state, A, {"type": "roll"})


# ----- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"type": "jump"}, "unknown_action_type"),
        ({}, "unknown_action_type"),
        ({"type": "flip"}, "missing_field"),
        ({"type": "move", "to": {"square": [0, 0]}}, "missing_field"),
        ({"type": "roll", "die": 6}, "unexpected_field"),
        ({"type": "flip", "tile": [1]}, "invalid_field"),
        ({"type": "flip", "tile": [True, 0]}, "invalid_field"),
        ({"type": "place_start", "square": "3,3"}, "invalid_field"),
        ({"type": "play", "to": [0, 0]}, "invalid_field"),
        ({"type": "play", "to": {"square": [0, 0], "tile": [0, 0]}}, "invalid_field"),
        ({"type": "play", "to": {"space": [0, 0]}}, "invalid_field"),
        ({"type": "play", "to": {"tile": [0.5, 0]}}, "invalid_field"),
    ],
)
def test_malformed_actions(data: dict[str, Any], code: str) -> None:
    with pytest.raises(MalformedAction) as error:
        ICEBERG.parse_action(data)
    assert error.value.code == code


@pytest.mark.parametrize(
    "data",
    [
        {"type": "place_start", "square": [3, 3]},
        {"type": "play", "to": {"square": [0, 9]}},
        {"type": "play", "to": {"tile": [4, 4]}},
        {"type": "move", "from": {"tile": [1, 2]}, "to": {"square": [4, 4]}},
        {"type": "flip", "tile": [0, 0]},
        {"type": "roll"},
        {"type": "remove_tile", "tile": [1, 1]},
        {"type": "keep_group", "tile": [3, 4]},
    ],
)
def test_actions_print_as_they_parse(data: dict[str, Any]) -> None:
    assert ICEBERG.parse_action(data).to_json() == data


# ----- a random playthrough with draws -------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_random_games_keep_the_board_consistent(seats: int) -> None:
    for game in range(15):
        rng = random.Random(f"{seats}/{game}")
        state = new_game(seats, deal=rng.sample(range(24), 24))
        for _ in range(3000):
            _check_consistent(state)
            if state.over:
                break
            if ICEBERG.pending_draw(state.board) is not None:
                state = draw(state, rng.randrange(6))
                continue
            (seat,) = play.to_act(ICEBERG, state)
            state = act(state, seat, rng.choice(legal(state, seat)))
        assert state.over


def _check_consistent(state: Any) -> None:
    board = state.board
    assert board.face_up <= board.present
    assert all(board.holds(pos) for pos in board.coins)
    for seat in range(board.seats):
        assert board.on_board(seat) + board.hands[seat] <= 6
    view = ICEBERG.view(board, None)
    assert all(("value" in t) == (t["state"] == "face_up") for t in view["tiles"])
