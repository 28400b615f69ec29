"""``FLOE_REPLICA_ACKS``: an answered write is on that many replicas, so losing its master
loses nothing acknowledged; with 0, a failover can lose acknowledged events, and a test
shows it. Arktia needs no draws, so people's moves through the app are the only writes."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.api.app import create_app
from service.run.redis_cluster import LocalCluster, role, start_cluster
from service.run.redis_server import DURABLE_CONFIG, RedisServer
from service.settings import Settings
from service.store.events import events_key
from tests.support.api import Game
from tests.support.redis_binary import redis_server_binary
from tests.support.waiting import PROMPTLY, wait_until

PEOPLE = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
#: How long a write waits for its replica's ack: long enough for a replica on a busy machine
#: to ack (a move answered 201), short enough that each refusal (a stopped replica) is quick.
REPLICA_ACK_MS = 2_000


def new_game(client: FlaskClient) -> Game:
    response = client.post("/v1/games", json=PEOPLE)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    return Game(client, created["id"], [s["token"] for s in created["seats"]])


def move(game: Game, command_id: str | None = None) -> tuple[Any, dict[str, Any]]:
    """Post the first legal action of the seat to act; the answer and what was posted."""
    view = game.view()
    seat = view["to_act"][0]
    legal = game.legal(seat)
    body = {"seat": seat, "action": legal["actions"][0], "version": legal["version"]}
    answer = game.post(seat, body["action"], legal["version"], command_id, wait=0)
    return answer, body


def repost(game: Game, body: dict[str, Any], command_id: str) -> Any:
    return game.post(body["seat"], body["action"], body["version"], command_id, wait=0)


def versions(client: redis.Redis, game_id: str) -> list[int]:
    entries: list[tuple[bytes, Any]] = client.xrange(events_key(game_id))  # type: ignore[assignment]
    return [int(entry_id.decode().split("-")[1]) for entry_id, _ in entries]


# ----- one master, one replica --------------------------------------------------------


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[RedisServer, RedisServer]]:
    master = RedisServer(tmp_path / "master", config=DURABLE_CONFIG).start()
    replica = RedisServer(tmp_path / "replica", config=DURABLE_CONFIG).start()
    with replica.client() as client:
        client.replicaof("127.0.0.1", master.port)

    def linked() -> bool:
        with replica.client() as client:
            return bool(client.info("replication").get("master_link_status") == "up")

    try:
        wait_until(linked, PROMPTLY, "the replica to link up")
        yield master, replica
    finally:
        for server in (replica, master):
            if server.pid is not None:
                os.kill(server.pid, signal.SIGCONT)
            server.stop()


def test_with_one_ack_an_answer_waits_for_the_replica_and_a_retry_is_safe(
    pair: tuple[RedisServer, RedisServer],
) -> None:
    master, replica = pair
    settings = Settings(redis_url=master.url, replica_acks=1, replica_ack_timeout_ms=REPLICA_ACK_MS)
    client = create_app(settings).test_client()
    game = new_game(client)
    answer, _ = move(game)
    assert answer.status_code == 201
    with replica.client() as on_replica:
        assert versions(on_replica, game.id)[-1] == answer.get_json()["version"], (
            "answered only once the replica had it"
        )
    assert replica.pid is not None
    os.kill(replica.pid, signal.SIGSTOP)
    refused, body = move(game, "while-the-replica-sleeps")
    assert refused.status_code == 503
    assert refused.get_json()["error"]["code"] == "store_unavailable"
    assert refused.headers["Retry-After"] == "1"
    os.kill(replica.pid, signal.SIGCONT)
    retried = repost(game, body, "while-the-replica-sleeps")
    assert retried.status_code == 201, retried.get_json()
    with master.client() as on_master:
        logged = versions(on_master, game.id)
    assert logged == list(range(1, retried.get_json()["version"] + 1)), "the move once"
    assert [e["version"] for e in retried.get_json()["events"]] == [logged[-1]]


def test_with_no_acks_nothing_waits_for_a_replica(pair: tuple[RedisServer, RedisServer]) -> None:
    master, replica = pair
    client = create_app(Settings(redis_url=master.url)).test_client()
    game = new_game(client)
    assert replica.pid is not None
    os.kill(replica.pid, signal.SIGSTOP)
    answers = [move(game)[0].status_code for _ in range(3)]
    assert answers == [201, 201, 201]


# ----- a cluster losing a master --------------------------------------------------------


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    cluster = start_cluster(tmp_path / "cluster", executable=redis_server_binary())
    try:
        yield cluster
    finally:
        for node in cluster.nodes:
            if node.pid is not None:
                os.kill(node.pid, signal.SIGCONT)
        cluster.stop()


def master_and_replica(cluster: LocalCluster, key: str) -> tuple[RedisServer, RedisServer]:
    """The master serving ``key``'s slot, and its replica."""
    port = int(cluster.client().get_node_from_key(key).port)  # type: ignore[no-untyped-call]
    master = next(node for node in cluster.nodes if node.port == port)

    def follows(node: RedisServer) -> bool:
        with node.client() as client:
            info = client.info("replication")
        return info["role"] == "slave" and int(info["master_port"]) == port

    return master, next(node for node in cluster.nodes if follows(node))


