"""``floe run`` for real: its own Redis, a worker and gunicorn; a client plays a whole game
over HTTP from legal-actions only; Ctrl-C stops everything; the game survives a restart."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis

from service.run.redis_server import free_tcp_port
from tests.support.waiting import PROMPTLY, wait_until

STARTUP_SECONDS = 2 * PROMPTLY
#: The ``?wait=`` of every request that may cause a draw: the most the API allows (it answers
#: as soon as the draw is in); the client's own timeout is longer.
WAIT = 30


class Http:
    def __init__(self, base: str) -> None:
        self.base = base

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=WAIT + PROMPTLY) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def wait_healthy(self, process: subprocess.Popen[bytes]) -> None:
        """Poll /v1/health until it answers (bounded), failing fast if the process died."""
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            try:
                if self.call("GET", "/v1/health")[0] == 200:
                    return
            except OSError:
                pass
            try:  # wait on the process itself between polls: its exit fails the test at once
                process.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                continue
            raise AssertionError("floe run exited during start-up")
        raise AssertionError("floe run did not become healthy")


def play_to_the_end(
    http: Http, game: str, options: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """Create a game and play it from legal-actions only; ``?wait`` lets draws arrive."""
    players = [{"name": "a"}, {"name": "b"}]
    body = {"game": game, "players": players, "options": options or {}}
    status, created = http.call("POST", f"/v1/games?wait={WAIT}", body)
    assert status == 201
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    rng = random.Random(7)
    while True:
        status, view = http.call("GET", f"/v1/games/{game_id}")
        if view["status"] == "over":
            return game_id, view
        assert view["status"] == "active", view["status"]
        seat = rng.choice(view["to_act"])
        _, legal = http.call("GET", f"/v1/games/{game_id}/legal-actions", token=tokens[seat])
        action = rng.choice(legal["actions"])
        body = {
            "action": action,
            "expected_version": legal["version"],
            "command_id": f"c{legal['version']}",
        }
        path = f"/v1/games/{game_id}/actions?wait={WAIT}"
        status, answer = http.call("POST", path, body, tokens[seat])
        assert status == 201, answer


def start(data_dir: Path, port: int, **more: str) -> subprocess.Popen[bytes]:
    """``floe run`` with its output in a file (a pipe nobody reads would fill and stall it);
    ``more``: variables on top of ours."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["PORT"] = str(port)
    env.update(more)
    with (data_dir / "floe-run.log").open("ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "service.cli", "run", "--data-dir", str(data_dir)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def stop(process: subprocess.Popen[bytes], data_dir: Path) -> bytes:
    process.send_signal(signal.SIGINT)
    process.wait(timeout=60)
    return (data_dir / "floe-run.log").read_bytes()


@pytest.mark.processes
def test_floe_run_serves_a_game_played_to_the_end_and_keeps_it(tmp_path: Path) -> None:
    port = free_tcp_port()
    http = Http(f"http://127.0.0.1:{port}")
    process = start(tmp_path, port)
    try:
        http.wait_healthy(process)
        game_id, final = play_to_the_end(http, "arktia")
        _, iceberg = play_to_the_end(http, "iceberg")  # its dice come from floe run's worker
        assert iceberg["outcome"] is not None
        for options in ({}, {"intro": True}):
            _, rescue = play_to_the_end(http, "ice-breakers", options)
            assert rescue["outcome"]["in_play"] == (6 if options else 12)
        # The job queues live in floe run's second Redis, in memory; the store has none.
        store = redis.Redis(unix_socket_path=str(tmp_path / "redis" / "redis.sock"))
        queues = redis.Redis(unix_socket_path=str(tmp_path / "queue" / "redis.sock"))
        assert queues.scard("rq:workers") == 2, "both workers registered there"
        assert queues.config_get("appendonly") == {"appendonly": "no"}
        assert store.config_get("appendfsync") == {"appendfsync": "always"}
        assert not [key for key in store.scan_iter("rq:*")], "no RQ key in the event store"
        assert not [key for key in store.scan_iter("floe:draws:*")], "nor any backlog"
        store.close()
        queues.close()
    finally:
        output = stop(process, tmp_path)
    assert process.returncode == 0, output.decode(errors="replace")
    assert b"redis" in output and b"worker" in output and b"api" in output
    assert b"queue" in output

    again = start(tmp_path, port)
    try:
        http.wait_healthy(again)
        status, view = http.call("GET", f"/v1/games/{game_id}")
        assert status == 200
        assert view == final, "the game survived a restart of floe run"
    finally:
        stop(again, tmp_path)
    assert again.returncode == 0


@pytest.mark.processes
def test_a_port_in_use_stops_floe_run_before_it_starts_anything(tmp_path: Path) -> None:
    port = free_tcp_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        process = start(tmp_path, port)
        process.wait(timeout=PROMPTLY)
    output = (tmp_path / "floe-run.log").read_text(errors="replace")
    assert process.returncode == 1, output
    assert f"floe: error: port {port} on 127.0.0.1 is in use" in output
    assert "PORT or --port" in output and "Can't connect" not in output
    assert "floe: redis" not in output, "nothing was started"
    assert not (tmp_path / "redis").exists()


@pytest.mark.processes
def test_an_address_the_machine_lacks_stops_floe_run_naming_it(tmp_path: Path) -> None:
    process = start(tmp_path, free_tcp_port(), FLOE_HOST="192.0.2.1")  # TEST-NET-1: nobody's
    process.wait(timeout=PROMPTLY)
    output = (tmp_path / "floe-run.log").read_text(errors="replace")
    assert process.returncode == 1, output
    assert "floe: error: the API cannot listen on 192.0.2.1 port " in output
    assert "FLOE_HOST or --host" in output and "floe: redis" not in output


@pytest.mark.processes
def test_floe_host_is_where_the_api_listens_and_debug_says_more(tmp_path: Path) -> None:
    """FLOE_HOST on a loopback address of its own: the API answers there and only there;
    at ``debug`` floe run shows gunicorn's command and RQ's workers speak."""
    port = free_tcp_port()
    process = start(tmp_path, port, FLOE_HOST="127.0.0.3", FLOE_LOG_LEVEL="debug")
    try:
        Http(f"http://127.0.0.3:{port}").wait_healthy(process)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=PROMPTLY).close()
        log = tmp_path / "floe-run.log"
        wait_until(lambda: "rq.worker" in log.read_text(errors="replace"), PROMPTLY, "RQ's lines")
    finally:
        output = stop(process, tmp_path).decode(errors="replace")
    assert process.returncode == 0, output
    assert f"floe: api     http://127.0.0.3:{port}" in output
    assert "floe: debug: api command: " in output and "--log-level debug" in output


@pytest.mark.processes
def test_at_warning_floe_run_says_only_what_is_wrong(tmp_path: Path) -> None:
    port = free_tcp_port()
    process = start(tmp_path, port, FLOE_LOG_LEVEL="warning")
    http = Http(f"http://127.0.0.1:{port}")
    try:
        http.wait_healthy(process)
        assert http.call("GET", "/v1/health")[1]["store"]["durable"] is True, "its own Redis"
    finally:
        output = stop(process, tmp_path).decode(errors="replace")
    assert process.returncode == 0, output
    lines = output.splitlines()
    assert not [line for line in lines if line.startswith(("floe: redis", "floe: api"))]
    assert not [line for line in lines if "rq.worker" in line or "[INFO]" in line], output
    assert "GET /v1/health" in output, "the access log is not a log level's to silence"
