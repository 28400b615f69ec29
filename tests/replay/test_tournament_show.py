"""``floe replay show`` and ``step`` on a tournament export: one game of it, chosen by id or
by round and table, shown exactly as its own export; no choice lists the games (exit 2)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from replay.cli import main
from replay.timeline import load
from tests.support.replay_cli import Terminal, floe
from tests.support.tournament_exports import Export, build


@cache
def swiss() -> Export:
    """Iceberg, 3 players (a bye each round) and a bot, 2 rounds."""
    return build("iceberg", "swiss", ["Ada", "Bo", ("Cy", "random")], rounds=2, seed=3)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """The tournament export, and round 2 table 1's log alone as a single game's export."""
    export = swiss()
    lines = export.lines()
    first, last = export.line_of(2, 1), export.line_of(2, 1) + len(export.log(2, 1)) - 1
    single = tmp_path / "single.jsonl"
    single.write_text("".join(line + "\n" for line in lines[first - 1 : last]), encoding="utf-8")
    return export.write(tmp_path / "tournament.jsonl"), single


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["show", "--colour", "never", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_show_without_a_choice_lists_the_games(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    tournament, _ = files
    code, out, err = run(capsys, str(tournament))
    assert code == 2 and out == ""
    assert "choose one with --game GAME_ID (or --round R --table T)" in err
    listed = [game for round_ in swiss().manifest["rounds"] for game in round_["games"]]
    assert all(f"game {game['game_id']}" in err for game in listed)
    names = swiss().manifest["players"]
    first = listed[0]
    who = ", ".join(names[p]["name"] for p in first["players"])
    assert f"\n  round 1 table 1  game {first['game_id']}  {who}\n" in err


def test_show_by_id_or_place_is_the_games_own_export(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    tournament, single = files
    game_id = swiss().listed(2, 1)["game_id"]
    alone = run(capsys, str(single), "--at", "4")
    assert alone[0] == 0
    assert run(capsys, str(tournament), "--game", game_id, "--at", "4") == alone
    assert run(capsys, str(tournament), "--round", "2", "--table", "1", "--at", "4") == alone
    assert (
        run(capsys, str(tournament), "--round", "2", "--table", "1", "--svg")[1]
        == run(capsys, str(single), "--svg")[1]
    )


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--game", "0123456789abcdef"], "game 0123456789abcdef is not in it"),
        (["--round", "9", "--table", "1"], "no game at round 9 table 1"),
        (["--round", "1"], "--round and --table go together, without --game"),
        (["--game", "0123456789abcdef", "--round", "1", "--table", "1"], "without --game"),
    ],
)
def test_a_choice_of_no_game_is_refused_with_the_list(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str], args: list[str], why: str
) -> None:
    code, out, err = run(capsys, str(files[0]), *args)
    assert code == 2 and out == ""
    assert why in err and "choose one with --game" in err


def test_a_choice_on_a_single_games_export_is_refused(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, str(files[1]), "--round", "1", "--table", "1")
    assert code == 2 and out == ""
    assert "choose a game of a tournament export" in err


def test_the_timeline_of_a_chosen_game_matches_its_own(files: tuple[Path, Path]) -> None:
    from replay.tournament.pick import Choice

    tournament, single = files
    chosen = load(str(tournament), choice=Choice(round=2, table=1))
    alone = load(str(single))
    assert (chosen.game_id, chosen.last, chosen.banner) == (alone.game_id, alone.last, alone.banner)


@pytest.mark.processes
def test_step_needs_a_choice_then_walks_the_game(files: tuple[Path, Path]) -> None:
    tournament, _ = files
    refused = floe("step", str(tournament))
    assert refused.returncode == 2 and "choose one with --game" in refused.stderr
    last = len(swiss().log(1, 1))
    term = Terminal(tournament, 50, 110, "--round", "1", "--table", "1")
    try:
        term.wait_for(rf"version 1/{last}\b")
        term.wait_for(r"event 1: game_created by system")
        term.press(b"\x1b[F")  # End
        term.wait_for(rf"event {last}: seed_revealed")
        term.press(b"q")
        assert term.exit_code() == 0
    finally:
        term.close()
