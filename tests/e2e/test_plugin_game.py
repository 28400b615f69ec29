"""A fourth game gets the whole product by being registered: nothing else is edited.

Pig (``tests/support/pig``) is a dice game written as a plugin package. Registering it is
one line, ``FLOE_GAME_MODULES``, which every ``floe`` process (the worker, the replay CLI)
reads; this test process gets the same bundle for the test's duration. Then: people play it
over HTTP with the dice rolled by real workers, bots of every strength play it on the
workers, ``floe replay verify``/``show``/``step`` and ``board.svg`` work on it, and it
passes the generic playthrough test.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.games import GAMES
from replay.verify import verify_lines
from service.api.app import create_app
from service.settings import Settings
from tests.support.api import until_over
from tests.support.pig import GAME as PIG
from tests.support.playthrough import play_through
from tests.support.replay_cli import Terminal, floe
from tests.support.workers import StartWorker

ROOT = Path(__file__).resolve().parents[2]
PIG_MODULE = "tests.support.pig"


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pig joins Floe: the line below for every ``floe`` process; this one for the test."""
    monkeypatch.setenv("FLOE_GAME_MODULES", PIG_MODULE)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # where ``tests.support`` is importable
    monkeypatch.setitem(GAMES, PIG.name, PIG)


@pytest.fixture
def app(redis_url: str) -> Flask:
    return create_app(Settings(redis_url=redis_url, game_modules=(PIG_MODULE,)))


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def play_by_hand(client: FlaskClient, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """Roll until the turn holds 4 points, then hold: through legal-actions only."""
    for _ in range(2_000):
        view: dict[str, Any] = client.get(f"/v1/games/{game_id}").get_json()
        if view["status"] == "over":
            return view
        [seat] = view["to_act"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = client.get(f"/v1/games/{game_id}/legal-actions", headers=auth).get_json()
        kinds = {action["type"]: action for action in legal["actions"]}
        holding = "hold" in kinds and view["state"]["turn_total"] >= 4
        body = {
            "action": kinds["hold" if holding else "roll"],
            "expected_version": legal["version"],
            "command_id": f"{seat}-{legal['version']}",
        }
        posted = client.post(f"/v1/games/{game_id}/actions?wait=30", json=body, headers=auth)
        assert posted.status_code == 201, posted.get_json()
    raise AssertionError("the game did not end")


@pytest.fixture
def finished(
    worker: subprocess.Popen[bytes], client: FlaskClient, tmp_path: Path
) -> Iterator[tuple[str, Path]]:
    """A game of Pig two people played to the end over HTTP, and its export file."""
    players = [{"name": "Ann"}, {"name": "Bo"}]
    body = {"game": "pig", "players": players, "options": {"target": 12}}
    created = client.post("/v1/games?wait=30", json=body)
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    tokens = [seat["token"] for seat in created.get_json()["seats"]]
    view = play_by_hand(client, game_id, tokens)
    assert len(view["outcome"]["winners"]) == 1
    exported = client.get(f"/v1/games/{game_id}/export")
    assert exported.status_code == 200
    path = tmp_path / f"{game_id}.jsonl"
    path.write_text(exported.get_data(as_text=True), encoding="utf-8")
    yield game_id, path


def test_people_play_pig_over_http_with_dice_from_the_workers(
    finished: tuple[str, Path], client: FlaskClient
) -> None:
    _, path = finished
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rolls = [e for e in events if e["type"] == "random"]
    assert rolls and all(e["data"]["label"] == "die" for e in rolls), "the workers rolled"
    assert events[-2]["type"] == "game_over" and events[-1]["type"] == "seed_revealed"
    assert verify_lines(path.read_text(encoding="utf-8").splitlines()).status == "ok"
    bad = client.post("/v1/games", json={"game": "pig", "players": [{"name": "a"}] * 2,
                                          "options": {"target": 1}})  # fmt: skip
    assert bad.status_code == 400 and bad.get_json()["error"]["code"] == "invalid_option"


def test_board_svg_pictures_pig(finished: tuple[str, Path], client: FlaskClient) -> None:
    game_id, _ = finished
    for query in ("", "?version=1"):
        picture = client.get(f"/v1/games/{game_id}/board.svg{query}")
        assert picture.status_code == 200 and picture.mimetype == "image/svg+xml"
        root = ElementTree.fromstring(picture.get_data(as_text=True))
        assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_floe_replay_verifies_and_shows_pig(finished: tuple[str, Path]) -> None:
    _, path = finished
    verified = floe("verify", "--json", str(path))
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["status"] == "ok"
    shown = floe("show", str(path), "--at", "3", "--colour", "never")
    assert shown.returncode == 0, shown.stderr
    assert "version 3/" in shown.stdout
    picture = floe("show", str(path), "--svg")
    assert picture.returncode == 0, picture.stderr
    assert ElementTree.fromstring(picture.stdout).tag == "{http://www.w3.org/2000/svg}svg"


def test_floe_replay_steps_through_pig_in_a_terminal(finished: tuple[str, Path]) -> None:
    _, path = finished
    last = len(path.read_text(encoding="utf-8").splitlines())
    terminal = Terminal(path)
    try:
        terminal.wait_for(rf"version 1/{last}\b")
        terminal.press(b"\x1b[F")  # End
        terminal.wait_for(rf"version {last}/{last}\b")
        terminal.press(b"q")
        assert terminal.exit_code() == 0
    finally:
        terminal.close()


# Each strength sits first once: the first seat always moves, while a later one may never get
# a turn (the first can roll its way to the target at once).
@pytest.mark.parametrize("bots", [["random", "greedy"], ["greedy", "random"], ["mcts", "random"]])
def test_bots_of_every_strength_play_pig_on_the_workers(
    start_worker: StartWorker, client: FlaskClient, redis_client: redis.Redis, bots: list[str]
) -> None:
    start_worker()
    players = [{"name": f"bot{i}", "bot": bot} for i, bot in enumerate(bots)]
    created = client.post("/v1/games", json={"game": "pig", "players": players})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    view = until_over(client, redis_client, game_id)
    assert view["status"] == "over"
    exported = client.get(f"/v1/games/{game_id}/export").get_data(as_text=True)
    assert verify_lines(exported.splitlines()).status == "ok"
    actors = {json.loads(line)["actor"] for line in exported.splitlines()}
    assert 0 in actors, "the first bot moved"
    assert actors <= {*range(len(bots)), "system"}, "only the bots and the system act"


def test_pig_passes_the_generic_playthrough() -> None:
    play_through(PIG, players=2, options={}, games=24)
    play_through(PIG, players=4, options={"target": 30}, games=8)
