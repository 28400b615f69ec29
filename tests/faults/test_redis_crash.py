"""Redis crash: SIGKILL the store under load, again and again, and lose nothing that was acknowledged.

The store is a private redis-server configured as ``floe run`` starts it (unix socket, AOF
with ``appendfsync always``), the API is gunicorn. While Redis is down every answer is 503
``store_unavailable`` with ``Retry-After`` (never 500); once Redis is back on the same data
directory and socket the same API processes serve again by themselves; and every event any
client was answered 201 for is in the stream, which the audit verifies.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from service.run.redis_server import RedisServer
from service.store.events import events_key
from tests.support.served import (
    Http,
    Played,
    Reply,
    ServeApi,
    acknowledged,
    audit,
    create_game,
    finish,
    prefer_moves,
    stored,
    stored_log,
)
from tests.support.waiting import PROMPTLY, wait_until

GAMES = 8
KILLS = 3
ACTIONS_BETWEEN_KILLS = 50
BACKOFF_SECONDS = 0.02  # a client's pause before retrying a 503 (not synchronisation)


class Load:
    """One driver thread per game, each with its own connection, playing until stopped."""

    def __init__(self, port: int, games: list[Played]) -> None:
        self.port = port
        self.games = games
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.statuses: Counter[int] = Counter()
        self.unavailable: list[Reply] = []
        self.retried_posts = 0  # actions answered 201 only after one or more 503s
        self.errors: list[BaseException] = []
        self.threads = [threading.Thread(target=self._drive, args=(g,)) for g in games]

    @property
    def accepted(self) -> int:
        with self.lock:
            return sum(len(g.accepted) for g in self.games)

    @property
    def refused(self) -> int:
        with self.lock:
            return len(self.unavailable)

    def await_accepted(self, more: int, what: str) -> None:
        """Wait until ``more`` actions beyond the count now are answered 201."""
        mark = self.accepted
        wait_until(lambda: self.accepted >= mark + more, PROMPTLY, what)

    def await_refused(self, more: int, what: str) -> None:
        """Wait until the drivers got ``more`` answers 503 beyond the count now."""
        mark = self.refused
        wait_until(lambda: self.refused >= mark + more, PROMPTLY, what)

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=PROMPTLY)

    def _call(self, http: Http, method: str, path: str, body: Any, token: str | None) -> Reply:
        """Send until the store answers: a 503 is retried as it is (same command_id)."""
        for attempt in itertools.count():
            reply = http.request(method, path, body, token=token)
            with self.lock:
                self.statuses[reply.status] += 1
                if reply.status == 503:
                    self.unavailable.append(reply)
                elif method == "POST" and attempt > 0:
                    self.retried_posts += 1
            if reply.status != 503:
                return reply
            self.stop.wait(BACKOFF_SECONDS)
        raise AssertionError("unreachable")

    def _drive(self, game: Played) -> None:
        http = Http(self.port)
        try:
            while not self.stop.is_set():
                view = self._call(http, "GET", f"/v1/games/{game.id}", None, None)
                assert view.status == 200, view.body
                if view.body["status"] == "over":
                    return
                token = game.tokens[view.body["to_act"][0]]
                path = f"/v1/games/{game.id}/legal-actions"
                legal = self._call(http, "GET", path, None, token).body
                body = {
                    "action": prefer_moves(legal["actions"])[0],
                    "expected_version": legal["version"],
                    "command_id": f"drive-{legal['version']}",
                }
                path = f"/v1/games/{game.id}/actions"
                reply = self._call(http, "POST", path, body, token)
                assert reply.status == 201, reply.body  # the only writer of its game
                with self.lock:
                    game.accepted.extend(reply.body["events"])
        except BaseException as error:
            self.errors.append(error)
        finally:
            http.close()


def _children(pid: int) -> set[int]:
    """The processes ``pid`` started (gunicorn's workers), from Linux's /proc."""
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return {int(child) for child in text.split()}


def test_redis_killed_under_load_loses_no_acknowledged_event(
    serve_api: ServeApi, durable_redis: RedisServer
) -> None:
    with durable_redis.client() as client:  # as ``floe run`` configures it
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        assert client.config_get("port") == {"port": "0"}  # unix socket only
    api = serve_api(durable_redis.url, workers=2)
    http = api.http()
    serving = _children(api.process.pid)
    assert len(serving) == 2, "two gunicorn workers"
    games = [create_game(http) for _ in range(GAMES)]
    probe = games[0]
    with Load(api.port, games) as load:
        for _ in range(KILLS):
            load.await_accepted(ACTIONS_BETWEEN_KILLS, "load before the kill")
            durable_redis.kill()
            # Down: every route answers 503 with Retry-After, never 500.
            for reply in (
                http.get("/v1/health"),
                http.get(f"/v1/games/{probe.id}"),
                http.get(f"/v1/games/{probe.id}/legal-actions", token=probe.tokens[0]),
                http.post(
                    f"/v1/games/{probe.id}/actions",
                    {"action": {"type": "retire"}, "expected_version": 1, "command_id": "x"},
                    token=probe.tokens[0],
                ),
                http.post("/v1/games", {"game": "arktia", "players": [{"name": "a"}] * 2}),
            ):
                assert (reply.status, reply.code) == (503, "store_unavailable"), reply.body
                assert reply.headers["retry-after"] == "1"
            load.await_refused(GAMES, "the drivers to see 503s")
            durable_redis.start()  # same data directory, same socket
            # Back: the same API processes serve again without a restart.
            load.await_accepted(ACTIONS_BETWEEN_KILLS, "the API to serve again by itself")
    assert not load.errors, load.errors
    assert api.process.poll() is None, "the API was never restarted"
    assert _children(api.process.pid) == serving, "nor were its workers"
    assert http.get("/v1/health").status == 200
    assert set(load.statuses) <= {200, 201, 503}, load.statuses
    for reply in load.unavailable:
        assert reply.code == "store_unavailable" and reply.headers["retry-after"] == "1"

    with durable_redis.client() as client:
        lost = 0
        for game in games:
            events = stored_log(client, game.id)
            by_version = {e.version: e for e in events}
            for event in game.accepted:
                if event["version"] not in by_version:
                    lost += 1
                    continue
                assert stored(by_version[event["version"]]) == acknowledged(event)
            # ... and nothing was stored that no client was answered for.
            written = sorted(stored(e) for e in events if e.version > 1)
            assert written == sorted(acknowledged(e) for e in game.accepted)
            assert audit(events).status in ("ok", "incomplete"), audit(events)
        assert lost == 0
        total = sum(len(g.accepted) for g in games)
        assert total >= 2 * KILLS * ACTIONS_BETWEEN_KILLS
        # One more crash with nothing in flight: the log on disk is the log that was served.
        before = {g.id: client.xlen(events_key(g.id)) for g in games}
    durable_redis.kill()
    durable_redis.start()
    with durable_redis.client() as client:
        after = {g.id: client.xlen(events_key(g.id)) for g in games}
        assert after == before
    # The games play on to their end, and the command-line audit passes every one.
    for game in games:
        finish(http, game)
    audited = subprocess.run(
        [sys.executable, "-m", "service.cli", "replay", "verify", "--json", *(g.id for g in games)],
        env={**os.environ, "REDIS_URL": durable_redis.url},
        capture_output=True,
        text=True,
        timeout=2 * PROMPTLY,
    )
    assert audited.returncode == 0, audited.stdout + audited.stderr
    verdicts = [json.loads(line) for line in audited.stdout.splitlines()]
    assert sorted(v["game_id"] for v in verdicts) == sorted(g.id for g in games)
    assert {v["status"] for v in verdicts} == {"ok"}
    print(
        f"\nFAULTS redis: {GAMES} writers, {total} actions acknowledged, "
        f"{KILLS + 1} redis kills, {len(load.unavailable)} answers 503, "
        f"{load.retried_posts} actions retried after a 503, 0 events lost"
    )
    http.close()
