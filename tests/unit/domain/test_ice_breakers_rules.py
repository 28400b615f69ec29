"""Ice Breakers rule examples: every case docs/reference/rules/ice-breakers.md lists, and more.

Seats: A = 0, B = 1, C = 2. Positions start from ``new_game`` (identity shuffles, ship k of
the full game on the harbor of destination k - 1) and replace board fields by hand; see
ice_breakers_positions.py. Cards: c01–c08 Power 5, c09–c16 Power 7, c17–c22 Power 10,
c23–c26 R3, c27–c30 B1, c31–c32 AB2.
"""

from __future__ import annotations

import heapq
import json
import random
from collections import Counter
from typing import Any

import pytest

from domain.engine import play, rng
from domain.engine.errors import IllegalAction, InvalidSetup, MalformedAction, NotAllowed
from domain.engine.rules import Draw, Rules
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameState
from domain.games.ice_breakers import ICE_BREAKERS, IceBreakersRules
from domain.games.ice_breakers.actions import parse_action
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.cards import CARD_IDS, piece_value
from domain.games.ice_breakers.geometry import CHANNELS, HARBORS, INTRO_SHIPS, LARGE, NEIGHBOURS
from tests.support.positions.ice_breakers import (
    act,
    all_ice,
    board_of,
    created,
    draw,
    fresh,
    legal,
    new_game,
    position,
)

A, B, C = 0, 1, 2


def refused(state: Any, seat: int, action: dict[str, Any]) -> str:
    with pytest.raises(IllegalAction) as error:
        play.decide(ICE_BREAKERS, state, seat, parse_action(action))
    return error.value.code


def forbidden(state: Any, seat: int, action: dict[str, Any]) -> str:
    with pytest.raises(NotAllowed) as error:
        play.decide(ICE_BREAKERS, state, seat, parse_action(action))
    return error.value.code


def power(card: str) -> dict[str, Any]:
    return {"type": "play_power", "card": card}


def boost(card: str) -> dict[str, Any]:
    return {"type": "boost", "card": card}


def clear(x: int, y: int) -> dict[str, Any]:
    return {"type": "clear", "cell": [x, y]}


def move(ship: int, *path: tuple[int, int]) -> dict[str, Any]:
    return {"type": "move_ship", "ship": ship, "path": [list(c) for c in path]}


def give(card: str, to: int) -> dict[str, Any]:
    return {"type": "give", "card": card, "to": to}


END = {"type": "end_turn"}
PASS = {"type": "pass"}


def test_rules_object_satisfies_the_protocol() -> None:
    rules: Rules[IceBreakersBoard] = IceBreakersRules()
    assert (rules.name, rules.rules_version) == ("ice-breakers", "1")
    assert (rules.min_players, rules.max_players) == (2, 4)
    assert rules.secret_draw_labels == frozenset({"reports_upper", "reports_lower"})


# ----- setup ---------------------------------------------------------------------------------


def test_setup_draws_come_in_order() -> None:
    state = fresh(3)
    expected = [
        Draw("pieces", "shuffle", 66),
        Draw("ships", "derangement", 12),
        Draw("reports_upper", "shuffle", 13),
        Draw("reports_lower", "shuffle", 5),
        Draw("deck", "shuffle", 26),
    ]
    for want in expected:
        assert ICE_BREAKERS.pending_draw(state.board) == want
        assert play.to_act(ICE_BREAKERS, state) == ()
        state = draw(state, list(range(want.n)) if want.kind == "shuffle" else [1, 0] * 6)
    assert ICE_BREAKERS.pending_draw(state.board) is None
    assert play.to_act(ICE_BREAKERS, state) == (A,)


def test_intro_ships_derangement_covers_six() -> None:
    assert ICE_BREAKERS.pending_draw(draw(fresh(2, intro=True), list(range(66))).board) == Draw(
        "ships", "derangement", 6
    )


