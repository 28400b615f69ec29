"""``show`` and ``step`` on files from the real world: damaged, tampered with, cut short, or
not logs at all; and every command into a pipe that closes early."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.timeline import load
from tests.support.reference_games import read_jsonl
from tests.support.replay_cli import (
    Terminal,
    damaged,
    floe,
    into_closed_pipe,
    rechain,
    reference,
    replace_line,
    through_head,
    write_events,
)

ARKTIA = reference("arktia-3p")
LAST = len(read_jsonl(ARKTIA))


@pytest.mark.processes
def test_show_prints_a_damaged_file_up_to_the_damage_under_a_banner(tmp_path: Path) -> None:
    path = damaged(tmp_path, 26)
    shown = floe("show", str(path), "--at", "10", "--colour", "never")
    assert shown.returncode == 0, shown.stderr
    banner, header = shown.stdout.splitlines()[:2]
    assert banner.startswith("!! verification failed at version 26: ")
    assert "versions 26 and later cannot be shown" in banner
    assert header.startswith("version 10/25 ")
    last = floe("show", str(path), "--colour", "never")  # by default: the last one shown
    assert last.returncode == 0 and "version 25/25 " in last.stdout
    assert "verification failed at version 26" in last.stdout


@pytest.mark.processes
def test_show_refuses_a_version_at_or_past_the_damage(tmp_path: Path) -> None:
    path = damaged(tmp_path, 26)
    for version in ("26", "30", str(LAST)):
        refused = floe("show", str(path), "--at", version)
        assert refused.returncode == 1, refused.stdout
        assert refused.stdout == ""
        assert refused.stderr.startswith(f"{path}: version {version} cannot be shown: ")
        assert "verification failed at version 26" in refused.stderr
    beyond = floe("show", str(path), "--at", str(LAST + 1))
    assert beyond.returncode == 2 and "no version" in beyond.stderr


@pytest.mark.processes
def test_a_forged_event_is_caught_where_it_is_even_with_every_hash_recomputed(
    tmp_path: Path,
) -> None:
    events = read_jsonl(ARKTIA)
    events[25]["data"]["action"]["tile"] = [40, 40]
    path = write_events(tmp_path / "forged.jsonl", rechain(events))
    shown = floe("show", str(path), "--at", "25", "--colour", "never")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("!! verification failed at version 26: illegal place")


@pytest.mark.processes
def test_step_shows_the_banner_and_stops_before_the_damage(tmp_path: Path) -> None:
    term = Terminal(damaged(tmp_path, 26), 30, 100)
    try:
        first = term.wait_for(r"q quit")
        assert "version 1/25 " in first and "verification failed at version 26" in first
        term.press(b"\x1b[F")  # End: the last version that can be shown
        last = term.wait_for(r"q quit")
        assert "version 25/25 " in last and "verification failed at version 26" in last
        assert "cannot be shown" in last
        term.press(b"q")
        assert term.exit_code() == 0
    finally:
        term.close()


@pytest.mark.processes
@pytest.mark.parametrize("rehash", [False, True], ids=["as-edited", "rechained"])
def test_an_edited_seed_says_the_file_is_not_trustworthy(tmp_path: Path, rehash: bool) -> None:
    events = read_jsonl(ARKTIA)
    events[-1]["data"]["seed"] = "00" * 32
    path = write_events(tmp_path / "seed.jsonl", rechain(events) if rehash else events)
    shown = floe("show", str(path), "--at", "3", "--colour", "never")
    assert shown.returncode == 0, shown.stderr
    banner = [line for line in shown.stdout.splitlines() if line.startswith("!! ")]
    assert banner[0].startswith(f"!! verification failed at version {LAST}: ")
    assert any("not trustworthy" in line and "commitment" in line for line in banner)
    svg = floe("show", str(path), "--at", "3", "--svg")
    assert svg.returncode == 0 and "not trustworthy" in svg.stderr  # beside the picture
    assert "not trustworthy" not in svg.stdout


@pytest.mark.processes
def test_an_incomplete_file_is_shown_whole_under_an_incomplete_banner(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(ARKTIA.read_text().splitlines(keepends=True)[:30]))
    shown = floe("show", str(path), "--at", "30", "--colour", "never")
    assert shown.returncode == 0, shown.stderr
    banner, header = shown.stdout.splitlines()[:2]
    assert banner.startswith("!! incomplete: the log ends at version 30")
    assert header.startswith("version 30/30 ")
    words = shown.stdout.lower()
    assert "failed" not in words and "trustworthy" not in words and "tamper" not in words
    term = Terminal(path, 30, 100)
    try:
        term.wait_for(r"incomplete: the log ends at version 30")
        term.press(b"q")
        assert term.exit_code() == 0
    finally:
        term.close()


@pytest.mark.processes
def test_an_honest_file_has_no_banner() -> None:
    shown = floe("show", str(ARKTIA), "--at", "5", "--colour", "never")
    assert shown.returncode == 0 and "!!" not in shown.stdout
    assert load(str(ARKTIA)).banner == ()


@pytest.mark.processes
def test_a_bad_line_in_the_middle_is_where_verification_stops(tmp_path: Path) -> None:
    path = replace_line(ARKTIA, tmp_path / "bytes.jsonl", 26, b'{"at": "\xff\xfe"}')
    shown = floe("show", str(path), "--at", "25", "--colour", "never")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(
        "!! verification failed at version 26: line 26 is not valid UTF-8; "
        "versions 26 and later cannot be shown"
    )


@pytest.mark.processes
@pytest.mark.parametrize(
    "first",
    [
        b"",
        b"not json",
        b"12345",
        b'"\\ud800"',
        b'{"at": "\xff"}',
        b"[" * 100_000 + b"]" * 100_000,
        b"9" * 5000,
        b'{"type": "move", "data": {}}',
    ],
    ids=["empty", "not-json", "number", "surrogate", "bad-utf8", "deep", "huge", "not-created"],
)
def test_a_file_without_a_usable_first_event_fails_in_one_line(
    tmp_path: Path, first: bytes
) -> None:
    path = tmp_path / "bad.jsonl"
    rest = b"".join(ARKTIA.read_bytes().splitlines(keepends=True)[1:]) if first else b""
    path.write_bytes(first + b"\n" + rest)
    for command in ("show", "step"):
        result = floe(command, str(path))
        assert result.returncode == 2, result.stderr
        assert result.stdout == ""
        assert result.stderr.startswith(f"cannot replay {path}: ")
        assert result.stderr.count("\n") == 1, result.stderr  # one line, no traceback
        assert "nothing can be shown" in result.stderr


@pytest.mark.processes
def test_show_into_a_closed_pipe_exits_quietly() -> None:
    code, err = into_closed_pipe(["show", str(ARKTIA), "--colour", "never"])
    assert "Traceback" not in err and err == ""
    assert code == 141


@pytest.mark.processes
def test_show_through_head_exits_quietly() -> None:
    game = reference("ice-breakers-3p")
    full = floe("show", str(game), "--svg").stdout
    assert len(full) > full.index("\n") + 3 * 4096, "output long enough to meet a closed pipe"
    first, code, err = through_head(["show", str(game), "--svg"])
    assert first.decode() == full.splitlines(keepends=True)[0]
    assert "Traceback" not in err and "Error" not in err, err
    assert code == 141


@pytest.mark.processes
def test_verify_through_head_exits_quietly(tmp_path: Path) -> None:
    missing = [str(tmp_path / f"missing-{n:04d}-{'x' * 40}.jsonl") for n in range(200)]
    full = floe("verify", "--jobs", "1", *missing).stdout
    assert len(full) > full.index("\n") + 3 * 4096
    first, code, err = through_head(["verify", "--jobs", "1", *missing])
    assert first.decode().startswith(f"{missing[0]}: failed")
    assert "Traceback" not in err and "Error" not in err, err
    assert code == 141
    json_first, json_code, json_err = through_head(["verify", "--json", "--jobs", "2", *missing])
    assert json.loads(json_first)["file"] == missing[0]
    assert "Traceback" not in json_err and json_code == 141


@pytest.mark.processes
def test_control_characters_in_a_log_never_reach_the_terminal(tmp_path: Path) -> None:
    events = read_jsonl(ARKTIA)
    events[0]["data"]["seats"][1]["name"] = "bo\x1b[2J\x1b]0;pwned\x07"
    events[4]["at"] = "2026\x1b[1A\r"
    events[9]["type"] = "pl\x1bc"  # an illegal event whose type the banner quotes
    path = write_events(tmp_path / "escapes.jsonl", rechain(events))
    for args in (["--at", "5"], ["--at", "5", "--colour", "always"]):
        shown = floe("show", str(path), *args)
        assert shown.returncode == 0, shown.stderr
        controls = {c for c in shown.stdout if ord(c) < 32 and c != "\n"} - {"\x1b"}
        assert controls == set(), controls
        assert "\x1b]" not in shown.stdout and "\x1b[2J" not in shown.stdout
        assert "\x1b[1A" not in shown.stdout and "\x1bc" not in shown.stdout
        assert "verification failed at version 10" in shown.stdout
    checked = floe("verify", str(path))
    assert "\x1b" not in checked.stdout and "failed at version 10" in checked.stdout
