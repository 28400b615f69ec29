"""(i) Clocks: how late timeouts land among 1,000 more running clocks; what a clock costs a move.

The stack is ``floe run``'s: gunicorn as ``bench.stack`` starts it over a durable Redis, the
job queues in a Redis of their own in memory, and two ``floe worker`` processes (the first
works only draws, as ``floe run`` starts them). Nothing in the product is changed or hooked.

**Lateness.** First ``background`` two-person Arktia games (no random draws) are created
with a ``per_move`` clock of an hour: nobody moves and none times out, so their clocks run
throughout, each with its timer armed in the queue Redis (and armed again by every sweep).
Then ``games`` more are created with a ``per_move`` clock whose ``move_s`` runs over
``move_s_min..move_s_max`` (game ``i`` gets ``min + i % span``), so their timeouts come due
continuously, about ``games / span`` a second, rather than all at once; nobody moves, so each
game's seat to act times out, which ends the game. As they end, the clocks running fall from
``background + games`` to ``background``, never below: the armed timers (``floe:{timers}``)
are counted every tenth of a second of the wait, and the background games are read back at
the end (each still at ``game_created`` alone). A game's due moment is its deadline plus one
second: the deadline (``game_created``'s ``at``, whole seconds, plus ``move_s``) is the last
second the seat may still act in, and the timeout is owed from the next. When it is appended,
the store's append script publishes the stream's new head on ``floe:appended``
(``service.store.appends``); this process subscribes to that channel before creating any
timed game and stamps the wall-clock time each game's first head past version 1 arrives.
Lateness = that stamp - the due moment. Once every game has one (or ``grace`` seconds past
the last due moment), every stream is read back: a game must hold exactly one ``timeout``, of
seat 0, stored no earlier than its due second, between ``game_created`` and ``game_over``
(then the revealed seed); any other game is counted and named (a result with target 0, and
the log). The machine's busy CPU (``/proc/stat``) and this stack's own are sampled over the
wait, so the report says whether other work shared the cores.

**What a clock costs a move.** Then, on the same stack (the background clocks still
running), moves in games with a generous clock (``per_move`` 3600 s: nobody times out, but
every append arms the game's timer in the queue Redis, and the sweeper re-arms every clocked
game's) against the same games without one. The moves are ``bench.policy``'s script (Arktia
has no randomness, so one script is legal in any new game), so a measured operation is
exactly one POST, the same positions on both sides:

- latency: one client, ``samples`` POSTs on a clocked game interleaved one for one with as
  many on an unclocked game (which goes first alternates), sequential: the per-request cost;
- throughput: ``clients`` threads, one game each, in windows of ``window`` seconds (after
  ``warmup`` unmeasured), clocked and unclocked alternating, the order swapped every round,
  fresh connections every window; a window in which one gunicorn worker did more than 75 %
  of the API's CPU is run again (at most twice), as (a) does.

The ratios clocked / unclocked (median latency, moves per second) are of the same run.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any

import redis

from bench import policy
from bench.latency import Game
from bench.paired import interleaved, post_window, unless_lopsided
from bench.report import Report, Result, latency_summary, load_average, percentile
from bench.stack import BenchError, Client, Stack, machine_busy, own_queue_redis, proc_cpu
from domain.engine.clock import epoch_seconds
from domain.engine.log import StoredEvent
from service.jobs.timers import TIMERS_KEY
from service.run.supervisor import worker_command
from service.store.appends import CHANNEL
from service.store.events import RedisEventStore, events_key

GROUP = "(i) clocks"
#: The issue's target: timeouts land within this many seconds of their due moment (p99).
LATENESS_TARGET_S = 2.0
#: ``floe run``'s default count of job workers (``FLOE_JOB_WORKERS``).
WORKERS = 2
#: A clock nobody runs out of in the move-cost phase.
GENEROUS_CLOCK: dict[str, Any] = {"kind": "per_move", "move_s": 3600}
PLAYERS = [{"name": "bench-0"}, {"name": "bench-1"}]
#: A timed-out game's log (then its seed, revealed as every game's is once over).
ENDED = ["game_created", "timeout", "game_over"]


@dataclass(frozen=True)
class Config:
    """Every size of (i); ``quick()`` is ``--quick``'s."""

    games: int = 1000
    #: Games whose clocks run (an hour each) through the whole lateness phase.
    background: int = 1000
    move_s_min: int = 5
    move_s_max: int = 20
    creators: int = 4
    workers: int = WORKERS
    grace: float = 30.0
    samples: int = 500
    clients: int = 8
    window: float = 3.0
    warmup: float = 0.5
    rounds: int = 4
    script_length: int = 250

    @classmethod
    def quick(cls) -> Config:
        return cls(
            games=250,
            background=250,
            move_s_min=3,
            move_s_max=8,
            grace=20.0,
            samples=150,
            window=1.0,
            warmup=0.3,
            rounds=2,
        )