def _setup(seats: int, seed: int, **options: Any) -> GameState[Any]:
    key = seed.to_bytes(32, "big")
    state = fresh(seats, **options)
    while (pending := ICE_BREAKERS.pending_draw(state.board)) is not None:
        outcome = rng.draw(key, "g", state.version + 1, pending.label, pending.kind, pending.n)
        state = draw(state, outcome)
    return state


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_full_setup_invariants_over_many_seeds(seats: int) -> None:
    extra = {2: 4, 3: 2, 4: 1}[seats]
    for seed in range(40):
        board = board_of(_setup(seats, seed))
        assert board.phase == "play" and board.current == A
        assert all(cell != HARBORS[ship] for ship, cell in board.ships.items())
        assert sorted(board.ships.values()) == sorted(HARBORS.values())
        assert [len(h) for h in board.hands] == [2 + extra] * seats
        for seat, hand in enumerate(board.hands):
            assert hand[:2] == (f"c{1 + seat:02d}", f"c{9 + seat:02d}")
        assert len(board.row) == 8
        assert {d: len(c) for d, c in board.rewards.items()} == dict.fromkeys(LARGE, 3)
        cards = [c for h in board.hands for c in h] + list(board.row)
        cards += [c for r in board.rewards.values() for c in r]
        assert sorted(cards) == list(CARD_IDS)
        assert Counter(board.pieces.values()) == {1: 20, 2: 20, 3: 20, 4: 6}
        assert set(board.pieces) == set(CHANNELS) and not board.water
        assert len(board.reports) == 20 and board.report_index == 0
        assert board.reports[-2:] == (frozenset({1, 2, 3}), frozenset({1, 2, 3, 4}))
        assert all(len(r) <= 1 for r in board.reports[:13])


def test_intro_setup_and_four_player_deal() -> None:
    for seed in range(20):
        board = board_of(_setup(4, seed, intro=True))
        assert board.in_play == INTRO_SHIPS and set(board.ships) == set(INTRO_SHIPS)
        assert all(cell != HARBORS[ship] for ship, cell in board.ships.items())
        assert sorted(board.ships.values()) == sorted(HARBORS[s] for s in INTRO_SHIPS)
        assert [len(h) - 2 for h in board.hands] == [3, 3, 2, 2]
        assert board.row == ()
        sizes = {d: len(c) for d, c in board.rewards.items()}
        assert sizes == {2: 3, 3: 3, 6: 3, 8: 3, 5: 1, 9: 1}
    assert [len(h) for h in board_of(_setup(2, 0, intro=True)).hands] == [9, 9]


def test_piece_values_and_row_major_deal() -> None:
    board = board_of(new_game(2))
    assert [piece_value(k) for k in (0, 19, 20, 39, 40, 59, 60, 65)] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert board.pieces[CHANNELS[0]] == 1 and CHANNELS[0] == (0, 0) and CHANNELS[1] == (2, 0)
    assert board.ships[2] == HARBORS[1] and board.ships[1] == HARBORS[12]


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"open_hands": False}, "invalid_option"),
        ({"intro": "yes"}, "invalid_option"),
        ({"map": "other"}, "invalid_option"),
        ({"ice_reports": "other"}, "invalid_option"),
        ({"colour": 1}, "unknown_option"),
    ],
)
def test_options_refused(options: dict[str, Any], code: str) -> None:
    with pytest.raises(InvalidSetup) as error:
        fresh(2, **options)
    assert error.value.code == code


def test_default_option_values_accepted_and_player_count() -> None:
    fresh(2, open_hands=True, map="standard", ice_reports="standard", intro=False)
    with pytest.raises(InvalidSetup):
        fresh(1)
    with pytest.raises(InvalidSetup):
        fresh(5)


# ----- the turn: playing and boosting --------------------------------------------------------


def test_turn_starts_with_power_pass_or_ab2() -> None:
    state = position(new_game(2), hands=(("c01", "c17", "c27", "c31"), ("c28",)))
    assert legal(state, A) == [
        {"type": "play_power", "card": "c01"},
        {"type": "play_power", "card": "c17"},
        {"type": "cash_ab2", "card": "c31"},
        {"type": "pass"},
    ]
    assert play.to_act(ICE_BREAKERS, state) == (A,)
    assert refused(state, A, boost("c27")) == "no_power_played"
    assert refused(state, A, clear(0, 0)) == "no_power_played"
    assert refused(state, A, END) == "no_power_played"
    assert refused(state, A, power("c27")) == "not_a_power_card"
    assert refused(state, A, power("c02")) == "not_in_hand"
    assert refused(state, A, power("zz")) == "not_in_hand"


