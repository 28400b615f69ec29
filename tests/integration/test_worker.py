"""The worker ``bootstrap.build_worker`` builds runs its drain jobs through RQ, in this process.

RQ keeps only the drain function's name and JSON arguments; the running worker hands its own
``Drains`` to each job (``DrainJob``), so nothing is looked up in a module's globals. Two
workers built in one process each run their own.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
import redis
from rq.job import Job
from rq.serializers import JSONSerializer

from domain.engine.status import GameStatus
from service.bootstrap import Floe, build, build_worker
from service.games.access import Viewer
from service.games.commands import CreateGame, NewPlayer
from service.jobs.backlog import Backlog
from service.jobs.drains import run_drain
from service.jobs.queue import BATCHES, DRAIN_FUNCTION, DRAWS
from service.jobs.worker import DrainJob
from service.settings import Settings


@pytest.fixture
def keep_signal_handlers() -> Iterator[None]:
    """RQ's ``work`` installs its SIGINT/SIGTERM handlers: give pytest its own back."""
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in before.items():
        signal.signal(sig, handler)


def deal(floe: Floe) -> str:
    players = (NewPlayer("a"), NewPlayer("b"))
    return floe.commands.create(CreateGame("iceberg", players), Viewer()).id


def test_a_burst_worker_runs_the_drain_rq_holds_by_name_with_its_own_drains(
    redis_client: redis.Redis, keep_signal_handlers: None
) -> None:
    floe = build(Settings(), redis_client=redis_client)
    games = [deal(floe) for _ in range(3)]
    [drain] = Backlog(redis_client).drains(DRAWS)
    job = Job.fetch(drain, connection=redis_client, serializer=JSONSerializer)
    assert (job.func_name, job.args) == (DRAIN_FUNCTION, [DRAWS, drain]), "a name, JSON args"
    assert job.func is run_drain

    first, second = build_worker(floe, burst=True), build_worker(floe, burst=True)
    assert first.name != second.name
    assert first.run() is True
    assert [_status(floe, g) for g in games] == [GameStatus.ACTIVE] * 3, "each dealt"
    assert Backlog(redis_client).items(list(BATCHES)) == []
    assert Backlog(redis_client).drains(DRAWS) == {}, "the drain left its empty queue"
    assert second.run() is False, "nothing left for the second"


def test_a_drain_job_outside_a_worker_refuses_to_run(redis_client: redis.Redis) -> None:
    args = [DRAWS, "drain-draws-1"]
    job = DrainJob.create(DRAIN_FUNCTION, args, connection=redis_client, serializer=JSONSerializer)
    with pytest.raises(RuntimeError, match="inside `floe worker` only"):
        job.perform()


def _status(floe: Floe, game_id: str) -> GameStatus:
    [record] = floe.store.records([game_id])
    assert record is not None
    return record.status
