"""The job queues under load and faults: draws first, no job id twice, one sweeper.

Real Redis, real ``floe worker`` processes (``start_worker``), and in-process ``Sweeper``s
on the parts ``bootstrap.build`` makes, as a worker's own.
"""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Iterator

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from rq import Worker

from service.api.app import create_app
from service.bootstrap import Floe, build
from service.jobs.backlog import Backlog
from service.jobs.queue import BATCHES, QUEUE_NAMES, RqJobQueue, job_id
from service.jobs.sweeper import Sweeper
from service.settings import Settings
from tests.support.paused_worker import announced
from tests.support.served import ORGANIZER, stored_log
from tests.support.waiting import PROMPTLY, wait_until
from tests.support.workers import StartWorker


@pytest.fixture
def client(redis_url: str) -> Iterator[FlaskClient]:
    app: Flask = create_app(Settings(redis_url=redis_url, organizer_token=ORGANIZER))
    yield app.test_client()


@pytest.fixture
def floe(redis_url: str, redis_client: redis.Redis) -> Floe:
    return build(Settings(redis_url=redis_url), redis_client=redis_client)


def _game(client: FlaskClient, game: str, players: list[dict[str, str]]) -> str:
    created = client.post("/v1/games", json={"game": game, "players": players})
    assert created.status_code == 201, created.get_json()
    game_id: str = created.get_json()["id"]
    return game_id


def _bot_game(client: FlaskClient) -> str:
    return _game(client, "arktia", [{"name": "a", "bot": "random"}, {"name": "b", "bot": "greedy"}])


def _people_iceberg(client: FlaskClient) -> str:
    return _game(client, "iceberg", [{"name": "a"}, {"name": "b"}])


def _queued(redis_client: redis.Redis) -> list[str]:
    """Every job id pending in a queue's backlog (draws, bots), with repeats; and nothing but
    drains on RQ's queues (an item is never an RQ job of its own)."""
    backlog = Backlog(redis_client)
    pending = [item for name in BATCHES for item in backlog.pending(name)]
    others = [job for job in _rq_jobs(redis_client) if not job.startswith("drain-")]
    return pending + others


def _rq_jobs(redis_client: redis.Redis) -> list[str]:
    """The job ids on RQ's queues."""
    keys = [f"rq:queue:{name}" for name in BATCHES]
    raw: list[list[bytes]] = [redis_client.lrange(key, 0, -1) for key in keys]  # type: ignore[misc]
    return [entry.decode() for entries in raw for entry in entries]


def _drain_jobs(redis_client: redis.Redis) -> list[str]:
    """The drain jobs on the RQ queues."""
    return [job for job in _rq_jobs(redis_client) if job.startswith("drain-")]


def _status(client: FlaskClient, game_id: str) -> str:
    status: str = client.get(f"/v1/games/{game_id}").get_json()["status"]
    return status


def _sweeper(floe: Floe) -> Sweeper:
    assert isinstance(floe.jobs, RqJobQueue)
    return Sweeper(floe.automation, floe.jobs, floe.queue_redis, 0.2)


def test_a_draw_is_taken_before_bot_jobs_queued_ahead_of_it(
    client: FlaskClient, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    bots = [_bot_game(client) for _ in range(8)]  # their bot jobs are queued first ...
    iceberg = _people_iceberg(client)  # ... then the deal the people wait for
    assert _status(client, iceberg) == "awaiting_random"
    # This worker holds the first bot job it takes, announcing it: whatever it ran before
    # that is in the store. Events carry second-precision times, so this is the order.
    worker = start_worker(pause="bot_decided")
    assert announced(redis_client, bots, PROMPTLY) == worker.pid, "a bot job started"
    assert _status(client, iceberg) == "active", "the draw ran before any bot job"
    assert [e.version for e in stored_log(redis_client, iceberg)] == [1, 2]
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=PROMPTLY)


