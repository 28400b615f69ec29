"""Ice Breakers when a seat leaves before the game ends (docs/reference/rules/ice-breakers.md,
"Leaving the game"): a resignation or an organizer's forfeit ends the game as a failure; a
timeout does not, and the timed-out seat's turns then pass at once, each exactly as a pass.

Seats: A = 0, B = 1, C = 2. With identity shuffles and three seats the hands are
A c01 c09 c27 c30, B c02 c10 c28 c31, C c03 c11 c29 c32 (c27–c30 are B1, c31–c32 AB2), and
the first three Ice Report cards are all {1}.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from domain.engine import play
from domain.engine.clock import Clocks, ClockSpec, iso
from domain.engine.departures import Forfeit
from domain.engine.errors import IllegalAction, NotAllowed
from domain.engine.types import SYSTEM, TIMEOUT, Event, GameState
from domain.games.ice_breakers import ICE_BREAKERS
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.geometry import CHANNELS
from tests.support.positions.ice_breakers import (
    act,
    board_of,
    draw,
    legal,
    new_game,
    position,
)

A, B, C = 0, 1, 2

END = {"type": "end_turn"}
PASS = {"type": "pass"}
RESIGN = {"type": "resign"}


def power(card: str) -> dict[str, Any]:
    return {"type": "play_power", "card": card}


def step(state: GameState[Any], seat: int, action: dict[str, Any]) -> tuple[list[Event], Any]:
    return play.step(ICE_BREAKERS, state, seat, play.parse_action(ICE_BREAKERS, action))


def time_out(state: GameState[Any], seat: int) -> GameState[Any]:
    """``seat``'s clock ran out: the ``timeout`` event folded (no clock, ``at`` None)."""
    return play.apply(ICE_BREAKERS, state, Event(type=TIMEOUT, actor=SYSTEM, data={"seat": seat}))


def reboard(state: GameState[Any], **changes: Any) -> GameState[Any]:
    """``state`` with some board fields replaced, keeping who has left."""
    return dataclasses.replace(state, board=board_of(state)._replace(**changes))


def without_timeouts(board: IceBreakersBoard) -> IceBreakersBoard:
    return board._replace(timed_out=frozenset())


def to_act(state: GameState[Any]) -> tuple[int, ...]:
    return play.to_act(ICE_BREAKERS, state)


# ----- resigning: the game ends at once as a failure -----------------------------------------


def _midgame() -> GameState[Any]:
    """Seven turns taken, ship 5 delivered, A to act with its Power card down."""
    state = new_game(3)
    ships = {s: c for s, c in board_of(state).ships.items() if s != 5}
    state = position(state, ships=ships, delivered=(5,), turns=7)
    return act(state, A, power("c01"))


@pytest.mark.parametrize("seat", [A, B, C])
@pytest.mark.parametrize("power_down", [False, True])
def test_resign_by_any_seat_ends_the_game_as_a_failure(seat: int, power_down: bool) -> None:
    state = _midgame() if power_down else position(new_game(3), turns=7, delivered=(5,))
    assert to_act(state) == ((A, B, C) if power_down else (A,))  # B and C hold B1s
    events, after = step(state, seat, RESIGN)
    assert [e.type for e in events] == ["resign", "game_over"]
    assert events[0].actor == seat and events[0].data == {"action": RESIGN}
    assert events[1].data == {
        "winners": [],
        "scores": {},
        "delivered": 1,
        "in_play": 12,
        "turns": 7,
    }
    assert after.over and after.left == (seat,) and to_act(after) == ()
    board = board_of(after)
    assert board.phase == "over" and not board.success
    assert ICE_BREAKERS.view(board, None)["report_stack"]  # over: the stack is shown


def test_an_organizers_forfeit_counts_as_resigning() -> None:
    state = _midgame()
    events, after = play.decide_decision(ICE_BREAKERS, state, Forfeit(C, "left the table"))
    assert [e.type for e in events] == ["decision", "game_over"]
    assert events[1].data["winners"] == [] and events[1].data["turns"] == 7
    assert after.over and after.left == (C,) and not board_of(after).success


# ----- timing out: the team plays on ---------------------------------------------------------


def test_timeout_of_the_seat_to_act_ends_its_turn_as_a_pass() -> None:
    water = frozenset({CHANNELS[0]})  # a 1: the forecast {1} freezes it again
    state = position(new_game(3), water=water)
    timed = time_out(state, A)
    passed = act(state, A, PASS)
    assert timed.left == (A,) and not timed.over
    assert board_of(timed).timed_out == frozenset({A})
    assert without_timeouts(board_of(timed)) == board_of(passed)
    board = board_of(timed)
    assert (board.current, board.turns, board.passes, board.report_index) == (B, 1, 1, 1)
    assert not board.water
    assert ICE_BREAKERS.outcome(board) is None
    assert to_act(timed) == (B,)


