"""Floe on a Redis Cluster against Floe on one Redis (issue 16): ``python -m bench.cluster``.

Two peers in one run, both up for the whole run, each a real ``floe run``
(``tests.support.floe_run.floe_run``) with the same API: ``--web-workers`` gevent workers, one job
worker (nobody is a bot and Arktia never draws, so it idles but for its sweeper), the rate
limiter counting every request but never refusing, the quotas at their defaults, and a plain
durable Redis of its own for RQ (``FLOE_QUEUE_URL``). Only the event store differs:

- ``single``: one redis-server with ``DURABLE_CONFIG`` (AOF, ``appendfsync always``: what
  ``floe run`` starts), on a loopback TCP port, as the cluster's nodes are;
- ``cluster``: ``--masters`` masters with ``--replicas`` replicas each
  (``service.run.redis_cluster.start_cluster``), every node with the same durable config;
  ``FLOE_REDIS_CLUSTER=1`` and every node in ``REDIS_URL``.

1. **Throughput.** For each count of ``--clients`` (4,16,64): ``--rounds`` windows of
   ``--seconds`` per peer, after ``--warmup`` unmeasured seconds each, the peers taking turns
   (which goes first alternates). A client is a thread (the threads are spread over
   ``--client-processes`` processes) with its own keep-alive connection from its own
   loopback address (``127.0.x.y``: the per-address counters spread over the slots as many
   players' would). It plays whole two-person Arktia games through the API:
   ``POST /v1/games``, then each action of a script as one ``POST .../actions`` with its
   ``expected_version`` and a ``command_id``, to the end, then the next game. The scripts are
   random legal games worked out in process (Arktia never draws: one script fits any new
   game), about 76 moves each. A move is one POST answered 201, counted when it was sent
   inside the window; the creates are counted apart, and their cost is in the per-move
   figures. Around every window: the CPU of every process (``/proc``), and
   ``INFO commandstats`` and the ``CLUSTER INFO`` bus counters of every node of the store.
2. **One hot game.** One client posting moves on one never-ending game (``bench.policy``),
   each as soon as the last was answered; ``--readers`` spectators polling
   ``GET /v1/games/{id}`` on one idle game; the poster among the pollers; the poster with
   ``--watchers`` live streams (``GET .../events/stream``) on its game. Each on a fresh game.
3. **Memory.** Per peer, every node's AOF is rewritten (so that no automatic rewrite shrinks
   it meanwhile), then ``--games`` games are created and played to the end. The
   ``used_memory`` and AOF size of every node are read before, after the creates and after
   the ends, each time once no key with a TTL is left (the rate limiter's counters; their
   window is ``--rate-window`` seconds here, 60 by default in Floe, so this takes seconds).
   Memory is ``used_memory`` less the connections' and replication buffers, which come and go
   with the traffic (``BUFFERS``). Each master's growth is divided by the games whose slot it
   serves. Then the export of ``--exports`` of the games: a finished game's log.
4. **Idle.** What each store does with no load (the sweeper, the cluster's own traffic), at
   the start and again once the memory phase has added its games.
5. **Fan-out.** ``--publishes`` ``PUBLISH`` on one master of the cluster, nobody listening:
   the cluster bus messages and bytes each costs (Redis 6 sends every ``PUBLISH`` to every
   node; the append scripts publish every new head). Per move, the bus messages are counted
   in the throughput windows too (``CLUSTER INFO``).

Everything shares one machine (on a 2-core VM: the clients, both APIs and every Redis), so
the peers are compared within the run, as ratios. Prints Markdown tables and writes
``bench/results/cluster.json``. A run whose answers were not all 201/200, whose cluster
changed masters, or whose ``floe-run.log`` shows an error says so, and keeps its data.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import http.client
import json
import multiprocessing
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, cast

import redis

from bench import policy
from bench.report import Report, Result, git_state, load_average, machine, percentile
from bench.stack import BenchError, Client, machine_busy
from bench.tournament import log_errors
from domain.engine import play
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, SeatInfo
from domain.games import GAMES
from service.run.redis_cluster import LocalCluster, cluster_info, role, start_cluster
from service.run.redis_server import DURABLE_CONFIG, RedisServer
from service.store.events import GAMES_INDEX, events_key
from tests.support.floe_run import FloeRun, floe_run

RESULTS = Path(__file__).resolve().parent / "results"
GAME = "arktia"
PEERS = ("single", "cluster")
PLAYERS = [{"name": "Ann"}, {"name": "Bo"}]
CREATE = json.dumps({"game": GAME, "players": PLAYERS}).encode()
HOT_CREATE = json.dumps({"game": GAME, "players": PLAYERS, "options": policy.OPTIONS}).encode()
#: Counting, never refusing (as ``make bench``): the hot game's two tokens alone post more
#: than the default 6,000 a minute.
NEVER = str(10**9)
#: The seed of the hot game's never-ending script.
HOT_SEED = 16
_TICKS = os.sysconf("SC_CLK_TCK")

Log = Callable[[str], None]
#: One scripted action: the seat that posts it, and the POST body (its expected_version and
#: a command_id unique in the game already in it).
Step = tuple[int, bytes]


@dataclass(frozen=True)
class Config:
    """Every knob; ``quick()`` takes about 2.5 minutes, the default about 5."""

    clients: tuple[int, ...] = (4, 16, 64)
    rounds: int = 2
    seconds: float = 5.0
    warmup: float = 1.0
    client_processes: int = 2
    web_workers: int = 2
    masters: int = 3
    replicas: int = 1
    games: int = 300
    scripts: int = 64
    readers: int = 16
    watchers: int = 64
    hot_seconds: float = 4.0
    idle_seconds: float = 10.0
    rate_window: int = 10
    exports: int = 20
    publishes: int = 50000
    #: ``FLOE_REPLICA_ACKS`` of the cluster's ``floe run`` (0, Floe's default: nothing waits).
    replica_acks: int = 0
    keep: bool = False

    @classmethod
    def quick(cls) -> Config:
        return cls(rounds=1, seconds=2.5, games=60, hot_seconds=2.0, idle_seconds=5.0)


# ----- the games the clients play -------------------------------------------------------------


@dataclass(frozen=True)
class Script:
    steps: tuple[Step, ...]
    #: Events the game stores once over (``game_over`` and ``seed_revealed`` included).
    events: int


def _body(action: Any, version: int) -> bytes:
    payload = {"action": action, "expected_version": version, "command_id": f"m{version}"}
    return json.dumps(payload).encode()


def _created() -> Event:
    rules = GAMES[GAME].rules
    created = GameCreated(
        game=GAME,
        rules_version=rules.rules_version,
        options={},
        seats=tuple(SeatInfo(i, player["name"]) for i, player in enumerate(PLAYERS)),
        seed_commitment="0" * 64,
    )
    return Event(GAME_CREATED, SYSTEM, created.to_json())


def finished_games(count: int, seed: int = 0) -> list[Script]:
    """``count`` random legal games to the end (retiring rarely), worked out in process."""
    rules = GAMES[GAME].rules
    out = []
    for index in range(count):
        rng = random.Random(seed * 1_000_003 + index)
        state = play.fold(rules, f"cluster-{index}", [_created()])
        steps: list[Step] = []
        while not state.over:
            seat = play.to_act(rules, state)[0]
            actions = play.legal_actions(rules, state, seat)
            weights = [0.02 if action.type == "retire" else 1.0 for action in actions]
            action = rng.choices(actions, weights)[0]
            steps.append((seat, _body(action.to_json(), state.version)))
            for event in play.decide(rules, state, seat, action):
                state = play.apply(rules, state, event)
        out.append(Script(tuple(steps), state.version + 1))
    return out


def endless_game(length: int) -> Script:
    """``length`` actions of a game that does not end (``bench.policy``): the hot game."""
    steps = policy.script(HOT_SEED, length)
    return Script(tuple((s.seat, _body(s.action, v)) for v, s in enumerate(steps, 1)), 0)


# ----- clients ---------------------------------------------------------------------------------


def source(index: int) -> str:
    """The loopback address client ``index`` connects from (127.0.1.1, 127.0.1.2, ...)."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


