"""The store's Redis SIGKILLed with a clock running: the timeout it owes comes late, once.

The store is a private redis-server configured as ``floe run`` starts it (unix socket, AOF
with ``appendfsync always``), and the job queues, where the timers wait, are a second one in
memory, as ``floe run`` has them; the games are created through the API in-process, and real
``floe worker`` processes keep the time. The store is killed after a game's deadline has
passed, before its timeout is written or while the workers are writing it, and started again
on the same data directory and socket. Whatever the workers were doing, every game ends with
exactly one ``timeout``, in or after its due second, and ``floe replay verify`` passes its
log.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from domain.engine.clock import epoch_seconds
from domain.engine.log import StoredEvent
from service.api.app import create_app
from service.jobs.timers import TIMERS_KEY
from service.run.redis_server import RedisServer
from service.run.supervisor import start_queue_redis
from service.settings import Settings
from tests.support.paused_worker import announced
from tests.support.redis_binary import redis_server_binary
from tests.support.served import ORGANIZER, stored_log
from tests.support.waiting import PROMPTLY, wait_for, wait_until
from tests.support.workers import StartWorker

#: The clock: the seat to act has one second, so its timeout is due two seconds in.
CLOCK = {"kind": "per_move", "move_s": 1}


@pytest.fixture
def queue_redis() -> Iterator[RedisServer]:
    """The job queues' Redis as ``floe run`` starts it: in memory, on a unix socket (in a
    short-named directory: a socket's path is limited to ~100 bytes)."""
    data_dir = Path(tempfile.mkdtemp(prefix="floe-queue-"))
    server = start_queue_redis(data_dir, executable=redis_server_binary())
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
def env(durable_redis: RedisServer, queue_redis: RedisServer) -> dict[str, str]:
    """What a worker of this Floe is started with."""
    return {"REDIS_URL": durable_redis.url, "FLOE_QUEUE_URL": queue_redis.url}


@pytest.fixture
def api(env: dict[str, str]) -> FlaskClient:
    settings = Settings(
        redis_url=env["REDIS_URL"], queue_url=env["FLOE_QUEUE_URL"], organizer_token=ORGANIZER
    )
    return create_app(settings).test_client()


def create(api: FlaskClient) -> tuple[str, int]:
    """A two-person Arktia game (no draws: nothing needs a worker) on ``CLOCK``; its id and
    due second (epoch): the one after its deadline."""
    body = {"game": "arktia", "players": [{"name": "a"}, {"name": "b"}], "clock": CLOCK}
    created = api.post("/v1/games", json=body)
    assert created.status_code == 201, created.get_json()
    game_id: str = created.get_json()["id"]
    view = api.get(f"/v1/games/{game_id}").get_json()
    assert view["to_act"] == [0]
    return game_id, epoch_seconds(view["clock"]["0"]["deadline"]) + 1


def come(second: int) -> None:
    """Wait for the epoch second ``second`` (the workers' clocks are real time)."""
    wait_until(lambda: time.time() >= second, PROMPTLY, f"the epoch second {second} to come")


def log_types(store: RedisServer, game_id: str) -> list[str]:
    with store.client() as client:
        return [e.type for e in stored_log(client, game_id)]


def timed_out_once(store: RedisServer, game_id: str, due: int) -> StoredEvent:
    """The game ended by one timeout, in or after its due second; that timeout."""
    with store.client() as client:

        def ended() -> list[StoredEvent]:
            return stored_log(client, game_id)

        events = wait_for(
            ended, lambda log: log[-1].type == "seed_revealed", PROMPTLY, "the game to end"
        )
    assert [e.type for e in events] == ["game_created", "timeout", "game_over", "seed_revealed"]
    timeout = events[1]
    assert timeout.data == {"seat": 0} and epoch_seconds(timeout.at) >= due
    return timeout