def test_timeout_mid_turn_ends_the_turn_without_a_pass() -> None:
    state = act(new_game(3), A, power("c09"))
    state = act(state, A, {"type": "clear", "cell": list(CHANNELS[0])})
    timed = time_out(state, A)
    ended = act(state, A, END)
    assert without_timeouts(board_of(timed)) == board_of(ended)
    board = board_of(timed)
    assert (board.current, board.turns, board.passes, board.power) == (B, 1, 0, None)
    assert to_act(timed) == (B,)


def test_a_skipped_turn_is_exactly_a_pass() -> None:
    start = act(act(new_game(3), A, power("c01")), A, END)
    timed = time_out(start, B)
    passed = act(start, B, PASS)
    for seat, card in ((C, "c03"), (A, "c09")):
        timed = act(act(timed, seat, power(card)), seat, END)
        passed = act(act(passed, seat, power(card)), seat, END)
    # B's turn came round again: skipped at once, where B would have had to pass.
    assert board_of(passed).current == B
    passed = act(passed, B, PASS)
    assert without_timeouts(board_of(timed)) == board_of(passed)
    board = board_of(timed)
    assert (board.current, board.turns, board.passes, board.report_index) == (C, 5, 1, 5)
    assert to_act(timed) == (C,)


def test_timeout_of_a_seat_chipping_in_leaves_the_turn_alone() -> None:
    state = act(new_game(3), A, power("c01"))
    assert to_act(state) == (A, B, C)
    timed = time_out(state, B)
    assert to_act(timed) == (A, C)
    assert without_timeouts(board_of(timed)) == board_of(state)
    assert play.legal_actions(ICE_BREAKERS, timed, B) == []
    timed = act(timed, A, END)  # B's turn is skipped
    board = board_of(timed)
    assert (board.current, board.turns, board.passes) == (C, 2, 1)


def test_a_timed_out_giver_leaves_its_waiting_cards_on_the_discard_pile() -> None:
    state = position(new_game(3), hands=(("c01",), ("c31", "c10"), ("c03",)))
    state = act(state, A, power("c01"))
    state = act(state, B, {"type": "cash_ab2", "card": "c31"})
    state = draw(state, 0)
    assert board_of(state).waiting == ("c01",) and to_act(state) == (B,)
    timed = time_out(state, B)
    board = board_of(timed)
    assert board.waiting == () and board.discard == ("c01",)
    assert (board.current, board.power, board.turns) == (A, "c01", 0)  # A's turn goes on
    assert to_act(timed) == (A,)


def test_a_timed_out_active_giver_discards_the_reward_and_its_turn_ends() -> None:
    state = position(new_game(3), water=frozenset({(3, 0)}), ships={2: (3, 0), 5: (0, 0)})
    state = act(state, A, power("c01"))
    state = act(state, A, {"type": "move_ship", "ship": 2, "path": [[4, 0]]})
    reward = board_of(state).waiting
    assert len(reward) == 3 and to_act(state) == (A,)
    timed = time_out(state, A)
    board = board_of(timed)
    assert board.waiting == () and board.discard == ("c01", *reward)
    assert board.delivered == (2,)
    assert (board.current, board.turns, board.passes) == (B, 1, 0)


def test_the_timed_out_seats_turns_are_skipped_in_later_play() -> None:
    """Play on with the first legal action (never an aimless ship move), draws fixed at 0."""
    state = act(new_game(3), A, PASS)
    state = time_out(state, B)
    starts: list[tuple[int, int]] = []  # (seat, turns) whenever a new turn starts
    for _ in range(2_000):
        if state.over:
            break
        board = board_of(state)
        if not starts or starts[-1][1] != board.turns:
            starts.append((board.current, board.turns))
        assert B not in to_act(state) and board.current != B
        if ICE_BREAKERS.pending_draw(board) is not None:
            assert to_act(state) == ()
            state = draw(state, 0)
            continue
        with pytest.raises(NotAllowed) as refused:
            step(state, B, PASS)
        assert refused.value.code == "seat_left"
        seat = to_act(state)[0]
        actions = [a for a in legal(state, seat) if a["type"] != "move_ship"]
        events, state = step(state, seat, actions[0])
    else:
        pytest.fail("the game did not end")
    assert len(starts) >= 3
    for (seat, turns), (following, later) in itertools.pairwise(starts):
        assert (seat, following) in ((A, C), (C, A))
        assert later - turns == (2 if seat == A else 1)  # A's turn end skips B's turn too
    assert state.outcome is not None and state.outcome.winners == ()
    assert events[-1].type == "game_over"
    assert state.outcome.extra["turns"] == board_of(state).turns
    final = board_of(state)  # the season ended with B's Power cards still in its hand
    assert final.passes < 3 and final.hands[B] == ("c02", "c10", "c28", "c31")