class SourceClient(Client):
    """``bench.stack.Client`` from a chosen loopback address: the API's limits and quotas
    count per address, and one address for everyone would be one hot counter key."""

    def __init__(self, port: int, address: str) -> None:
        super().__init__(port)
        self.address = address

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = http.client.HTTPConnection(
                self.host, self.port, timeout=self.timeout, source_address=(self.address, 0)
            )
        return self._conn


@dataclass
class Tally:
    """What the clients of a window saw of the requests they sent inside it."""

    moves: int = 0
    creates: int = 0
    reads: int = 0
    latencies: list[float] = field(default_factory=list)
    read_latencies: list[float] = field(default_factory=list)
    #: Answers other than the expected one, by status, and the first body of each.
    refused: dict[int, int] = field(default_factory=dict)
    examples: dict[int, str] = field(default_factory=dict)
    #: Requests that got no answer at all (connection lost, timed out).
    errors: int = 0
    #: CPU seconds of the client processes inside the window.
    cpu: float = 0.0

    def refuse(self, status: int, raw: bytes) -> None:
        self.refused[status] = self.refused.get(status, 0) + 1
        self.examples.setdefault(status, raw[:300].decode("utf-8", "replace"))

    def add(self, other: Tally) -> None:
        self.moves += other.moves
        self.creates += other.creates
        self.reads += other.reads
        self.latencies += other.latencies
        self.read_latencies += other.read_latencies
        for status, count in other.refused.items():
            self.refused[status] = self.refused.get(status, 0) + count
        for status, body in other.examples.items():
            self.examples.setdefault(status, body)
        self.errors += other.errors
        self.cpu += other.cpu


@dataclass(frozen=True)
class Job:
    """One client thread's work: ``games`` (create, play to the end, again), ``post`` (the
    hot game's moves), ``read`` (poll one game's view) or ``watch`` (follow its stream)."""

    kind: str
    port: int
    address: str
    scripts: tuple[Script, ...] = ()
    first: int = 0
    stride: int = 1
    game_id: str = ""
    tokens: tuple[str, ...] = ()


def _timed(
    client: Client, method: str, path: str, body: bytes | None, token: str | None
) -> tuple[int, bytes, float, float] | None:
    """Status, body, when it was sent (monotonic) and how long it took; None: no answer."""
    sent = time.monotonic()
    started = time.perf_counter()
    try:
        status, raw = client.request(method, path, body, token)
    except (OSError, http.client.HTTPException):
        client.close()
        return None
    return status, raw, sent, time.perf_counter() - started


def _play(
    client: Client,
    game_id: str,
    tokens: Sequence[str],
    steps: Sequence[Step],
    begin: float,
    end: float,
    tally: Tally,
) -> bool:
    """Post ``steps`` in order until ``end``; True when every one was answered 201."""
    path = f"/v1/games/{game_id}/actions"
    for seat, body in steps:
        if time.monotonic() >= end:
            return False
        answer = _timed(client, "POST", path, body, tokens[seat])
        if answer is None:
            tally.errors += 1
            return False
        status, raw, sent, seconds = answer
        if begin <= sent < end:
            if status == 201:
                tally.moves += 1
                tally.latencies.append(seconds)
            else:
                tally.refuse(status, raw)
        if status != 201:
            return False
    return True


def create(client: Client, body: bytes = CREATE) -> tuple[str, tuple[str, ...]]:
    """Create a game; its id and its seats' tokens."""
    status, raw = client.request("POST", "/v1/games", body)
    if status != 201:
        raise BenchError(f"creating a game answered {status}: {raw[:300]!r}")
    game = json.loads(raw)
    return str(game["id"]), tuple(str(seat["token"]) for seat in game["seats"])


def _games(client: Client, job: Job, begin: float, end: float, tally: Tally) -> None:
    index = job.first
    while time.monotonic() < end:
        script = job.scripts[index % len(job.scripts)]
        index += job.stride
        answer = _timed(client, "POST", "/v1/games", CREATE, None)
        if answer is None:
            tally.errors += 1
            continue
        status, raw, sent, _ = answer
        inside = begin <= sent < end
        if status != 201:
            if inside:
                tally.refuse(status, raw)
            continue
        if inside:
            tally.creates += 1
        game = json.loads(raw)
        tokens = [str(seat["token"]) for seat in game["seats"]]
        _play(client, str(game["id"]), tokens, script.steps, begin, end, tally)


def _read(client: Client, job: Job, begin: float, end: float, tally: Tally) -> None:
    path = f"/v1/games/{job.game_id}"
    while time.monotonic() < end:
        answer = _timed(client, "GET", path, None, None)
        if answer is None:
            tally.errors += 1
            continue
        status, raw, sent, seconds = answer
        if begin <= sent < end:
            if status == 200:
                tally.reads += 1
                tally.read_latencies.append(seconds)
            else:
                tally.refuse(status, raw)


