"""A store that may lose games is named, and refused at every start unless the operator
means it (``FLOE_STORE_RISKS_ACCEPTED=1``).

Real redis-servers of the test's own, configured as a careless deployment would be
(``maxmemory-policy allkeys-lru``, ``appendonly no``), as ``floe run`` configures its own,
and as a managed Redis that refuses ``CONFIG`` (an ACL user without it). Then the real
entry points on the careless one: ``floe worker``, gunicorn serving
``service.run.web:create_web_app()`` and ``floe run`` with ``REDIS_URL``, each without the
setting (refused, the problems named) and with it (started, ``GET /v1/health`` naming them).
The suite sets the variable for its own processes (tests/conftest.py); here it is dropped.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.cluster import RedisCluster

from service.redis.connect import connect
from service.redis.durability import SAFE, StoreRisksRefused, check_at_start, read_safety
from service.run.redis_cluster import start_cluster
from service.run.redis_server import DURABLE_CONFIG, RedisServer, free_tcp_port
from service.run.supervisor import api_command
from service.settings import Settings
from tests.support.floe_run import floe_run
from tests.support.redis_binary import redis_server_binary
from tests.support.waiting import PROMPTLY, wait_until

CARELESS = {"appendonly": "no", "save": "", "maxmemory-policy": "allkeys-lru"}
EVICTS = "maxmemory-policy allkeys-lru evicts keys"
NO_AOF = "appendonly no"
ACCEPTED = "FLOE_STORE_RISKS_ACCEPTED"


@pytest.fixture
def careless(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis that evicts at maxmemory and keeps no AOF."""
    with RedisServer(
        tmp_path / "careless", config=CARELESS, executable=redis_server_binary()
    ) as server:
        yield server


def server(tmp_path: Path, config: dict[str, str]) -> RedisServer:
    return RedisServer(tmp_path / "redis", config=config, executable=redis_server_binary())


@pytest.mark.processes  # a redis-server
def test_a_store_that_evicts_and_keeps_no_aof_is_named_for_both(careless: RedisServer) -> None:
    with careless.client() as client:
        safety = read_safety(client)
    assert safety.durable is False
    assert len(safety.problems) == 2
    assert safety.problems[0].startswith(EVICTS)
    assert safety.problems[1].startswith(NO_AOF)
    answer = safety.to_json()
    assert (answer["maxmemory_policy"], answer["appendonly"]) == ("allkeys-lru", "no")


@pytest.mark.processes  # a redis-server
def test_floe_runs_own_configuration_is_durable(tmp_path: Path) -> None:
    with server(tmp_path, dict(DURABLE_CONFIG)) as durable, durable.client() as client:
        safety = read_safety(client)
    assert safety.durable is True
    assert (safety.problems, safety.cautions) == ((), ())
    assert safety.to_json()["appendfsync"] == "always"


@pytest.mark.processes  # a redis-server
def test_an_aof_fsynced_every_second_is_a_caution_not_a_problem(tmp_path: Path) -> None:
    config = {**DURABLE_CONFIG, "appendfsync": "everysec"}
    with server(tmp_path, config) as everysec, everysec.client() as client:
        safety = read_safety(client)
        assert safety.durable is True
        assert safety.problems == ()
        [caution] = safety.cautions
        assert caution.startswith("appendfsync everysec")
        check_at_start(client, Settings(), warnings := Warnings())
    assert warnings.said == [f"the event store: {caution}"]


@pytest.mark.processes  # a redis-server
def test_a_store_that_refuses_config_is_unknown_and_started_on_with_a_warning(
    tmp_path: Path,
) -> None:
    """Managed services disable CONFIG: nothing can be told, so nothing is refused."""
    with server(tmp_path, dict(DURABLE_CONFIG)) as managed:
        with managed.client() as admin:
            admin.acl_setuser(
                "app", enabled=True, passwords=["+app-password"], keys=["*"],
                channels=["*"], commands=["+@all", "-config"],
            )  # fmt: skip
        client = redis.Redis(
            host="127.0.0.1", port=managed.port, username="app", password="app-password"
        )
        with client:
            with pytest.raises(redis.ResponseError):
                client.config_get("appendonly")  # the premise: CONFIG is refused
            safety = read_safety(client)
            check_at_start(client, Settings(), warnings := Warnings())
    assert safety.durable is None
    assert safety.config == {parameter: "unknown" for parameter in SAFE}
    assert safety.problems == ()
    [caution] = safety.cautions
    assert "unknown (CONFIG GET refused)" in caution
    assert warnings.said == [f"the event store: {caution}"]


@pytest.mark.processes  # a redis-server
def test_the_start_check_refuses_unless_the_risk_is_accepted(careless: RedisServer) -> None:
    with careless.client() as client:
        with pytest.raises(StoreRisksRefused) as refused:
            check_at_start(client, Settings(), Warnings())
        for named in (EVICTS, NO_AOF, f"{ACCEPTED}=1"):
            assert named in str(refused.value)
        accepted = Settings(store_risks_accepted=True)
        warnings = Warnings()
        assert check_at_start(client, accepted, warnings) is not None
    assert len(warnings.said) == 2
    assert all(said.startswith("the event store may lose games: ") for said in warnings.said)


@pytest.mark.slow  # waits out connection timeouts: 4 s
def test_a_store_that_does_not_answer_is_not_refused_at_start(tmp_path: Path) -> None:
    """The API answers 503 until it is back, and the health check reads it again then."""
    port = free_tcp_port()
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=2)
    warnings = Warnings()
    assert check_at_start(client, Settings(), warnings) is None
    [said] = warnings.said
    assert said.startswith("could not read the event store's configuration")


