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
from collections.abc import Callable

import redis

from service.bootstrap import build
from service.jobs.handlers import JobHooks
from service.jobs.worker import run_worker
from service.redis.connect import connect
from service.settings import Settings


def hold(client: redis.Redis) -> Callable[[str], None]:
    def pause(game_id: str) -> None:
        client.rpush(f"floe:fault:{{{game_id}}}:started", os.getpid())
        client.blpop([f"floe:fault:{{{game_id}}}:release"], timeout=60)

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
    run_worker(build(settings, redis_client=client, hooks=hooks))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