def test_sweeping_and_enqueueing_again_never_queue_a_job_id_twice(
    client: FlaskClient, floe: Floe, redis_client: redis.Redis
) -> None:
    for _ in range(5):
        _bot_game(client)
    for _ in range(2):
        _people_iceberg(client)
    sweepers = [_sweeper(floe), _sweeper(build(Settings(), redis_client=redis_client))]
    waiting = list(floe.automation.waiting_jobs())
    assert len(waiting) == 7
    for _ in range(4):
        for sweeper in sweepers:
            sweeper.sweep()
        for kind, game_id, version in waiting:  # the API path, enqueueing again
            floe.jobs.enqueue(kind, game_id, version)
        counts = Counter(_queued(redis_client))
        assert sorted(counts) == sorted(job_id(*job) for job in waiting)
        assert set(counts.values()) == {1}, counts
        assert Backlog(redis_client).claims() == {}, "nothing claimed: no worker runs"
        # With no worker at all, each queue has one drain job waiting for one, not a pile.
        drains = _drain_jobs(redis_client)
        assert sorted(d.rsplit("-", 1)[0] for d in drains) == ["drain-bots", "drain-draws"]


def test_a_job_lost_with_a_killed_worker_is_enqueued_once_and_the_game_ends(
    client: FlaskClient, floe: Floe, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    doomed = start_worker(pause="bot_decided")
    game_id = _bot_game(client)
    assert announced(redis_client, [game_id], PROMPTLY) == doomed.pid
    sweeper = _sweeper(floe)
    sweeper.sweep()
    assert _queued(redis_client) == [], "a job its live worker runs is not enqueued again"
    doomed.send_signal(signal.SIGKILL)
    assert doomed.wait(timeout=PROMPTLY) == -signal.SIGKILL
    lost = job_id("bot", game_id, 1)

    def swept() -> bool:
        sweeper.sweep()
        return lost in _queued(redis_client)

    wait_until(swept, PROMPTLY, "the lost job to be re-enqueued once its worker is seen dead")
    for _ in range(5):
        sweeper.sweep()
    assert _queued(redis_client) == [lost], "re-enqueued exactly once"
    start_worker()
    wait_until(lambda: _status(client, game_id) == "over", PROMPTLY, "the game to end")
    moves = [e for e in stored_log(redis_client, game_id) if e.command_id == "bot-1"]
    assert [e.version for e in moves] == [2], "the first move, once"


def test_of_two_sweepers_only_one_sweeps_each_round(
    client: FlaskClient, floe: Floe, redis_client: redis.Redis
) -> None:
    _bot_game(client)
    first, second = _sweeper(floe), _sweeper(build(Settings(), redis_client=redis_client))
    for _ in range(4):
        rounds = [first.sweep(), second.sweep()]
        assert sum(result is not None for result in rounds) == 1, rounds


def test_a_draws_only_worker_deals_while_every_other_worker_thinks_for_a_bot(
    client: FlaskClient, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    """``floe run``'s first worker works only draws: however long bots think, dice come."""
    held = _bot_game(client)
    # The general worker takes the bot job and keeps it, as a long think would.
    general = start_worker(pause="bot_decided")
    assert announced(redis_client, [held], PROMPTLY) == general.pid
    start_worker(worker_args=("--draws-only",))
    waiting_bots = [_bot_game(client) for _ in range(4)]
    iceberg = _people_iceberg(client)
    wait_until(lambda: _status(client, iceberg) == "active", PROMPTLY, "the deal")
    # The draws-only worker listens to the draws queue alone, and left every bot move alone.
    listening = sorted(tuple(w.queue_names()) for w in Worker.all(connection=redis_client))
    assert (QUEUE_NAMES["draw"],) in listening
    queued = _queued(redis_client)
    for game_id in waiting_bots:
        assert job_id("bot", game_id, 1) in queued
        assert len(stored_log(redis_client, game_id)) == 1
