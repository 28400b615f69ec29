"""A drain dies halfway: SIGKILL a worker with a batch of draws in hand, and the job queues'
Redis with a whole backlog in it. Every draw is still made, exactly once.

A worker runs many items at once (``FLOE_WORKER_THREADS``); killed, it loses all it had
claimed. Its claims lapse with its liveness key, the sweeper finds the games still waiting
and adds them again, and a fresh worker deals each once. ``floe run``'s queue Redis keeps
nothing on disk: killed, it takes the backlog with it; ``floe run`` stops, and once started
again its sweeper rebuilds the backlog from the event store.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.engine.types import RANDOM
from service.api.app import create_app
from service.jobs.backlog import Backlog
from service.jobs.queue import BATCHES
from service.settings import Settings
from tests.support.floe_run import FloeRun, call, floe_run, new_game
from tests.support.served import ORGANIZER, audit, stored_log
from tests.support.waiting import PROMPTLY, wait_until
from tests.support.workers import StartWorker

GAMES = 6


@pytest.fixture
def client(redis_url: str) -> Iterator[FlaskClient]:
    app: Flask = create_app(Settings(redis_url=redis_url, organizer_token=ORGANIZER))
    yield app.test_client()


def _dealt_once(store: redis.Redis, game_id: str) -> None:
    """The game was dealt: version 2 is its one draw, and its log verifies as far as it goes
    (the seed is revealed only at the end: ``incomplete``, every check passed)."""
    events = stored_log(store, game_id)
    assert [(e.version, e.type) for e in events] == [(1, "game_created"), (2, RANDOM)]
    assert audit(events).status == "incomplete"


def test_a_worker_killed_with_a_batch_of_draws_in_hand_loses_none_of_them(
    client: FlaskClient, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    players = [{"name": "a"}, {"name": "b"}]
    games = []
    for _ in range(GAMES):
        created = client.post("/v1/games", json={"game": "iceberg", "players": players})
        assert created.status_code == 201 and created.get_json()["status"] == "awaiting_random"
        games.append(created.get_json()["id"])
    # Eight at once: the doomed worker claims every deal in one batch and stops in each.
    doomed = start_worker(pause="before_draw", FLOE_WORKER_THREADS="8")
    keys = [f"floe:fault:{{{g}}}:started" for g in games]
    wait_until(
        lambda: sum(int(redis_client.llen(k)) for k in keys) == GAMES, PROMPTLY, "all deals in hand"
    )
    assert Backlog(redis_client).claims() == {f"draw-{g}-1": _name(redis_client) for g in games}
    doomed.send_signal(signal.SIGKILL)
    assert doomed.wait(timeout=PROMPTLY) == -signal.SIGKILL
    assert all(len(stored_log(redis_client, g)) == 1 for g in games), "none dealt yet"

    start_worker()  # its sweeper finds the six games waiting once the claims lapse
    wait_until(
        lambda: all(client.get(f"/v1/games/{g}").get_json()["status"] == "active" for g in games),
        PROMPTLY,
        "every game dealt",
    )
    for game_id in games:
        _dealt_once(redis_client, game_id)
    assert Backlog(redis_client).items(["floe:draws", "floe:bots"]) == []


def _name(store: redis.Redis) -> str:
    """The one worker registered on the draws queue (the doomed one)."""
    [worker] = store.smembers("floe:draws:workers")
    return worker.decode() if isinstance(worker, bytes) else str(worker)


def _pid_of(run: FloeRun, part: str) -> int:
    [line] = [line for line in run.log().splitlines() if line.startswith(f"floe: {part} ")]
    return int(line.rsplit("(pid ", 1)[1].split(",")[0].split(")")[0])


def test_the_queue_redis_killed_with_a_backlog_loses_no_draw(tmp_path: Path) -> None:
    env = {"FLOE_SWEEP_SECONDS": "0.2", "FLOE_STOP_TIMEOUT": "2"}
    data_dir = tmp_path / "run"
    data_dir.mkdir()
    with floe_run(data_dir, env) as run:
        workers = run.worker_pids()
        for pid in workers:  # the workers take nothing: every deal stays in the backlog
            os.kill(pid, signal.SIGSTOP)
        waiting = []
        for _ in range(GAMES):
            status, body, _ = new_game(run.port, "iceberg")
            assert status == 201 and body["status"] == "awaiting_random"
            waiting.append(body["id"])
        queues = run.queue_redis()
        assert sorted(Backlog(queues).pending("floe:draws")) == sorted(
            f"draw-{g}-1" for g in waiting
        )
        os.kill(_pid_of(run, "queue"), signal.SIGKILL)
        run.process.wait(timeout=PROMPTLY)
        assert run.process.returncode != 0, "a dead queue Redis stops floe run"
        assert "queue redis was killed by SIGKILL" in run.log()
    store = redis.Redis(unix_socket_path=str(data_dir / "redis" / "redis.sock"))
    lost = {f"draw-{g}-1" for g in waiting}
    with floe_run(data_dir, env) as again:  # the same store; a new, empty queue Redis
        # Its sweeper may already be at work: whatever the new queue Redis holds is what the
        # sweeper rebuilt from the store (a lost deal, each at most once), never the old one.
        held = Backlog(again.queue_redis()).items(list(BATCHES))
        assert set(held) <= lost and len(held) == len(set(held)), held
        wait_until(
            lambda: all(
                call(again.port, "GET", f"/v1/games/{g}")[1]["status"] == "active" for g in waiting
            ),
            PROMPTLY,
            "the sweeper to find every game again, and the workers to deal",
        )
        for game_id in waiting:
            _dealt_once(store, game_id)
        log = again.log()
        for game_id in waiting:  # each deal was found again by the sweeper, from the store
            assert f"re-enqueued the lost draw job of {game_id} at v1" in log
    store.close()
