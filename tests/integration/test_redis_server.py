"""RedisServer: the one way floe starts Redis, for `floe run` and for the tests."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest
import redis

from service.run.redis_server import (
    DURABLE_CONFIG,
    RedisServer,
    RedisServerError,
    find_redis_server,
)
from service.run.supervisor import find_redis_server as supervisor_find_redis_server
from service.run.supervisor import start_embedded_redis


def _tcp_port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_find_redis_server_returns_an_executable() -> None:
    path = supervisor_find_redis_server()
    assert os.path.isabs(path)
    assert os.path.isfile(path)
    assert os.access(path, os.X_OK)
    assert path == find_redis_server()


def test_tcp_server_starts_and_answers_ping(tmp_path: Path) -> None:
    with RedisServer(tmp_path) as server:
        assert server.running
        assert server.port != 6379
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        with server.client() as client:
            assert client.ping() is True
            assert client.config_get("dir")["dir"] == str(tmp_path.resolve())
    assert not server.running
    assert server.returncode == 0  # SIGTERM: clean shutdown


def test_unix_socket_server_has_no_tcp_listener(tmp_path: Path) -> None:
    sock = tmp_path / "redis.sock"
    with RedisServer(tmp_path, unix_socket=sock) as server:
        assert server.url == f"unix://{sock.resolve()}"
        with redis.Redis.from_url(server.url) as client:
            assert client.ping() is True
            assert client.config_get("port")["port"] == "0"
            assert client.config_get("appendfsync")["appendfsync"] == "always"


def test_acknowledged_write_survives_sigkill(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, config=DURABLE_CONFIG).start()
    try:
        url = server.url
        with server.client() as client:
            assert client.set("game:1", b"\x00state\xff") is True
            client.rpush("game:1:events", b"e1", b"e2")

        server.kill()
        assert not server.running
        assert server.returncode == -signal.SIGKILL

        server.start()
        assert server.url == url  # same address and data dir after a restart
        with server.client() as client:
            assert client.get("game:1") == b"\x00state\xff"
            assert client.lrange("game:1:events", 0, -1) == [b"e1", b"e2"]
    finally:
        server.stop()


def test_start_twice_is_refused(tmp_path: Path) -> None:
    with RedisServer(tmp_path) as server, pytest.raises(RedisServerError):
        server.start()


def test_second_server_on_same_socket_is_refused(tmp_path: Path) -> None:
    sock = tmp_path / "redis.sock"
    with (
        RedisServer(tmp_path / "a", unix_socket=sock),
        pytest.raises(RedisServerError, match="already serves"),
    ):
        RedisServer(tmp_path / "b", unix_socket=sock).start()


def test_startup_failure_reports_the_reason(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, config={"no-such-option": "1"})
    with pytest.raises(RedisServerError, match="exited with status"):
        server.start()
    assert not server.running


def test_embedded_redis_of_floe_run_is_durable_and_socket_only(tmp_path: Path) -> None:
    server = start_embedded_redis(tmp_path / ".floe-data")
    try:
        redis_dir = (tmp_path / ".floe-data" / "redis").resolve()
        assert server.data_dir == redis_dir
        assert server.url == f"unix://{redis_dir / 'redis.sock'}"
        with server.client() as client:
            config = client.config_get("*")
        assert config["port"] == "0"
        assert config["appendonly"] == "yes"
        assert config["appendfsync"] == "always"
        assert config["save"] == ""
        assert config["daemonize"] == "no"
        assert (redis_dir / "redis.log").exists()
    finally:
        server.stop()


def test_session_fixture_is_private_and_emptied(
    redis_server: RedisServer, redis_client: redis.Redis
) -> None:
    assert redis_server.port != 6379
    assert redis_client.dbsize() == 0
    redis_client.set("k", "v")
    assert redis_client.get("k") == b"v"
    assert _tcp_port_in_use(redis_server.port)