def _watch(job: Job, begin: float, end: float, tally: Tally) -> None:
    """Follow the game's live stream; every event received inside the window is a read."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", job.port, timeout=1.0, source_address=(job.address, 0)
    )
    try:
        path = f"/v1/games/{job.game_id}/events/stream"
        connection.request("GET", path, headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        if response.status != 200:
            tally.refuse(response.status, response.read())
            return
        while time.monotonic() < end:
            line = response.readline()
            if not line:
                break
            if line.startswith(b"id:") and begin <= time.monotonic() < end:
                tally.reads += 1
    except TimeoutError:
        if time.monotonic() < end:
            tally.errors += 1  # a second without an event while the poster posts
    except (OSError, http.client.HTTPException):
        tally.errors += 1
    finally:
        connection.close()


def _run_job(job: Job, begin: float, end: float, tally: Tally) -> None:
    if job.kind == "watch":
        _watch(job, begin, end, tally)
        return
    client = SourceClient(job.port, job.address)
    try:
        if job.kind == "games":
            _games(client, job, begin, end, tally)
        elif job.kind == "post":
            _play(client, job.game_id, job.tokens, job.scripts[0].steps, begin, end, tally)
        else:
            _read(client, job, begin, end, tally)
    finally:
        client.close()


def _sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))


def _own_cpu() -> float:
    times = os.times()
    return times.user + times.system


def _client_process(conn: Connection, jobs: Sequence[Job], begin: float, end: float) -> None:
    """A client process: one thread per job; sends back the tally of the window."""
    tallies = [Tally() for _ in jobs]
    threads = [
        threading.Thread(target=_run_job, args=(job, begin, end, tally), daemon=True)
        for job, tally in zip(jobs, tallies, strict=True)
    ]
    for thread in threads:
        thread.start()
    _sleep_until(begin)
    cpu = _own_cpu()
    _sleep_until(end)
    cpu = _own_cpu() - cpu
    for thread in threads:
        thread.join(60)
    total = Tally(cpu=cpu)
    for tally in tallies:
        total.add(tally)
    conn.send(total)
    conn.close()


# ----- the peers -------------------------------------------------------------------------------


def _stat(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return raw[raw.rfind(")") + 2 :].split()


def _cpu(pid: int | None) -> float:
    fields = [] if pid is None else _stat(pid)
    return (int(fields[11]) + int(fields[12])) / _TICKS if len(fields) > 12 else 0.0


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


@dataclass
class Peer:
    """One ``floe run`` and its store: a single Redis, or the cluster's nodes."""

    name: str
    store: list[RedisServer]
    queue: RedisServer
    run: FloeRun
    cluster: LocalCluster | None
    #: ``<role>:<port>`` of every node of the store, as it was at the start.
    labels: list[str]
    clients: dict[str, redis.Redis] = field(default_factory=dict)
    _store_client: redis.Redis | None = None

    @property
    def port(self) -> int:
        return self.run.port

    def nodes(self) -> Iterator[tuple[str, RedisServer]]:
        return zip(self.labels, self.store, strict=True)

    def node(self, label: str) -> redis.Redis:
        """A client of one node (kept: sampling opens no connection)."""
        if label not in self.clients:
            server = self.store[self.labels.index(label)]
            self.clients[label] = server.client(socket_timeout=10)
        return self.clients[label]

    def masters(self) -> list[str]:
        return [label for label in self.labels if not label.startswith("replica")]

    def replicas(self) -> list[str]:
        return [label for label in self.labels if label.startswith("replica")]

    def store_client(self) -> redis.Redis:
        """A client of the store as Floe sees it (kept)."""
        client = self._store_client
        if client is None:
            if self.cluster is None:
                client = self.store[0].client()
            else:
                client = cast(redis.Redis, self.cluster.client())
            self._store_client = client
        return client

    def master_of(self, key: str) -> str:
        """The label of the master that serves ``key``."""
        if self.cluster is None:
            return self.labels[0]
        node = self.store_client().get_node_from_key(key)  # type: ignore[attr-defined]
        return next(label for label in self.masters() if label.endswith(f":{node.port}"))

    def processes(self) -> dict[str, list[int]]:
        """The pids of the run: the API (gunicorn and its workers) and the rest of floe run
        (the supervisor and the job worker), from the lines it prints as it starts them."""
        parts: dict[str, list[int]] = {"api": [], "jobs": [self.run.process.pid]}
        for line in self.run.log().splitlines():
            found = re.match(r"floe: (\w+) .*\(pid (\d+)", line)
            if found is None:
                continue
            pid = int(found.group(2))
            if found.group(1) == "api":
                parts["api"] += [pid, *_children(pid)]
            elif found.group(1) == "worker":
                parts["jobs"].append(pid)
        return parts

    def games(self) -> int:
        return int(self.store_client().zcard(GAMES_INDEX))

    def close(self) -> None:
        for client in [*self.clients.values(), self._store_client]:
            if client is not None:
                client.close()

    def current_labels(self) -> list[str]:
        if self.cluster is None:
            return list(self.labels)
        return [_label(node) for node in self.store]


def _label(node: RedisServer) -> str:
    """``master:<port>`` or ``replica:<port>`` (Redis 6 says ``slave``)."""
    found = role(node)
    return f"{'replica' if found == 'slave' else found}:{node.port}"


@contextmanager
def open_peer(name: str, base: Path, config: Config, log: Log) -> Iterator[Peer]:
    """Start the store (and a queue Redis), then ``floe run`` on them; stop all on the way out."""
    base.mkdir(parents=True)
    servers: list[RedisServer] = []
    cluster: LocalCluster | None = None
    try:
        queue = RedisServer(base / "queue", config=DURABLE_CONFIG).start()
        servers.append(queue)
        if name == "cluster":
            cluster = start_cluster(base / "store", config.masters, config.replicas)
            store = list(cluster.nodes)
            url = cluster.url
            labels = [_label(node) for node in store]
        else:
            store = [RedisServer(base / "store", config=DURABLE_CONFIG).start()]
            url = store[0].url
            labels = [f"single:{store[0].port}"]
        servers += store
        env = {
            "REDIS_URL": url,
            "FLOE_REDIS_CLUSTER": "1" if cluster else "0",
            "FLOE_QUEUE_URL": queue.url,
            "FLOE_WEB_WORKERS": str(config.web_workers),
            "FLOE_JOB_WORKERS": "1",
            "FLOE_RATE_LIMIT_PER_TOKEN": NEVER,
            "FLOE_RATE_LIMIT_PER_ADDRESS": NEVER,
            "FLOE_RATE_LIMIT_WINDOW_SECONDS": str(config.rate_window),
            "FLOE_REPLICA_ACKS": str(config.replica_acks if cluster else 0),
        }
        (base / "run").mkdir()
        with floe_run(base / "run", env) as run:
            peer = Peer(name, store, queue, run, cluster, labels)
            log(f"{name}: floe run on port {run.port}; store {', '.join(labels)}")
            try:
                yield peer
            finally:
                peer.close()
    finally:
        for server in servers:
            server.stop()


# ----- measuring -------------------------------------------------------------------------------


@dataclass
class Sample:
    cpu: dict[str, float]
    calls: dict[str, dict[str, int]]
    machine: float
    #: Cluster bus messages each node has sent and received (a cluster's only).
    bus: dict[str, dict[str, int]]


def commandstats(client: redis.Redis) -> dict[str, int]:
    """Commands a node has run, by name (``INFO commandstats``), our own ``INFO`` left out."""
    stats = client.info("commandstats")
    calls = {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}
    calls.pop("info", None)
    return calls


def sample(peer: Peer) -> Sample:
    cpu = {part: sum(_cpu(pid) for pid in pids) for part, pids in peer.processes().items()}
    for label, server in peer.nodes():
        cpu[label] = _cpu(server.pid)
    cpu["queue"] = _cpu(peer.queue.pid)
    calls = {label: commandstats(peer.node(label)) for label in peer.labels}
    bus = {label: bus_messages(server) for label, server in peer.nodes()} if peer.cluster else {}
    return Sample(cpu, calls, machine_busy(), bus)


