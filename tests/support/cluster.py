"""Real ``floe run`` processes on a real Redis Cluster, driven over HTTP the way people
drive them: every answer recorded, every acknowledged move kept, the logs read back from
the cluster itself (``tests/cluster/test_failover.py``).

Nothing here sleeps to synchronise: a caller waits on a condition (``wait_until``), and a
request refused with 503 ``store_unavailable`` is simply asked again, as its
``Retry-After`` invites, until another answer or the deadline.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from service.run.redis_cluster import LocalCluster
from service.run.redis_server import RedisServer
from service.store.events import events_key
from tests.support.api import ORGANIZER, bearer
from tests.support.floe_run import FloeRun, call, floe_run
from tests.support.replay_cli import floe as floe_cli
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_until

#: What a request may answer while the store fails over or reshards: never a 500, never
#: silence (a 503 must be ``store_unavailable``).
ALLOWED: Mapping[str, frozenset[int]] = {
    "GET": frozenset({200, 503}),
    "POST": frozenset({201, 202, 409, 503}),
}
#: Seconds a client gives one request before counting the API as gone (a ``?wait=10`` among
#: them, on a busy machine).
ANSWER_WITHIN = PROMPTLY
#: Seconds one game may take, refusals and waits included, before its player gives up.
GAME_DEADLINE = AT_LENGTH


def floe_env(cluster: LocalCluster, queue_url: str, **extra: str) -> dict[str, str]:
    """``floe run`` on ``cluster``, RQ on ``queue_url``: one API process, one job worker,
    a quick sweeper (a draw lost in a failover is found again within a second), no quota
    or rate limit (the tests create many games from one address), and the default
    ``FLOE_REPLICA_ACKS`` (0) whatever the caller's environment says."""
    return {
        "REDIS_URL": cluster.url,
        "FLOE_REDIS_CLUSTER": "1",
        "FLOE_QUEUE_URL": queue_url,
        "FLOE_REPLICA_ACKS": "0",
        "FLOE_ORGANIZER_TOKEN": ORGANIZER,
        "FLOE_WEB_WORKERS": "1",
        "FLOE_JOB_WORKERS": "1",
        "FLOE_SWEEP_SECONDS": "0.5",
        "FLOE_RATE_LIMIT_PER_TOKEN": "0",
        "FLOE_RATE_LIMIT_PER_ADDRESS": "0",
        "FLOE_BOT_GAMES_PER_CREATOR": "0",
        "FLOE_LIVE_GAMES_PER_CREATOR": "0",
        "FLOE_STORED_BYTES_PER_CREATOR": "0",
        **extra,
    }


@contextlib.contextmanager
def floe_runs(base: Path, env: Mapping[str, str], count: int = 2) -> Iterator[list[FloeRun]]:
    """``count`` independent ``floe run`` processes (each its API, worker and caches)."""
    with contextlib.ExitStack() as stack:
        runs = []
        for number in range(count):
            data_dir = base / f"floe-{number}"
            data_dir.mkdir(parents=True, exist_ok=True)
            runs.append(stack.enter_context(floe_run(data_dir, env)))
        yield runs


def still_running(run: FloeRun) -> bool:
    """The process and everything it supervises (it stops them all when one dies)."""
    return run.process.poll() is None


def log_troubles(run: FloeRun) -> list[str]:
    """Lines of the process's log that show a 500 or a thread that died (a failed job is
    not one: the sweeper runs it again)."""
    marks = ("unhandled error", "Exception in thread")
    return [line for line in run.log().splitlines() if any(m in line for m in marks)]


# ----- requests and their answers -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answer:
    """One request and what came back: ``status`` 0 is no answer (``error`` says why)."""

    method: str
    path: str
    port: int
    status: int
    code: str | None
    error: str | None
    at: float

    @property
    def allowed(self) -> bool:
        if self.status == 503:
            return self.code == "store_unavailable"
        return self.status in ALLOWED.get(self.method, frozenset())


class NoAnswer(AssertionError):
    """The API did not answer (a reset connection, a timeout): never allowed."""