# -- the stack ------------------------------------------------------------------------------


class Workers:
    """``count`` ``floe worker`` processes as ``floe run`` starts them, logging to files."""

    def __init__(self, stack: Stack, count: int) -> None:
        env = {**os.environ, "REDIS_URL": stack.redis.url}
        self.logs = [stack.tmp / f"worker-{n}.log" for n in range(count)]
        self.processes: list[subprocess.Popen[bytes]] = []
        for number, path in enumerate(self.logs):
            argv = worker_command(sys.executable, draws_only=number == 0 and count > 1)
            with path.open("ab") as log:
                self.processes.append(
                    subprocess.Popen(
                        argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log
                    )
                )

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.processes]

    def wait_alive(self, queue: redis.Redis, timeout: float = 60.0) -> None:
        """Until every worker has announced itself alive in the queue Redis."""
        deadline = time.monotonic() + timeout
        while len(list(queue.scan_iter(match="floe:worker:*:alive"))) < len(self.processes):
            dead = [p.pid for p in self.processes if p.poll() is not None]
            if dead:
                raise BenchError(f"floe worker {dead} exited at start:\n{self.tail()}")
            if time.monotonic() > deadline:
                raise BenchError(f"the workers were not alive within {timeout:.0f}s")
            time.sleep(0.1)

    def problems(self) -> list[str]:
        """Log lines saying something went wrong (a benchmark's workers should say none)."""
        found = []
        for path in self.logs:
            with contextlib.suppress(OSError):
                for line in path.read_text(errors="replace").splitlines():
                    if any(word in line for word in ("Traceback", "ERROR", "WARNING")):
                        found.append(line.strip()[:300])
        return found

    def tail(self, lines: int = 20) -> str:
        out = []
        for path in self.logs:
            with contextlib.suppress(OSError):
                out += path.read_text(errors="replace").splitlines()[-lines:]
        return "\n".join(out)

    def cpu(self) -> float:
        return sum(proc_cpu(pid) for pid in self.pids)

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# -- lateness -------------------------------------------------------------------------------


class Heads:
    """This process's subscription to the store's append signals: the wall-clock time the
    first head past version 1 of each stream arrived."""

    def __init__(self, client: redis.Redis) -> None:
        self.first: dict[str, tuple[int, float]] = {}
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._pubsub = client.pubsub()  # type: ignore[no-untyped-call]
        self._thread = threading.Thread(target=self._listen, name="bench-heads", daemon=True)

    def __enter__(self) -> Heads:
        self._thread.start()
        if not self._ready.wait(10):
            raise BenchError("could not subscribe to the append signals within 10 s")
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._pubsub.close()

    def _listen(self) -> None:
        try:
            self._pubsub.subscribe(CHANNEL)
            while not self._stop.is_set():
                message = self._pubsub.get_message(timeout=0.2)
                if message is None:
                    continue
                stamp = time.time()
                if message["type"] == "subscribe":
                    self._ready.set()
                elif message["type"] == "message":
                    data = message["data"]
                    text = data.decode() if isinstance(data, bytes) else str(data)
                    # ``<events key> <version>``, then (an append's) the events, a line each
                    key, _, version = text.partition("\n")[0].rpartition(" ")
                    if int(version) > 1 and key not in self.first:
                        self.first[key] = (int(version), stamp)
        except BaseException as error:  # surfaced by check()
            self._error = error
            self._ready.set()

    def check(self) -> None:
        if self._error is not None:
            raise BenchError(f"the append subscription failed: {self._error!r}")


@dataclass
class Clocked:
    """One game of the lateness phase."""

    game_id: str
    move_s: int
    due: float = 0.0


