"""A real PostgreSQL for the tests: one throwaway server per test session (under
pytest-xdist, per worker), started from Debian's ``postgresql`` package (`make test`
installs it: the Makefile's ``postgresql`` target), and a fresh database per test.

PostgreSQL refuses to run as root, and the suite runs as root in CI: then ``initdb`` and
``postgres`` run as the ``postgres`` system user, in a folder of the system temp dir that
user owns (pytest's own tmp folders are private to root). It listens on 127.0.0.1 at a free
port and on a unix socket in that folder; fsync stays on, as in production: the archive's
tests commit a few hundred small transactions, which costs well under a second.
"""

from __future__ import annotations

import itertools
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from service.run.redis_server import free_tcp_port, parent_death_signal
from tests.support.waiting import PROMPTLY

#: Where Debian installs each major version (``/usr/lib/postgresql/15/bin``).
DEBIAN_ROOT = Path("/usr/lib/postgresql")
#: The superuser initdb makes (trust authentication: the server is private to the test).
SUPERUSER = "postgres"


def find_bin_dir() -> Path:
    """The newest installed PostgreSQL's bin folder; fails saying how to install one."""
    found = [
        path.parent
        for path in DEBIAN_ROOT.glob("*/bin/postgres")
        if re.fullmatch(r"\d+", path.parent.parent.name)
    ]
    if not found:
        raise RuntimeError(
            f"no PostgreSQL under {DEBIAN_ROOT}: `make postgresql` installs Debian's package"
        )
    return max(found, key=lambda bin_dir: int(bin_dir.parent.name))


class PostgresServer:
    """One ``postgres`` process over a fresh cluster in a temp folder of its own."""

    def __init__(self) -> None:
        self.bin_dir = find_bin_dir()
        self.home = Path(tempfile.mkdtemp(prefix="floe-pg-"))
        self.data_dir = self.home / "data"
        self.log = self.home / "postgres.log"
        self.port = free_tcp_port()
        self._as_user: dict[str, Any] = {}
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.home, user.pw_uid, user.pw_gid)
            self._as_user = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The ``postgres`` maintenance database's URL (over TCP)."""
        return self.url_of("postgres")

    def url_of(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def _run(self, *command: str) -> None:
        subprocess.run(
            [str(self.bin_dir / command[0]), *command[1:]],
            check=True,
            capture_output=True,
            cwd=self.home,
            **self._as_user,
        )

    def start(self) -> None:
        """initdb, then start the server and wait until it takes connections."""
        self._run(
            "initdb",
            "-D",
            str(self.data_dir),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--no-locale",
            "--no-sync",
        )
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                [
                    str(self.bin_dir / "postgres"),
                    "-D",
                    str(self.data_dir),
                    "-p",
                    str(self.port),
                    "-h",
                    "127.0.0.1",
                    "-k",
                    str(self.home),
                    "-c",
                    "fsync=on",
                    "-c",
                    "max_connections=50",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.home,
                preexec_fn=parent_death_signal(),
                **self._as_user,
            )
        self._wait_ready()

    def _wait_ready(self) -> None:
        """Connect in a loop until the server answers, it dies, or ``PROMPTLY`` passes."""
        assert self._process is not None
        deadline = time.monotonic() + PROMPTLY
        while True:
            if self._process.poll() is not None:
                raise RuntimeError(f"postgres exited at start:\n{self.log.read_text()[-2000:]}")
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"postgres not ready after {PROMPTLY}s:\n{self.log.read_text()[-2000:]}"
                    ) from None
                time.sleep(0.05)  # a poll's pace: the connection attempt is the condition

    def create_database(self, name: str) -> str:
        """A new, empty database; its URL."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"'.encode())
        return self.url_of(name)

    def stop(self) -> None:
        """``pg_ctl stop -m fast``, then remove the folder."""
        if self._process is not None and self._process.poll() is None:
            try:
                self._run("pg_ctl", "stop", "-m", "fast", "-w", "-D", str(self.data_dir))
                self._process.wait(timeout=PROMPTLY)
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
                self._process.kill()
                self._process.wait()
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A private PostgreSQL for the whole session (per xdist worker)."""
    with PostgresServer() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a new, empty database on the session's server: every test its own."""
    return postgres_server.create_database(f"test_{os.getpid()}_{next(_databases)}")
