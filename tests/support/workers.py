"""Real ``floe worker`` processes started by a test (the ``start_worker`` fixture)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

#: ``start_worker(pause=None, *, worker_args=(), log=None, **env)``: a running worker process.
StartWorker = Callable[..., subprocess.Popen[bytes]]
