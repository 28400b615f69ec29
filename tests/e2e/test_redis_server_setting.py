"""``FLOE_REDIS_SERVER`` chooses the ``redis-server`` that ``floe run`` starts, for its store
and its job queues alike: how the suite runs ``floe run`` on another Redis
(``TEST_REDIS_SERVER``, passed through by ``tests/support/floe_run.py``), and how an operator
runs the OS's Redis rather than the bundled one.

Debian's Redis 7 (``make test`` installs it) differs from the bundled 6.2 in the version its
``INFO`` names, so the server that answers shows which binary was run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from service.run.redis_server import find_redis_server, free_tcp_port
from tests.support.floe_run import floe_run
from tests.support.waiting import PROMPTLY

#: Debian's redis-server, which ``make test`` installs (the Makefile's ``debian-redis``).
DEBIAN_REDIS = "/usr/bin/redis-server"


def server_info(client: redis.Redis) -> tuple[str, str]:
    """The started Redis's own word on what it runs: its version and its executable."""
    info = client.info("server")
    return str(info["redis_version"]), str(info["executable"])


@pytest.mark.processes
def test_floe_run_starts_the_redis_server_the_setting_names(tmp_path: Path) -> None:
    assert os.access(DEBIAN_REDIS, os.X_OK), f"{DEBIAN_REDIS} is missing: run make test"
    bundled = subprocess.run(
        [find_redis_server(), "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert " v=6." in bundled, "the bundled Redis is 6.2: a 7 is another binary"
    with floe_run(tmp_path, {"FLOE_REDIS_SERVER": DEBIAN_REDIS}) as run:
        for client in (run.redis(), run.queue_redis()):
            version, executable = server_info(client)
            assert version.startswith("7."), version
            assert executable == DEBIAN_REDIS


@pytest.mark.processes
def test_floe_run_refuses_a_redis_server_that_is_not_there(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env |= {"PORT": str(free_tcp_port()), "FLOE_REDIS_SERVER": str(tmp_path / "no-such-redis")}
    argv = [sys.executable, "-m", "service.cli", "run", "--data-dir", str(tmp_path / "data")]
    refused = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=PROMPTLY)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "floe: error: could not start Redis: FLOE_REDIS_SERVER is" in refused.stdout
    assert "floe: worker" not in refused.stdout and "floe: api" not in refused.stdout