def _create_clocked(
    stack: Stack, plan: Sequence[int], creators: int
) -> tuple[list[Clocked], float]:
    """Create a game for each ``move_s`` of ``plan`` on ``creators`` connections; the seconds
    it took."""
    games: list[Clocked | None] = [None] * len(plan)
    errors: list[BaseException] = []

    def create(part: int) -> None:
        client = stack.client()
        try:
            for index in range(part, len(plan), creators):
                clock = {"kind": "per_move", "move_s": plan[index]}
                payload = {"game": "arktia", "players": PLAYERS, "clock": clock}
                status, body = client.json("POST", "/v1/games", payload)
                if status != 201:
                    raise BenchError(f"creating a clocked game answered {status}: {body}")
                games[index] = Clocked(str(body["id"]), plan[index])
        except BaseException as error:  # surfaced below
            errors.append(error)
        finally:
            client.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=create, args=(n,)) for n in range(creators)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [g for g in games if g is not None], time.perf_counter() - started


def _set_due(store: RedisEventStore, games: Sequence[Clocked]) -> None:
    """Each game's due moment: its ``game_created`` ``at`` + ``move_s`` + 1 (epoch s)."""
    for game in games:
        [created] = store.read(game.game_id, upto=1)
        game.due = float(epoch_seconds(created.at) + game.move_s + 1)


def _verify(store: RedisEventStore, game: Clocked) -> tuple[str | None, StoredEvent | None, int]:
    """What is wrong with the game's log (None: one timeout of seat 0 at or after its due
    second, then the end), its timeout, and how many timeouts it holds."""
    events = store.read(game.game_id)
    types = [e.type for e in events]
    timeouts = [e for e in events if e.type == "timeout"]
    if len(timeouts) != 1:
        return f"{len(timeouts)} timeouts: {types}", None, len(timeouts)
    [timeout] = timeouts
    if types not in (ENDED, [*ENDED, "seed_revealed"]) or timeout.data != {"seat": 0}:
        return f"unexpected log {types}, timeout {dict(timeout.data)}", timeout, 1
    if epoch_seconds(timeout.at) < game.due:
        return f"timeout at {timeout.at}, before its due second {game.due:.0f}", timeout, 1
    return None, timeout, 1