def test_retrofit_rules_and_boost_total() -> None:
    ten = act(position(new_game(2), hands=(("c17", "c23"), ("c24",))), A, power("c17"))
    assert refused(ten, A, boost("c23")) == "retrofit_needs_5_or_7"
    assert play.to_act(ICE_BREAKERS, ten) == (A,)  # B's R3 cannot go on a 10
    state = position(new_game(2), hands=(("c09", "c23"), ("c24", "c27")))
    assert forbidden(state, B, boost("c27")) == "not_your_turn"  # the Power card is not down
    state = act(state, A, power("c09"))
    assert play.to_act(ICE_BREAKERS, state) == (A, B)
    for seat, card in [(A, "c23"), (B, "c24"), (B, "c27")]:
        state = act(state, seat, boost(card))
    assert board_of(state).points == 14
    assert board_of(state).discard == ("c09", "c23", "c24", "c27")
    assert play.to_act(ICE_BREAKERS, state) == (A,)


def test_other_seats_may_not_clear_or_end_and_second_power_refused() -> None:
    state = act(position(new_game(2), hands=(("c01", "c02"), ("c27", "c03"))), A, power("c01"))
    assert refused(state, B, clear(0, 0)) == "not_active_player"
    assert refused(state, B, END) == "not_active_player"
    assert refused(state, A, power("c02")) == "power_already_played"
    assert refused(state, A, PASS) == "power_already_played"
    assert refused(state, A, boost("c01")) == "not_in_hand"
    assert refused(state, A, give("c01", B)) == "nothing_to_give"


# ----- clearing and moving -------------------------------------------------------------------


def test_power_ten_splits_points_and_ships_still_move() -> None:
    pieces = all_ice(4) | {(0, 4): 1, (0, 3): 2, (0, 2): 2, (9, 1): 3, (12, 7): 2}
    state = position(new_game(2), pieces=pieces, water=frozenset(), hands=(("c17",), ()))
    state = act(state, A, power("c17"))
    for cell in [(0, 4), (0, 3), (0, 2), (9, 1), (12, 7)]:
        state = act(state, A, clear(*cell))
    board = board_of(state)
    assert board.left == 0 and all(a["type"] != "clear" for a in legal(state, A))
    assert refused(state, A, clear(0, 1)) == "not_enough_points"
    assert refused(state, A, clear(0, 3)) == "already_water"
    assert refused(state, A, clear(1, 0)) == "not_a_channel"  # a harbor
    assert refused(state, A, clear(6, 1)) == "not_a_channel"  # land
    assert board.ships[6] == (0, 5)
    state = act(state, A, move(6, (0, 4), (0, 3), (0, 2)))
    assert board_of(state).ships[6] == (0, 2)


def test_pinned_ship_is_freed_then_moves() -> None:
    pieces = all_ice(4) | {(0, 4): 3, (0, 3): 4}
    state = position(
        new_game(2), pieces=pieces, water=frozenset(), hands=(("c09",), ()), ships={6: (0, 4)}
    )
    state = act(state, A, power("c09"))
    assert not any(a["type"] == "move_ship" for a in legal(state, A))
    assert refused(state, A, move(6, (0, 5))) == "ship_pinned"
    state = act(state, A, clear(0, 4))
    state = act(state, A, clear(0, 3))
    assert board_of(state).left == 0
    moves = [a for a in legal(state, A) if a["type"] == "move_ship"]
    assert moves == [move(6, (0, 3)), move(6, (0, 5))]
    state = act(state, A, move(6, (0, 3)))
    assert board_of(state).ships[6] == (0, 3)


