"""RedisServer: the one way floe starts Redis, for `floe run` and for the tests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import stat
from collections.abc import Iterator
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
from service.run.supervisor import start_embedded_redis, start_queue_redis
from tests.support.waiting import PROMPTLY, wait_until


def _tcp_port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_find_redis_server_returns_an_executable() -> None:
    path = supervisor_find_redis_server()
    assert os.path.isabs(path)
    assert os.path.isfile(path)
    assert os.access(path, os.X_OK)
    assert path == find_redis_server()


@pytest.mark.processes
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


@pytest.mark.processes
def test_unix_socket_server_has_no_tcp_listener(tmp_path: Path) -> None:
    sock = tmp_path / "redis.sock"
    with RedisServer(tmp_path, unix_socket=sock) as server:
        assert server.url == f"unix://{sock.resolve()}"
        with redis.Redis.from_url(server.url) as client:
            assert client.ping() is True
            assert client.config_get("port")["port"] == "0"
            assert client.config_get("appendfsync")["appendfsync"] == "always"


@pytest.mark.processes
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


@pytest.mark.processes
def test_start_twice_is_refused(tmp_path: Path) -> None:
    with RedisServer(tmp_path) as server, pytest.raises(RedisServerError):
        server.start()


@pytest.mark.processes
def test_second_server_on_same_socket_is_refused(tmp_path: Path) -> None:
    sock = tmp_path / "redis.sock"
    with (
        RedisServer(tmp_path / "a", unix_socket=sock),
        pytest.raises(RedisServerError, match="already serves"),
    ):
        RedisServer(tmp_path / "b", unix_socket=sock).start()


@pytest.mark.processes
def test_startup_failure_reports_the_reason(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, config={"no-such-option": "1"})
    with pytest.raises(RedisServerError, match="exited with status"):
        server.start()
    assert not server.running


@pytest.mark.processes
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


@contextlib.contextmanager
def _umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def _modes_under(root: Path) -> dict[str, str]:
    """``path -> octal mode`` of ``root`` and everything in it (symlinks not followed)."""
    modes = {".": oct(stat.S_IMODE(root.lstat().st_mode))}
    for path in sorted(root.rglob("*")):
        modes[str(path.relative_to(root))] = oct(stat.S_IMODE(path.lstat().st_mode))
    return modes


def _assert_private(root: Path) -> None:
    """Every directory under ``root`` is 0700, every file (and the socket) 0600 or 0700."""
    wrong = {}
    for name, mode in _modes_under(root).items():
        path = root / name
        if path.is_dir() and not path.is_symlink():
            ok = mode == "0o700"
        elif path.is_socket():
            ok = mode in {"0o700", "0o600"}
        else:
            ok = mode == "0o600"
        if not ok:
            wrong[name] = mode
    assert not wrong, f"readable by others under {root}: {wrong}"


@pytest.mark.processes
def test_embedded_redis_keeps_its_data_private_whatever_the_umask(tmp_path: Path) -> None:
    """The AOF holds every game's seed and hidden layout: under a permissive umask (022) the
    data directories are still 0700 and every file Redis or floe writes 0600 (socket 0700)."""
    data_dir = tmp_path / ".floe-data"
    with _umask(0o022):
        server = start_embedded_redis(data_dir)
        try:
            with server.client() as client:
                client.set("floe:{g}:seed", b"secret seed")
                client.bgrewriteaof()  # a rewrite makes new base and incr files too
                wait_until(
                    lambda: not client.info("persistence")["aof_rewrite_in_progress"],
                    PROMPTLY,
                    "the AOF rewrite to end",
                )
                client.set("floe:{g}:more", b"after the rewrite")
                client.save()  # an RDB as well, should anything ever turn snapshots on
            aof_files = list((data_dir / "redis").rglob("*.aof"))
            assert aof_files and any(b"secret seed" in f.read_bytes() for f in aof_files)
            assert (data_dir / "redis" / "dump.rdb").exists()
            assert (data_dir / "redis" / "redis.sock").is_socket()
            _assert_private(data_dir)
        finally:
            server.stop()
    _assert_private(data_dir)


@pytest.mark.processes
def test_existing_data_dirs_are_made_private_on_start(tmp_path: Path) -> None:
    """A data directory left world-readable by an older floe is tightened when Redis starts,
    the job queues' Redis (``queue``, in memory: only its socket and log) included."""
    data_dir = tmp_path / ".floe-data"
    with _umask(0o022):
        (data_dir / "redis" / "appendonlydir").mkdir(parents=True)
        (data_dir / "queue").mkdir()
        old_file = data_dir / "redis" / "redis.log"
        old_file.write_text("old log\n")
        for path in (
            data_dir,
            data_dir / "redis",
            data_dir / "redis" / "appendonlydir",
            data_dir / "queue",
        ):
            path.chmod(0o755)
        old_file.chmod(0o644)
        server = start_embedded_redis(data_dir)
        queue = start_queue_redis(data_dir)
        try:
            with server.client() as client:
                client.set("k", b"v")
            with queue.client() as client:
                client.set("k", b"v")
                assert client.config_get("appendonly") == {"appendonly": "no"}
                assert client.config_get("save") == {"save": ""}
            _assert_private(data_dir)
            assert not list((data_dir / "queue").glob("*.aof")) and not list(
                (data_dir / "queue").glob("*.rdb")
            ), "the queue Redis writes no data to disk"
        finally:
            queue.stop()
            server.stop()


@pytest.mark.processes
def test_a_shared_data_dir_keeps_its_mode_but_redis_inside_is_private(tmp_path: Path) -> None:
    """``--data-dir`` naming a directory that holds other things (say /tmp) is not chmodded;
    the ``redis`` directory floe owns inside it is private all the same."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "someone-elses-file").write_text("x")
    shared.chmod(0o755)
    with _umask(0o022):
        server = start_embedded_redis(shared)
        try:
            with server.client() as client:
                client.set("k", b"v")
        finally:
            server.stop()
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    _assert_private(shared / "redis")


@pytest.mark.processes
def test_a_data_directory_too_deep_for_a_socket_still_starts_both_servers(
    tmp_path: Path,
) -> None:
    """`floe run` in a deep checkout: the sockets move to short private directories, the
    same ones for the same data directory, so a second server on it is still refused."""
    deep = tmp_path.joinpath(*["d" * 40] * 3)
    assert len(os.fsencode(deep / "redis" / "redis.sock")) > 107  # too long for sun_path
    store = start_embedded_redis(deep)
    queue = start_queue_redis(deep)
    try:
        for server in (store, queue):
            assert server.unix_socket is not None
            assert not server.unix_socket.is_relative_to(deep)
            for private in (server.unix_socket.parent, server.unix_socket.parent.parent):
                assert stat.S_IMODE(private.lstat().st_mode) == 0o700
            with contextlib.closing(server.client()) as client:
                assert client.ping()
        assert store.unix_socket != queue.unix_socket
        assert (deep / "redis").is_dir()  # the data stays where it was asked to be
        with pytest.raises(RedisServerError, match="another Redis already serves"):
            start_embedded_redis(deep)  # one AOF, one server
    finally:
        queue.stop()
        store.stop()
