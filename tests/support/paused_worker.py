"""A ``floe worker`` whose jobs stop at one named point, so crash tests can SIGKILL it there.

``python -m tests.support.paused_worker bot_decided`` builds the worker as ``floe worker`` does, but
with a ``JobHooks`` that, at that point, announces itself on ``floe:fault:{game}:started``
and waits (bounded) for a release that never comes. Production workers have no such hooks:
the test injects them here instead of the job reading a variable.

It runs one item at a time (``FLOE_WORKER_THREADS=1``), as one RQ job ran, so it holds
exactly the item it stopped in, unless the test sets ``FLOE_WORKER_THREADS`` itself: then it
claims up to that many items, and each one it starts stops there.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Callable

import redis

from service.bootstrap import build, build_worker
from service.jobs.handlers import JobHooks
from service.redis.connect import connect
from service.settings import Settings
from tests.support.waiting import wait_until


def announced(client: redis.Redis, game_ids: list[str], timeout: float) -> int:
    """The pid of the paused worker that announced it holds a job of one of ``game_ids``,
    waited for up to ``timeout`` seconds (polled: a blocking pop longer than the client's
    socket timeout would fail on a busy machine)."""
    pids: list[int] = []

    def any_announced() -> bool:
        for game_id in game_ids:
            pid = client.lpop(f"floe:fault:{{{game_id}}}:started")
            if pid is not None:
                pids.append(int(pid))  # type: ignore[arg-type]
                return True
        return False

    wait_until(any_announced, timeout, "a paused worker to announce the job it holds")
    return pids[0]


def hold(client: redis.Redis) -> Callable[[str], None]:
    def pause(game_id: str) -> None:
        client.rpush(f"floe:fault:{{{game_id}}}:started", os.getpid())
        until = time.monotonic() + 60
        while time.monotonic() < until:  # short pops: the client's socket timeout is 5 s
            if client.blpop([f"floe:fault:{{{game_id}}}:release"], timeout=1):
                return

    return pause


def main(argv: list[str]) -> int:
    [point] = argv
    points = {field.name for field in dataclasses.fields(JobHooks)}
    if point not in points:
        print(f"pause at one of {sorted(points)}, not {point!r}", file=sys.stderr)
        return 2
    settings = Settings.from_env({"FLOE_WORKER_THREADS": "1", **os.environ})
    client = connect(settings)
    hooks = JobHooks(**{point: hold(client)})
    build_worker(build(settings, redis_client=client, hooks=hooks)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
