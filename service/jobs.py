"""The RQ side: the queue the service enqueues follow-up work on, and the worker that runs it.

Jobs carry only JSON (``JSONSerializer``), never pickles. Arktia needs no jobs; the worker is
already part of ``floe run`` so the draws and bots of later games plug into a running process.
"""

from __future__ import annotations

import redis
from rq import Queue, Worker
from rq.serializers import JSONSerializer

QUEUE_NAME = "floe"


def queue(client: redis.Redis) -> Queue:
    return Queue(QUEUE_NAME, connection=client, serializer=JSONSerializer)


def run_worker(redis_url: str, *, burst: bool = False) -> bool:
    """Work the Floe queue until stopped (or, with ``burst``, until it is empty)."""
    client = redis.Redis.from_url(redis_url)
    worker = Worker([queue(client)], connection=client, serializer=JSONSerializer)
    return bool(worker.work(burst=burst, with_scheduler=False))