class Traffic:
    """Every request the test made, from any thread, and what each answered."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answers: list[Answer] = []

    @property
    def answers(self) -> list[Answer]:
        with self._lock:
            return list(self._answers)

    def unexpected(self) -> list[Answer]:
        return [a for a in self.answers if not a.allowed]

    def statuses(self, since: float = 0.0) -> dict[int, int]:
        counts: dict[int, int] = {}
        for answer in self.answers:
            if answer.at >= since:
                counts[answer.status] = counts.get(answer.status, 0) + 1
        return dict(sorted(counts.items()))

    def count(self, status: int, *, since: float = 0.0, path: str = "") -> int:
        return sum(
            1
            for a in self.answers
            if a.status == status and a.at >= since and a.path.startswith(path)
        )

    def request(
        self, port: int, method: str, path: str, body: Any = None, *, token: str | None = None
    ) -> tuple[int, Any]:
        """One request on a fresh connection; ``NoAnswer`` if the API gave none."""
        try:
            status, payload, _ = call(port, method, path, body, token=token, timeout=ANSWER_WITHIN)
        except (OSError, http.client.HTTPException, ValueError) as error:
            self._record(Answer(method, path, port, 0, None, repr(error), time.monotonic()))
            raise NoAnswer(f"{method} {path} on :{port}: {error!r}") from error
        code = None
        if status >= 400 and isinstance(payload, dict):
            code = payload.get("error", {}).get("code")
        self._record(Answer(method, path, port, status, code, None, time.monotonic()))
        return status, payload

    def until_answered(
        self,
        port: int,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        deadline: float,
    ) -> tuple[int, Any]:
        """The request, asked again while it is refused with 503 (the same body: a move
        is idempotent by its command id), until another answer or ``deadline``."""
        while True:
            status, payload = self.request(port, method, path, body, token=token)
            if status != 503:
                return status, payload
            if time.monotonic() > deadline:
                raise AssertionError(f"{method} {path} still 503 at the deadline: {payload}")

    def _record(self, answer: Answer) -> None:
        with self._lock:
            self._answers.append(answer)


def export(port: int, game_id: str) -> bytes:
    """A game's full log as ``GET /export`` serves it (the organizer may export any time)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=ANSWER_WITHIN)
    try:
        connection.request("GET", f"/v1/games/{game_id}/export", headers=bearer(ORGANIZER))
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200, body
        return body
    finally:
        connection.close()


def verify_exports(port: int, game_ids: Sequence[str], directory: Path) -> str:
    """Export every game from ``port`` and run ``floe replay verify`` on them all."""
    paths = []
    for game_id in game_ids:
        path = directory / f"{game_id}.jsonl"
        path.write_bytes(export(port, game_id))
        paths.append(str(path))
    verified = floe_cli("verify", *paths)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    return verified.stdout


# ----- people playing ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Acked:
    """A move the API acknowledged (201 or 202): the events its answer showed."""

    game_id: str
    version: int
    events: list[dict[str, Any]]
    port: int
    at: float


@dataclass
class Acks:
    """Every acknowledged move, from any thread."""

    _lock: threading.Lock = field(default_factory=threading.Lock)
    _acks: list[Acked] = field(default_factory=list)

    def add(self, acked: Acked) -> None:
        with self._lock:
            self._acks.append(acked)

    def all(self) -> list[Acked]:
        with self._lock:
            return list(self._acks)

    def of(self, game_id: str, *, since: float = 0.0) -> list[Acked]:
        return [a for a in self.all() if a.game_id == game_id and a.at >= since]


