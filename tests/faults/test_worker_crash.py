"""Worker crash: SIGKILL real ``floe worker`` processes while they draw dice and play bots.

A killed worker loses the job it was running; a surviving or fresh worker's sweeper finds the
game still waiting (FLOE_SWEEP_SECONDS=0.2 here) and re-enqueues it; under ``floe run`` the
fresh worker is the one it starts in the killed one's place. No game stays stuck,
and nothing is written twice: each version once, each bot move once (command id
``bot-<version it was decided at>``), every export verifies.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.engine.types import RANDOM, SYSTEM
from service.api.app import create_app
from service.bootstrap import build
from service.settings import Settings
from service.store.events import events_key
from tests.support.floe_run import FloeRun, call, floe_run, new_game
from tests.support.paused_worker import announced
from tests.support.served import ORGANIZER, audit, stored_log
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_until
from tests.support.workers import StartWorker

ICEBERG_BOTS = ["random", "greedy", "random"]
GAMES = 10


@pytest.fixture
def client(redis_url: str) -> Iterator[FlaskClient]:
    app: Flask = create_app(Settings(redis_url=redis_url, organizer_token=ORGANIZER))
    yield app.test_client()


def _bot_game(client: FlaskClient, game: str, bots: list[str]) -> str:
    players = [{"name": f"bot{i}", "bot": bot} for i, bot in enumerate(bots)]
    created = client.post("/v1/games", json={"game": game, "players": players})
    assert created.status_code == 201, created.get_json()
    game_id: str = created.get_json()["id"]
    return game_id


def _kill(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=PROMPTLY) == -signal.SIGKILL


def _status(client: FlaskClient, game_id: str) -> str:
    status: str = client.get(f"/v1/games/{game_id}").get_json()["status"]
    return status


def _check_finished_log(redis_client: redis.Redis, game_id: str) -> tuple[int, int, int]:
    """Contiguous versions, each bot move once with its ``bot-<v>`` id, a verified log."""
    events = stored_log(redis_client, game_id)
    moves = [e for e in events if e.actor != SYSTEM]
    assert moves, "the bots moved"
    assert [e.command_id for e in moves] == [f"bot-{e.version - 1}" for e in moves]
    verdict = audit(events)
    assert verdict.status == "ok", verdict
    draws = sum(1 for e in events if e.type == RANDOM)
    return len(events), len(moves), draws


def test_workers_killed_under_load_leave_no_game_stuck_and_write_nothing_twice(
    client: FlaskClient, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    steady = start_worker()
    # Two doomed workers each hold the first job they pick, mid-flight: a draw before it
    # is drawn, a bot move once it is chosen. They are killed holding them, under load.
    holding = [
        start_worker(pause="before_draw"),
        start_worker(pause="bot_decided"),
    ]
    games = [_bot_game(client, "iceberg", ICEBERG_BOTS) for _ in range(GAMES)]

    def written() -> int:
        return sum(int(redis_client.xlen(events_key(g))) for g in games)

    def announced() -> set[int]:
        keys = [f"floe:fault:{{{g}}}:started" for g in games]
        return {int(pid) for key in keys for pid in redis_client.lrange(key, 0, -1)}

    wait_until(lambda: {w.pid for w in holding} <= announced(), PROMPTLY, "both jobs to be held")
    mark = written()
    wait_until(lambda: written() >= mark + 100, PROMPTLY, "the steady worker to make progress")
    assert any(_status(client, g) != "over" for g in games), "killed under load"
    for worker in holding:
        _kill(worker)
    fresh = start_worker()
    # ... and one more kill at an arbitrary moment of the load: whatever it ran is lost.
    mark = written()
    wait_until(lambda: written() >= mark + 100, PROMPTLY, "progress after the first kills")
    assert any(_status(client, g) != "over" for g in games), "killed under load"
    _kill(steady)
    survivors = [fresh, start_worker()]
    wait_until(
        lambda: all(_status(client, g) == "over" for g in games), AT_LENGTH, "every game to end"
    )
    assert all(w.poll() is None for w in survivors), "the survivors still run"

    totals = [_check_finished_log(redis_client, g) for g in games]
    events, moves, draws = (sum(column) for column in zip(*totals, strict=True))
    print(
        f"\nFAULTS workers: {GAMES} iceberg bot games, {len(holding) + 1} worker kills, "
        f"{events} events ({moves} bot moves, {draws} draws), 0 stuck, 0 written twice"
    )


@pytest.mark.parametrize("phase", ["decided", "written"])
def test_a_worker_killed_in_the_middle_of_a_bots_turn_the_move_is_made_once(
    client: FlaskClient, start_worker: StartWorker, redis_client: redis.Redis, phase: str
) -> None:
    """``decided``: the move is chosen, not yet appended; ``written``: appended, the job
    not yet finished. Either way a fresh worker completes the game with the move once."""
    doomed = start_worker(pause=f"bot_{phase}")
    game_id = _bot_game(client, "arktia", ["random", "greedy"])
    assert announced(redis_client, [game_id], PROMPTLY) == doomed.pid, "it holds the first move"
    assert redis_client.xlen(events_key(game_id)) == (1 if phase == "decided" else 2)
    _kill(doomed)
    assert redis_client.xlen(events_key(game_id)) == (1 if phase == "decided" else 2)

    start_worker()  # a fresh worker; its sweeper finds the lost move if it was not written
    wait_until(lambda: _status(client, game_id) == "over", PROMPTLY, "the game to end")
    _check_finished_log(redis_client, game_id)
    events = stored_log(redis_client, game_id)
    first = [e for e in events if e.command_id == "bot-1"]
    assert [(e.version, e.actor) for e in first] == [(2, 0)], "the first move, exactly once"
    # The killed job, run again, finds its version stale and writes nothing.
    assert build(Settings(), redis_client=redis_client).automation.play_bot(game_id, 1) is False
    assert stored_log(redis_client, game_id) == events


def test_floe_run_replaces_a_killed_worker_and_the_game_it_played_ends(tmp_path: Path) -> None:
    """``floe run`` with one worker: SIGKILLed while it plays a bot against a person, it is
    started again, and the game it was playing goes on to its end, each bot move once."""
    env = {"FLOE_JOB_WORKERS": "1", "FLOE_SWEEP_SECONDS": "0.2"}
    with floe_run(tmp_path, env) as run:
        [worker] = run.worker_pids()
        players = [{"name": "bot", "bot": "random"}, {"name": "Ann"}]
        status, created, _ = new_game(run.port, "arktia", players=players)
        assert status == 201
        game_id, token = created["id"], created["seats"][1]["token"]
        wait_until(
            lambda: _run_view(run, game_id)["to_act"] == [1], PROMPTLY, "the bot's first move"
        )
        _move(run, game_id, token)  # the bot's next move is enqueued: the worker takes it ...
        os.kill(worker, signal.SIGKILL)  # ... and is killed, with it in hand or not yet
        wait_until(
            lambda: len(run.worker_pids()) == 2, PROMPTLY, "floe run to start another worker"
        )
        assert f"restarting: worker (pid {worker}) was killed by SIGKILL" in run.log()
        replacement = run.worker_pids()[1]
        while (view := _run_view(run, game_id))["status"] != "over":
            if view["to_act"] == [1]:
                _move(run, game_id, token)
            else:
                wait_until(_moved_on(run, game_id, view["version"]), PROMPTLY, "the bot to move")
        assert run.process.poll() is None, "floe run runs on"
        os.kill(replacement, 0)  # the replacement still runs
        events = stored_log(run.redis(), game_id)
        bot = [e for e in events if e.actor == 0]
        assert [e.command_id for e in bot] == [f"bot-{e.version - 1}" for e in bot], "once each"
        assert audit(events).status == "ok"


def _moved_on(run: FloeRun, game_id: str, version: int) -> Callable[[], bool]:
    return lambda: _run_view(run, game_id)["version"] != version


def _run_view(run: FloeRun, game_id: str) -> dict[str, Any]:
    status, view, _ = call(run.port, "GET", f"/v1/games/{game_id}")
    assert status == 200, view
    return dict(view)


def _move(run: FloeRun, game_id: str, token: str) -> None:
    """Ann's first legal action."""
    path = f"/v1/games/{game_id}/legal-actions"
    _, legal, _ = call(run.port, "GET", path, token=token)
    body = {
        "action": legal["actions"][0],
        "expected_version": legal["version"],
        "command_id": f"ann-{legal['version']}",
    }
    status, answer, _ = call(run.port, "POST", f"/v1/games/{game_id}/actions", body, token=token)
    assert status == 201, answer
