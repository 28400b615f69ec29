"""The clock arithmetic alone: specs as requests give them, and deadlines from times.

The test vectors are read from docs/reference/format.md itself (its "Worked example and test
vectors"), the tables an outside implementer checks against: a vector changed there, or a
change to the arithmetic here, fails a test. The hand-written cases pin what the tables
cannot say.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from domain.engine.clock import Clocks, ClockSpec, epoch_seconds, iso
from domain.engine.errors import InvalidSetup

FORMAT = Path(__file__).resolve().parents[3] / "docs" / "reference" / "format.md"
SECTION = "### Worked example and test vectors"
STEPS_HEAD = "| step | event | `at` | actor | to act after | remaining | deadline |"
DUE_HEAD = "| after step | at | timeouts due |"
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


def test_no_clock_runs_while_a_draw_is_pending() -> None:
    clocks = Clocks.start(FISCHER, 2, T0, to_act=[0])
    clocks = clocks.after(T0 + 10, actor=0, to_act=[])  # a roll: the die is awaited
    assert clocks.deadline(0) is None
    clocks = clocks.after(T0 + 500, actor=None, to_act=[0])  # the die, much later
    assert clocks.deadline(0) == T0 + 500 + 55


def test_the_api_shows_what_each_seat_had_and_its_deadline() -> None:
    clocks = Clocks.start(FISCHER, 2, T0, to_act=[1])
    assert clocks.to_json() == {
        "0": {"remaining_s": 60, "deadline": None},
        "1": {"remaining_s": 60, "deadline": "2026-11-27T18:01:00Z"},
    }


# ----- the vectors docs/reference/format.md publishes ------------------------------------


@dataclass(frozen=True)
class Step:
    """One row of the page's table of steps: an event and the clocks after it."""

    name: str
    clock: dict[str, Any] | None  # given at a vector's ``game_created`` only
    at: int
    actor: int | None
    to_act: list[int]
    remaining: list[int]
    deadlines: list[int | None]


def section() -> list[str]:
    text = FORMAT.read_text(encoding="utf-8")
    start = text.index(SECTION)
    return text[start : text.index("\n## ", start)].splitlines()


def rows(head: str) -> list[list[str]]:
    """The cells of the table under ``head`` in the section."""
    lines = section()
    found = []
    for line in lines[lines.index(head) + 2 :]:  # the header and its |---| line
        if not line.startswith("|"):
            break
        found.append([cell.strip() for cell in line.strip("|").split("|")])
    return found


def seconds(cell: str) -> int:
    """``T``, ``T+20``: epoch seconds."""
    found = re.fullmatch(r"T(?:\+(\d+))?", cell)
    assert found, f"not a time like T+20: {cell!r}"
    return T0 + int(found.group(1) or 0)


def seats(cell: str) -> list[int]:
    """``0, 1`` (or ``—``, ``none``: no seat)."""
    return [] if cell in ("—", "none") else [int(seat) for seat in cell.split(",")]


def step(cells: list[str]) -> Step:
    name, event, at, actor, to_act, remaining, deadlines = cells
    clock = re.search(r"`(\{.*\})`", event) if event.startswith("`game_created`") else None
    return Step(
        name,
        json.loads(clock.group(1)) if clock else None,
        seconds(at),
        None if actor == "—" else int(actor),
        seats(to_act),
        [int(left) for left in remaining.split(",")],
        [None if d.strip() == "—" else seconds(d.strip()) for d in deadlines.split(",")],
    )


STEPS = [step(cells) for cells in rows(STEPS_HEAD)]
VECTORS = sorted({s.name[0] for s in STEPS})
DUE = [(after, seconds(at), tuple(seats(due))) for after, at, due in rows(DUE_HEAD)]


def clocks_after_each_step(vector: str) -> dict[str, Clocks]:
    """The vector's events applied in order from its ``game_created``: the clocks after each,
    checked against the row as they go."""
    first, *rest = [s for s in STEPS if s.name.startswith(vector)]
    assert first.clock is not None and first.at == T0, f"{vector} starts at game_created at T"
    spec = ClockSpec.from_json(first.clock)
    clocks = Clocks.start(spec, len(first.remaining), first.at, first.to_act)
    after = {first.name: clocks}
    for row in rest:
        assert row.clock is None, f"{row.name}: only game_created names the clock"
        clocks = clocks.after(row.at, row.actor, row.to_act)
        after[row.name] = clocks
    for row in [first, *rest]:
        shown = after[row.name]
        assert [c.remaining_s for c in shown.seats] == row.remaining, row.name
        assert [shown.deadline(s) for s in range(len(shown.seats))] == row.deadlines, row.name
        running = [s for s, d in enumerate(row.deadlines) if d is not None]
        assert running == sorted(row.to_act), f"{row.name}: a deadline for each seat to act"
    return after


def test_the_page_states_its_vectors() -> None:
    assert VECTORS == ["A", "B", "C", "D", "E"]
    kinds = {s.clock["kind"] for s in STEPS if s.clock is not None}
    assert kinds == {"fischer", "per_move"}
    assert {after[0] for after, _, _ in DUE} == set(VECTORS)
    assert any(len(due) > 1 for _, _, due in DUE) and any(not due for _, _, due in DUE)
    # The worked example's T is the second the page says it is.
    assert "`2026-11-27T18:00:00Z` (1,795,802,400 s since the epoch; call it T)" in "\n".join(
        section()
    )
    assert T0 == 1_795_802_400


@pytest.mark.parametrize("vector", VECTORS)
def test_a_documented_vector_gives_the_clocks_the_page_shows(vector: str) -> None:
    after = clocks_after_each_step(vector)
    assert len(after) >= 2


@pytest.mark.parametrize(("after", "at", "due"), DUE, ids=[f"{a}@{t - T0}" for a, t, _ in DUE])
def test_a_documented_timeout_is_due_exactly_when_the_page_says(
    after: str, at: int, due: tuple[int, ...]
) -> None:
    clocks = clocks_after_each_step(after[0])[after]
    assert clocks.overdue(at) == due


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