def test_move_paths_any_valid_path_is_accepted() -> None:
    water = frozenset({(0, 0), (2, 0), (3, 0), (0, 1), (0, 2), (0, 3), (1, 3), (2, 3), (3, 3)})
    state = position(new_game(2), water=water, hands=(("c01",), ()), ships={2: (1, 0), 9: (0, 3)})
    state = act(state, A, power("c01"))
    listed = [a for a in legal(state, A) if a["type"] == "move_ship" and a["ship"] == 2]
    assert move(2, (2, 0), (3, 0), (4, 0)) in listed  # its own harbor ends the path
    longer = move(2, (0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (2, 3), (3, 3))
    assert move(2, (2, 0), (3, 0), (3, 1)) not in listed  # (3, 1) is ice
    after = act(state, A, longer)
    assert board_of(after).ships[2] == (3, 3)
    assert refused(state, A, move(2, (2, 0), (3, 0), (3, 1))) == "blocked_by_ice"
    assert refused(state, A, move(2, (3, 0))) == "not_adjacent"
    assert refused(state, A, move(2, (2, 0), (1, 0))) == "no_move"
    assert refused(state, A, move(2, (2, 0), (2, 1))) == "not_navigable"
    assert refused(state, A, move(7, (2, 0))) == "ship_delivered"
    assert refused(state, A, move(13, (2, 0))) == "unknown_ship"
    passed = move(9, (1, 3), (2, 3), (3, 3))
    assert passed in legal(state, A)  # other ships' cells and harbors are no obstacle
    delivered = act(state, A, move(2, (2, 0), (3, 0), (4, 0)))
    assert 2 in board_of(delivered).delivered


def test_path_may_not_continue_past_its_own_harbor() -> None:
    water = frozenset({(2, 0), (3, 0), (5, 0)})
    state = position(new_game(2), water=water, hands=(("c01",), ()), ships={2: (3, 0), 7: (2, 0)})
    state = act(state, A, power("c01"))
    assert refused(state, A, move(2, (4, 0), (5, 0))) == "past_destination"
    # ship 7 crosses harbor 2 freely
    assert move(7, (3, 0), (4, 0), (5, 0)) in legal(state, A)


def test_forecast_pins_ships_on_refrozen_water_but_not_on_harbors() -> None:
    upper = [3, *range(3), *range(4, 13)]  # the first forecast is {2}
    state = new_game(2, upper=upper)
    assert board_of(state).forecast == frozenset({2})
    pieces = all_ice(1) | {(0, 4): 2}
    water = frozenset({(0, 4), (0, 3), (0, 0)})
    state = position(state, pieces=pieces, water=water, ships={6: (0, 4), 2: (1, 0), 3: (0, 3)})
    state = act(state, A, power("c01"))
    state = act(state, A, END)
    board = board_of(state)
    assert board.pinned(6) and not board.pinned(2) and not board.pinned(3)
    assert board.water == {(0, 3), (0, 0)}
    assert board.current == B and board.turns == 1 and board.report_index == 1


def test_after_last_report_all_water_refreezes_every_turn() -> None:
    state = position(new_game(2), report_index=19, water=frozenset(CHANNELS[:10]))
    assert board_of(state).forecast == frozenset({1, 2, 3, 4})
    state = act(state, A, power("c01"))
    state = act(state, A, END)
    assert board_of(state).water == frozenset() and board_of(state).report_index == 19
    state = position(state, water=frozenset(CHANNELS[10:30]))
    state = act(state, B, PASS)
    assert board_of(state).water == frozenset() and board_of(state).report_index == 19


# ----- deliveries, giving, AB2 ---------------------------------------------------------------


def test_small_delivery_b1_usable_at_once_but_not_a_second_power() -> None:
    pieces = all_ice(4) | {(3, 0): 3, (2, 0): 2}
    state = position(
        new_game(2),
        pieces=pieces,
        water=frozenset({(3, 9)}),
        hands=(("c09",), ("c01",)),
        ships={1: (4, 0), 10: (3, 9), 5: (0, 0)},
        row=("c27", "c18", "c19"),
    )
    state = act(state, A, power("c09"))
    state = act(state, A, clear(3, 0))
    state = act(state, A, clear(2, 0))
    assert board_of(state).left == 2
    state = act(state, A, move(1, (3, 0), (2, 0), (1, 0)))
    board = board_of(state)
    assert board.delivered == (1,) and board.waiting == ("c27",) and board.row == ("c18", "c19")
    assert play.to_act(ICE_BREAKERS, state) == (A,)
    assert legal(state, A) == [give("c27", A), give("c27", B)]
    assert refused(state, A, END) == "give_pending"
    assert refused(state, A, give("c18", A)) == "card_not_waiting"
    assert refused(state, A, give("c27", 2)) == "no_such_seat"
    state = act(state, A, give("c27", B))
    assert play.to_act(ICE_BREAKERS, state) == (A, B)
    state = act(state, B, boost("c27"))
    assert board_of(state).left == 3
    state = act(state, A, move(10, (4, 9)))
    state = act(state, A, give("c18", A))
    assert {"type": "play_power", "card": "c18"} not in legal(state, A)
    assert refused(state, A, power("c18")) == "power_already_played"


def test_large_delivery_gives_three_cards_one_at_a_time() -> None:
    state = position(new_game(2), water=frozenset({(3, 0)}), ships={2: (3, 0), 5: (0, 0)})
    state = act(state, A, power("c01"))
    state = act(state, A, move(2, (4, 0)))
    assert board_of(state).waiting == ("c03", "c04", "c05") and 2 not in board_of(state).rewards
    assert len(legal(state, A)) == 6
    for card, to in [("c04", B), ("c03", A), ("c05", B)]:
        state = act(state, A, give(card, to))
    assert board_of(state).hands[B][-2:] == ("c04", "c05")
    assert not board_of(state).waiting


def test_ab2_with_one_discard_draws_one_and_leaves_the_game() -> None:
    state = position(new_game(3), hands=(("c01",), ("c31",), ()))
    state = act(state, A, power("c01"))
    assert play.to_act(ICE_BREAKERS, state) == (A, B)
    state = act(state, B, {"type": "cash_ab2", "card": "c31"})
    assert ICE_BREAKERS.pending_draw(state.board) == Draw("ab2", "uniform", 1)
    assert play.to_act(ICE_BREAKERS, state) == ()
    state = draw(state, 0)
    board = board_of(state)
    assert ICE_BREAKERS.pending_draw(board) is None
    assert board.waiting == ("c01",) and board.discard == () and board.giver == B
    assert play.to_act(ICE_BREAKERS, state) == (B,)
    state = act(state, B, give("c01", C))
    board = board_of(state)
    assert board.hands == ((), (), ("c01",))
    assert all("c31" not in h for h in board.hands) and "c31" not in board.discard


def test_ab2_draws_two_distinct_cards_and_empty_pile_writes_none() -> None:
    state = position(new_game(2), hands=(("c31", "c32", "c01"), ()), discard=("c02", "c03", "c04"))
    state = act(state, A, {"type": "cash_ab2", "card": "c31"})  # before the Power card
    assert ICE_BREAKERS.pending_draw(state.board) == Draw("ab2", "uniform", 3)
    state = draw(state, 1)
    assert ICE_BREAKERS.pending_draw(state.board) == Draw("ab2", "uniform", 2)
    state = draw(state, 1)
    assert board_of(state).waiting == ("c03", "c04") and board_of(state).discard == ("c02",)
    state = act(state, A, give("c03", A))
    state = act(state, A, give("c04", A))
    empty = position(state, discard=())
    after = play.step(ICE_BREAKERS, empty, A, parse_action({"type": "cash_ab2", "card": "c32"}))
    assert len(after[0]) == 1 and ICE_BREAKERS.pending_draw(after[1].board) is None
    assert not board_of(after[1]).waiting
    assert refused(state, A, {"type": "cash_ab2", "card": "c01"}) == "not_an_ab2"


def test_others_cash_ab2_only_after_power() -> None:
    state = position(new_game(2), hands=(("c01",), ("c31",)))
    assert play.to_act(ICE_BREAKERS, state) == (A,)
    assert forbidden(state, B, {"type": "cash_ab2", "card": "c31"}) == "not_your_turn"


# ----- the end -------------------------------------------------------------------------------


def test_delivering_the_last_ship_is_a_success_mid_turn() -> None:
    state = position(new_game(2), water=frozenset({(2, 0)}), ships={1: (2, 0)}, turns=4)
    state = act(state, A, power("c01"))
    events, after = play.step(ICE_BREAKERS, state, A, parse_action(move(1, (1, 0))))
    assert [e.type for e in events] == ["move_ship", "game_over"]
    assert events[1].data == {
        "winners": [0, 1],
        "scores": {},
        "delivered": 1,
        "in_play": 12,
        "turns": 5,
    }
    assert after.over and play.to_act(ICE_BREAKERS, after) == ()


def test_season_ends_when_every_seat_passes_in_a_row() -> None:
    state = act(new_game(3), A, PASS)
    state = act(state, B, PASS)
    assert not state.over
    state = act(state, C, power("c03"))
    state = act(state, C, END)
    for seat in (A, B):
        state = act(state, seat, PASS)
    assert not state.over
    events, state = play.step(ICE_BREAKERS, state, C, parse_action(PASS))
    assert state.over and events[-1].data == {
        "winners": [],
        "scores": {},
        "delivered": 0,
        "in_play": 12,
        "turns": 6,
    }


def test_season_ends_when_no_hand_holds_power_or_ab2() -> None:
    state = position(new_game(2), hands=(("c01",), ("c27", "c23")))
    state = act(state, A, power("c01"))
    state = act(state, A, END)
    assert state.over and state.outcome is not None and state.outcome.winners == ()
    kept = position(new_game(2), hands=(("c01",), ("c32",)))
    kept = act(act(kept, A, power("c01")), A, END)
    assert not kept.over  # an AB2 may still bring a Power card back


# ----- secrecy and views ---------------------------------------------------------------------


def test_no_view_reveals_an_unexposed_ice_report() -> None:
    one = new_game(2, upper=list(range(13)), lower=list(range(5)))
    two = new_game(2, upper=[0, *reversed(range(1, 13))], lower=[4, 3, 2, 1, 0])
    for viewer in (None, A, B):
        assert ICE_BREAKERS.view(one.board, viewer) == ICE_BREAKERS.view(two.board, viewer)
    view = ICE_BREAKERS.view(one.board, A)
    assert view["forecast"] == [1] and view["reports_face_down"] == 19
    assert "report_stack" not in view
    json.dumps(view)
    for state in (one, two):
        assert ICE_BREAKERS.pending(state.board) is None
        for seat in (A, B):
            assert "report" not in json.dumps(legal(state, seat))


def test_over_view_shows_the_stack() -> None:
    state = position(new_game(2), water=frozenset({(2, 0)}), ships={1: (2, 0)})
    state = act(act(state, A, power("c01")), A, move(1, (1, 0)))
    assert len(ICE_BREAKERS.view(state.board, None)["report_stack"]) == 20


# ----- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"type": "fly"}, "unknown_action_type"),
        ({}, "unknown_action_type"),
        ({"type": "clear"}, "missing_field"),
        ({"type": "give", "card": "c01"}, "missing_field"),
        ({"type": "pass", "card": "c01"}, "unexpected_field"),
        ({"type": "clear", "cell": [1]}, "invalid_field"),
        ({"type": "clear", "cell": [True, 1]}, "invalid_field"),
        ({"type": "boost", "card": 7}, "invalid_field"),
        ({"type": "move_ship", "ship": 1, "path": []}, "invalid_field"),
        ({"type": "move_ship", "ship": "1", "path": [[1, 0]]}, "invalid_field"),
        ({"type": "move_ship", "ship": 1, "path": [[1, 0], "x"]}, "invalid_field"),
        ({"type": "give", "card": "c01", "to": 1.0}, "invalid_field"),
    ],
)
def test_malformed_actions(data: dict[str, Any], code: str) -> None:
    with pytest.raises(MalformedAction) as error:
        parse_action(data)
    assert error.value.code == code