def lateness(
    stack: Stack,
    config: Config,
    *,
    queue: redis.Redis,
    own: Sequence[int],
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Create the background games and the games to time out, wait for the timeouts, check
    every log: the figures. ``queue``: the queue Redis, where the timers are armed; ``own``:
    the stack's processes besides the API and the store (workers, the queue Redis)."""
    client = stack.redis.client()
    store = RedisEventStore(client)
    own = [*stack.server_pids(), *own]
    hour = int(GENEROUS_CLOCK["move_s"])
    try:
        log(f"(i) creating {config.background:,} background games with {hour} s clocks")
        background, background_s = _create_clocked(
            stack, [hour] * config.background, config.creators
        )
        with Heads(stack.redis.client()) as heads:
            log(
                f"(i) creating {config.games:,} Arktia games with per_move clocks of "
                f"{config.move_s_min}..{config.move_s_max} s; nobody moves"
            )
            span = config.move_s_max - config.move_s_min + 1
            plan = [config.move_s_min + i % span for i in range(config.games)]
            games, create_s = _create_clocked(stack, plan, config.creators)
            _set_due(store, games)
            last_due = max(g.due for g in games)
            first_due = min(g.due for g in games)
            log(f"(i) created in {create_s:.1f}s; timeouts due over {last_due - first_due:.0f}s")
            busy, cpu, self_cpu = machine_busy(), sum(proc_cpu(p) for p in own), _self_cpu()
            load_start = load_average()
            waited = time.perf_counter()
            keys = {events_key(g.game_id): g for g in games}
            running: list[int] = []  # the clocks armed in the queue Redis, every 0.1 s
            while True:
                heads.check()
                running.append(int(queue.zcard(TIMERS_KEY)))
                seen = sum(1 for key in keys if key in heads.first)
                if seen == len(keys) or time.time() > last_due + config.grace:
                    break
                time.sleep(0.1)
            wait_s = time.perf_counter() - waited
            busy = machine_busy() - busy
            ours = sum(proc_cpu(p) for p in own) - cpu + _self_cpu() - self_cpu
            load_end = load_average()
            first = dict(heads.first)
        late: list[float] = []
        wrong: dict[str, str] = {}
        at_minus_due: dict[int, int] = {}
        timeouts = 0
        for key, game in keys.items():
            problem, timeout, count = _verify(store, game)
            timeouts += count
            if problem is not None:
                wrong[game.game_id] = problem
            if timeout is not None:
                second = epoch_seconds(timeout.at) - int(game.due)
                at_minus_due[second] = at_minus_due.get(second, 0) + 1
            if key not in first:
                wrong.setdefault(game.game_id, "no head past version 1 was signalled")
                continue
            signalled, stamp = first[key]
            if timeout is not None and signalled < timeout.version:
                wrong.setdefault(game.game_id, f"head {signalled} signalled before the timeout")
                continue
            late.append(stamp - game.due)
        moved_on = _moved_on(client, background)
    finally:
        client.close()
    log(
        f"(i) clocks running through the wait: {min(running):,} to {max(running):,} "
        f"({config.background:,} in the background); background games moved on: {moved_on}"
    )
    cores = os.cpu_count() or 1
    return {
        "games": len(games),
        "background": len(background),
        "background_create_s": background_s,
        "background_moved_on": moved_on,
        "clocks_running": {
            "min": min(running),
            "max": max(running),
            "first": running[0],
            "last": running[-1],
            "samples": len(running),
        },
        "move_s": [config.move_s_min, config.move_s_max],
        "create_s": create_s,
        "due_window_s": last_due - first_due,
        "wait_s": wait_s,
        "timeouts": timeouts,
        "wrong": wrong,
        "lateness_s": late,
        "stored_at_minus_due_s": {str(k): v for k, v in sorted(at_minus_due.items())},
        "machine_busy_share": busy / (wait_s * cores) if wait_s else 0.0,
        "others_busy_share": max(0.0, busy - ours) / (wait_s * cores) if wait_s else 0.0,
        "stack_cpu_s": ours,
        "loadavg": [load_start, load_end],
    }


def _moved_on(client: redis.Redis, games: Sequence[Clocked]) -> int:
    """How many of ``games`` hold more than their ``game_created`` (none should: nobody
    moves, and their clocks have an hour)."""
    pipe = client.pipeline(transaction=False)
    for game in games:
        pipe.xlen(events_key(game.game_id))
    return sum(1 for length in pipe.execute() if length != 1)


def _self_cpu() -> float:
    times = os.times()
    return times.user + times.system


# -- what a clock costs a move ------------------------------------------------------------


def scripted(client: Client, script: Sequence[policy.Step], clocked: bool, name: str) -> Game:
    """A game replaying ``bench.policy``'s script, with a generous clock or without."""
    return Game(client, script, name, clock=GENEROUS_CLOCK if clocked else None)


def paired_latency(
    stack: Stack, script: Sequence[policy.Step], samples: int
) -> tuple[list[float], list[float]]:
    """``samples`` sequential POSTs on a clocked game and as many on an unclocked one,
    interleaved one for one (which goes first alternates), after a warm-up of each."""
    client = stack.client()
    try:
        clocked = scripted(client, script, True, "lat-clocked")
        plain = scripted(client, script, False, "lat-plain")
        return interleaved(clocked, plain, samples)
    finally:
        client.close()


@dataclass
class Window:
    clocked: bool
    moves: int
    seconds: float
    latencies: list[float]
    api_cpu_s: float
    store_cpu_s: float
    workers_cpu_s: float
    busiest_share: float
    machine_busy_s: float
    games_created: int

    def to_json(self) -> dict[str, Any]:
        return {
            "clocked": self.clocked,
            "moves": self.moves,
            "seconds": self.seconds,
            "moves_per_s": self.moves / self.seconds,
            "latency": latency_summary(self.latencies),
            "api_cpu_ms_per_move": 1000 * self.api_cpu_s / max(1, self.moves),
            "store_cpu_ms_per_move": 1000 * self.store_cpu_s / max(1, self.moves),
            "workers_cpu_s": self.workers_cpu_s,
            "busiest_worker_share": self.busiest_share,
            "machine_busy_s": self.machine_busy_s,
            "games_created": self.games_created,
        }


@dataclass
class Load:
    """The throughput phase's state: each client thread's clocked and unclocked game."""

    stack: Stack
    workers: Workers
    script: Sequence[policy.Step]
    config: Config
    games: dict[tuple[int, bool], Game] = field(default_factory=dict)

    def window(self, clocked: bool) -> Window:
        config = self.config
        clients = [self.stack.client() for _ in range(config.clients)]
        for n, client in enumerate(clients):  # fresh connections; the games carry on
            game = self.games.get((n, clocked))
            if game is None:
                name = f"load{n}-{'clocked' if clocked else 'plain'}"
                self.games[(n, clocked)] = scripted(client, self.script, clocked, name)
            else:
                game.client = client
        created = sum(g.games for (_, c), g in self.games.items() if c == clocked)
        posted = post_window(
            self.stack,
            [self.games[(n, clocked)] for n in range(len(clients))],
            warmup=config.warmup,
            seconds=config.window,
            other_cpu=self.workers.cpu,
        )
        moves, posts = len(posted.measured), max(1, posted.posts)
        return Window(
            clocked=clocked,
            moves=moves,
            seconds=config.window,
            latencies=posted.latencies,
            api_cpu_s=posted.api_cpu_s * moves / posts,  # the measured window's share
            store_cpu_s=posted.redis_cpu_s * moves / posts,
            workers_cpu_s=posted.other_cpu_s,
            busiest_share=posted.busiest_share,
            machine_busy_s=posted.machine_busy_s,
            games_created=sum(g.games for (_, c), g in self.games.items() if c == clocked)
            - created,
        )

    def measure(self, clocked: bool, log: Callable[[str], None]) -> tuple[Window, int]:
        """One window, run again (at most twice) while it is lopsided; and the reruns."""
        return unless_lopsided(lambda: self.window(clocked), "(i)", log)


def _pooled(windows: Sequence[Window]) -> float:
    return sum(w.moves for w in windows) / sum(w.seconds for w in windows)


# -- the benchmark ------------------------------------------------------------------------


def run(report: Report, *, config: Config, log: Callable[[str], None]) -> None:
    """Both phases on one ``floe run``-like stack; results in ``report`` under (i)."""
    log(f"(i) scripting {config.script_length} Arktia actions (in process)")
    script = policy.script(0, config.script_length)
    log(f"(i) starting Redis, the queue Redis, gunicorn and {config.workers} floe worker(s)")
    with own_queue_redis() as queue, Stack() as stack:
        workers = Workers(stack, config.workers)
        queue_client = queue.client()
        try:
            workers.wait_alive(queue_client)
            queue_pid = [] if queue.pid is None else [queue.pid]
            late = lateness(
                stack, config, queue=queue_client, own=[*workers.pids, *queue_pid], log=log
            )
            log(f"(i) move cost: {config.samples} POSTs clocked interleaved with as many without")
            on, off = paired_latency(stack, script, config.samples)
            log(
                f"(i) move cost: {config.clients} clients, {config.rounds} rounds of "
                f"{config.window:.0f}s windows, clocked and not, alternating"
            )
            load = Load(stack, workers, script, config)
            windows: list[Window] = []
            reruns = 0
            for round_ in range(config.rounds):
                for clocked in (True, False) if round_ % 2 == 0 else (False, True):
                    window, again = load.measure(clocked, log)
                    windows.append(window)
                    reruns += again
            timers_left = int(queue_client.zcard(TIMERS_KEY))
            problems = workers.problems()
        finally:
            queue_client.close()
            workers.stop()
    _report(report, config, late, on, off, windows, reruns, timers_left, problems, log)


def _report(
    report: Report,
    config: Config,
    late: dict[str, Any],
    on: list[float],
    off: list[float],
    windows: list[Window],
    reruns: int,
    timers_left: int,
    problems: list[str],
    log: Callable[[str], None],
) -> None:
    games = late["games"]
    seconds: list[float] = late["lateness_s"]
    wrong: dict[str, str] = late["wrong"]
    busy_share, others_share = late["machine_busy_share"], late["others_busy_share"]
    for game_id, problem in sorted(wrong.items())[:20]:
        log(f"(i) ERROR game {game_id}: {problem}")
    if wrong:
        log(f"(i) ERROR {len(wrong)} of {games} games without exactly one timeout on time")
    busy_note = (
        f"machine {busy_share:.0%} busy over the wait, {others_share:.0%} by other work "
        f"than this stack ({'busy' if others_share > 0.25 else 'about idle'})"
    )
    running = late["clocks_running"]
    clocks = f"{games:,} clocks + {late['background']:,} running"
    report.add(Result(GROUP, f"timeout lateness p50, {clocks}", percentile(seconds, 50), "s"))
    report.add(
        Result(
            GROUP,
            f"timeout lateness p99, {clocks}",
            percentile(seconds, 99),
            "s",
            target=LATENESS_TARGET_S,
            goal="<=",
            note=busy_note,
        )
    )
    report.add(Result(GROUP, f"timeout lateness max, {clocks}", max(seconds, default=0.0), "s"))
    report.add(Result(GROUP, f"timeouts recorded, {games:,} games", late["timeouts"], "events"))
    report.add(
        Result(
            GROUP,
            "clocks running through the wait, fewest",
            running["min"],
            "clocks",
            target=config.background,
            goal=">=",
            note=f"{running['first']:,} at the start, {running['last']:,} at the end; "
            f"background games moved on: {late['background_moved_on']}",
        )
    )
    report.add(
        Result(
            GROUP,
            "games without exactly one timeout, on time",
            len(wrong),
            "games",
            target=0,
            goal="<=",
            note="; ".join(f"{g}: {p}" for g, p in sorted(wrong.items())[:3]),
        )
    )
    p50_on, p50_off = median(on), median(off)
    report.add(Result(GROUP, "move p50, clocked (one client)", 1000 * p50_on, "ms"))
    report.add(Result(GROUP, "move p50, no clock (one client)", 1000 * p50_off, "ms"))
    report.add(Result(GROUP, "ratio move p50 clocked / no clock", p50_on / p50_off, "x"))
    clocked = [w for w in windows if w.clocked]
    plain = [w for w in windows if not w.clocked]
    rate_on, rate_off = _pooled(clocked), _pooled(plain)
    per_round = [a.moves / b.moves for a, b in zip(clocked, plain, strict=True) if b.moves]
    spread = f"rounds {min(per_round):.3f}-{max(per_round):.3f}" if per_round else ""
    if reruns:
        spread += f"; {reruns} lopsided window(s) run again"
    n = config.clients
    report.add(Result(GROUP, f"moves/s, clocked, {n} clients", rate_on, "moves/s"))
    report.add(Result(GROUP, f"moves/s, no clock, {n} clients", rate_off, "moves/s"))
    report.add(
        Result(GROUP, "ratio moves/s clocked / no clock", rate_on / rate_off, "x", note=spread)
    )
    loaded_on = [x for w in clocked for x in w.latencies]
    loaded_off = [x for w in plain for x in w.latencies]

    def per_move(windows: Sequence[Window], attr: str) -> float:
        total = sum(float(getattr(w, attr)) for w in windows)
        return 1000 * total / max(1, sum(w.moves for w in windows))

    report.details["clocks"] = {
        "config": config.__dict__,
        "lateness": {
            **{k: v for k, v in late.items() if k not in ("lateness_s", "wrong")},
            "summary_s": {
                "n": len(seconds),
                "min": min(seconds, default=0.0),
                "p50": percentile(seconds, 50),
                "p90": percentile(seconds, 90),
                "p99": percentile(seconds, 99),
                "max": max(seconds, default=0.0),
            },
            "wrong": wrong,
        },
        "move_cost": {
            "paired_latency": {"clocked": latency_summary(on), "no_clock": latency_summary(off)},
            "loaded_latency": {
                "clocked": latency_summary(loaded_on),
                "no_clock": latency_summary(loaded_off),
            },
            "api_cpu_ms_per_move": {
                "clocked": per_move(clocked, "api_cpu_s"),
                "no_clock": per_move(plain, "api_cpu_s"),
            },
            "store_redis_cpu_ms_per_move": {
                "clocked": per_move(clocked, "store_cpu_s"),
                "no_clock": per_move(plain, "store_cpu_s"),
            },
            "windows": [w.to_json() for w in windows],
            "reruns": reruns,
            "timers_armed_at_the_end": timers_left,
        },
        "worker_log_problems": problems[:50],
    }