def replay_verify(store: RedisServer, *game_ids: str) -> dict[str, str]:
    """``floe replay verify --json`` of the games, as an operator runs it on the store: each
    game's verdict."""
    audited = subprocess.run(
        [sys.executable, "-m", "service.cli", "replay", "verify", "--json", *game_ids],
        env={**os.environ, "REDIS_URL": store.url},
        capture_output=True,
        text=True,
        timeout=PROMPTLY,
    )
    assert audited.returncode == 0, audited.stdout + audited.stderr
    verdicts = [json.loads(line) for line in audited.stdout.splitlines()]
    return {v["game_id"]: v["status"] for v in verdicts}


def test_the_store_killed_while_a_worker_holds_a_due_timer_delays_the_timeout_once(
    durable_redis: RedisServer,
    env: dict[str, str],
    api: FlaskClient,
    start_worker: StartWorker,
) -> None:
    """A worker takes the due timer and stops, announced, just before it reads the game to
    write the timeout; the store dies there and comes back. The worker is never restarted:
    its job fails against the dead store or carries on once it is back (redis-py retries),
    and either way the timer, armed again from the store by the sweeper, ends the game once."""
    worker = start_worker("before_timeout", **env)
    game_id, due = create(api)
    with durable_redis.client() as store:
        assert announced(store, [game_id], PROMPTLY) == worker.pid
    assert time.time() >= due  # the deadline has passed, and the timeout is not written
    assert log_types(durable_redis, game_id) == ["game_created"]
    durable_redis.kill()
    durable_redis.start()  # the same data directory and socket
    assert log_types(durable_redis, game_id) == ["game_created"]  # the AOF kept the game
    with durable_redis.client() as store:  # let the held job, or its next try, go on
        store.rpush(f"floe:fault:{{{game_id}}}:release", "go")
    timed_out_once(durable_redis, game_id, due)
    assert worker.poll() is None, "the worker rode out the store's outage"
    assert replay_verify(durable_redis, game_id) == {game_id: "ok"}


def test_the_store_killed_after_a_deadline_passed_with_no_worker_running_times_out_once(
    durable_redis: RedisServer,
    queue_redis: RedisServer,
    env: dict[str, str],
    api: FlaskClient,
    start_worker: StartWorker,
) -> None:
    """No worker runs while the deadline passes (``floe run`` restarting them, say); the
    store dies and comes back; the worker started then finds the timer still armed in the
    queue Redis and writes the timeout once."""
    game_id, due = create(api)
    with queue_redis.client() as queue:
        assert queue.zcard(TIMERS_KEY) == 1
    come(due)
    durable_redis.kill()
    durable_redis.start()
    assert log_types(durable_redis, game_id) == ["game_created"]
    start_worker(**env)
    timed_out_once(durable_redis, game_id, due)
    assert replay_verify(durable_redis, game_id) == {game_id: "ok"}


def test_the_store_killed_as_timeouts_come_due_under_running_workers_each_lands_once(
    durable_redis: RedisServer,
    env: dict[str, str],
    api: FlaskClient,
    start_worker: StartWorker,
) -> None:
    """Two workers at work, as ``floe run`` starts them; three waves of games, and the store
    SIGKILLed the moment each wave's first timeout comes due, while the workers' timers are
    taking them: some are written before the kill, some fail against the dead store and are
    tried again once it is back. Every game ends with exactly one timeout."""
    start_worker(worker_args=("--draws-only",), **env)
    start_worker(**env)
    games: list[tuple[str, int]] = []
    for _ in range(3):
        wave = [create(api) for _ in range(6)]
        games += wave
        come(min(due for _, due in wave))  # the wave's first timeout is due
        durable_redis.kill()
        durable_redis.start()
    for game_id, due in games:
        timed_out_once(durable_redis, game_id, due)
    ids = [game_id for game_id, _ in games]
    assert replay_verify(durable_redis, *ids) == dict.fromkeys(ids, "ok")