def test_actions_round_trip() -> None:
    for data in [power("c01"), boost("c27"), clear(0, 1), move(3, (4, 0), (5, 0)), give("c02", 1)]:
        assert parse_action(data).to_json() == data
    assert parse_action(END).to_json() == END and parse_action(PASS).to_json() == PASS


# ----- random playthroughs -------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("intro", [False, True])
def test_random_playthroughs_stay_consistent(seats: int, intro: bool) -> None:
    key = bytes(range(32))
    for game in range(6):
        chooser = random.Random(f"{seats}/{intro}/{game}")
        state = fresh(seats, intro=intro)
        log = [*_created_log(seats, intro)]
        for _ in range(20_000):
            if state.over:
                break
            pending = ICE_BREAKERS.pending_draw(state.board)
            to_act = play.to_act(ICE_BREAKERS, state)
            if pending is not None:
                assert not to_act
                outcome = rng.draw(
                    key, "g", state.version + 1, pending.label, pending.kind, pending.n
                )
                events = play.resolve_draw(ICE_BREAKERS, state, outcome)
            else:
                for seat in range(seats):
                    assert bool(play.legal_actions(ICE_BREAKERS, state, seat)) == (seat in to_act)
                seat = chooser.choice(to_act)
                actions = play.legal_actions(ICE_BREAKERS, state, seat)
                for other in chooser.sample(actions, min(3, len(actions))):
                    ICE_BREAKERS.check(state.board, seat, other)
                kinds = sorted({a.type for a in actions})
                wanted = chooser.choice(kinds)
                action = chooser.choice([a for a in actions if a.type == wanted])
                events = play.decide(ICE_BREAKERS, state, seat, action)
            for event in events:
                state = play.apply(ICE_BREAKERS, state, event)
                log.append(event)
        else:
            pytest.fail("the game did not end")
        assert play.fold(ICE_BREAKERS, "g", log) == state
        assert state.outcome is not None
        extra = state.outcome.extra
        board = board_of(state)
        assert extra["in_play"] == (6 if intro else 12)
        assert extra["delivered"] == len(board.delivered)
        if board.success:
            assert state.outcome.winners == tuple(range(seats))