def test_season_ends_when_the_seats_still_playing_all_pass() -> None:
    state = act(act(new_game(3), A, power("c01")), A, END)
    state = time_out(state, B)  # a pass: 1 in a row
    state = act(state, C, PASS)  # 2
    assert not state.over and board_of(state).current == A
    events, state = step(state, A, PASS)  # 3, and B's skipped turn is the next
    assert [e.type for e in events] == ["pass", "game_over"]
    assert events[1].data == {
        "winners": [],
        "scores": {},
        "delivered": 0,
        "in_play": 12,
        "turns": 4,
    }


def test_a_timed_out_seats_hand_no_longer_counts_for_the_season() -> None:
    state = position(new_game(3), hands=(("c01",), ("c09",), ("c27",)))
    state = act(act(state, A, power("c01")), A, END)
    assert not state.over
    still = act(state, B, PASS)  # B's Power card keeps the season going
    assert not still.over and board_of(still).current == C
    timed = time_out(state, B)
    board = board_of(timed)
    assert board.phase == "over" and board.hands[B] == ("c09",)
    outcome = ICE_BREAKERS.outcome(board)
    assert outcome is not None and outcome.winners == () and outcome.extra["turns"] == 2


def test_a_success_names_every_seat_the_timed_out_ones_too() -> None:
    state = act(act(new_game(3), A, power("c01")), A, END)
    state = time_out(state, B)
    state = reboard(state, water=frozenset({(2, 0)}), ships={1: (2, 0)})
    state = act(state, C, power("c03"))
    events, after = step(state, C, {"type": "move_ship", "ship": 1, "path": [[1, 0]]})
    assert [e.type for e in events] == ["move_ship", "game_over"]
    assert events[1].data["winners"] == [A, B, C]
    assert after.over and board_of(after).success


def test_every_seat_timed_out_is_a_failure() -> None:
    state = act(new_game(3), A, power("c01"))
    state = time_out(state, B)
    state = time_out(state, C)
    assert not state.over and ICE_BREAKERS.outcome(board_of(state)) is None
    assert to_act(state) == (A,)
    state = time_out(state, A)
    board = board_of(state)
    assert board.phase == "over" and not board.success
    assert ICE_BREAKERS.outcome(board) is not None
    assert ICE_BREAKERS.outcome(board) == ICE_BREAKERS.outcome(
        board._replace(timed_out=frozenset())
    )
    outcome = ICE_BREAKERS.outcome(board)
    assert outcome is not None
    assert (outcome.winners, outcome.extra) == ((), {"delivered": 0, "in_play": 12, "turns": 0})


def test_the_engine_ends_the_game_when_the_last_clock_runs_out() -> None:
    spec = ClockSpec("per_move", 60)
    state = new_game(2)
    created = dataclasses.replace(state.created, clock=spec)
    state = dataclasses.replace(
        state, created=created, clocks=Clocks.start(spec, 2, 0, to_act(state))
    )
    with pytest.raises(IllegalAction):
        play.time_out(ICE_BREAKERS, state, A, iso(60))  # not due yet
    events, state = play.time_out(ICE_BREAKERS, state, A, iso(61))
    assert [e.type for e in events] == ["timeout"]
    assert to_act(state) == (B,) and state.clocks is not None
    assert state.clocks.deadline(B) == 61 + 60
    events, state = play.time_out(ICE_BREAKERS, state, B, iso(122))
    assert [e.type for e in events] == ["timeout", "game_over"]
    assert events[1].data == {
        "winners": [],
        "scores": {},
        "delivered": 0,
        "in_play": 12,
        "turns": 1,
    }
    assert state.over and state.left == (A, B)


# ----- a seat that left may do nothing more --------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        PASS,
        END,
        RESIGN,
        power("c02"),
        {"type": "boost", "card": "c28"},
        {"type": "cash_ab2", "card": "c31"},
        {"type": "give", "card": "c01", "to": 0},
    ],
)
def test_a_timed_out_seat_gets_seat_left_for_any_action(action: dict[str, Any]) -> None:
    state = act(act(new_game(3), A, power("c01")), A, END)
    state = time_out(state, B)
    state = act(state, C, power("c03"))  # B could boost now, had it not left
    with pytest.raises(NotAllowed) as refused:
        step(state, B, action)
    assert refused.value.code == "seat_left"
    with pytest.raises(IllegalAction) as again:
        play.decide_decision(ICE_BREAKERS, state, Forfeit(B, "gone"))
    assert again.value.code == "already_left"
