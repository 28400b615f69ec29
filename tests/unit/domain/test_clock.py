"""The clock arithmetic alone: specs as requests give them, and deadlines from times.

The worked examples here are the ones docs/reference/format.md gives an outside implementer,
so a change to the arithmetic that breaks them breaks the documented contract too.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.engine.clock import Clocks, ClockSpec, epoch_seconds, iso
from domain.engine.errors import InvalidSetup

T0 = epoch_seconds("2026-11-27T18:00:00Z")


def test_a_time_is_whole_seconds_since_the_epoch_and_prints_back() -> None:
    assert epoch_seconds("1970-01-01T00:01:05Z") == 65
    assert iso(T0 + 5) == "2026-11-27T18:00:05Z"
    assert epoch_seconds(iso(T0)) == T0


@pytest.mark.parametrize(
    "given",
    [
        {"kind": "fischer", "initial_s": 300, "increment_s": 5},
        {"kind": "per_move", "move_s": 86400},
        {"kind": "fischer", "initial_s": 1, "increment_s": 2_592_000},
    ],
)
def test_a_clock_is_recorded_exactly_as_given(given: dict[str, Any]) -> None:
    assert ClockSpec.from_json(given).to_json() == given


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"kind": "sundial"}, "kind"),
        ({"kind": "fischer", "initial_s": 300}, "increment_s"),
        ({"kind": "fischer", "initial_s": 0, "increment_s": 5}, "initial_s"),
        ({"kind": "per_move", "move_s": 2_592_001}, "move_s"),
        ({"kind": "per_move", "move_s": 30.0}, "move_s"),
        ({"kind": "per_move", "move_s": True}, "move_s"),
        ({"kind": "per_move", "move_s": 30, "increment_s": 1}, "increment_s"),
        ("fischer", "object"),
    ],
)
def test_a_clock_the_service_cannot_run_is_invalid_clock(given: Any, says: str) -> None:
    with pytest.raises(InvalidSetup) as refused:
        ClockSpec.from_json(given)
    assert refused.value.code == "invalid_clock"
    assert says in refused.value.message


FISCHER = ClockSpec.from_json({"kind": "fischer", "initial_s": 60, "increment_s": 5})
PER_MOVE = ClockSpec.from_json({"kind": "per_move", "move_s": 30})


def test_fischer_charges_the_time_used_and_adds_the_increment() -> None:
    clocks = Clocks.start(FISCHER, 2, T0, to_act=[0])
    assert clocks.deadline(0) == T0 + 60
    assert clocks.deadline(1) is None
    # seat 0 moves 20 s later: 60 - 20 + 5 = 45 left; seat 1's turn starts then
    clocks = clocks.after(T0 + 20, actor=0, to_act=[1])
    assert [c.remaining_s for c in clocks.seats] == [45, 60]
    assert clocks.deadline(0) is None
    assert clocks.deadline(1) == T0 + 80
    # seat 1 moves 70 s later still: over by 10 s, so too late (but charged to 0, not below)
    assert clocks.overdue(T0 + 80) == ()
    assert clocks.overdue(T0 + 81) == (1,)


def test_per_move_refills_every_turn() -> None:
    clocks = Clocks.start(PER_MOVE, 2, T0, to_act=[0])
    clocks = clocks.after(T0 + 29, actor=0, to_act=[1])
    clocks = clocks.after(T0 + 30, actor=1, to_act=[0])
    assert clocks.deadline(0) == T0 + 60
    assert [c.remaining_s for c in clocks.seats] == [30, 29]


def test_a_seat_still_to_act_after_its_action_starts_a_new_turn() -> None:
    clocks = Clocks.start(PER_MOVE, 2, T0, to_act=[0])
    clocks = clocks.after(T0 + 25, actor=0, to_act=[0])
    assert clocks.deadline(0) == T0 + 55


def test_no_clock_runs_while_a_draw_is_pending() -> None:
    clocks = Clocks.start(FISCHER, 2, T0, to_act=[0])
    clocks = clocks.after(T0 + 10, actor=0, to_act=[])  # a roll: the die is awaited
    assert clocks.deadline(0) is None
    clocks = clocks.after(T0 + 500, actor=None, to_act=[0])  # the die, much later
    assert clocks.deadline(0) == T0 + 500 + 55


def test_a_seat_that_stops_being_to_act_without_acting_is_charged_its_time() -> None:
    clocks = Clocks.start(FISCHER, 3, T0, to_act=[0, 1])
    clocks = clocks.after(T0 + 15, actor=0, to_act=[2])  # seat 1 is no longer asked
    assert [c.remaining_s for c in clocks.seats] == [50, 45, 60]
    assert clocks.next_deadline() == T0 + 75


def test_the_api_shows_what_each_seat_had_and_its_deadline() -> None:
    clocks = Clocks.start(FISCHER, 2, T0, to_act=[1])
    assert clocks.to_json() == {
        "0": {"remaining_s": 60, "deadline": None},
        "1": {"remaining_s": 60, "deadline": "2026-11-27T18:01:00Z"},
    }


def test_the_documented_epoch_second_of_the_worked_example() -> None:
    assert T0 == 1_795_802_400


def test_times_convert_like_the_standard_library_across_leap_years_and_centuries() -> None:
    from datetime import UTC, datetime, timedelta

    moment = datetime(1999, 12, 31, 23, 59, 59, tzinfo=UTC)
    for _ in range(400):
        text = moment.isoformat().replace("+00:00", "Z")
        assert epoch_seconds(text) == int(moment.timestamp())
        assert iso(int(moment.timestamp())) == text
        moment += timedelta(days=97, seconds=3_607)


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-29T00:00:00Z",
        "2026-11-27T24:00:00Z",
        "2026-11-27 18:00:00Z",
        "2026-11-27T18:00:00.5Z",
    ],
)
def test_a_time_not_in_the_logs_form_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        epoch_seconds(text)
