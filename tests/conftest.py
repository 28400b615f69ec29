# ---------------------------------------------------------------------------------------
# Redis fixtures: one private redis-server per test session (free TCP port on 127.0.0.1,
# data in a tmp dir), emptied before every test that asks for it. Never the Redis on 6379.
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

from service.run.redis_server import EPHEMERAL_CONFIG, RedisServer
from tests.support.workers import StartWorker


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A throwaway redis-server for the whole session (nothing persisted: speed)."""
    data_dir: Path = tmp_path_factory.mktemp("redis")
    with RedisServer(data_dir, config=EPHEMERAL_CONFIG) as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """URL of the session server, FLUSHALLed first so every test starts empty."""
    with redis_server.client() as client:
        client.flushall()
    return redis_server.url


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A bytes-returning client to the (empty) session server."""
    client = redis.Redis.from_url(redis_url, decode_responses=False)
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
        command = ["service.cli", "worker"] if pause is None else ["tests.support.paused_worker", pause]
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
