"""``floe replay step`` on a small terminal: the board scrolls, nothing is lost, and the
header, banner and event stay in view."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from replay.step import HELP, Frame, frame
from replay.timeline import Timeline, load
from tests.support.reference_games import conformance_games
from tests.support.replay_cli import Terminal, damaged, reference

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def whole_board(timeline: Timeline, version: int, colour: bool = False) -> list[str]:
    """The board's lines, from a frame big enough to hold all of it."""
    full = frame(timeline, version, 10_000, 10_000, colour=colour)
    return full.lines[-1 - full.rows : -1]


def board_in_view(shown: Frame) -> list[str]:
    return shown.lines[-1 - min(shown.page, shown.rows - shown.top) : -1]


@pytest.mark.parametrize("path", conformance_games(), ids=lambda p: p.stem)
def test_every_cell_of_every_board_can_be_reached_at_80x24(path: Path) -> None:
    timeline = load(str(path))
    for version in sorted({1, timeline.last // 2, timeline.last}):
        board = whole_board(timeline, version)
        seen: set[tuple[int, int]] = set()
        top = 0
        while True:
            left = 0
            while True:
                shown = frame(timeline, version, 80, 24, top=top, left=left)
                assert len(shown.lines) <= 24 and all(len(line) <= 80 for line in shown.lines)
                assert shown.lines[0].startswith(f"version {version}/{timeline.last}  ")
                assert any(line.startswith(f"event {version}: ") for line in shown.lines)
                assert shown.lines[-1] == HELP
                assert shown.page >= 10, "the board keeps a good part of the screen"
                view = board_in_view(shown)
                expected = [line[shown.left : shown.left + 80] for line in board]
                assert view == expected[shown.top : shown.top + len(view)]
                seen |= {
                    (shown.top + row, shown.left + col)
                    for row, line in enumerate(view)
                    for col in range(len(line))
                }
                if shown.left + 80 >= shown.wide:
                    break
                left = shown.left + 40
            if shown.top + shown.page >= shown.rows:
                break
            top = shown.top + shown.page - 1
        assert seen == {(r, c) for r, line in enumerate(board) for c in range(len(line))}


def test_a_board_taller_than_the_screen_says_which_rows_are_in_view() -> None:
    timeline = load(str(reference("ice-breakers-4p")))
    first = frame(timeline, 1, 80, 24)
    assert first.rows > first.page, "this board does not fit 24 rows"
    ruler = first.lines[-2 - first.page]
    assert ruler.startswith(f"-- board rows 1-{first.page} of {first.rows} ")
    end = frame(timeline, 1, 80, 24, top=10**6)  # pulled back into range
    assert end.top == end.rows - end.page
    assert end.lines[-2 - end.page].startswith(
        f"-- board rows {end.top + 1}-{end.rows} of {end.rows} "
    )
    assert board_in_view(end)[-1] == whole_board(timeline, 1)[-1]
    assert frame(timeline, 1, 80, 24, top=-5).top == 0


def test_a_board_wider_than_the_screen_pans_with_its_colours_kept() -> None:
    timeline = load(str(reference("ice-breakers-4p")))
    plain = whole_board(timeline, 40)
    for left in (0, 7, 25):
        shown = frame(timeline, 40, 30, 40, colour=True, left=left)
        ruler = shown.lines[-2 - shown.page]
        assert shown.left == left and f"cols {left + 1}-{left + 30}/" in ruler
        visible = [ANSI.sub("", line) for line in board_in_view(shown)]
        assert visible == [line[left : left + 30] for line in plain][: len(visible)]
    coloured = frame(timeline, 40, 30, 40, colour=True, left=2)
    assert any("\x1b[3" in line for line in board_in_view(coloured)), "seat colours survive"


def test_the_banner_and_event_stay_in_view_while_scrolling(tmp_path: Path) -> None:
    timeline = load(str(damaged(tmp_path, 26)))
    for top in (0, 5, 10**6):
        shown = frame(timeline, 25, 80, 24, top=top)
        assert shown.lines[0].startswith("version 25/25  ")
        assert shown.lines[1].startswith("!! verification failed at version 26: ")
        assert any(line.startswith("event 25: ") for line in shown.lines)
        assert shown.page >= 8


def test_the_top_gives_up_lines_before_the_board_does_on_a_tiny_screen() -> None:
    timeline = load(str(reference("ice-breakers-4p")))
    last = timeline.last  # seed_revealed: the longest event data
    shown = frame(timeline, last, 30, 16)
    assert shown.lines[0].startswith(f"version {last}/{last}")
    assert shown.lines[1].startswith(f"event {last}: ")
    assert shown.page >= 6 and len(shown.lines) <= 16
    assert any(line.endswith("…") for line in shown.lines), "cut lines say so"
    assert shown.lines[-1] == "h/l j/k < > g q quit"


@pytest.mark.processes
def test_step_scrolls_the_board_at_80x24() -> None:
    path = reference("ice-breakers-4p")
    timeline = load(str(path))
    start, end = frame(timeline, 1, 80, 24), frame(timeline, 1, 80, 24, top=10**6)
    last_row = board_in_view(end)[-1]
    token = max(
        (w for w in last_row.split() if w not in "\n".join(start.lines)), key=len, default=""
    )
    assert len(token) >= 3, f"no word of the board's last row is unique to it: {last_row!r}"
    header = rf"version 1/{timeline.last}\b"
    term = Terminal(path, 24, 80)
    try:
        shown = term.wait_for(r"q quit")
        assert re.search(header, shown) and token not in shown
        assert f"rows 1-{start.page} of {start.rows}" in shown
        term.press(b"\x1b[6~")  # PgDn
        term.wait_for(r"q quit")
        term.press(b"\x1b[6~")  # PgDn again: at the bottom now
        shown = term.wait_for(r"q quit")
        assert token in shown and re.search(header, shown), shown
        assert f"rows {end.top + 1}-{end.rows} of {end.rows}" in shown
        term.press(b"\x1b[A")  # Up
        shown = term.wait_for(r"q quit")
        assert f"rows {end.top}-{end.rows - 1} of {end.rows}" in shown
        term.press(b"j")
        shown = term.wait_for(r"q quit")
        assert f"rows {end.top + 1}-{end.rows} of {end.rows}" in shown
        term.press(b"l")  # the next version keeps the scroll position
        shown = term.wait_for(r"q quit")
        assert re.search(rf"version 2/{timeline.last}\b", shown)
        kept = frame(timeline, 2, 80, 24, top=end.top)
        assert kept.lines[-2 - kept.page] in shown
        term.press(b"\x1b[5~\x1b[5~\x1b[5~")  # PgUp to the top
        shown = term.wait_for(r"rows 1-\d+ of")
        term.press(b"q")
        assert term.exit_code() == 0
    finally:
        term.close()


@pytest.mark.processes
def test_step_pans_a_board_wider_than_the_screen() -> None:
    path = reference("ice-breakers-4p")
    timeline = load(str(path))
    start = frame(timeline, 1, 40, 30)
    panned = frame(timeline, 1, 40, 30, left=20)
    assert start.wide > 40
    term = Terminal(path, 30, 40)
    try:
        shown = term.wait_for(r"q quit")
        assert f"cols 1-40/{start.wide}" in shown
        term.press(b">")
        shown = term.wait_for(r"q quit")
        assert panned.left == 20 and f"cols 21-{min(60, start.wide)}/{start.wide}" in shown
        term.press(b"<")
        shown = term.wait_for(r"q quit")
        assert f"cols 1-40/{start.wide}" in shown
        term.press(b"q")
        assert term.exit_code() == 0
    finally:
        term.close()