def bus_messages(node: RedisServer) -> dict[str, int]:
    """Cluster bus messages a node has sent and received so far, all and ``PUBLISH`` alone
    (``CLUSTER INFO``): Redis 6 sends every ``PUBLISH`` to every node of the cluster."""
    info = cluster_info(node)

    def count(name: str) -> int:
        return int(info.get(f"cluster_stats_messages_{name}", 0))

    return {
        "sent": count("sent"),
        "received": count("received"),
        "publish_sent": count("publish_sent"),
        "publish_received": count("publish_received"),
    }


def _delta(
    before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]
) -> dict[str, dict[str, int]]:
    """``after - before`` of counters by node, the counters that did not move left out."""
    return {
        label: {
            name: count - before[label].get(name, 0)
            for name, count in counts.items()
            if count != before[label].get(name, 0)
        }
        for label, counts in after.items()
    }


def _add(into: dict[str, dict[str, int]], other: dict[str, dict[str, int]]) -> None:
    for label, counts in other.items():
        mine = into.setdefault(label, {})
        for name, count in counts.items():
            mine[name] = mine.get(name, 0) + count


@dataclass
class Window:
    """One or more measured windows of one load on one peer, pooled."""

    phase: str
    peer: str
    clients: int
    seconds: float = 0.0
    tally: Tally = field(default_factory=Tally)
    #: CPU seconds by part (``api``, ``jobs``, ``queue``, each node by label) and the machine.
    cpu: dict[str, float] = field(default_factory=dict)
    machine: float = 0.0
    calls: dict[str, dict[str, int]] = field(default_factory=dict)
    bus: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Moves (or reads) per second of each window pooled here.
    rates: list[float] = field(default_factory=list)

    def add(self, other: Window) -> None:
        self.seconds += other.seconds
        self.tally.add(other.tally)
        for part, value in other.cpu.items():
            self.cpu[part] = self.cpu.get(part, 0.0) + value
        self.machine += other.machine
        _add(self.calls, other.calls)
        _add(self.bus, other.bus)
        self.rates += other.rates


def measure(
    peer: Peer,
    jobs: Sequence[Job],
    *,
    phase: str,
    clients: int,
    warmup: float,
    seconds: float,
    processes: int,
) -> Window:
    """Run ``jobs`` (threads, spread over ``processes`` forked processes) for ``warmup`` then
    ``seconds``; CPU and commands sampled at the edges of the measured part."""
    context = multiprocessing.get_context("fork")
    begin = time.monotonic() + 0.2 + warmup
    end = begin + seconds
    groups = [list(jobs[i :: max(1, processes)]) for i in range(max(1, processes))]
    running: list[tuple[Connection, multiprocessing.process.BaseProcess]] = []
    for group in filter(None, groups):
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=_client_process, args=(sender, group, begin, end))
        process.start()
        sender.close()
        running.append((receiver, process))
    _sleep_until(begin)
    before = sample(peer)
    _sleep_until(end)
    after = sample(peer)
    tally = Tally()
    for receiver, child in running:
        if not receiver.poll(120):
            raise BenchError(f"a client process of {phase} on {peer.name} did not report")
        tally.add(receiver.recv())
        child.join(30)
    done = tally.moves or tally.reads
    return Window(
        phase=phase,
        peer=peer.name,
        clients=clients,
        seconds=seconds,
        tally=tally,
        cpu={part: after.cpu[part] - before.cpu.get(part, 0.0) for part in after.cpu},
        machine=after.machine - before.machine,
        calls=_delta(before.calls, after.calls),
        bus=_delta(before.bus, after.bus),
        rates=[done / seconds],
    )


def figures(window: Window, peer: Peer) -> dict[str, Any]:
    """What a window says: rates, latencies, cores busy by part, and costs per move (or per
    read, when it made no moves)."""
    tally, seconds = window.tally, window.seconds
    ops = tally.moves or tally.reads
    masters, replicas = peer.masters(), peer.replicas()

    def cores(labels: Sequence[str]) -> float:
        return sum(window.cpu.get(label, 0.0) for label in labels)

    def calls(labels: Sequence[str]) -> int:
        return sum(sum(window.calls.get(label, {}).values()) for label in labels)

    by_command: Counter[str] = Counter()
    for label in masters:
        by_command.update(window.calls.get(label, {}))
    per = 1000 / ops if ops else float("nan")
    out: dict[str, Any] = {
        "phase": window.phase,
        "peer": window.peer,
        "clients": window.clients,
        "seconds": seconds,
        "moves": tally.moves,
        "reads": tally.reads,
        "creates": tally.creates,
        "moves_per_s": tally.moves / seconds,
        "reads_per_s": tally.reads / seconds,
        "creates_per_s": tally.creates / seconds,
        "rates": window.rates,
        "p50_ms": 1000 * percentile(tally.latencies, 50),
        "p99_ms": 1000 * percentile(tally.latencies, 99),
        "read_p50_ms": 1000 * percentile(tally.read_latencies, 50),
        "read_p99_ms": 1000 * percentile(tally.read_latencies, 99),
        "refused": {str(k): v for k, v in tally.refused.items()},
        "examples": {str(k): v for k, v in tally.examples.items()},
        "errors": tally.errors,
        "cores": {
            "api": window.cpu.get("api", 0.0) / seconds,
            "jobs": window.cpu.get("jobs", 0.0) / seconds,
            "redis_masters": cores(masters) / seconds,
            "redis_replicas": cores(replicas) / seconds,
            "queue": window.cpu.get("queue", 0.0) / seconds,
            "clients": tally.cpu / seconds,
            # Every process of this peer and its clients; the machine above it is the other
            # peer idling, the kernel's share of loopback traffic, and anything else running.
            "ours": (sum(window.cpu.values()) + tally.cpu) / seconds,
            "machine": window.machine / seconds,
        },
        "commands_per_s": {
            label: sum(window.calls.get(label, {}).values()) / seconds for label in peer.labels
        },
        "cpu_per_s": {label: window.cpu.get(label, 0.0) / seconds for label in peer.labels},
        # Per move (per read where no move was made): what each part spent.
        "per_op": {
            "commands_masters": calls(masters) / ops if ops else float("nan"),
            "commands_replicas": calls(replicas) / ops if ops else float("nan"),
            "redis_ms_masters": cores(masters) * per,
            "redis_ms_replicas": cores(replicas) * per,
            "api_ms": window.cpu.get("api", 0.0) * per,
            "client_ms": tally.cpu * per,
            "creates": tally.creates / ops if ops else float("nan"),
        },
        "bus_per_op": {
            name: sum(counts.get(name, 0) for counts in window.bus.values()) / ops
            if ops
            else float("nan")
            for name in ("sent", "received", "publish_sent", "publish_received")
        },
        "commands_by_name": {
            name: count / ops if ops else float("nan") for name, count in by_command.most_common()
        },
    }
    return out


