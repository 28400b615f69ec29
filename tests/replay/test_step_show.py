"""``floe replay show`` and ``step``: the timeline, the text pictures, and the real UI in a pty."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.games import GAMES as HOSTED
from replay.step import frame
from replay.timeline import Timeline, TimelineError, from_events, load
from tests.support.reference_games import conformance_games, read_jsonl
from tests.support.replay_cli import Terminal, floe

#: ``tests/e2e/test_plugin_game.py`` drives its game through these helpers from here.
__all__ = ["Terminal", "floe"]

GAMES = conformance_games()


def test_the_reference_games_are_there() -> None:
    assert len(GAMES) >= 9, "tests/data/conformance holds the reference games"


@pytest.fixture(scope="module", params=GAMES, ids=lambda p: p.stem)
def game(request: pytest.FixtureRequest) -> Path:
    path: Path = request.param
    return path


def test_timeline_matches_the_log(game: Path) -> None:
    events = read_jsonl(game)
    timeline = load(str(game))
    assert timeline.last == len(events)
    assert timeline.game_id == events[0]["game_id"]
    for version in (1, len(events) // 2, len(events)):
        assert timeline.state(version).version == version
        assert timeline.event(version) == events[version - 1]
    assert timeline.state(timeline.last).over
    assert timeline.status(timeline.last) == "over"
    with pytest.raises(IndexError):
        timeline.state(0)
    with pytest.raises(IndexError):
        timeline.event(timeline.last + 1)
    assert timeline.clamp(0) == 1 and timeline.clamp(10**6) == timeline.last


def test_timeline_refuses_what_it_cannot_replay() -> None:
    with pytest.raises(TimelineError):
        from_events([])
    with pytest.raises(TimelineError):
        from_events([{"type": "move", "data": {}}])
    first = read_jsonl(GAMES[0])[0]
    with pytest.raises(TimelineError):
        from_events([{**first, "data": {**first["data"], "game": "chess"}}])


def test_text_renders_every_version_plainly_and_in_colour(game: Path) -> None:
    timeline = load(str(game))
    for version in range(1, timeline.last + 1):
        plain = HOSTED[timeline.game].text(timeline.scene(version), False)
        assert plain and all("\x1b" not in line for line in plain)
    painted = HOSTED[timeline.game].text(timeline.scene(timeline.last // 2), True)
    assert any("\x1b[3" in line for line in painted)


@pytest.mark.processes
def test_show_prints_the_version_and_its_event(game: Path) -> None:
    events = read_jsonl(game)
    last = len(events)
    for version in sorted({1, 2, last // 3, last // 2, last - 1, last}):
        result = floe("show", str(game), "--at", str(version), "--colour", "never")
        assert result.returncode == 0, result.stderr
        head, event_line = result.stdout.splitlines()[:2]
        assert f"version {version}/{last}" in head
        assert event_line.startswith(f"event {version}: {events[version - 1]['type']} by ")
        assert "\x1b" not in result.stdout


@pytest.mark.processes
def test_show_defaults_to_the_last_version_and_refuses_others() -> None:
    path = GAMES[0]
    last = len(read_jsonl(path))
    result = floe("show", str(path))
    assert result.returncode == 0 and f"version {last}/{last}" in result.stdout
    assert "seed_revealed" in result.stdout
    assert f"version {last - 1}/{last}" in floe("show", str(path), "--at", "-2").stdout
    for bad in ("0", str(last + 1)):
        refused = floe("show", str(path), "--at", bad)
        assert refused.returncode == 2 and "no version" in refused.stderr
    missing = floe("show", "/nonexistent/game.jsonl")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


@pytest.mark.processes
def test_show_svg_draws_a_picture_or_says_why_not() -> None:
    result = floe("show", str(GAMES[0]), "--at", "5", "--svg")
    if result.returncode == 0:
        assert result.stdout.lstrip().startswith("<svg") and "version 5/" in result.stdout
    else:
        assert result.returncode == 2 and "SVG" in result.stderr


@pytest.fixture(scope="module")
def iceberg() -> Timeline:
    return load(str(next(p for p in GAMES if "iceberg" in p.name)))


def test_screen_names_version_event_actor_and_turn(iceberg: Timeline) -> None:
    lines = frame(iceberg, 3, 100, 60).lines
    stored = iceberg.event(3)
    assert lines[0].startswith(f"version 3/{iceberg.last}  {iceberg.game_id} (iceberg)")
    assert f"event 3: {stored['type']} by seat {stored['actor']}" in lines[1]
    assert stored["at"] in lines[1]
    assert "data {" in lines[2]
    assert lines[3].startswith("to act: seat ")
    assert any("+------+" in line for line in lines)
    assert "q quit" in lines[-1]


def test_screen_at_the_end_shows_the_outcome(iceberg: Timeline) -> None:
    lines = frame(iceberg, iceberg.last, 120, 60).lines
    assert "seed_revealed by system" in lines[1]
    assert lines[3].startswith("over: winners ")


def test_screen_fits_any_terminal(iceberg: Timeline) -> None:
    for width, height in ((120, 60), (40, 10), (10, 3), (1, 1), (5, 2)):
        lines = frame(iceberg, 20, width, height).lines
        assert 0 < len(lines) <= height
        assert all(len(line) <= width for line in lines)
    assert frame(iceberg, 20, 0, 10).lines == [] and frame(iceberg, 20, 80, 0).lines == []
    assert frame(iceberg, 20, 80, 2).lines[-1].endswith("q quit")


def test_screen_shows_the_go_to_prompt(iceberg: Timeline) -> None:
    lines = frame(iceberg, 20, 80, 30, prompt="12").lines
    assert lines[-1] == f"go to version (1-{iceberg.last}): 12_"


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    path = next(p for p in GAMES if "iceberg" in p.name)
    term = Terminal(path)
    yield term
    term.close()


@pytest.mark.processes
def test_step_walks_the_game_in_a_real_terminal(terminal: Terminal) -> None:
    last = len(read_jsonl(next(p for p in GAMES if "iceberg" in p.name)))
    terminal.wait_for(rf"version 1/{last}\b")
    terminal.wait_for(r"event 1: game_created by system")
    terminal.press(b"\x1b[C")  # right
    terminal.wait_for(rf"version 2/{last}\b")
    terminal.press(b"l")
    terminal.wait_for(rf"version 3/{last}\b")
    terminal.press(b"\x1b[F")  # End
    terminal.wait_for(rf"version {last}/{last}\b")
    terminal.wait_for(rf"event {last}: seed_revealed")
    terminal.press(b"\x1b[C")  # stays at the end
    terminal.press(b"\x1b[D")  # left
    terminal.wait_for(rf"version {last - 1}/{last}\b")
    terminal.press(b"\x1b[H")  # Home
    terminal.wait_for(rf"version 1/{last}\b")
    terminal.press(b"g")
    terminal.wait_for(r"go to version")
    terminal.press(b"12\n")
    terminal.wait_for(rf"version 12/{last}\b")
    terminal.press(b"h")
    terminal.wait_for(rf"version 11/{last}\b")
    terminal.press(b"g99999\r")  # past the end: the last version
    terminal.wait_for(rf"version {last}/{last}\b")
    terminal.press(b"q")
    assert terminal.exit_code() == 0


@pytest.mark.processes
def test_step_survives_a_tiny_terminal() -> None:
    path = next(p for p in GAMES if "arktia" in p.name)
    last = len(read_jsonl(path))
    term = Terminal(path, rows=4, cols=20)
    try:
        term.wait_for(rf"version 1/{last}")
        term.press(b"\x1bOF")  # End as an application-mode terminal sends it
        term.wait_for(rf"version {last}/{last}")
        term.press(b"q")
        assert term.exit_code() == 0
    finally:
        term.close()


def test_export_lines_are_what_the_timeline_holds(game: Path) -> None:
    lines = game.read_text(encoding="utf-8").splitlines()
    timeline = load(str(game))
    assert [json.loads(line) for line in lines] == list(timeline.events)
