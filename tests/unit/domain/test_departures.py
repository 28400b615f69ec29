"""Resigning, timing out and organizers' decisions, through the engine alone, on Pig.

What leaving means on a board is each game's (their own tests); what is the same for every
game is here: the guards, the events written, the clocks that decide a timeout, and the
competitive rule that the last seat in wins.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.engine import play
from domain.engine.clock import epoch_seconds, iso
from domain.engine.departures import Forfeit, Result, parse_decision
from domain.engine.errors import IllegalAction, MalformedAction, NotAllowed, TimeoutDue
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, GameState, SeatInfo
from tests.support.pig import GAME

RULES = GAME.rules
T0 = "2026-11-27T18:00:00Z"
RESIGN = {"type": "resign"}


def later(seconds: int) -> str:
    return iso(epoch_seconds(T0) + seconds)


def new_game(seats: int = 2, clock: dict[str, Any] | None = None) -> GameState[Any]:
    created = GameCreated(
        game="pig",
        rules_version=RULES.rules_version,
        options={},
        seats=tuple(SeatInfo(i, f"p{i}") for i in range(seats)),
        seed_commitment="0" * 64,
    ).to_json()
    if clock is not None:
        created["clock"] = clock
    return play.fold_timed(RULES, "pig-game", [(Event(GAME_CREATED, SYSTEM, created), T0)])


def resign(state: GameState[Any], seat: int, at: str | None = None) -> list[Event]:
    return play.step(RULES, state, seat, play.parse_action(RULES, RESIGN), at)[0]


def test_resign_is_an_action_of_every_game_never_a_legal_one() -> None:
    state = new_game()
    assert play.parse_action(RULES, RESIGN).to_json() == RESIGN
    assert all(a.type != "resign" for a in play.legal_actions(RULES, state, 0))
    with pytest.raises(MalformedAction) as refused:
        play.parse_action(RULES, {"type": "resign", "why": "tired"})
    assert refused.value.code == "unexpected_field"


def test_in_a_two_seat_game_the_other_seat_wins_when_one_resigns_even_out_of_turn() -> None:
    state = new_game()
    assert play.to_act(RULES, state) == (0,)
    events = resign(state, 1)
    assert [(e.type, e.actor, dict(e.data)) for e in events] == [
        ("resign", 1, {"action": RESIGN}),
        ("game_over", SYSTEM, {"winners": [0], "scores": {}}),
    ]


def test_with_more_seats_the_rest_play_on_and_the_leaver_is_skipped() -> None:
    state = new_game(3)
    events, state = play.step(RULES, state, 0, play.parse_action(RULES, RESIGN))
    assert [e.type for e in events] == ["resign"]
    assert state.left == (0,)
    assert play.to_act(RULES, state) == (1,)
    with pytest.raises(NotAllowed) as refused:
        resign(state, 0)
    assert refused.value.code == "seat_left"
    events, state = play.step(RULES, state, 2, play.parse_action(RULES, RESIGN))
    assert [(e.type, dict(e.data)) for e in events][-1] == (
        "game_over",
        {"winners": [1], "scores": {}},
    )


def test_resign_waits_for_a_pending_draw_and_ends_with_the_game() -> None:
    state = new_game()
    _, rolling = play.step(RULES, state, 0, RULES.parse_action({"type": "roll"}))
    with pytest.raises(NotAllowed) as refused:
        resign(rolling, 1)
    assert refused.value.code == "awaiting_random"
    _, over = play.step(RULES, state, 0, play.parse_action(RULES, RESIGN))
    with pytest.raises(NotAllowed) as refused:
        resign(over, 1)
    assert refused.value.code == "game_over"


FISCHER = {"kind": "fischer", "initial_s": 60, "increment_s": 5}


def test_an_action_after_the_deadline_is_refused_for_the_timeout_it_owes() -> None:
    state = new_game(clock=FISCHER)
    assert state.clocks is not None and state.clocks.deadline(0) == epoch_seconds(later(60))
    roll = RULES.parse_action({"type": "roll"})
    play.step(RULES, state, 0, roll, later(60))  # the last second is still on time
    with pytest.raises(TimeoutDue) as due:
        play.step(RULES, state, 0, roll, later(61))
    assert due.value.seats == (0,)
    with pytest.raises(TimeoutDue):  # nobody may record anything before it, not even a resign
        resign(state, 1, later(61))


def test_a_timeout_is_due_only_after_the_deadline_and_ends_a_two_seat_game() -> None:
    state = new_game(clock={"kind": "per_move", "move_s": 30})
    with pytest.raises(IllegalAction) as refused:
        play.time_out(RULES, state, 0, later(30))
    assert refused.value.code == "timeout_not_due"
    with pytest.raises(IllegalAction):
        play.time_out(RULES, state, 1, later(31))  # seat 1 is not to act: no clock runs
    events, after = play.time_out(RULES, state, 0, later(31))
    assert [(e.type, e.actor, dict(e.data)) for e in events] == [
        ("timeout", SYSTEM, {"seat": 0}),
        ("game_over", SYSTEM, {"winners": [1], "scores": {}}),
    ]
    assert after.left == (0,) and after.over


def test_a_game_without_a_clock_never_times_out() -> None:
    state = new_game()
    assert state.clocks is None
    with pytest.raises(IllegalAction):
        play.time_out(RULES, state, 0, later(10**6))


def test_the_clocks_fold_from_the_times_of_the_log() -> None:
    state = new_game(clock=FISCHER)
    log = [(Event(GAME_CREATED, SYSTEM, state.created.to_json()), T0)]
    events, state = play.step(RULES, state, 0, RULES.parse_action({"type": "roll"}), later(20))
    log += [(e, later(20)) for e in events]
    [draw], state = play.resolve_draw_step(RULES, state, 3, later(21))
    log.append((draw, later(21)))
    assert state.clocks is not None
    assert state.clocks.deadline(0) == epoch_seconds(later(21)) + 45
    assert play.fold_timed(RULES, "pig-game", log).clocks == state.clocks


def test_a_forfeit_counts_as_resigning_and_a_result_ends_the_game_with_its_winners() -> None:
    state = new_game(3)
    forfeit = parse_decision({"decision": "forfeit", "seat": 2, "reason": "no show"})
    assert forfeit == Forfeit(2, "no show")
    events, after = play.decide_decision(RULES, state, forfeit)
    assert [(e.type, e.actor, dict(e.data)) for e in events] == [
        ("decision", SYSTEM, {"decision": "forfeit", "seat": 2, "reason": "no show"})
    ]
    assert after.left == (2,)
    with pytest.raises(IllegalAction) as refused:
        play.decide_decision(RULES, after, forfeit)
    assert refused.value.code == "already_left"
    result = parse_decision({"decision": "result", "winners": [0, 1], "reason": "agreed draw"})
    assert result == Result((0, 1), "agreed draw")
    events, over = play.decide_decision(RULES, after, result)
    assert [(e.type, dict(e.data)) for e in events] == [
        ("decision", {"decision": "result", "winners": [0, 1], "reason": "agreed draw"}),
        ("game_over", {"winners": [0, 1], "scores": {}}),
    ]
    assert over.over


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"decision": "pardon", "reason": "x"}, "unknown_decision"),
        ({"decision": "forfeit", "seat": 1}, "missing_field"),
        ({"decision": "forfeit", "seat": 1, "reason": "x", "by": "me"}, "unexpected_field"),
        ({"decision": "forfeit", "seat": True, "reason": "x"}, "invalid_field"),
        ({"decision": "forfeit", "seat": 1, "reason": "   "}, "invalid_field"),
        ({"decision": "result", "winners": [1, 1], "reason": "x"}, "invalid_field"),
        ({"decision": "result", "winners": 1, "reason": "x"}, "invalid_field"),
        ([], "invalid_body"),
    ],
)
def test_a_decision_that_fits_no_schema_is_malformed(body: Any, code: str) -> None:
    with pytest.raises(MalformedAction) as refused:
        parse_decision(body)
    assert refused.value.code == code


def test_a_decision_naming_a_seat_the_game_lacks_is_refused() -> None:
    state = new_game(2)
    for body in (
        {"decision": "forfeit", "seat": 2, "reason": "x"},
        {"decision": "result", "winners": [0, 5], "reason": "x"},
    ):
        with pytest.raises(IllegalAction) as refused:
            play.decide_decision(RULES, state, parse_decision(body))
        assert refused.value.code == "unknown_seat"


def test_every_clock_stops_when_the_game_ends() -> None:
    state = new_game(clock=FISCHER)
    events, over = play.step(RULES, state, 1, play.parse_action(RULES, RESIGN), later(10))
    assert [e.type for e in events] == ["resign", "game_over"]
    assert over.clocks is not None
    assert [c.deadline for c in over.clocks.seats] == [None, None]
    assert over.clocks.seats[0].remaining_s == 50  # seat 0's turn ran 10 s until the end


@pytest.mark.parametrize(
    ("event", "said"),
    [
        ({"type": "resign", "actor": 1, "data": {"action": {"type": "resign"}}}, "Bo: resigned"),
        ({"type": "timeout", "actor": "system", "data": {"seat": 1}}, "Bo: ran out of time"),
        (
            {
                "type": "decision",
                "actor": "system",
                "data": {"decision": "forfeit", "seat": 1, "reason": "x"},
            },
            "Bo: forfeited by the organizer",
        ),
    ],
)
def test_every_games_pictures_say_who_left_and_how(event: dict[str, Any], said: str) -> None:
    from domain.engine.game import Scene
    from domain.games import GAMES

    for game in GAMES.values():
        created = GameCreated(
            game.name,
            game.rules.rules_version,
            {},
            tuple(SeatInfo(i, name) for i, name in enumerate(["Ann", "Bo", "Cy"])),
            "0" * 64,
        )
        board = game.rules.initial_board(created)
        scene = Scene.of(game.rules.view(board, None), names=["Ann", "Bo", "Cy"], event=event)
        assert f"Last move: {said}" in "\n".join(game.text(scene, False))
        assert said.split(": ")[1] in game.svg(scene)