@pytest.mark.processes
@pytest.mark.cluster
def test_on_a_cluster_every_primary_is_read_and_a_problem_names_its_node(tmp_path: Path) -> None:
    cluster = start_cluster(
        tmp_path / "cluster", masters=3, replicas=0, executable=redis_server_binary()
    )
    try:
        settings = Settings(
            redis_url=cluster.url, redis_cluster=True, queue_url="redis://127.0.0.1:1/0"
        )
        client = connect(settings)
        assert isinstance(client, RedisCluster)
        assert read_safety(client).durable is True
        careless = client.get_primaries()[1]
        client.get_redis_connection(careless).config_set("appendonly", "no")
        safety = read_safety(client)
        client.close()
    finally:
        for node in cluster.nodes:
            node.stop()
    assert safety.durable is False
    assert safety.problems == (
        f"{careless.name}: appendonly no: a restart of Redis loses what "
        "it held since its last snapshot",
    )
    assert safety.to_json()["appendonly"] == "mixed", "the nodes disagree"


# ----- the processes ---------------------------------------------------------------------------


def environment(redis_url: str, **more: str) -> dict[str, str]:
    """Ours, on ``redis_url``, without the suite's acceptance of the risk."""
    env = {k: v for k, v in os.environ.items() if k not in (ACCEPTED, "REDIS_URL")}
    return {**env, "REDIS_URL": redis_url, **more}


@pytest.mark.processes
def test_floe_worker_refuses_the_store_unless_the_risk_is_accepted(
    careless: RedisServer,
) -> None:
    argv = [sys.executable, "-m", "service.cli", "worker", "--burst"]
    refused = subprocess.run(
        argv, env=environment(careless.url), capture_output=True, text=True, timeout=PROMPTLY
    )
    assert refused.returncode == 1, refused.stderr
    for named in (EVICTS, NO_AOF, f"{ACCEPTED}=1"):
        assert named in refused.stderr
    with careless.client() as client:
        assert client.scard("rq:workers") == 0, "it never registered"
    env = environment(careless.url, **{ACCEPTED: "1"})
    accepted = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=PROMPTLY)
    assert accepted.returncode == 0, accepted.stderr
    assert "WARNING" in accepted.stderr and EVICTS in accepted.stderr


@pytest.mark.processes
def test_the_api_refuses_the_store_unless_the_risk_is_accepted(
    careless: RedisServer, tmp_path: Path
) -> None:
    port = free_tcp_port()
    argv = api_command(Settings(port=port, web_workers=1))
    log_path = tmp_path / "gunicorn.log"
    with log_path.open("wb") as log:
        refused = subprocess.run(
            argv, env=environment(careless.url), stdout=log, stderr=log, timeout=PROMPTLY
        )
    assert refused.returncode != 0
    logged = log_path.read_text(errors="replace")
    assert "StoreRisksRefused" in logged and EVICTS in logged and NO_AOF in logged

    env = environment(careless.url, **{ACCEPTED: "1"})
    with log_path.open("wb") as log:
        served = subprocess.Popen(argv, env=env, stdout=log, stderr=log)
    try:
        store = healthy_store(port, served)
    finally:
        served.terminate()
        served.wait(timeout=PROMPTLY)
    assert store["durable"] is False
    assert [problem.split(":")[0] for problem in store["problems"]] == [
        "maxmemory-policy allkeys-lru evicts keys at maxmemory, and with them games",
        NO_AOF,
    ]
    assert EVICTS in log_path.read_text(errors="replace"), "each worker says so as it starts"


@pytest.mark.processes
def test_floe_run_on_such_a_store_refuses_before_starting_anything(
    careless: RedisServer, tmp_path: Path
) -> None:
    env = environment(careless.url, PORT=str(free_tcp_port()))
    argv = [sys.executable, "-m", "service.cli", "run", "--data-dir", str(tmp_path / "data")]
    refused = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=PROMPTLY)
    assert refused.returncode == 1, refused.stdout
    assert f"floe: error: the event store's Redis may lose games: {EVICTS}" in refused.stdout
    assert "floe: worker" not in refused.stdout and "floe: api" not in refused.stdout

    data_dir = tmp_path / "accepted"
    data_dir.mkdir()
    with floe_run(data_dir, {"REDIS_URL": careless.url, ACCEPTED: "1"}) as run:
        store = healthy_store(run.port, run.process)
        assert f"floe: warning: the event store may lose games: {EVICTS}" in run.log()
    assert store["durable"] is False and len(store["problems"]) == 2


def healthy_store(port: int, process: subprocess.Popen[Any]) -> dict[str, Any]:
    """``store`` of the first 200 ``GET /v1/health`` answers on ``port``."""
    answers: list[dict[str, Any]] = []

    def answered() -> bool:
        assert process.poll() is None, "the server exited"
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PROMPTLY)
        try:
            connection.request("GET", "/v1/health")
            response = connection.getresponse()
            if response.status == 200:
                answers.append(json.loads(response.read()))
        except OSError:
            return False
        finally:
            connection.close()
        return bool(answers)

    wait_until(answered, PROMPTLY, "the health check to answer")
    store: dict[str, Any] = answers[0]["store"]
    return store


class Warnings:
    """A ``warn`` that keeps what it is told."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def __call__(self, message: str) -> None:
        self.said.append(message)
