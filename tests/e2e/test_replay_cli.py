"""``floe replay`` on a game id, read straight from Redis (REDIS_URL), and the API picture."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from flask.testing import FlaskClient

from domain.engine.clock import epoch_seconds, iso
from replay.step import frame
from replay.timeline import load
from service.bootstrap import Floe
from tests.support.api import ORGANIZER, Game, bearer
from tests.support.clocks import ManualClock
from tests.support.replay_cli import Terminal

NewGame = Callable[..., Game]


def floe(*args: str, redis_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": redis_url}
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "replay", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.processes
def test_export_and_verify_a_game_by_id(new_game: NewGame, redis_url: str, tmp_path: Path) -> None:
    game = new_game()
    game.play_randomly(random.Random(9))
    exported = tmp_path / "game.jsonl"
    result = floe("export", game.id, "-o", str(exported), redis_url=redis_url)
    assert result.returncode == 0, result.stderr
    assert exported.read_text() == game.get("/export").get_data(as_text=True)
    by_id = floe("verify", "--json", game.id, redis_url=redis_url)
    by_file = floe("verify", "--json", str(exported), redis_url=redis_url)
    assert by_id.returncode == by_file.returncode == 0
    assert json.loads(by_id.stdout)["status"] == json.loads(by_file.stdout)["status"] == "ok"
    shown = floe("show", game.id, "--at", "5", "--colour", "never", redis_url=redis_url)
    assert shown.returncode == 0 and "version 5/" in shown.stdout


@pytest.mark.processes
def test_an_unfinished_game_verifies_incomplete(new_game: NewGame, redis_url: str) -> None:
    game = new_game()
    legal = game.legal(0)
    game.post(0, legal["actions"][0], legal["version"])
    result = floe("verify", "--json", game.id, redis_url=redis_url)
    assert result.returncode == 1
    assert json.loads(result.stdout)["status"] == "incomplete"


def test_a_spectators_board_picture_hides_face_down_values(
    worker: subprocess.Popen[bytes], new_game: NewGame, client: FlaskClient
) -> None:
    game = new_game(2, "iceberg")
    picture = client.get(f"/v1/games/{game.id}/board.svg")
    assert picture.status_code == 200 and picture.mimetype == "image/svg+xml"
    root = ElementTree.fromstring(picture.get_data(as_text=True))
    face_down = [e for e in root.iter() if "face-down" in (e.get("class") or "")]
    assert len(face_down) == 24, "every tile is face-down before the first flip"
    assert all(not "".join(e.itertext()).strip() for e in face_down)
    old = client.get(f"/v1/games/{game.id}/board.svg?version=1")
    assert old.status_code == 200


# ----- a game played against a clock: its clocks, resignations, timeouts and decisions --------

FISCHER = {"kind": "fischer", "initial_s": 30, "increment_s": 10}


def start_timed(client: FlaskClient, seats: int, clock: dict[str, Any]) -> Game:
    body = {"game": "arktia", "players": [{"name": f"p{i}"} for i in range(seats)], "clock": clock}
    response = client.post("/v1/games", json=body)  # Arktia deals nothing: no draw to wait for
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    return Game(client, created["id"], [s["token"] for s in created["seats"]])


def export(game: Game, path: Path) -> list[dict[str, Any]]:
    response = game.get("/export", ORGANIZER)
    assert response.status_code == 200
    path.write_text(response.get_data(as_text=True), encoding="utf-8")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def decide(game: Game, body: dict[str, Any]) -> None:
    answer = game.client.post(
        f"/v1/games/{game.id}/decisions", json=body, headers=bearer(ORGANIZER)
    )
    assert answer.status_code == 201, answer.get_json()


@pytest.fixture
def clocked_log(
    hand_client: FlaskClient, hand_floe: Floe, manual_clock: ManualClock, tmp_path: Path
) -> tuple[Path, list[dict[str, Any]], dict[str, int]]:
    """Four seats of Arktia on a Fischer clock (30 s + 10 s): the first seat moves after
    10 s, a third resigns out of turn, the organizer forfeits the fourth, and the second lets
    its time run out, so the first wins. The export file, its events, and who did what."""
    game = start_timed(hand_client, 4, FISCHER)
    view = game.view()
    [mover] = view["to_act"]
    manual_clock.advance(10)
    legal = game.legal(mover)
    move = next(a for a in legal["actions"] if a["type"] != "retire")
    assert game.post(mover, move, legal["version"]).status_code == 201
    [late] = game.view()["to_act"]
    resigner, forfeited = (s for s in range(4) if s not in (mover, late))
    manual_clock.advance(2)
    assert game.post(resigner, {"type": "resign"}).status_code == 201
    manual_clock.advance(1)
    decide(game, {"decision": "forfeit", "seat": forfeited, "reason": "did not show up"})
    manual_clock.advance(31)
    assert hand_floe.automation.time_out(game.id, game.view()["version"])
    assert game.view()["outcome"] == {"winners": [mover], "scores": {}}
    events = export(game, tmp_path / "clocked.jsonl")
    seats = {"mover": mover, "late": late, "resigner": resigner, "forfeited": forfeited}
    return tmp_path / "clocked.jsonl", events, seats


def version_of_type(events: list[dict[str, Any]], kind: str) -> int:
    return int(next(e["version"] for e in events if e["type"] == kind))


@pytest.mark.processes
def test_show_prints_the_clocks_and_says_who_left_and_how(
    clocked_log: tuple[Path, list[dict[str, Any]], dict[str, int]], redis_url: str
) -> None:
    path, events, seats = clocked_log
    mover, late = seats["mover"], seats["late"]
    assert events[1]["actor"] == mover
    assert [e["type"] for e in events][2:] == [
        "resign",
        "decision",
        "timeout",
        "game_over",
        "seed_revealed",
    ]

    def show(version: int) -> str:
        result = floe(
            "show", str(path), "--at", str(version), "--colour", "never", redis_url=redis_url
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    start = show(1)  # every seat has its 30 s; the first to act runs from the creation's time
    assert "clocks (fischer, 0:30 + 10s a move): " in start
    deadline = iso(epoch_seconds(events[0]["at"]) + 30)
    assert f"seat {mover} (p{mover}) 0:30 left, to act by {deadline}" in start
    assert f"seat {late} (p{late}) 0:30 left" in start and start.count("to act by") == 1

    moved = show(2)  # 30 - 10 + 10: the mover keeps 0:30; the next seat runs from the move
    deadline = iso(epoch_seconds(events[1]["at"]) + 30)
    assert f"seat {mover} (p{mover}) 0:30 left" in moved
    assert f"seat {late} (p{late}) 0:30 left, to act by {deadline}" in moved
    assert moved.count("to act by") == 1

    resigned = show(version_of_type(events, "resign"))
    resigner = seats["resigner"]
    assert f"  seat {resigner} (p{resigner}) resigned\n" in resigned
    assert f"left: seat {resigner} (p{resigner}) resigned" in resigned

    forfeit = show(version_of_type(events, "decision"))
    forfeited = seats["forfeited"]
    assert (
        f"  the organizer forfeited seat {forfeited} (p{forfeited}): did not show up\n" in forfeit
    )
    assert f"seat {forfeited} (p{forfeited}) forfeited" in forfeit

    at = version_of_type(events, "timeout")
    timeout = show(at)  # the late seat's 30 s are spent; the mover's turn starts (game_over next)
    assert f"  seat {late} (p{late}) timed out\n" in timeout
    assert f"seat {late} (p{late}) 0:00 left;" in timeout
    deadline = iso(epoch_seconds(events[at - 1]["at"]) + 30)
    assert f"seat {mover} (p{mover}) 0:30 left, to act by {deadline}" in timeout

    last = show(len(events))  # over: no clock runs
    assert f"over: winners seat {mover} (p{mover})" in last
    assert f"seat {late} (p{late}) timed out" in last
    assert "clocks (fischer" in last and "to act by" not in last


@pytest.mark.processes
def test_step_shows_the_clocks_and_the_departures_in_a_terminal(
    clocked_log: tuple[Path, list[dict[str, Any]], dict[str, int]],
) -> None:
    path, events, seats = clocked_log
    late, forfeited = seats["late"], seats["forfeited"]
    deadline = iso(epoch_seconds(events[1]["at"]) + 30)
    terminal = Terminal(path, 50, 200, "--at", "2")
    try:
        terminal.wait_for(rf"seat {late} \(p{late}\) 0:30 left, to act by {deadline}")
        terminal.press(b"g" + str(version_of_type(events, "decision")).encode() + b"\n")
        terminal.wait_for(
            rf"the organizer forfeited seat {forfeited} \(p{forfeited}\): did not show up"
        )
        terminal.press(b"l")
        terminal.wait_for(rf"seat {late} \(p{late}\) timed out")
        terminal.press(b"q")
        assert terminal.exit_code() == 0
    finally:
        terminal.close()


def test_the_organizers_result_is_told_in_words(hand_client: FlaskClient, tmp_path: Path) -> None:
    game = start_timed(hand_client, 2, {"kind": "per_move", "move_s": 90})
    decide(game, {"decision": "result", "winners": [1], "reason": "adjudicated"})
    export(game, tmp_path / "result.jsonl")
    timeline = load(str(tmp_path / "result.jsonl"))
    version = next(
        v for v in range(1, timeline.last + 1) if timeline.event(v)["type"] == "decision"
    )
    lines = frame(timeline, version, 120, 40).lines
    assert "  the organizer decided the result: seat 1 (p1) wins (adjudicated)" in lines
    assert any(
        line.startswith("clocks (per move, 1:30 a turn): seat 0 (p0) 1:30 left") for line in lines
    )
    last = frame(timeline, timeline.last, 120, 40).lines
    assert any(line.startswith("over: winners seat 1 (p1)") for line in last)
    for width, height in ((80, 24), (30, 8), (12, 4)):  # the words and clocks wrap or give way
        small = frame(timeline, version, width, height).lines
        assert 0 < len(small) <= height and all(len(line) <= width for line in small)