@dataclass
class PeopleGame:
    """A game created through the API; ``tokens`` holds None for a bot's seat."""

    id: str
    game: str
    tokens: list[str | None]
    over: threading.Event = field(default_factory=threading.Event)

    @classmethod
    def create(
        cls, traffic: Traffic, port: int, game: str, players: Sequence[Mapping[str, str]]
    ) -> PeopleGame:
        body = {"game": game, "players": list(players)}
        status, created = traffic.request(port, "POST", "/v1/games?wait=10", body)
        assert status == 201, created
        tokens = [seat.get("token") for seat in created["seats"]]
        return cls(created["id"], game, tokens)

    def view(self, traffic: Traffic, port: int, deadline: float) -> dict[str, Any]:
        status, view = traffic.until_answered(
            port, "GET", f"/v1/games/{self.id}", deadline=deadline
        )
        assert status == 200, view
        result: dict[str, Any] = view
        return result

    def play(
        self,
        traffic: Traffic,
        ports: Sequence[int],
        acks: Acks,
        rng: random.Random,
        *,
        read_back: bool = False,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        """Play legal moves to the end, each turn on the next port; ``read_back``: after
        every acknowledged move, read the game on the *other* port, which must show it."""
        deadline = time.monotonic() + GAME_DEADLINE if deadline is None else deadline
        turn = 0
        while True:
            port, other = ports[turn % len(ports)], ports[(turn + 1) % len(ports)]
            turn += 1
            view = self.view(traffic, port, deadline)
            if view["status"] == "over":
                self.over.set()
                return view
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.game} {self.id} stuck at v{view['version']}")
            mine = [seat for seat in view["to_act"] if self.tokens[seat] is not None]
            if not mine:  # a draw or a bot: the workers' turn
                self._await_change(traffic, port, view["version"], deadline)
                continue
            seat = rng.choice(mine)
            acked = self._move(traffic, port, seat, rng, deadline)
            if acked is None:
                continue
            acks.add(acked)
            if read_back:
                seen = self.view(traffic, other, deadline)["version"]
                assert seen >= acked.version, (
                    f"{self.id}: :{acked.port} acknowledged v{acked.version}, :{other} shows v{seen}"
                )

    def _move(
        self, traffic: Traffic, port: int, seat: int, rng: random.Random, deadline: float
    ) -> Acked | None:
        """One legal move of ``seat``: what was acknowledged, or None on a 409."""
        token = self.tokens[seat]
        path = f"/v1/games/{self.id}/legal-actions"
        status, legal = traffic.until_answered(port, "GET", path, token=token, deadline=deadline)
        assert status == 200, legal
        actions = legal["actions"]
        playing = [a for a in actions if a["type"] != "retire"] or actions  # play it out
        body = {
            "action": rng.choice(playing),
            "expected_version": legal["version"],
            "command_id": f"{seat}-{legal['version']}",
        }
        path = f"/v1/games/{self.id}/actions?wait=10"
        status, answer = traffic.until_answered(
            port, "POST", path, body, token=token, deadline=deadline
        )
        if status == 409:
            return None
        assert status in (201, 202), (status, answer)
        return Acked(self.id, answer["version"], answer["events"], port, time.monotonic())

    def _await_change(self, traffic: Traffic, port: int, version: int, deadline: float) -> None:
        def moved() -> bool:
            status, view = traffic.request(port, "GET", f"/v1/games/{self.id}")
            return status == 200 and (view["version"] != version or view["status"] == "over")

        wait_until(moved, max(0.0, deadline - time.monotonic()), f"game {self.id} to move on")


def watch_to_end(
    traffic: Traffic, ports: Sequence[int], game_id: str, *, timeout: float = GAME_DEADLINE
) -> dict[str, Any]:
    """Follow a game the workers play, alternating ports: no read goes back in time."""
    seen = {"version": 0, "turn": 0}
    last: dict[str, Any] = {}

    def ended() -> bool:
        nonlocal last
        port = ports[seen["turn"] % len(ports)]
        seen["turn"] += 1
        status, view = traffic.request(port, "GET", f"/v1/games/{game_id}")
        assert status == 200, view
        assert view["version"] >= seen["version"], (
            f"{game_id}: :{port} shows v{view['version']} after v{seen['version']} was seen"
        )
        seen["version"] = view["version"]
        last = view
        return bool(view["status"] == "over")

    wait_until(ended, timeout, f"game {game_id} to end")
    return last


# ----- the cluster, seen from outside -----------------------------------------------------------


