# ---------------------------------------------------------------------------------------
# Markers (registered, with their meaning, in pyproject.toml): `make check` runs the tests
# none of them marks, `make test` runs everything. ``browser``, ``cluster`` and ``processes``
# are applied here, by the rules of tests/support/markers.py (by directory, by fixture, by
# name); a test that starts processes itself, and every slow one, is marked by hand.
#
# Redis fixtures: one private redis-server per test session (free TCP port on 127.0.0.1,
# data in a tmp dir), emptied before every test that asks for it. Never the Redis on 6379.
# TEST_REDIS_SERVER names another redis-server binary to run (tests/support/redis_binary.py).
# Under pytest-xdist each worker process is a session of its own, with its own server.
# ---------------------------------------------------------------------------------------
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from _pytest.nodeid import NodeId
from hypothesis import HealthCheck, settings

from service.run.redis_server import EPHEMERAL_CONFIG, RedisServer
from tests.support.markers import SERVICES, marks_for
from tests.support.redis_binary import redis_server_binary
from tests.support.waiting import AT_LENGTH
from tests.support.workers import StartWorker

# The suite's Redis keeps nothing on disk (speed), so every `floe worker`, gunicorn and `floe
# run` started on it would refuse it as a store that may lose games (service/redis/durability.py)
# unless told the risk is meant. The tests of that refusal drop the variable for their process.
os.environ.setdefault("FLOE_STORE_RISKS_ACCEPTED", "1")

# A private PostgreSQL (postgres_server, postgres_url) for the archive's tests.
pytest_plugins = ["tests.support.postgres"]

# Property tests are judged by what they find, never by how fast a busy machine runs them:
# no per-example deadline and no "too slow" health check, unless a test sets its own.
settings.register_profile(
    "floe", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("floe")


@pytest.hookimpl(tryfirst=True)  # before -m deselects, and before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark by directory and by fixture (tests/support/markers.py); group the tests
    that run Floe's services for ``--dist loadgroup``."""
    grouping = config.pluginmanager.hasplugin("xdist")
    for item in items:
        marks, services = marks_for(item.path, getattr(item, "fixturenames", ()))
        for name in sorted(marks - {mark.name for mark in item.iter_markers()}):
            item.add_marker(name)
        if services and grouping:
            join_group(config, item, SERVICES)


def join_group(config: pytest.Config, item: pytest.Item, group: str) -> None:
    """Put ``item`` in xdist's ``group``: under ``--dist loadgroup`` a worker runs the whole
    group. xdist 3.8 marks the group as a suffix of the node id (``...::test@group``) by
    writing ``Item._nodeid``, which pytest 9.2 no longer reads (its node id is ``Item._id``):
    written here too, or the group would be silently ignored."""
    item.add_marker(pytest.mark.xdist_group(group))
    loadgroup = getattr(config.option, "loadgroup", False)  # set in xdist's workers
    if loadgroup and isinstance(getattr(item, "_id", None), NodeId):
        item._id = NodeId.parse(f"{item.nodeid}@{group}")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A throwaway redis-server for the whole session (nothing persisted: speed)."""
    data_dir: Path = tmp_path_factory.mktemp("redis")
    with RedisServer(data_dir, config=EPHEMERAL_CONFIG, executable=redis_server_binary()) as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """URL of the session server, FLUSHALLed first so every test starts empty."""
    with redis_server.client() as client:
        client.flushall()
    return redis_server.url


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A bytes-returning client to the (empty) session server. Its socket timeout outlasts
    any blocking read a test makes (``XREAD BLOCK``, ``BLPOP``): redis-py's default, 5 s,
    would cut such a wait short on a busy machine, whatever the test asked for."""
    client = redis.Redis.from_url(redis_url, decode_responses=False, socket_timeout=AT_LENGTH)
    try:
        yield client
    finally:
        client.close()


# ---------------------------------------------------------------------------------------
# RQ workers: real `floe worker` processes on the test Redis (draws, sweeper).
# ---------------------------------------------------------------------------------------


@pytest.fixture
def start_worker(redis_url: str) -> Iterator[StartWorker]:
    """Start real worker processes (``floe worker``); all are stopped after the test.

    ``pause`` names a ``JobHooks`` point (``before_draw``, ``bot_decided``, ``bot_written``)
    where the worker's jobs stop, announced, for a crash test to SIGKILL it there.
    ``worker_args`` are more ``floe worker`` flags (``--draws-only``); ``log`` a file for
    its stderr (its log), which is otherwise dropped.
    """
    started: list[subprocess.Popen[bytes]] = []

    def start(
        pause: str | None = None,
        *,
        worker_args: tuple[str, ...] = (),
        log: Path | None = None,
        **env: str,
    ) -> subprocess.Popen[bytes]:
        environ = {**os.environ, "REDIS_URL": redis_url, "FLOE_SWEEP_SECONDS": "0.2", **env}
        command = (
            ["service.cli", "worker"] if pause is None else ["tests.support.paused_worker", pause]
        )
        command += worker_args
        with contextlib.ExitStack() as files:
            stderr = files.enter_context(log.open("wb")) if log else subprocess.DEVNULL
            process = subprocess.Popen(
                [sys.executable, "-m", *command],
                env=environ,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
    for process in started:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def worker(start_worker: StartWorker) -> subprocess.Popen[bytes]:
    """One running worker."""
    return start_worker()