def lose_the_master(cluster: LocalCluster, master: RedisServer, replica: RedisServer) -> None:
    """Kill the master while its replica is stopped; wake the replica, which takes over."""
    master.kill()
    assert replica.pid is not None
    os.kill(replica.pid, signal.SIGCONT)
    wait_until(lambda: role(replica) == "master", PROMPTLY, "the replica to be promoted")
    wait_until(cluster.healthy, PROMPTLY, "the cluster to be whole again")


@pytest.mark.parametrize("acks", [0, 1])
def test_a_failover_loses_acknowledged_moves_only_without_acks(
    own_cluster: LocalCluster, redis_url: str, acks: int
) -> None:
    """The replica stops (its link to the master cut), moves go on, the master dies and the
    replica takes over. With 0 acks the moves answered meanwhile are gone; with 1 they were never
    answered (503), and every move that was answered is there."""
    settings = Settings(
        redis_url=own_cluster.url,
        redis_cluster=True,
        queue_url=redis_url,
        replica_acks=acks,
        replica_ack_timeout_ms=REPLICA_ACK_MS,
    )
    client = create_app(settings).test_client()
    game = new_game(client)
    answered = [move(game)[0] for _ in range(3)]
    assert [a.status_code for a in answered] == [201, 201, 201]
    master, replica = master_and_replica(own_cluster, events_key(game.id))
    last = answered[-1].get_json()["version"]
    with replica.client(single_connection_client=True) as on_replica:
        on_replica.execute_command("READONLY")  # a replica answers reads of its slots
        wait_until(lambda: versions(on_replica, game.id)[-1:] == [last], PROMPTLY, "the replica")
    assert replica.pid is not None
    os.kill(replica.pid, signal.SIGSTOP)
    with master.client() as on_master:  # cut the link: nothing more reaches the replica
        on_master.client_kill_filter(_type="replica")
    during = [move(game)[0] for _ in range(3)]
    acknowledged = [a.get_json()["version"] for a in answered + during if a.status_code == 201]
    lose_the_master(own_cluster, master, replica)
    survived = versions(own_cluster.client(), game.id)  # type: ignore[arg-type]
    # The app saw versions the store has lost (acknowledged with 0 acks, or 503 with 1): it
    # serves the store's own head again, not a state the log no longer makes, and plays on.
    wait_until(lambda: game.get().status_code == 200, PROMPTLY, "the app to find the new master")
    assert game.view()["version"] == survived[-1]
    if acks == 1:  # the promoted master has no replica: it acknowledges nothing until one
        assert move(game)[0].status_code == 503  # rejoins, as the old master does now
        master.start()
        wait_until(
            lambda: role(master) == "slave", PROMPTLY, "the old master to rejoin as a replica"
        )
    wait_until(lambda: move(game)[0].status_code == 201, PROMPTLY, "a move to be acknowledged")
    if acks == 0:
        assert [a.status_code for a in during] == [201, 201, 201]
        lost = [v for v in acknowledged if v not in survived]
        assert lost, "acknowledged moves the promoted replica never had"
        assert survived[-1] == answered[-1].get_json()["version"]
    else:
        assert {a.status_code for a in during} == {503}
        assert all(v in survived for v in acknowledged), "no acknowledged move is lost"


#: Debian's Redis 7, beside the bundled 6.2 (``make test`` installs it, as it does Chromium):
#: Redis 7 starts a replica's first sync later, which a cluster must wait for.
DEBIAN_REDIS = "/usr/bin/redis-server"


def test_a_new_cluster_of_debian_redis_7_takes_replicated_writes_at_once(
    tmp_path: Path, redis_url: str
) -> None:
    """Once ``start_cluster`` returns, every replica has synced: the first writes, each
    waiting for one replica's ack, are answered 201 (they were 503 on Redis 7 before)."""
    cluster = start_cluster(tmp_path / "cluster", executable=DEBIAN_REDIS)
    try:
        with cluster.nodes[0].client() as client:
            assert str(client.info("server")["redis_version"]).startswith("7.")
        assert cluster.replicated(1)
        settings = Settings(
            redis_url=cluster.url,
            redis_cluster=True,
            queue_url=redis_url,
            replica_acks=1,
            replica_ack_timeout_ms=REPLICA_ACK_MS,
        )
        game = new_game(create_app(settings).test_client())
        assert [move(game)[0].status_code for _ in range(3)] == [201, 201, 201]
    finally:
        cluster.stop()