def idle(peer: Peer, seconds: float) -> dict[str, Any]:
    window = measure(peer, [], phase="idle", clients=0, warmup=0.0, seconds=seconds, processes=1)
    out = figures(window, peer)
    out["games_in_store"] = peer.games()
    by_name: Counter[str] = Counter()
    for calls in window.calls.values():
        by_name.update(calls)
    out["commands_by_name_per_s"] = {name: count / seconds for name, count in by_name.most_common()}
    return out


# ----- the phases ------------------------------------------------------------------------------


def throughput(
    peers: Sequence[Peer], scripts: Sequence[Script], config: Config, log: Log
) -> dict[tuple[int, str], Window]:
    pooled: dict[tuple[int, str], Window] = {}
    turn = 0
    for clients in config.clients:
        for _ in range(config.rounds):
            order = list(peers) if turn % 2 == 0 else list(reversed(peers))
            turn += 1
            for peer in order:
                jobs = [
                    Job("games", peer.port, source(i), tuple(scripts), first=i, stride=clients)
                    for i in range(clients)
                ]
                window = measure(
                    peer,
                    jobs,
                    phase="throughput",
                    clients=clients,
                    warmup=config.warmup,
                    seconds=config.seconds,
                    processes=min(config.client_processes, clients),
                )
                tally = window.tally
                log(
                    f"{peer.name}, {clients} clients: {tally.moves / window.seconds:,.0f} "
                    f"moves/s, {tally.creates} creates, refused {tally.refused or 0}, "
                    f"errors {tally.errors}, machine {window.machine / window.seconds:.2f} cores"
                )
                pooled.setdefault(
                    (clients, peer.name), Window("throughput", peer.name, clients)
                ).add(window)
    return pooled


def hot(peer: Peer, script: Script, config: Config, log: Log) -> dict[str, dict[str, Any]]:
    """One game as hot as one client makes it: alone; polled by ``readers`` (the game then
    idle); with the same pollers; and with ``watchers`` live streams. Each on a fresh game."""
    client = SourceClient(peer.port, source(900))
    out: dict[str, dict[str, Any]] = {}

    def window(name: str, posting: bool, readers: int, kind: str) -> dict[str, Any]:
        game_id, tokens = create(client, HOT_CREATE)
        jobs = [Job(kind, peer.port, source(901 + i), game_id=game_id) for i in range(readers)]
        if posting:
            jobs.insert(
                0, Job("post", peer.port, source(900), (script,), game_id=game_id, tokens=tokens)
            )
        pooled = measure(
            peer,
            jobs,
            phase=f"hot: {name}",
            clients=len(jobs),
            warmup=config.warmup,
            seconds=config.hot_seconds,
            processes=min(config.client_processes, len(jobs)),
        )
        found = figures(pooled, peer)
        found["master"] = peer.master_of(events_key(game_id))
        return found

    try:
        out["post"] = window("one poster", True, 0, "read")
        out["read"] = window(f"{config.readers} pollers", False, config.readers, "read")
        out["both"] = window(f"poster, {config.readers} pollers", True, config.readers, "read")
        out["watch"] = window(f"poster, {config.watchers} streams", True, config.watchers, "watch")
    finally:
        client.close()
    log(
        f"{peer.name}, one hot game: {out['post']['moves_per_s']:,.0f} moves/s alone; "
        f"{out['read']['reads_per_s']:,.0f} reads/s by {config.readers} pollers; "
        f"{out['both']['moves_per_s']:,.0f} moves/s among them; "
        f"{out['watch']['moves_per_s']:,.0f} moves/s with {config.watchers} streams"
    )
    return out


def _written(pid: int | None) -> int:
    """Bytes a process has handed to ``write`` and friends, sockets included (``wchar``)."""
    try:
        text = Path(f"/proc/{pid}/io").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in text.splitlines() if line.startswith("wchar")), 0)


def fan_out(peer: Peer, count: int) -> dict[str, Any]:
    """What one ``PUBLISH`` costs a cluster with nobody listening: ``count`` of them on one
    master (pipelined, 100 a round trip), each a message the size of an append's
    (``floe:{<16 hex>}:events 73``). Bus messages sent and received per ``PUBLISH``, the
    bytes the master wrote per bus message (its ``wchar``, our replies taken out: a
    ``PUBLISH`` is neither logged nor replicated on a cluster) and each node's CPU."""
    label = peer.masters()[0]
    server = peer.store[peer.labels.index(label)]
    client = peer.node(label)
    message = f"{events_key('0123456789abcdef')} 73"
    bus_before = {name: bus_messages(node) for name, node in peer.nodes()}
    cpu_before = {name: _cpu(node.pid) for name, node in peer.nodes()}
    written = _written(server.pid)
    for start in range(0, count, 100):
        pipe = client.pipeline(transaction=False)
        for _ in range(min(100, count - start)):
            pipe.publish("floe:bench:fan-out", message)
        pipe.execute()
    written = _written(server.pid) - written - count * len(b":0\r\n")
    bus = _delta(bus_before, {name: bus_messages(node) for name, node in peer.nodes()})
    cpu = {name: _cpu(node.pid) - cpu_before[name] for name, node in peer.nodes()}
    sent = bus[label].get("publish_sent", 0)
    others = [name for name in peer.labels if name != label]
    return {
        "publishes": count,
        "nodes": len(peer.labels),
        "master": label,
        "bus_sent_per_publish": sent / count,
        "bus_received_per_publish": sum(bus[n].get("publish_received", 0) for n in others) / count,
        "bytes_per_bus_message": written / sent if sent else float("nan"),
        "master_cpu_us_per_publish": 1e6 * cpu[label] / count,
        "others_cpu_us_per_publish": 1e6 * sum(cpu[n] for n in others) / count,
    }


def settle(peer: Peer, timeout: float) -> bool:
    """Wait until no node of the store holds a key with a TTL (the rate limiter's counters)."""
    deadline = time.monotonic() + timeout
    while True:
        volatile = sum(
            int(peer.node(label).info("keyspace").get("db0", {}).get("expires", 0))
            for label in peer.labels
        )
        if volatile == 0:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)  # waiting on Redis's own expiry: nothing to be told of


def compact(peer: Peer, timeout: float = 120.0) -> None:
    """Rewrite every node's AOF now (``BGREWRITEAOF``) and wait for it: the throughput phase
    wrote tens of MB, and an automatic rewrite (at twice the last size, from 64 MB) in the
    middle of the memory phase would shrink the file under the measurement."""
    for label in peer.labels:
        peer.node(label).bgrewriteaof()
    deadline = time.monotonic() + timeout
    for label in peer.labels:
        while True:
            info = peer.node(label).info("persistence")
            if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                break
            if time.monotonic() > deadline:
                raise BenchError(f"{peer.name}: the AOF rewrite of {label} did not end")
            time.sleep(0.1)  # Redis says nothing when a rewrite ends: ask again


