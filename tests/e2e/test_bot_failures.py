"""A bot out of time on a real worker fails loudly, stays failed, and resumes on a restart.

A real ``floe worker`` with ``FLOE_BOT_MOVE_SECONDS=0.001`` cannot finish an ``mcts`` search:
the game is not moved, its view shows the failure, ``/v1/health`` counts it, the worker logs
it, and its sweeper, sweeping every 0.2 s, never runs the move again. Waits are on
conditions: the view polled to a deadline, the sweeper's lock renewals counted through Redis
keyspace notifications, the game's stream read blocking; never a sleep.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
from flask.testing import FlaskClient

from service.jobs.backlog import Backlog, pending_key
from service.jobs.queue import BATCHES, QUEUE_NAMES, job_id
from service.jobs.sweeper import LOCK_KEY
from service.store.events import events_key
from tests.support.api import BOT_MOVE_WITHIN_MS
from tests.support.waiting import PROMPTLY, wait_for
from tests.support.workers import StartWorker

LoggedWorker = tuple[subprocess.Popen[bytes], Path]
StartLogged = Callable[..., LoggedWorker]


@pytest.fixture
def start_logged_worker(start_worker: StartWorker, tmp_path: Path) -> StartLogged:
    """Start ``floe worker`` processes whose stderr (their log) goes to a file."""

    def start(**env: str) -> LoggedWorker:
        log_path = tmp_path / f"worker-{len(list(tmp_path.glob('worker-*.log')))}.log"
        return start_worker(log=log_path, **env), log_path

    return start


def bot_failures(client: FlaskClient) -> int:
    response = client.get("/v1/health")
    assert response.status_code == 200
    count: int = response.get_json()["bot_failures"]
    return count


def await_sweeps(lock_events: redis.client.PubSub, rounds: int) -> None:
    """Block until the sweeper has taken or renewed its lock ``rounds`` more times."""
    seen = 0
    deadline = time.monotonic() + PROMPTLY
    while seen < rounds:
        assert time.monotonic() < deadline, f"only {seen} of {rounds} sweeps in {PROMPTLY} s"
        message = lock_events.get_message(timeout=5)
        if message is not None and message["type"] == "pmessage":
            seen += 1


def test_a_bot_out_of_time_fails_loudly_stays_failed_and_resumes_on_restart(
    client: FlaskClient, redis_client: redis.Redis, start_logged_worker: StartLogged
) -> None:
    # Every take (SET) and renewal (PEXPIRE) of the sweeper's lock, as keyspace events.
    redis_client.config_set("notify-keyspace-events", "Kg$")
    lock_events = redis_client.pubsub()  # type: ignore[no-untyped-call]
    lock_events.psubscribe(f"__keyspace@*__:{LOCK_KEY}")
    try:
        players = [{"name": "bot", "bot": "mcts"}, {"name": "Ann"}]
        created = client.post("/v1/games", json={"game": "arktia", "players": players})
        assert created.status_code == 201
        game_id = created.get_json()["id"]
        assert client.get(f"/v1/games/{game_id}").get_json()["bot_failure"] is None
        assert bot_failures(client) == 0

        hasty, hasty_log = start_logged_worker(FLOE_BOT_MOVE_SECONDS="0.001")
        view = wait_for(
            lambda: client.get(f"/v1/games/{game_id}").get_json(),
            lambda v: v["bot_failure"] is not None,
            PROMPTLY,
            "the bot's failure to show",
        )
        # not moved, and the view says why
        assert (view["version"], view["status"], view["to_act"]) == (1, "active", [0])
        failure = view["bot_failure"]
        assert failure == {
            **failure,
            "seat": 0,
            "version": 1,
            "strength": "mcts",
            "reason": "timeout",
            "message": "mcts did not decide within 0.001 s",
        }
        state = client.get(f"/v1/games/{game_id}/state?version=1").get_json()
        assert state["bot_failure"] == failure
        assert redis_client.xrange(events_key(game_id), "0-2", "+") == [], "nothing appended"
        # counted, and logged at ERROR by the worker
        assert bot_failures(client) == 1
        logged = wait_for(
            hasty_log.read_text, lambda text: "bot move failed" in text, PROMPTLY, "the log line"
        )
        assert f"game {game_id} seat 0 version 1 strength mcts reason timeout" in logged

        # The sweeper sweeps on, and never runs the failed move again: were it re-enqueued,
        # its item would be pending or claimed, or it would have failed again (counted).
        lock_events.get_message(timeout=0)
        await_sweeps(lock_events, 5)
        assert hasty.poll() is None, "the worker is still running"
        assert bot_failures(client) == 1
        assert job_id("bot", game_id, 1) not in Backlog(redis_client).items(list(BATCHES))
        assert redis_client.zcard(pending_key(QUEUE_NAMES["bot"])) == 0
        assert client.get(f"/v1/games/{game_id}").get_json()["version"] == 1
        assert "re-enqueued" not in hasty_log.read_text()
    finally:
        lock_events.close()
        redis_client.config_set("notify-keyspace-events", "")

    # Resume: the workers restarted with a bound the search fits in retry it at start.
    hasty.terminate()
    assert hasty.wait(timeout=10) is not None
    _, patient_log = start_logged_worker()  # the default bound, 60 s
    moved = redis_client.xread({events_key(game_id): "0-1"}, block=BOT_MOVE_WITHIN_MS)
    assert moved, "the bot moved"
    view = client.get(f"/v1/games/{game_id}").get_json()
    assert view["version"] == 2 and view["bot_failure"] is None
    [move] = client.get(f"/v1/games/{game_id}/events?after=1").get_json()["events"]
    assert (move["actor"], move["command_id"]) == (0, "bot-1")
    assert bot_failures(client) == 1, "a count of failures, ever: the success does not undo it"
    assert f"retrying the failed bot move of {game_id} at v1" in patient_log.read_text()
