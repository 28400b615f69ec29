"""An item stuck past its deadline ends its worker, and is not run again and again.

A real worker (``tests.support.stuck_worker``) whose ``greedy`` bot never checks its budget,
its items' deadline two seconds: the bot's move is found stuck, the worker logs it at ERROR,
records the bot's failure (reason ``timeout``, "... was stopped by the job timeout") and
exits with ``STUCK_EXIT_STATUS``. The failure keeps the sweepers off it: a worker started in
its place (as ``floe run`` starts one: ``--no-retry-failed``) sweeps on and never takes it.
A worker started by an operator retries it, as every failed bot move is retried.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.api.app import create_app
from service.jobs.backlog import Backlog
from service.jobs.deadlines import STUCK_EXIT_STATUS
from service.jobs.queue import BATCHES, job_id
from service.jobs.sweeper import LOCK_KEY
from service.settings import Settings
from tests.support.served import ORGANIZER
from tests.support.waiting import PROMPTLY, wait_until
from tests.support.workers import StartWorker

#: ``start_stuck_worker(*flags)``: a stuck worker process and the file its log goes to.
StartStuck = Callable[..., tuple[subprocess.Popen[bytes], Path]]


@pytest.fixture
def client(redis_url: str) -> Iterator[FlaskClient]:
    app: Flask = create_app(Settings(redis_url=redis_url, organizer_token=ORGANIZER))
    yield app.test_client()


@pytest.fixture
def start_stuck_worker(redis_url: str, tmp_path: Path) -> Iterator[StartStuck]:
    started: list[subprocess.Popen[bytes]] = []

    def start(*flags: str) -> tuple[subprocess.Popen[bytes], Path]:
        log = tmp_path / f"stuck-worker-{len(started)}.log"
        env = {**os.environ, "REDIS_URL": redis_url, "FLOE_SWEEP_SECONDS": "0.2"}
        with log.open("wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.support.stuck_worker", *flags],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        started.append(process)
        return process, log

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def _view(client: FlaskClient, game_id: str) -> dict[str, object]:
    view: dict[str, object] = client.get(f"/v1/games/{game_id}").get_json()
    return view


def _bot_failures(client: FlaskClient) -> int:
    count: int = client.get("/v1/health").get_json()["bot_failures"]
    return count


def test_a_stuck_bot_move_ends_its_worker_and_stays_failed_until_a_restart(
    client: FlaskClient,
    redis_client: redis.Redis,
    start_stuck_worker: StartStuck,
    start_worker: StartWorker,
) -> None:
    players = [{"name": "bot", "bot": "greedy"}, {"name": "Ann"}]
    created = client.post("/v1/games", json={"game": "arktia", "players": players})
    assert created.status_code == 201
    game_id = created.get_json()["id"]
    item = job_id("bot", game_id, 1)

    stuck, stuck_log = start_stuck_worker()
    assert stuck.wait(timeout=PROMPTLY) == STUCK_EXIT_STATUS, stuck_log.read_text()
    logged = stuck_log.read_text()
    assert f"{item} ran past its deadline" in logged
    assert f"game {game_id} seat 0 version 1 strength greedy reason timeout" in logged
    view = _view(client, game_id)
    failure = view["bot_failure"]
    assert isinstance(failure, dict)
    assert (failure["reason"], failure["message"]) == (
        "timeout",
        "greedy was stopped by the job timeout",
    )
    assert (view["version"], view["status"]) == (1, "active"), "nothing appended"
    assert _bot_failures(client) == 1

    # A worker in its place (floe run's kind, which leaves failures failed) sweeps on: it
    # never takes the stuck move again, so it never gets stuck itself.
    redis_client.config_set("notify-keyspace-events", "Kg$")
    lock_events = redis_client.pubsub()  # type: ignore[no-untyped-call]
    lock_events.psubscribe(f"__keyspace@*__:{LOCK_KEY}")
    try:
        replacement, replacement_log = start_stuck_worker("--no-retry-failed")
        seen = 0

        def swept() -> bool:
            nonlocal seen
            message = lock_events.get_message(timeout=1)
            if message is not None and message["type"] == "pmessage":
                seen += 1
            return seen >= 10

        wait_until(swept, PROMPTLY, "ten sweeps by the replacement")
        assert replacement.poll() is None, replacement_log.read_text()
        assert item not in Backlog(redis_client).items(list(BATCHES))
        assert _bot_failures(client) == 1, "not run again"
        assert "re-enqueued" not in replacement_log.read_text()
    finally:
        lock_events.close()
        redis_client.config_set("notify-keyspace-events", "")
    replacement.kill()
    replacement.wait()

    # An operator's restart, with the bug fixed (a working greedy), retries it at start.
    start_worker()
    wait_until(lambda: _view(client, game_id)["version"] == 2, PROMPTLY, "the bot to move")
    assert _view(client, game_id)["bot_failure"] is None