#: Parts of ``used_memory`` that follow the traffic, not the data: the connections' buffers
#: (Redis shrinks an idle client's query buffer after a while), the replicas' output, the AOF
#: buffer and the replication backlog.
BUFFERS = ("mem_clients_normal", "mem_clients_slaves", "mem_aof_buffer", "mem_replication_backlog")


def footprint(peer: Peer) -> dict[str, tuple[int, int, int]]:
    """Per node of the store: ``used_memory`` without ``BUFFERS``, the AOF's size, and
    ``used_memory`` itself."""
    out = {}
    for label in peer.labels:
        client = peer.node(label)
        memory = client.info("memory")
        used = int(memory["used_memory"])
        data = used - sum(int(memory.get(name, 0)) for name in BUFFERS)
        aof = int(client.info("persistence").get("aof_current_size", 0))
        out[label] = (data, aof, used)
    return out


def memory(peer: Peer, scripts: Sequence[Script], config: Config, log: Log) -> dict[str, Any]:
    """Bytes per game created and per game finished, per node; the exports' sizes."""
    wait = config.rate_window + 30.0
    compact(peer)
    settled = [settle(peer, wait)]
    before = footprint(peer)
    count = config.games
    chosen = [scripts[i % len(scripts)] for i in range(count)]

    def made(index: int) -> tuple[str, tuple[str, ...]]:
        client = SourceClient(peer.port, source(1000 + index // 50))  # 50 live games each
        try:
            return create(client)
        finally:
            client.close()

    with ThreadPoolExecutor(16) as pool:
        games = list(pool.map(made, range(count)))
    settled.append(settle(peer, wait))
    created = footprint(peer)
    log(f"{peer.name}: {count} games created; playing them to the end")
    tally = Tally()
    lock = threading.Lock()

    def finish(index: int) -> bool:
        client = SourceClient(peer.port, source(1000 + index // 50))
        mine = Tally()
        try:
            game_id, tokens = games[index]
            return _play(client, game_id, tokens, chosen[index].steps, 0.0, float("inf"), mine)
        finally:
            client.close()
            with lock:
                tally.add(mine)

    with ThreadPoolExecutor(16) as pool:
        finished = sum(pool.map(finish, range(count)))
    settled.append(settle(peer, wait))
    after = footprint(peer)
    exports = []
    client = SourceClient(peer.port, source(999))
    try:
        for game_id, _ in games[: config.exports]:
            status, raw = client.request("GET", f"/v1/games/{game_id}/export")
            if status == 200:
                exports.append((len(raw), raw.count(b"\n")))
    finally:
        client.close()
    owners = Counter(peer.master_of(events_key(game_id)) for game_id, _ in games)
    index_owner = peer.master_of(GAMES_INDEX)
    index_bytes = int(peer.node(index_owner).memory_usage(GAMES_INDEX, samples=0) or 0)
    nodes: dict[str, Any] = {}
    for label in peer.labels:
        served = owners.get(label, 0) if not label.startswith("replica") else None
        nodes[label] = {
            "games": served,
            "created_bytes": created[label][0] - before[label][0],
            "finished_bytes": after[label][0] - before[label][0],
            "aof_created_bytes": created[label][1] - before[label][1],
            "aof_finished_bytes": after[label][1] - before[label][1],
            "used_memory_finished_bytes": after[label][2] - before[label][2],
        }
    masters = peer.masters()
    replicas = peer.replicas()

    def total(labels: Sequence[str], key: str) -> int:
        return sum(int(nodes[label][key]) for label in labels)

    events = sum(script.events for script in chosen)
    out = {
        "games": count,
        "finished": finished,
        "events": events,
        "settled": settled,
        "refused": tally.refused,
        "errors": tally.errors,
        "nodes": nodes,
        "created_per_game": total(masters, "created_bytes") / count,
        "finished_per_game": total(masters, "finished_bytes") / count,
        "replicas_finished_per_game": total(replicas, "finished_bytes") / count,
        "aof_created_per_game": total(masters, "aof_created_bytes") / count,
        "aof_finished_per_game": total(masters, "aof_finished_bytes") / count,
        "per_event": (total(masters, "finished_bytes") - total(masters, "created_bytes"))
        / max(1, events - count),
        "events_per_game": events / count,
        "export_bytes": sum(size for size, _ in exports) / max(1, len(exports)),
        "export_events": sum(lines for _, lines in exports) / max(1, len(exports)),
        "index_owner": index_owner,
        "index_bytes_per_game": index_bytes / max(1, peer.games()),
    }
    log(
        f"{peer.name}: {finished} of {count} games finished; "
        f"{out['created_per_game']:,.0f} B a game created, "
        f"{out['finished_per_game']:,.0f} B a game finished (masters)"
    )
    return out


# ----- the run ---------------------------------------------------------------------------------


@dataclass
class Outcome:
    config: Config
    throughput: list[dict[str, Any]]
    hot: dict[str, dict[str, dict[str, Any]]]
    memory: dict[str, dict[str, Any]]
    idle: dict[str, list[dict[str, Any]]]
    fan_out: dict[str, dict[str, Any]]
    problems: list[str]
    labels: dict[str, list[str]]


def run(report: Report, *, config: Config, log: Log) -> Outcome:
    """Both peers up, then every phase; the figures go to ``report`` and are returned."""
    log(f"working out {config.scripts} whole Arktia games and the hot game's script")
    scripts = finished_games(config.scripts)
    hot_script = endless_game(int((config.warmup + config.hot_seconds + 1) * 2000))
    base = Path(tempfile.mkdtemp(prefix="floe-bench-cluster-"))
    problems: list[str] = []
    kept = True
    try:
        with ExitStack() as stack:
            peers = [stack.enter_context(open_peer(n, base / n, config, log)) for n in PEERS]
            idles = {peer.name: [idle(peer, config.idle_seconds)] for peer in peers}
            fans = {p.name: fan_out(p, config.publishes) for p in peers if p.cluster is not None}
            pooled = throughput(peers, scripts, config, log)
            hots = {peer.name: hot(peer, hot_script, config, log) for peer in peers}
            memories = {peer.name: memory(peer, scripts, config, log) for peer in peers}
            for peer in peers:
                idles[peer.name].append(idle(peer, config.idle_seconds))
            problems += _health(peers)
            by_name = {peer.name: peer for peer in peers}
            rows = [figures(window, by_name[name]) for (_, name), window in pooled.items()]
            labels = {peer.name: peer.labels for peer in peers}
        problems += _answers(rows, hots, memories)
        kept = bool(problems) or config.keep
    finally:
        if kept:
            log(f"data kept in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    outcome = Outcome(config, rows, hots, memories, idles, fans, problems, labels)
    _report(report, outcome)
    return outcome


def _health(peers: Sequence[Peer]) -> list[str]:
    """A master that changed (a failover under load) or an error in a ``floe-run.log``."""
    problems = []
    for peer in peers:
        now = peer.current_labels()
        if now != peer.labels:
            problems.append(f"{peer.name}: the roles changed: {peer.labels} -> {now}")
        errors = log_errors(peer.run.log())
        if errors:
            problems.append(
                f"{peer.name}: {len(errors)} error lines in floe-run.log, e.g. {errors[0]}"
            )
    return problems


def _answers(
    rows: Sequence[dict[str, Any]],
    hots: dict[str, dict[str, dict[str, Any]]],
    memories: dict[str, dict[str, Any]],
) -> list[str]:
    """Every answer not the expected 201/200, and memory phases that did not end cleanly."""
    problems = []
    for row in [*rows, *(found for peer in hots.values() for found in peer.values())]:
        if row["refused"] or row["errors"]:
            problems.append(
                f"{row['peer']}, {row['phase']}, {row['clients']} clients: refused "
                f"{row['refused']}, {row['errors']} unanswered; e.g. {row['examples']}"
            )
    for name, found in memories.items():
        if found["refused"] or found["errors"] or found["finished"] != found["games"]:
            problems.append(
                f"{name}, memory: {found['finished']} of {found['games']} finished, "
                f"refused {found['refused']}, {found['errors']} unanswered"
            )
        if not all(found["settled"]):
            problems.append(f"{name}, memory: keys with a TTL were left: {found['settled']}")
    return problems


def _row(outcome: Outcome, clients: int, peer: str) -> dict[str, Any]:
    return next(r for r in outcome.throughput if r["clients"] == clients and r["peer"] == peer)


def _report(report: Report, outcome: Outcome) -> None:
    group = "(h) Redis Cluster vs one Redis"
    for clients in outcome.config.clients:
        single, cluster = _row(outcome, clients, "single"), _row(outcome, clients, "cluster")
        for row in (single, cluster):
            report.add(
                Result(
                    group, f"{clients} clients, {row['peer']}: moves/s", row["moves_per_s"], "/s"
                )
            )
        report.add(
            Result(
                group,
                f"{clients} clients: moves/s cluster / single",
                cluster["moves_per_s"] / single["moves_per_s"],
                "x",
            )
        )
    for name in PEERS:
        report.add(
            Result(
                group,
                f"{name}: Redis bytes a finished game (masters)",
                outcome.memory[name]["finished_per_game"],
                "B",
            )
        )
        report.add(
            Result(
                group,
                f"{name}: one hot game, moves/s",
                outcome.hot[name]["post"]["moves_per_s"],
                "/s",
            )
        )
    report.details["cluster"] = dataclasses.asdict(outcome)


# ----- printing --------------------------------------------------------------------------------


def _n(value: float, digits: int = 0) -> str:
    return "-" if value != value else f"{value:,.{digits}f}"


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "-"


def print_tables(outcome: Outcome) -> None:
    config = outcome.config
    print(
        f"single: {', '.join(outcome.labels['single'])}; "
        f"cluster: {', '.join(outcome.labels['cluster'])} "
        f"(FLOE_REPLICA_ACKS {config.replica_acks}); {config.web_workers} API processes each"
    )
    print()
    print("Throughput (moves answered 201 per second; windows pooled), and cores busy:")
    print(
        "| clients | store | moves/s (windows) | p50 / p99 ms | creates/s | API | Redis "
        "masters | Redis replicas | clients | ours | machine | cluster / single |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for clients in config.clients:
        single = _row(outcome, clients, "single")
        for name in PEERS:
            row = _row(outcome, clients, name)
            cores = row["cores"]
            windows = ", ".join(f"{rate:,.0f}" for rate in row["rates"])
            ratio = _ratio(row["moves_per_s"], single["moves_per_s"]) if name == "cluster" else ""
            print(
                f"| {clients} | {name} | **{_n(row['moves_per_s'])}** ({windows}) "
                f"| {_n(row['p50_ms'], 1)} / {_n(row['p99_ms'], 1)} | {_n(row['creates_per_s'])} "
                f"| {cores['api']:.2f} | {cores['redis_masters']:.2f} "
                f"| {cores['redis_replicas']:.2f} | {cores['clients']:.2f} "
                f"| {cores['ours']:.2f} | {cores['machine']:.2f} | {ratio} |"
            )
    print()
    print("Cost per move (a create's share included), by client count:")
    print(
        "| clients | store | Redis commands: masters / replicas | Redis CPU ms: masters / "
        "replicas | API CPU ms | client CPU ms | creates a move | cluster bus messages sent "
        "(PUBLISH) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for clients in config.clients:
        for name in PEERS:
            row = _row(outcome, clients, name)
            cost, bus = row["per_op"], row["bus_per_op"]
            messages = f"{bus['sent']:.1f} ({bus['publish_sent']:.1f})" if name == "cluster" else ""
            print(
                f"| {clients} | {name} | {cost['commands_masters']:.2f} / "
                f"{cost['commands_replicas']:.2f} | {cost['redis_ms_masters']:.3f} / "
                f"{cost['redis_ms_replicas']:.3f} | {cost['api_ms']:.3f} "
                f"| {cost['client_ms']:.3f} | {cost['creates']:.4f} | {messages} |"
            )
    middle = config.clients[len(config.clients) // 2]
    single, cluster = _row(outcome, middle, "single"), _row(outcome, middle, "cluster")
    print()
    print(f"Commands a move on the masters, by name ({middle} clients):")
    print("| command | single | cluster |")
    print("|---|---|---|")
    names = list(dict.fromkeys([*single["commands_by_name"], *cluster["commands_by_name"]]))
    for name in names:
        a = single["commands_by_name"].get(name, 0.0)
        b = cluster["commands_by_name"].get(name, 0.0)
        if max(a, b) >= 0.005:
            print(f"| {name} | {a:.3f} | {b:.3f} |")
    print()
    print(f"Each node's share ({middle} clients): commands/s and cores busy:")
    print("| store | node | commands/s | cores |")
    print("|---|---|---|---|")
    for name, row in (("single", single), ("cluster", cluster)):
        for label in outcome.labels[name]:
            print(
                f"| {name} | {label} | {_n(row['commands_per_s'][label])} "
                f"| {row['cpu_per_s'][label]:.3f} |"
            )
    print()
    print(
        "One hot game: one client posting as fast as the answers come, alone; "
        f"{config.readers} spectators polling GET /v1/games/{{id}} (the game idle); both; "
        f"the poster with {config.watchers} live streams (reads = events the streams got):"
    )
    print(
        "| store | load | moves/s | p50 / p99 ms | reads/s | the game's master: commands/s, "
        "cores | commands a move (a read), all masters | API cores | machine cores |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name in PEERS:
        for row in outcome.hot[name].values():
            master = row["master"]
            print(
                f"| {name} | {row['phase'].removeprefix('hot: ')} "
                f"| **{_n(row['moves_per_s'])}** "
                f"| {_n(row['p50_ms'], 2)} / {_n(row['p99_ms'], 2)} | {_n(row['reads_per_s'])} "
                f"| {master}: {_n(row['commands_per_s'][master])}, "
                f"{row['cpu_per_s'][master]:.2f} | {row['per_op']['commands_masters']:.2f} "
                f"| {row['cores']['api']:.2f} | {row['cores']['machine']:.2f} |"
            )
    for name in PEERS:
        for key in ("read", "watch"):
            row = outcome.hot[name][key]
            top = ", ".join(f"{k} {v:.2f}" for k, v in list(row["commands_by_name"].items())[:6])
            print(f"{name}, {row['phase']}: commands a {'move' if row['moves'] else 'read'}: {top}")
    print()
    print(
        f"Memory: {config.games} games created, then played to the end (growth of Redis "
        "used_memory less its buffers, and of the AOF; a node's growth over the games whose "
        "slot it serves):"
    )
    print(
        "| store | events a game | created: B a game | finished: B a game | B an event "
        "| replicas: B a game | AOF B a game created / finished | export B (events) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in PEERS:
        m = outcome.memory[name]
        print(
            f"| {name} | {m['events_per_game']:.1f} | {_n(m['created_per_game'])} "
            f"| **{_n(m['finished_per_game'])}** | {_n(m['per_event'])} "
            f"| {_n(m['replicas_finished_per_game'])} | {_n(m['aof_created_per_game'])} / "
            f"{_n(m['aof_finished_per_game'])} | {_n(m['export_bytes'])} "
            f"({m['export_events']:.1f}) |"
        )
    print()
    print("| store | node | games | B a game finished | AOF B a game |")
    print("|---|---|---|---|---|")
    for name in PEERS:
        for label, node in outcome.memory[name]["nodes"].items():
            games = node["games"]
            per = node["finished_bytes"] / games if games else float("nan")
            aof = node["aof_finished_bytes"] / games if games else float("nan")
            print(
                f"| {name} | {label} | {games if games is not None else '(replica)'} "
                f"| {_n(per)} | {_n(aof)} |"
            )
    for name in PEERS:
        m = outcome.memory[name]
        print(
            f"{name}: the games index ({GAMES_INDEX}) is on {m['index_owner']}, "
            f"{m['index_bytes_per_game']:.0f} B a game"
        )
    print()
    print(
        "Idle (no client): commands/s and cores busy of the store, at the start and after "
        "the memory phase:"
    )
    print("| store | games in the store | commands/s (top 3) | Redis cores | jobs cores |")
    print("|---|---|---|---|---|")
    for name in PEERS:
        for row in outcome.idle[name]:
            top = ", ".join(
                f"{k} {v:.1f}" for k, v in list(row["commands_by_name_per_s"].items())[:3]
            )
            total = sum(row["commands_by_name_per_s"].values())
            cores = row["cores"]
            print(
                f"| {name} | {row['games_in_store']:,} | {total:,.1f} ({top}) "
                f"| {cores['redis_masters'] + cores['redis_replicas']:.3f} "
                f"| {cores['jobs']:.3f} |"
            )
    for name, fan in outcome.fan_out.items():
        print()
        print(
            f"{name}: {fan['publishes']:,} PUBLISH on {fan['master']} (nobody listening), "
            f"{fan['nodes']} nodes: {fan['bus_sent_per_publish']:.2f} bus messages sent and "
            f"{fan['bus_received_per_publish']:.2f} received per PUBLISH, "
            f"{fan['bytes_per_bus_message']:,.0f} B written per bus message; CPU per PUBLISH: "
            f"{fan['master_cpu_us_per_publish']:.1f} us on the master, "
            f"{fan['others_cpu_us_per_publish']:.1f} us on the other nodes together"
        )
    if outcome.problems:
        print()
        print("PROBLEMS:")
        for problem in outcome.problems:
            print(f"- {problem}")


# ----- the command -----------------------------------------------------------------------------


def _csv_ints(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part.strip())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    defaults = Config()
    parser.add_argument("--quick", action="store_true", help="shorter windows, fewer games")
    parser.add_argument("--clients", type=_csv_ints, help=f"({defaults.clients})")
    parser.add_argument(
        "--rounds", type=int, help=f"windows per peer and count ({defaults.rounds})"
    )
    parser.add_argument("--seconds", type=float, help=f"a window ({defaults.seconds})")
    parser.add_argument("--warmup", type=float, help=f"before each window ({defaults.warmup})")
    parser.add_argument("--client-processes", type=int, help=f"({defaults.client_processes})")
    parser.add_argument(
        "--web-workers", type=int, help=f"FLOE_WEB_WORKERS ({defaults.web_workers})"
    )
    parser.add_argument("--masters", type=int, help=f"({defaults.masters})")
    parser.add_argument("--replicas", type=int, help=f"per master ({defaults.replicas})")
    parser.add_argument("--games", type=int, help=f"memory phase ({defaults.games})")
    parser.add_argument("--scripts", type=int, help=f"distinct games played ({defaults.scripts})")
    parser.add_argument("--readers", type=int, help=f"polling the hot game ({defaults.readers})")
    parser.add_argument("--watchers", type=int, help=f"streams of it ({defaults.watchers})")
    parser.add_argument("--hot-seconds", type=float, help=f"({defaults.hot_seconds})")
    parser.add_argument("--idle-seconds", type=float, help=f"({defaults.idle_seconds})")
    parser.add_argument("--rate-window", type=int, help=f"seconds ({defaults.rate_window})")
    parser.add_argument("--exports", type=int, help=f"exports measured ({defaults.exports})")
    parser.add_argument("--publishes", type=int, help=f"fan-out phase ({defaults.publishes})")
    parser.add_argument(
        "--replica-acks", type=int, help="FLOE_REPLICA_ACKS of the cluster's floe run (0)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the data directories")
    parser.add_argument("--output", type=Path, default=RESULTS / "cluster.json")
    args = parser.parse_args(argv)
    config = Config.quick() if args.quick else Config()
    given = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(Config)
        if getattr(args, f.name, None) not in (None, False)
    }
    config = dataclasses.replace(config, **given)
    began = time.monotonic()
    started_at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")

    def log(message: str) -> None:
        print(f"[{time.monotonic() - began:6.1f}s] {message}", file=sys.stderr, flush=True)

    load_before = load_average()
    report = Report()
    outcome = run(report, config=config, log=log)
    print_tables(outcome)
    elapsed = time.monotonic() - began
    before = "?" if load_before is None else f"{load_before:.2f}"
    print(
        f"\ntotal {elapsed:.0f}s; 1-minute load average {before} before the run, "
        f"{os.cpu_count()} cores"
    )
    document = {
        "command": " ".join([Path(sys.executable).name, "-m", "bench.cluster", *sys.argv[1:]]),
        "started_at": started_at,
        "elapsed_s": elapsed,
        "machine": {**machine(), "loadavg_before": load_before, "loadavg_after": load_average()},
        "code": git_state(str(Path(__file__).resolve().parent.parent)),
        "config": dataclasses.asdict(config),
        "results": [r.to_json() for r in report.results],
        "details": report.details,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(document, indent=2, default=str) + "\n")
    print(f"wrote {args.output}")
    return 1 if outcome.problems else 0


if __name__ == "__main__":
    sys.exit(main())
