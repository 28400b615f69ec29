"""``floe replay`` on a game id, read straight from Redis (REDIS_URL), and the API picture."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

import pytest
from flask.testing import FlaskClient

from tests.support.api import Game

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
