"""Iceberg when a seat leaves before the rules end the game: docs/reference/rules/iceberg.md,
"Leaving the game".

A seat resigns (any time, even out of turn), times out (a ``timeout`` system event) or is
forfeited by an organizer (a ``decision``): its coins leave play at once, on the board and in
hand, its turn (if it was its turn) ends and passes on, and it is never to act again nor among
the winners. Seats: A = 0, B = 1, C = 2, D = 3. Played through ``play.step`` / ``play.apply``
with no clock (``at`` None).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from domain.engine import play
from domain.engine.departures import Forfeit
from domain.engine.errors import NotAllowed
from domain.engine.rules import Action
from domain.engine.types import GAME_OVER, SYSTEM, Event, GameState, Outcome
from domain.games.iceberg import ICEBERG
from domain.games.iceberg.board import KeepChoice, RemoveChoice
from domain.games.iceberg.geometry import DEAL_ORDER
from tests.support.positions.iceberg import (
    act,
    coins_of,
    draw,
    legal,
    new_game,
    position,
    roll,
    sq,
    started,
    tl,
)

A, B, C, D = 0, 1, 2, 3

State = GameState[Any]
Policy = Callable[[State, int, Sequence[Action]], Action]


def resign(state: State, seat: int) -> tuple[list[Event], State]:
    return play.step(ICEBERG, state, seat, play.parse_action(ICEBERG, {"type": "resign"}))


def time_out(state: State, seat: int) -> State:
    return play.apply(ICEBERG, state, Event(type="timeout", actor=SYSTEM, data={"seat": seat}))


def forfeit(state: State, seat: int) -> State:
    data = {"decision": "forfeit", "seat": seat, "reason": "left the venue"}
    return play.apply(ICEBERG, state, Event(type="decision", actor=SYSTEM, data=data))


def types(events: list[Event]) -> list[str]:
    return [event.type for event in events]


def seats_of(state: State) -> set[int]:
    return set(state.board.coins.values())


# ----- two seats: the other seat wins ----------------------------------------------------------


def test_the_seat_to_act_resigning_in_a_two_seat_game_hands_the_other_the_win() -> None:
    state = started()
    assert play.to_act(ICEBERG, state) == (A,)
    events, after = resign(state, A)
    assert types(events) == ["resign", GAME_OVER]
    assert events[0].actor == A and events[0].data == {"action": {"type": "resign"}}
    assert events[1].data == {"winners": [B], "scores": {}}
    assert after.over and after.left == (A,)
    # the rules say so themselves, not only the engine's last-seat-standing rule
    assert ICEBERG.outcome(after.board) == Outcome(winners=(B,), scores={})
    assert seats_of(after) == {B} and after.board.hands[A] == 0


def test_resigning_out_of_turn_in_a_two_seat_game_hands_the_seat_to_act_the_win() -> None:
    events, after = resign(started(), B)
    assert types(events) == ["resign", GAME_OVER]
    assert events[1].data == {"winners": [A], "scores": {}}
    assert ICEBERG.outcome(after.board) == Outcome(winners=(A,), scores={})


def test_a_two_seat_timeout_ends_the_game_as_a_resignation_does() -> None:
    after = time_out(started(), A)
    assert after.left == (A,)
    assert ICEBERG.outcome(after.board) == Outcome(winners=(B,), scores={})
    assert after.board == resign(started(), A)[1].board


# ----- more seats: the rest play on ------------------------------------------------------------


def test_resigning_out_of_turn_with_three_seats_takes_only_the_leavers_coins() -> None:
    state = act(started(3), A, {"type": "play", "to": {"square": [0, 0]}})
    state = act(state, B, {"type": "play", "to": {"square": [9, 0]}})
    state = act(state, C, {"type": "play", "to": {"square": [0, 9]}})
    assert play.to_act(ICEBERG, state) == (A,) and C in seats_of(state)
    before = state.board
    events, after = resign(state, C)
    assert types(events) == ["resign"]
    assert not after.over and after.left == (C,)
    board = after.board
    assert C not in seats_of(after) and board.hands[C] == 0
    assert dict(board.coins) == {p: s for p, s in before.coins.items() if s != C}
    assert board.hands[:C] == before.hands[:C]
    assert (board.present, board.face_up, board.current, board.idle) == (
        before.present,
        before.face_up,
        before.current,
        before.idle,
    )
    assert play.to_act(ICEBERG, after) == (A,)
    assert legal(after, C) == []
    player = ICEBERG.view(board, None)["players"][C]
    assert (player["hand"], player["on_board"], player["out"]) == (0, 0, True)
    # A's turn goes on: C's freed squares are open to play on, nothing else changed
    assert {"type": "play", "to": {"square": [0, 9]}} in legal(after, A)
    assert len(legal(after, A)) == len(legal(state, A)) + 2  # [0, 9] and C's start square
    after = act(after, A, {"type": "play", "to": {"square": [1, 0]}})
    assert play.to_act(ICEBERG, after) == (B,)
    after = act(after, B, {"type": "play", "to": {"square": [8, 0]}})
    assert play.to_act(ICEBERG, after) == (A,)  # C is skipped


def first_legal(state: State, seat: int, actions: Sequence[Action]) -> Action:
    return actions[0]


def _dice() -> Iterator[int]:
    while True:
        yield from (3, 0, 5, 1, 4, 2)


def play_out(state: State, policy: Policy, *, limit: int = 2000) -> State:
    """Play to the end: ``policy`` picks each action, dice come from a fixed cycle; every
    position is checked for seats that left: never to act, never holding a coin."""
    dice = _dice()
    for _ in range(limit):
        _check_left_stay_out(state)
        if state.over:
            return state
        if ICEBERG.pending_draw(state.board) is not None:
            state = play.resolve_draw_step(ICEBERG, state, next(dice))[1]
            continue
        (seat,) = play.to_act(ICEBERG, state)
        actions = play.legal_actions(ICEBERG, state, seat)
        state = play.step(ICEBERG, state, seat, policy(state, seat, actions))[1]
    raise AssertionError(f"no end after {limit} steps")


def _check_left_stay_out(state: State) -> None:
    board = state.board
    assert set(state.left) == set(board.left)
    for seat in state.left:
        assert seat not in play.to_act(ICEBERG, state)
        assert play.legal_actions(ICEBERG, state, seat) == []
        assert board.hands[seat] == 0 and seat not in board.coins.values()
        assert board.is_out(seat) and seat not in board.in_before
        pending = ICEBERG.pending(board)
        assert pending is None or pending["seat"] != seat
        with pytest.raises(NotAllowed) as error:
            resign(state, seat)
        assert error.value.code == (
            "game_over"
            if state.over
            else "awaiting_random"  # the engine's guards come in this order
            if play.status(ICEBERG, state) == "awaiting_random"
            else "seat_left"
        )
    if state.outcome is not None:
        assert not set(state.outcome.winners) & set(state.left)


@pytest.mark.parametrize(("seats", "leaver"), [(3, C), (3, B), (4, B), (4, D)])
def test_after_an_out_of_turn_resignation_the_rest_play_the_game_to_its_end(
    seats: int, leaver: int
) -> None:
    state = started(seats)
    assert play.to_act(ICEBERG, state) == (A,)
    events, state = resign(state, leaver)
    assert types(events) == ["resign"]
    assert play.to_act(ICEBERG, state) == (A,)
    final = play_out(state, first_legal)
    assert final.outcome is not None and final.outcome.winners
    assert leaver not in final.outcome.winners
    assert final.left == (leaver,)


def _flip_first(state: State, seat: int, actions: Sequence[Action]) -> Action:
    """Flips first, then plays, then rolls: a game that ends by the ice, not the idle limit."""
    order = {"flip": 0, "play": 1, "roll": 2}
    return min(actions, key=lambda a: order.get(a.type, 3))


@pytest.mark.parametrize("seats", [3, 4])
def test_a_leaver_is_not_among_the_winners_of_a_game_the_ice_decides(seats: int) -> None:
    state = started(seats)
    state = act(state, A, {"type": "flip", "tile": [0, 0]})
    _, state = resign(state, seats - 1)  # out of turn: B is to act
    assert play.to_act(ICEBERG, state) == (B,)
    final = play_out(state, _flip_first)
    assert final.outcome is not None and final.outcome.winners
    assert seats - 1 not in final.outcome.winners
    assert final.board.idle < final.board.idle_limit  # not the idle limit's draw


def test_two_leavers_in_a_four_seat_game_leave_two_to_play_on() -> None:
    state = started(4)
    _, state = resign(state, B)
    state = act(state, A, {"type": "play", "to": {"square": [0, 0]}})
    assert play.to_act(ICEBERG, state) == (C,)  # B is skipped
    state = time_out(state, C)  # C's own turn: it passes on
    assert play.to_act(ICEBERG, state) == (D,)
    assert not state.over and state.left == (B, C)
    assert seats_of(state) == {A, D}
    final = play_out(state, first_legal)
    assert final.outcome is not None and set(final.outcome.winners) <= {A, D}


def test_the_last_seat_in_wins_when_the_others_leave_one_by_one() -> None:
    state = started(3)
    events, state = resign(state, A)  # A's own turn
    assert types(events) == ["resign"] and play.to_act(ICEBERG, state) == (B,)
    events, state = resign(state, B)
    assert types(events) == ["resign", GAME_OVER]
    assert events[1].data == {"winners": [C], "scores": {}}
    assert ICEBERG.outcome(state.board) == Outcome(winners=(C,), scores={})


# ----- the leaver's own turn ends --------------------------------------------------------------


def test_resigning_on_ones_own_turn_passes_it_and_is_not_an_idle_turn() -> None:
    state = position({sq(0, 0): A, sq(9, 9): B, sq(0, 9): C}, seats=3, idle=7)
    events, after = resign(state, A)
    assert types(events) == ["resign"]
    assert play.to_act(ICEBERG, after) == (B,)
    assert after.board.idle == 0  # A's coins left play: not idle
    assert coins_of(after) == {sq(9, 9): B, sq(0, 9): C}


def test_resigning_out_of_turn_leaves_the_idle_count_alone() -> None:
    state = position({sq(0, 0): A, sq(9, 9): B, sq(0, 9): C}, seats=3, idle=7)
    _, after = resign(state, B)
    assert after.board.idle == 7 and play.to_act(ICEBERG, after) == (A,)


def test_the_idle_limit_draw_after_a_departure_is_among_those_still_in_only() -> None:
    state = position({sq(0, 0): A, sq(9, 9): B, sq(0, 9): C}, seats=3, idle=1, idle_limit=2)
    _, state = resign(state, C)
    assert not state.over
    after = act(state, A, {"type": "move", "from": {"square": [0, 0]}, "to": {"square": [1, 0]}})
    assert after.outcome is not None and after.outcome.winners == (A, B)


def _choice_position(seats: int) -> State:
    """A rolled 3 and two face-up tiles show it: A owes a ``remove_tile`` choice."""
    values = {(0, 1): 3, (4, 3): 3}
    coins = {sq(5, 0): A, sq(9, 9): B, sq(0, 9): C}
    coins = {p: s for p, s in coins.items() if s < seats}
    state = position(coins, seats=seats, face_up=[(0, 1), (4, 3)], values=values, idle=4)
    state = roll(state, A, 3)
    assert isinstance(state.board.choice, RemoveChoice)
    return state


def test_leaving_while_owing_a_remove_tile_choice_ends_the_turn_with_nothing_removed() -> None:
    state = _choice_position(3)
    events, after = resign(state, A)
    assert types(events) == ["resign"]
    board = after.board
    assert board.choice is None and ICEBERG.pending(board) is None
    assert {(0, 1), (4, 3)} <= board.present and board.present == state.board.present
    assert play.to_act(ICEBERG, after) == (B,)
    assert legal(after, A) == []
    assert board.idle == 0
    assert coins_of(after) == {sq(9, 9): B, sq(0, 9): C}


def test_timing_out_while_owing_a_choice_in_a_two_seat_game_ends_it() -> None:
    after = time_out(_choice_position(2), A)
    assert ICEBERG.outcome(after.board) == Outcome(winners=(B,), scores={})


def _split_position(seats: int, coins: dict[Any, int], hands: tuple[int, ...]) -> State:
    """Columns 0-1 and 3-4 (ten tiles each) joined only by face-up (2, 0), showing 5."""
    removed = [(2, 1), (2, 3), (2, 4)]
    return position(
        coins, seats=seats, face_up=[(2, 0)], removed=removed, values={(2, 0): 5}, hands=hands
    )


def test_leaving_while_owing_a_keep_group_choice_keeps_every_tied_group() -> None:
    state = _split_position(3, {sq(0, 0): A, sq(9, 9): B, sq(8, 0): C}, (1, 1, 1))
    state = roll(state, A, 5)
    assert isinstance(state.board.choice, KeepChoice)
    _, after = resign(state, A)
    board = after.board
    assert board.choice is None
    assert board.present == frozenset(DEAL_ORDER) - {(2, 0), (2, 1), (2, 3), (2, 4)}
    assert coins_of(after) == {sq(9, 9): B, sq(8, 0): C}
    assert play.to_act(ICEBERG, after) == (B,) and board.idle == 0


@pytest.mark.parametrize(("keep", "winners"), [([0, 0], (C,)), ([4, 4], (A, C))])
def test_a_departure_during_anothers_choice_waits_for_the_turn_and_never_wins(
    keep: list[int], winners: tuple[int, ...]
) -> None:
    # A's roll takes A's last coin and leaves a tie to settle; B leaves meanwhile, so only C
    # is still in, but the end waits for A's choice. Keeping the east group sinks C's coin
    # too: nobody is left, and the draw is among those in before the roll, B excepted.
    state = _split_position(3, {tl(2, 0): A, sq(9, 9): B, sq(0, 0): C}, (0, 0, 0))
    state = roll(state, A, 5)
    assert state.board.still_in() == (B, C) and isinstance(state.board.choice, KeepChoice)
    events, state = resign(state, B)
    assert types(events) == ["resign"] and not state.over
    assert play.to_act(ICEBERG, state) == (A,)
    assert ICEBERG.pending(state.board) is not None
    events, after = play.step(
        ICEBERG, state, A, play.parse_action(ICEBERG, {"type": "keep_group", "tile": keep})
    )
    assert types(events) == ["keep_group", GAME_OVER]
    assert after.outcome is not None and after.outcome.winners == winners


def test_a_departure_that_leaves_one_players_coins_on_the_last_tile_ends_the_game() -> None:
    removed = [t for t in DEAL_ORDER if t != (0, 0)]
    state = position(
        {sq(0, 0): A, sq(1, 0): C}, seats=3, current=B, removed=removed, hands=(1, 1, 1)
    )
    events, after = resign(state, C)
    assert types(events) == ["resign", GAME_OVER]
    assert events[1].data == {"winners": [A], "scores": {}}  # B still has a coin in hand
    assert after.board.winners == (A,) and coins_of(after) == {sq(0, 0): A}


# ----- the setup phase ----------------------------------------------------------------------


def test_a_seat_leaving_before_its_starting_coin_is_skipped_in_setup_and_after() -> None:
    state = new_game(3)
    assert play.to_act(ICEBERG, state) == (A,)
    _, state = resign(state, A)  # A's own placement
    assert play.to_act(ICEBERG, state) == (B,) and state.board.phase == "start"
    state = act(state, B, {"type": "place_start", "square": [6, 3]})
    state = act(state, C, {"type": "place_start", "square": [6, 6]})
    assert state.board.phase == "play" and play.to_act(ICEBERG, state) == (B,)


def test_a_two_seat_game_left_during_setup_is_the_other_seats() -> None:
    state = act(new_game(2), A, {"type": "place_start", "square": [3, 3]})
    after = time_out(state, A)  # out of turn: B is to place
    assert ICEBERG.outcome(after.board) == Outcome(winners=(B,), scores={})
    events, _ = resign(state, B)
    assert events[1].data == {"winners": [A], "scores": {}}


def test_a_seat_leaving_out_of_turn_in_setup_places_no_coin() -> None:
    state = act(new_game(3), A, {"type": "place_start", "square": [3, 3]})
    _, state = resign(state, C)
    state = act(state, B, {"type": "place_start", "square": [6, 3]})
    assert state.board.phase == "play" and play.to_act(ICEBERG, state) == (A,)
    assert seats_of(state) == {A, B}
    _, state = resign(started(3), A)
    assert A not in seats_of(state) and play.to_act(ICEBERG, state) == (B,)


# ----- every way of leaving is the same ---------------------------------------------------------


@pytest.mark.parametrize("leaver", [A, C])
def test_a_timeout_and_a_forfeit_leave_the_board_as_a_resignation_does(leaver: int) -> None:
    state = _choice_position(3)
    resigned = resign(state, leaver)[1]
    timed_out = time_out(state, leaver)
    forfeited = forfeit(state, leaver)
    assert timed_out.board == resigned.board == forfeited.board
    assert timed_out.left == forfeited.left == (leaver,)
    assert play.to_act(ICEBERG, timed_out) == play.to_act(ICEBERG, resigned)
    assert leaver not in seats_of(timed_out)


def test_the_timeout_of_the_seat_to_act_passes_its_turn() -> None:
    state = started(4)
    after = time_out(state, A)
    assert play.to_act(ICEBERG, after) == (B,) and after.left == (A,)
    assert legal(after, A) == [] and A not in seats_of(after)


def test_a_seat_that_left_may_do_nothing_more() -> None:
    state = started(3)
    _, state = resign(state, B)
    state = act(state, A, {"type": "play", "to": {"square": [0, 0]}})
    assert play.to_act(ICEBERG, state) == (C,)
    for data in ({"type": "resign"}, {"type": "roll"}, {"type": "play", "to": {"square": [0, 1]}}):
        with pytest.raises(NotAllowed) as error:
            play.step(ICEBERG, state, B, play.parse_action(ICEBERG, data))
        assert error.value.code == "seat_left"
    state = time_out(state, C)  # folded alone: the engine's game_over would follow it
    assert ICEBERG.outcome(state.board) == Outcome(winners=(A,), scores={})


# ----- leaving at random moments --------------------------------------------------------------


@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("game", range(6))
def test_random_games_with_departures_end_without_a_leaver_winning(seats: int, game: int) -> None:
    rng = random.Random(f"leave/{seats}/{game}")
    state = draw(new_game(seats, deal=[]), rng.sample(range(24), 24))
    dice = _dice()
    for _ in range(3000):
        _check_left_stay_out(state)
        if state.over:
            break
        if ICEBERG.pending_draw(state.board) is not None:
            state = play.resolve_draw_step(ICEBERG, state, next(dice))[1]
            continue
        staying = [s for s in range(seats) if s not in state.left]
        if rng.random() < 0.03:
            leaver = rng.choice(staying)
            if rng.random() < 0.5:
                state = resign(state, leaver)[1]
            else:
                state = play.decide_decision(ICEBERG, state, Forfeit(leaver, "no show"))[1]
            continue
        (seat,) = play.to_act(ICEBERG, state)
        assert seat in staying
        action = rng.choice(play.legal_actions(ICEBERG, state, seat))
        state = play.step(ICEBERG, state, seat, action)[1]
    assert state.over
    _check_left_stay_out(state)
