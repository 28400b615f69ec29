"""Leaving an Arktia game: resign, timeout and forfeit (docs/reference/rules/arktia.md,
"Leaving the game").

Seats: 0 = yellow (Y), 1 = red (R), 2 = green (GR), 3 = blue (B). Positions are built by hand
in the regular phase (tests/support/positions/arktia.py) on the 36-tile board, unless a test
plays the opening from the start.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.engine import play
from domain.engine.departures import Forfeit
from domain.engine.errors import NotAllowed
from domain.engine.types import SYSTEM, TIMEOUT, Event, GameState
from domain.games.arktia import ARKTIA
from domain.games.arktia.hexes import rows
from domain.games.arktia.stacks import Stack
from tests.support.positions.arktia import created, d, g, position, t

Y, R, GR, B = 0, 1, 2, 3
RESIGN = {"type": "resign"}
LINE = rows([(0, 0, 9)])  # ten tiles in a row: only the two ends can melt without a split


def step(
    state: GameState[Any], seat: int, action: dict[str, Any]
) -> tuple[list[Event], GameState[Any]]:
    """Decide ``action`` through the engine (no clock: ``at`` is None)."""
    return play.step(ARKTIA, state, seat, play.parse_action(ARKTIA, action), at=None)


def act(state: GameState[Any], seat: int, action: dict[str, Any]) -> GameState[Any]:
    return step(state, seat, action)[1]


def move(src: tuple[int, int], dst: tuple[int, int], unit: str = "all") -> dict[str, Any]:
    return {"type": "move", "from": list(src), "unit": unit, "to": list(dst)}


def place(size: str, tile: tuple[int, int]) -> dict[str, Any]:
    return {"type": "place", "size": size, "tile": list(tile)}


def to_act(state: GameState[Any]) -> tuple[int, ...]:
    return play.to_act(ARKTIA, state)


# ----- the seat to act leaves ----------------------------------------------------------------


def test_the_seat_to_act_resigning_in_two_seats_ends_the_game_for_the_other() -> None:
    state = position({(0, 0): g(Y), (0, 1): d(Y), (2, 0): g(R), (2, 1): d(R)}, seats=2)
    events, after = step(state, Y, RESIGN)
    assert [e.type for e in events] == ["resign", "game_over"]
    assert events[0] == Event(type="resign", actor=Y, data={"action": {"type": "resign"}})
    assert events[1].data == {"winners": [R], "scores": {}}
    assert after.over and after.left == (Y,)
    assert after.board.left == frozenset({Y})
    assert after.board.players[Y].ended == "retired"


def test_leaving_on_ones_turn_passes_it_on_and_counts_as_a_turn_like_retire() -> None:
    stacks = {(0, 0): g(Y), (0, 1): d(Y), (2, 0): g(R), (2, 1): d(R), (0, -2): g(GR)}
    state = position(stacks, current=Y, turns=20)
    events, after = step(state, Y, RESIGN)
    assert [e.type for e in events] == ["resign"]
    assert to_act(after) == (R,)
    assert after.board.turns == 21  # as a retire would have it
    assert after.board.players[Y].ended == "retired"
    assert play.legal_actions(ARKTIA, after, Y) == []


def test_a_leave_that_reaches_the_turn_limit_ends_every_game_and_the_leaver_loses() -> None:
    # Y holds the most tiles, but left: the best score among the others wins.
    stacks = {(0, 0): g(Y), (0, 1): d(Y), (1, 1): t(Y), (2, -1): g(R), (3, -2): g(GR)}
    state = position(stacks, turns=299)
    events, after = step(state, Y, RESIGN)
    assert [e.type for e in events] == ["resign", "game_over"]
    assert events[1].data == {"winners": [R, GR], "scores": {"0": 3, "1": 1, "2": 1}}
    assert [p.ended for p in after.board.players] == ["retired", "turn_limit", "turn_limit"]


# ----- another seat leaves -------------------------------------------------------------------


def _three_apart() -> GameState[Any]:
    """Y to act with two tiles; R holds six tiles (the best score); GR holds three."""
    stacks = {
        (-2, 2): g(Y),
        (-1, 2): d(Y),
        (0, -2): g(R),
        (1, -2): d(R),
        (2, -2): t(R),
        (3, -2): g(R),
        (1, -3): d(R),
        (2, -3): t(R),
        (2, 0): g(GR),
        (3, 0): d(GR),
        (2, 1): t(GR),
    }
    return position(stacks, current=Y)


def test_resigning_out_of_turn_leaves_the_turn_in_progress_alone() -> None:
    state = _three_apart()
    events, after = step(state, R, RESIGN)
    assert [e.type for e in events] == ["resign"]  # two seats are still in
    assert to_act(after) == (Y,)
    assert after.board.current == Y and after.board.turns == state.board.turns
    assert after.board.players[R].ended == "retired"
    assert after.left == (R,) and after.board.left == frozenset({R})
    assert after.board.stacks == state.board.stacks  # its pieces stay on the board


def test_the_rest_play_on_without_the_leaver_who_never_wins_despite_the_best_score() -> None:
    state = act(_three_apart(), R, RESIGN)
    state = act(state, Y, place("G", (-3, 2)))
    assert to_act(state) == (GR,)  # R is skipped
    state = act(state, GR, place("G", (3, -1)))
    assert to_act(state) == (Y,)
    state = act(state, Y, {"type": "retire"})
    assert to_act(state) == (GR,)
    events, state = step(state, GR, {"type": "retire"})
    assert [e.type for e in events] == ["retire", "game_over"]
    # Scores stay as the rules count them, the leaver's included; it is still no winner.
    assert events[1].data == {"winners": [GR], "scores": {"0": 3, "1": 6, "2": 4}}
    assert state.outcome is not None and R not in state.outcome.winners


def test_a_seat_that_left_is_refused_with_seat_left() -> None:
    state = act(_three_apart(), R, RESIGN)
    for action in (RESIGN, place("G", (0, -1)), {"type": "retire"}):
        with pytest.raises(NotAllowed) as error:
            step(state, R, action)
        assert error.value.code == "seat_left"
    assert play.legal_actions(ARKTIA, state, R) == []


def test_a_retired_seat_that_resigns_keeps_its_reason_and_loses_its_lead() -> None:
    state = act(_three_apart(), Y, {"type": "retire"})
    state = act(state, R, {"type": "retire"})
    events, state = step(state, R, RESIGN)  # retired, but still in the game until now
    assert [e.type for e in events] == ["resign"]
    assert state.board.players[R].ended == "retired"
    assert to_act(state) == (GR,)
    events, state = step(state, GR, {"type": "retire"})
    assert events[-1].data == {"winners": [GR], "scores": {"0": 2, "1": 6, "2": 3}}


# ----- leaving with a decision owed ----------------------------------------------------------


def _tie_owed() -> GameState[Any]:
    """Y moved R's D away from between two groups of R, three pieces each: a tie for Y.

    GR's G sits on one of R's Ds (2, -1); R's pieces: A = (-2, 0), (-1, 0), (-2, 1);
    B = (1, 0), (2, 0), (2, -1); the D carried to (0, 2) stands alone.
    """
    stacks = {
        (-2, 0): g(R),
        (-1, 0): d(R),
        (-2, 1): t(R),
        (0, 0): Stack(d=R, g=Y),
        (1, 0): t(R),
        (2, 0): g(R),
        (2, -1): Stack(d=R, g=GR),
        (0, 1): t(Y),
    }
    state = act(position(stacks, current=Y, turns=20), Y, move((0, 0), (0, 2)))
    pending = ARKTIA.pending(state.board)
    assert pending is not None and pending["type"] == "keep_group"
    return state


def test_leaving_with_a_tie_choice_owed_drops_it_and_passes_the_turn() -> None:
    state = _tie_owed()
    assert state.board.turns == 21  # the move counted
    events, after = step(state, Y, RESIGN)
    assert [e.type for e in events] == ["resign"]
    assert ARKTIA.pending(after.board) is None
    assert to_act(after) == (R,)
    assert after.board.ties == ()
    assert after.board.on_board(R) == 7 and after.board.players[Y].kept == 0  # nothing removed
    assert after.board.turns == 21  # the turn was counted once, by its move
    assert after.board.unsettled == frozenset({R})


def test_a_colour_a_dropped_tie_left_in_pieces_is_checked_by_the_next_move_carrying_it() -> None:
    state = act(_tie_owed(), Y, RESIGN)
    state = act(state, R, place("G", (-3, 1)))  # group A now weighs 4
    assert state.board.unsettled == frozenset({R})  # a placement moves nothing
    assert to_act(state) == (GR,)
    # GR carries R's D one step, still touching R: that alone could never split R, but R is
    # in three groups already, so the full check runs and GR keeps all but group A.
    state = act(state, GR, move((2, -1), (1, -1)))
    assert state.board.players[GR].kept == 4
    assert state.board.on_board(R) == 4
    assert state.board.unsettled == frozenset()
    assert to_act(state) == (R,)


def test_leaving_with_a_melt_owed_drops_it_and_passes_the_turn() -> None:
    stacks = {(3, 0): g(Y), (4, 0): d(Y), (6, 0): g(R), (7, 0): d(R), (9, 0): g(GR)}
    state = position(stacks, tiles=LINE, current=Y, turns=20, reserves={Y: (0, 0, 0)})
    state = act(state, Y, move((3, 0), (5, 0)))
    pending = ARKTIA.pending(state.board)
    assert pending is not None and pending["type"] == "melt"
    events, after = step(state, Y, RESIGN)
    assert [e.type for e in events] == ["resign"]
    assert ARKTIA.pending(after.board) is None
    assert to_act(after) == (R,)
    assert after.board.tiles == LINE and after.board.players[Y].melted == 0
    assert not after.board.melt_owed and not after.board.melt_due
    assert after.board.turns == 21


def test_leaving_with_a_tie_owed_in_two_seats_ends_the_game_for_the_other() -> None:
    stacks = {
        (-2, 0): g(R),
        (-1, 0): d(R),
        (0, 0): Stack(d=R, g=Y),
        (1, 0): t(R),
        (2, 0): g(R),
        (0, 1): t(Y),
    }
    state = act(position(stacks, seats=2, current=Y), Y, move((0, 0), (0, 2)))
    assert ARKTIA.pending(state.board) is not None
    events, _ = step(state, Y, RESIGN)
    assert [e.type for e in events] == ["resign", "game_over"]
    assert events[1].data == {"winners": [R], "scores": {}}


# ----- timeouts, forfeits and the opening ----------------------------------------------------


def test_a_timeout_folds_like_a_resignation() -> None:
    state = _three_apart()
    timeout = Event(type=TIMEOUT, actor=SYSTEM, data={"seat": Y})
    resign = Event(type="resign", actor=Y, data={"action": {"type": "resign"}})
    timed_out = play.apply(ARKTIA, state, timeout)
    resigned = play.apply(ARKTIA, state, resign)
    assert timed_out.left == (Y,)
    assert timed_out.board == resigned.board
    assert to_act(timed_out) == (R,)
    assert timed_out.board.players[Y].ended == "retired"
    assert timed_out.board.left == frozenset({Y})
    with pytest.raises(NotAllowed) as error:
        step(timed_out, Y, place("G", (-3, 2)))
    assert error.value.code == "seat_left"


def test_a_timeout_out_of_turn_leaves_the_turn_alone_and_costs_the_win() -> None:
    timeout = Event(type=TIMEOUT, actor=SYSTEM, data={"seat": R})
    state = play.apply(ARKTIA, _three_apart(), timeout)
    assert to_act(state) == (Y,)
    state = act(state, Y, {"type": "retire"})
    events, _ = step(state, GR, {"type": "retire"})
    assert events[-1].data == {"winners": [GR], "scores": {"0": 2, "1": 6, "2": 3}}


def test_a_forfeit_counts_as_a_resignation() -> None:
    events, after = play.decide_decision(ARKTIA, _three_apart(), Forfeit(Y, "no-show"))
    assert [e.type for e in events] == ["decision"]
    assert after.board == act(_three_apart(), Y, RESIGN).board
    assert to_act(after) == (R,)


def test_leaving_in_the_opening_skips_the_leavers_later_opening_turns() -> None:
    state = play.new_game(ARKTIA, "t", created(4))
    state = act(state, Y, place("G", (0, 0)))
    assert to_act(state) == (R,)
    events, state = step(state, R, RESIGN)
    assert [e.type for e in events] == ["resign"]
    assert state.board.turns == 2  # Y's placement and R's leave
    assert to_act(state) == (GR,)
    state = act(state, GR, place("G", (1, 0)))
    state = act(state, B, place("G", (-1, 0)))
    state = act(state, Y, place("D", (0, 1)))  # round 2: R's turn there is skipped
    assert to_act(state) == (GR,)
    assert state.board.stacks.keys() == {(0, 0), (1, 0), (-1, 0), (0, 1)}