def _created_log(seats: int, intro: bool) -> list[Any]:
    return [Event(GAME_CREATED, SYSTEM, created(seats, intro=intro).to_json())]


def _cheapest_route(board: IceBreakersBoard) -> list[tuple[int, int]]:
    """The ice cells, in order, on the cheapest route any ship has to its harbor."""
    best: tuple[int, list[tuple[int, int]]] | None = None
    for ship, start in sorted(board.ships.items()):
        home = HARBORS[ship]
        first = board.pieces[start] if board.is_ice(start) else 0
        queue = [(first, start, [start] if board.is_ice(start) else [])]
        seen: set[tuple[int, int]] = set()
        while queue:
            cost, cell, ice = heapq.heappop(queue)
            if cell in seen:
                continue
            seen.add(cell)
            if cell == home:
                if best is None or cost < best[0]:
                    best = (cost, ice)
                break
            for nb in NEIGHBOURS[cell]:
                if nb in seen:
                    continue
                step = board.pieces[nb] if board.is_ice(nb) else 0
                heapq.heappush(queue, (cost + step, nb, [*ice, nb] if step else ice))
    return best[1] if best else []


def _delivery_policy(state: GameState[Any], seat: int, chooser: random.Random) -> Any:
    actions = play.legal_actions(ICE_BREAKERS, state, seat)
    board = board_of(state)
    for action in actions:
        data = action.to_json()
        if data["type"] == "move_ship" and tuple(data["path"][-1]) == HARBORS[data["ship"]]:
            return action
    by_type: dict[str, list[Any]] = {}
    for action in actions:
        by_type.setdefault(action.type, []).append(action)
    for kind in ("give", "boost", "cash_ab2"):
        if kind in by_type:
            return chooser.choice(by_type[kind])
    if "play_power" in by_type:
        return max(by_type["play_power"], key=lambda a: a.card)
    route = _cheapest_route(board)
    clears = {a.cell: a for a in by_type.get("clear", [])}
    if route and route[0] in clears:
        return clears[route[0]]
    return by_type.get("end_turn", by_type.get("pass", actions))[0]


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "intro"), [(2, True), (4, True), (3, False)])
def test_delivery_seeking_playthroughs_deliver_and_sometimes_succeed(
    seats: int, intro: bool
) -> None:
    key = bytes(range(32))
    delivered, successes = 0, 0
    for game in range(8):
        chooser = random.Random(game)
        state = fresh(seats, intro=intro)
        log = [*_created_log(seats, intro)]
        while not state.over:
            pending = ICE_BREAKERS.pending_draw(state.board)
            if pending is not None:
                outcome = rng.draw(
                    key, f"d{game}", state.version + 1, pending.label, pending.kind, pending.n
                )
                events = play.resolve_draw(ICE_BREAKERS, state, outcome)
            else:
                seat = chooser.choice(play.to_act(ICE_BREAKERS, state))
                events = play.decide(
                    ICE_BREAKERS, state, seat, _delivery_policy(state, seat, chooser)
                )
            for event in events:
                state = play.apply(ICE_BREAKERS, state, event)
                log.append(event)
        assert play.fold(ICE_BREAKERS, "g", log) == state
        delivered += len(board_of(state).delivered)
        successes += bool(state.outcome and state.outcome.winners)
    assert delivered > 8
    if intro:
        assert successes > 0
