"""Fault-injection helpers: the API served for real, clients with their own connections,
waiting on conditions (never on a clock), and the invariants every log must keep.

The API runs as ``floe run`` runs it: gunicorn, gevent workers, ``service.api.app:create_app()``
configured from the environment, so requests are truly concurrent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.run.redis_server import RedisServer, free_tcp_port
from service.run.supervisor import api_command, start_embedded_redis
from service.settings import Settings as RunSettings
from tests.support.redis_binary import redis_server_binary
from tests.support.served import (
    ORGANIZER,
    ServeApi,
    ServedApi,
)
from tests.support.waiting import PROMPTLY, wait_until


@pytest.fixture
def serve_api(tmp_path: Path) -> Iterator[ServeApi]:
    """Start gunicorn (``workers`` gevent processes) on ``redis_url``, with ``extra`` variables
    in its environment; stopped after the test."""
    started: list[subprocess.Popen[bytes]] = []

    def serve(redis_url: str, *, workers: int = 2, **extra: str) -> ServedApi:
        port = free_tcp_port()
        argv = api_command(RunSettings(port=port, web_workers=workers))
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "FLOE_ORGANIZER_TOKEN": ORGANIZER,
            **extra,
        }
        with (tmp_path / f"gunicorn-{port}.log").open("wb") as log:
            process = subprocess.Popen(
                argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log
            )
        started.append(process)
        served = ServedApi(process, port)
        probe = served.http()

        def answers() -> bool:
            assert process.poll() is None, f"gunicorn exited: see {log.name}"
            try:
                return probe.get("/v1/health").status in (200, 503)
            except OSError:
                return False

        wait_until(answers, PROMPTLY, "gunicorn to answer")
        probe.close()
        return served

    yield serve
    for process in started:
        if process.poll() is None:
            process.terminate()
    for process in started:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def durable_redis() -> Iterator[RedisServer]:
    """A private Redis configured as ``floe run`` starts it: unix socket, AOF fsync always.

    Its directory is short-named (a unix socket path is limited to ~100 bytes).
    """
    data_dir = Path(tempfile.mkdtemp(prefix="floe-faults-"))
    server = start_embedded_redis(data_dir, executable=redis_server_binary())
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