def whole(cluster: LocalCluster) -> bool:
    """Every running node sees every slot served (after a failover: by the survivors)."""
    try:
        return cluster.healthy()
    except (redis.RedisError, OSError):
        return False


def node_id(node: RedisServer) -> str:
    with node.client() as client:
        raw = client.execute_command("CLUSTER MYID")
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def slot_ranges(cluster: LocalCluster) -> list[tuple[int, int, int]]:
    """``(first, last, master port)`` of every slot range, as a running master sees it."""
    master = cluster.masters()[0]
    with master.client() as client:
        ranges = client.execute_command("CLUSTER SLOTS")
    if isinstance(ranges, dict):  # redis-py parses CLUSTER SLOTS into {(first, last): ...}
        return sorted(
            (int(first), int(last), int(info["primary"][1]))
            for (first, last), info in ranges.items()
        )
    return sorted((int(r[0]), int(r[1]), int(r[2][1])) for r in ranges)


def owner(cluster: LocalCluster, slot: int) -> RedisServer:
    """The master serving ``slot`` now."""
    for first, last, port in slot_ranges(cluster):
        if first <= slot <= last:
            return next(node for node in cluster.nodes if node.port == port)
    raise AssertionError(f"no master serves slot {slot}")


def agreed(cluster: LocalCluster) -> bool:
    """Every running node has the same view of the slots (what ``--cluster`` checks)."""
    try:
        views = set()
        for node in cluster.nodes:
            if node.running:
                with node.client() as client:
                    views.add(str(client.execute_command("CLUSTER SLOTS")))
        return whole(cluster) and len(views) == 1
    except (redis.RedisError, OSError):
        return False


def stored_log(cluster: LocalCluster, game_id: str) -> dict[int, dict[str, Any]]:
    """A game's events as the cluster stores them now, by version (read from the masters)."""
    client = cluster.client()
    try:
        entries: Any = client.xrange(events_key(game_id))
    finally:
        client.close()
    events = (json.loads(fields[b"e"]) for _, fields in entries)
    return {int(event["version"]): event for event in events}


def same_event(shown: Mapping[str, Any], stored: Mapping[str, Any]) -> bool:
    """Whether an answer's event is the stored one (an answer before the end carries no
    hash, and a secret draw's outcome shows as None)."""
    for key, value in shown.items():
        if key == "data" and isinstance(value, dict) and value.get("outcome", 0) is None:
            if {k: v for k, v in value.items() if k != "outcome"} != {
                k: v for k, v in stored["data"].items() if k != "outcome"
            }:
                return False
        elif stored.get(key) != value:
            return False
    return True


def missing(cluster: LocalCluster, acks: Sequence[Acked]) -> list[tuple[str, int]]:
    """Acknowledged events that the store does not hold (as acknowledged): game, version."""
    logs: dict[str, dict[int, dict[str, Any]]] = {}
    lost = []
    for acked in acks:
        log = logs.get(acked.game_id)
        if log is None:
            log = logs[acked.game_id] = stored_log(cluster, acked.game_id)
        for event in acked.events:
            stored = log.get(int(event["version"]))
            if stored is None or not same_event(event, stored):
                lost.append((acked.game_id, int(event["version"])))
    return lost


def run_in_threads(jobs: Sequence[Callable[[], object]]) -> list[Job]:
    """Start each job on a thread of its own; a job's exception is kept on the thread."""
    threads = []
    for job in jobs:
        thread = Job(job)
        thread.start()
        threads.append(thread)
    return threads


def join_all(threads: Sequence[Job], timeout: float) -> None:
    """Wait for every thread; re-raise the first job's exception."""
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
        assert not thread.is_alive(), f"{thread.name} still running after {timeout}s"
    for thread in threads:
        if thread.error is not None:
            raise thread.error


class Job(threading.Thread):
    """A thread that keeps its job's exception (``error``) for whoever joins it."""

    def __init__(self, job: Callable[[], object]) -> None:
        super().__init__(daemon=True)
        self._job = job
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._job()
        except BaseException as error:
            self.error = error
