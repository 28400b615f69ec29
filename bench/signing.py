"""(k) Signing: what a player's signature costs a move, on the server and on the client.

A seat with a public key signs every action it posts, and the service checks the signature
before anything else (``service.games.signatures``); every stored event also gets the
service's receipt. This measures both sides of that, in one run:

**In process**, each the best of ``micro_repeats`` runs of ``micro_calls`` calls, in µs of
this process's CPU a call: the client's cost of a signature
(``replay.player_key.PlayerKey.sign_action``: the message and Ed25519, as the Python helper
does it), the server's check of one (``replay.ed25519.signature_is_valid``, as the service
calls it: key and signature parsed from hex, then verified), the action message alone
(``domain.engine.signing.action_message``: canonical JSON), the body's loading
(``load_post_action``: a signed body takes the schema, an unsigned one its shortcut), and a
receipt (the mark's HMAC, the message and the service key's signature,
``service.keys.service_key``).

**The API in process**: the Flask app through its test client over a private durable Redis
(no gunicorn, no network), signed and unsigned POSTs of the same script in blocks of
``api_block``, alternating, the order swapped every round, ``api_rounds`` rounds; each block
timed by this thread's CPU clock, so neither waiting on Redis nor other work on the machine
counts. Each game's bodies are made before its blocks, so every timed POST is the server's
work (and the test client's, the same on both sides).

**Through the API**, on ``bench.stack``'s gunicorn over a durable Redis: the same Arktia
script (``bench.policy``: one POST an operation, the same positions on both sides) in games
whose two seats have keys (every POST signed) and in games whose seats have none. Each signed
game's bodies are signed when the game is made, before any of its POSTs is timed, so the
client's signing (measured above) never slows the server's side of the comparison. Then:

- latency: one client, ``samples`` POSTs on a signed game interleaved one for one with as many
  on an unsigned one (which goes first alternates), after a warm-up of each;
- CPU and throughput: ``clients`` threads, one game each, in windows of ``window`` seconds
  (after ``warmup`` unmeasured), signed and unsigned alternating, the order swapped every
  round. gunicorn's CPU (master and workers, ``/proc``) and Redis's are sampled around each
  window and divided by the POSTs it answered: µs of server CPU a move, signed and unsigned,
  and their ratio, all from the same run.

Every answer carries the service's receipts too, signed move or not (the details say whether
the answers did), so they cost both sides alike; their own cost is the in-process receipt
figure, once an event. Last, the logs are read back: every move of a signed game must carry
its signature (a run that posted unsigned moves on both sides would measure nothing), and no
move of an unsigned one.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

from bench import policy
from bench.paired import interleaved, post_window, unless_lopsided
from bench.report import Report, Result, latency_summary
from bench.stack import BenchError, Client, Stack
from domain.engine.signing import action_message, receipt_mark, receipt_message
from replay import ed25519
from replay.player_key import PlayerKey
from service.api.app import create_app
from service.api.schemas.games import load_post_action
from service.keys import service_key
from service.run.redis_server import DURABLE_CONFIG, RedisServer
from service.settings import Settings
from service.store.events import RedisEventStore

GROUP = "(k) signing"
#: A sample Arktia move and game id for the in-process figures (a move's size and shape).
SAMPLE_GAME = "7c4a1e9b03d2f856"
SAMPLE_VERSION = 41


@dataclass(frozen=True)
class Config:
    """Every size of (k); ``quick()`` is ``--quick``'s."""

    micro_calls: int = 2000
    micro_repeats: int = 5
    samples: int = 400
    clients: int = 8
    window: float = 3.0
    warmup: float = 0.5
    rounds: int = 4
    script_length: int = 250
    api_block: int = 100
    api_rounds: int = 10

    @classmethod
    def quick(cls) -> Config:
        return cls(
            micro_calls=300,
            micro_repeats=3,
            samples=100,
            clients=4,
            window=1.0,
            warmup=0.3,
            rounds=2,
            script_length=120,
            api_block=20,
            api_rounds=3,
        )


# -- in process -----------------------------------------------------------------------------


def ratio(top: float, bottom: float) -> float:
    """``top / bottom``, NaN when nothing was measured below (CPU is counted in ticks)."""
    return top / bottom if bottom else math.nan


def best_us(call: Callable[[], object], calls: int, repeats: int) -> float:
    """CPU µs a call: the best of ``repeats`` runs of ``calls`` calls, timed by this
    process's CPU clock (a busy machine delays a call, it does not make it cost more CPU)."""
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        for _ in range(calls):
            call()
        best = min(best, time.process_time() - started)
    return 1e6 * best / calls


def in_process(config: Config) -> dict[str, float]:
    """The four in-process figures, µs a call."""
    key = PlayerKey.generate()
    action = policy.script(0, 1)[0].action
    message = action_message(SAMPLE_GAME, SAMPLE_VERSION, action)
    signature = key.sign_action(SAMPLE_GAME, SAMPLE_VERSION, action)
    public = key.public_key
    if not ed25519.signature_is_valid(public, message, signature):
        raise BenchError("a signature made here does not verify")
    service = service_key.in_memory()
    seed, event_hash = bytes(range(32)), "3e" * 32

    signed_body = key.signed_body(SAMPLE_GAME, SAMPLE_VERSION, action, "c-41")
    plain_body = {k: v for k, v in signed_body.items() if k != "signature"}

    def receipt() -> str:
        return service.sign(receipt_message(SAMPLE_GAME, 2, receipt_mark(seed, event_hash)))

    n, r = config.micro_calls, config.micro_repeats
    return {
        "client_sign_action_us": best_us(
            lambda: key.sign_action(SAMPLE_GAME, SAMPLE_VERSION, action), n, r
        ),
        "server_verify_us": best_us(
            lambda: ed25519.signature_is_valid(public, message, signature), n, r
        ),
        "action_message_us": best_us(
            lambda: action_message(SAMPLE_GAME, SAMPLE_VERSION, action), n, r
        ),
        "load_signed_body_us": best_us(lambda: load_post_action(signed_body), n, r),
        "load_unsigned_body_us": best_us(lambda: load_post_action(plain_body), n, r),
        "receipt_us": best_us(receipt, n, r),
    }


# -- the API in process -------------------------------------------------------------------


class Poster:
    """A game of the script posted through the Flask test client, signed or not; its bodies
    are all made when it is made (``fresh``), never while a block is timed."""

    def __init__(self, client: Any, script: Sequence[policy.Step], *, signed: bool) -> None:
        self.client = client
        self.script = script
        self.signed = signed
        self.keys = [PlayerKey.generate(), PlayerKey.generate()] if signed else []
        self.games = 0
        self.version = len(script) + 1

    def fresh(self, posts: int) -> None:
        """A new game unless ``posts`` more scripted actions are left in this one."""
        if self.version + posts <= len(self.script) + 1:
            return
        players: list[dict[str, Any]] = [{"name": f"bench-{i}"} for i in range(2)]
        for player, key in zip(players, self.keys, strict=False):
            player["public_key"] = key.public_key
        payload = {"game": policy.GAME, "players": players, "options": policy.OPTIONS}
        created = self.client.post("/v1/games", json=payload)
        if created.status_code != 201:
            raise BenchError(f"creating a game answered {created.status_code}")
        body = created.get_json()
        self.game_id, self.version, self.games = str(body["id"]), 1, self.games + 1
        self.headers = [
            {"Authorization": f"Bearer {seat['token']}", "Content-Type": "application/json"}
            for seat in body["seats"]
        ]
        self.bodies = []
        for version, step in enumerate(self.script, start=1):
            command_id = f"c{self.games}-{version}"
            if self.signed:
                made = self.keys[step.seat].signed_body(
                    self.game_id, version, step.action, command_id
                )
            else:
                made = {
                    "action": step.action,
                    "expected_version": version,
                    "command_id": command_id,
                }
            self.bodies.append(json.dumps(made))

    def post_next(self) -> None:
        step = self.script[self.version - 1]
        response = self.client.post(
            f"/v1/games/{self.game_id}/actions",
            data=self.bodies[self.version - 1],
            headers=self.headers[step.seat],
        )
        if response.status_code != 201:
            raise BenchError(f"POST answered {response.status_code}: {response.get_data()!r}")
        self.version += 1


def api_in_process(script: Sequence[policy.Step], config: Config) -> dict[str, Any]:
    """Thread CPU µs a POST through the app in process, signed and unsigned, in alternating
    blocks; the totals and each round's ratio."""
    if config.api_block >= len(script):
        raise BenchError(f"a block of {config.api_block} POSTs needs a longer script")
    tmp = Path(tempfile.mkdtemp(prefix="floe-bench-sign-"))
    try:
        with RedisServer(
            tmp / "redis", unix_socket=tmp / "redis.sock", config=DURABLE_CONFIG
        ) as server:
            settings = Settings(
                redis_url=server.url,
                rate_limit_per_token=10**9,  # counted (part of the cost), never throttling
                rate_limit_per_address=10**9,
                live_games_per_creator=0,
                stored_bytes_per_creator=0,
                bot_games_per_creator=0,
            )
            client = create_app(settings).test_client()
            posters = {True: Poster(client, script, signed=True)}
            posters[False] = Poster(client, script, signed=False)
            for poster in posters.values():  # warm caches, imports and connections
                poster.fresh(config.api_block)
                for _ in range(config.api_block):
                    poster.post_next()
            seconds = {True: 0.0, False: 0.0}
            rounds: list[float] = []
            for number in range(config.api_rounds):
                spent = {}
                for signed in (True, False) if number % 2 == 0 else (False, True):
                    poster = posters[signed]
                    poster.fresh(config.api_block)
                    started = time.thread_time()
                    for _ in range(config.api_block):
                        poster.post_next()
                    spent[signed] = time.thread_time() - started
                    seconds[signed] += spent[signed]
                rounds.append(ratio(spent[True], spent[False]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    posts = config.api_block * config.api_rounds
    return {
        "posts_each": posts,
        "signed_us": 1e6 * seconds[True] / posts,
        "unsigned_us": 1e6 * seconds[False] / posts,
        "round_ratios": rounds,
    }


# -- through the API ------------------------------------------------------------------------


class Game:
    """A game driven over HTTP by replaying ``bench.policy``'s script from its first action,
    its seats keyed (every POST signed) or not; once the script runs out a new game starts.
    A signed game's bodies are all signed when it is made, so no POST waits on signing."""

    def __init__(
        self, client: Client, script: Sequence[policy.Step], name: str, *, signed: bool
    ) -> None:
        self.client = client
        self.script = script
        self.name = name
        self.signed = signed
        self.keys = [PlayerKey.generate(), PlayerKey.generate()] if signed else []
        self.ids: list[str] = []
        #: Whether the last answer carried the service's receipts (both sides pay for them).
        self.receipted = False
        self._create()

    def _create(self) -> None:
        players: list[dict[str, Any]] = [{"name": f"bench-{i}"} for i in range(2)]
        for player, key in zip(players, self.keys, strict=False):
            player["public_key"] = key.public_key
        payload = {"game": policy.GAME, "players": players, "options": policy.OPTIONS}
        status, body = self.client.json("POST", "/v1/games", payload)
        if status != 201:
            raise BenchError(f"{self.name}: creating a game answered {status}: {body}")
        self.game_id = str(body["id"])
        self.tokens = [str(seat["token"]) for seat in body["seats"]]
        self.ids.append(self.game_id)
        self.bodies = [self._body(v, step) for v, step in enumerate(self.script, start=1)]
        self.version = 1

    def _body(self, version: int, step: policy.Step) -> bytes:
        command_id = f"{self.name}-{len(self.ids)}-{version}"
        if self.signed:
            key = self.keys[step.seat]
            body = key.signed_body(self.game_id, version, step.action, command_id)
        else:
            body = {"action": step.action, "expected_version": version, "command_id": command_id}
        return json.dumps(body).encode()

    @property
    def games(self) -> int:
        return len(self.ids)

    def post_next(self) -> float:
        """POST the next scripted action; the request's wall time in seconds."""
        if self.version > len(self.script):
            self._create()
        step = self.script[self.version - 1]
        path = f"/v1/games/{self.game_id}/actions"
        body = self.bodies[self.version - 1]
        started = time.perf_counter()
        status, raw = self.client.request("POST", path, body, self.tokens[step.seat])
        elapsed = time.perf_counter() - started
        if status != 201:
            raise BenchError(f"{self.name}: POST at version {self.version} -> {status}: {raw!r}")
        answer = json.loads(raw)
        self.version = int(answer["version"])
        self.receipted = "receipts" in answer
        return elapsed


def paired_latency(
    stack: Stack, script: Sequence[policy.Step], samples: int
) -> tuple[list[float], list[float], list[Game]]:
    """``samples`` sequential POSTs on a signed game and as many on an unsigned one,
    interleaved one for one (which goes first alternates), after a warm-up of each."""
    client = stack.client()
    try:
        signed = Game(client, script, "lat-signed", signed=True)
        plain = Game(client, script, "lat-plain", signed=False)
        on, off = interleaved(signed, plain, samples)
        return on, off, [signed, plain]
    finally:
        client.close()


@dataclass
class Window:
    signed: bool
    posts: int
    measured: int
    seconds: float
    latencies: list[float]
    api_cpu_s: float
    redis_cpu_s: float
    busiest_share: float
    machine_busy_s: float

    def to_json(self) -> dict[str, Any]:
        return {
            "signed": self.signed,
            "posts": self.posts,
            "measured": self.measured,
            "seconds": self.seconds,
            "moves_per_s": self.measured / self.seconds,
            "latency": latency_summary(self.latencies),
            "api_cpu_us_per_move": 1e6 * self.api_cpu_s / max(1, self.posts),
            "redis_cpu_us_per_move": 1e6 * self.redis_cpu_s / max(1, self.posts),
            "busiest_worker_share": self.busiest_share,
            "machine_busy_s": self.machine_busy_s,
        }


@dataclass
class Load:
    """The throughput phase: each client thread's signed and unsigned game."""

    stack: Stack
    script: Sequence[policy.Step]
    config: Config
    games: dict[tuple[int, bool], Game] = field(default_factory=dict)

    def window(self, signed: bool) -> Window:
        config = self.config
        clients = [self.stack.client() for _ in range(config.clients)]
        for n, client in enumerate(clients):  # fresh connections; the games carry on
            game = self.games.get((n, signed))
            if game is None:
                name = f"load{n}-{'signed' if signed else 'plain'}"
                self.games[(n, signed)] = Game(client, self.script, name, signed=signed)
            else:
                game.client = client
        posted = post_window(
            self.stack,
            [self.games[(n, signed)] for n in range(len(clients))],
            warmup=config.warmup,
            seconds=config.window,
        )
        return Window(
            signed=signed,
            posts=posted.posts,
            measured=len(posted.measured),
            seconds=config.window,
            latencies=posted.latencies,
            api_cpu_s=posted.api_cpu_s,
            redis_cpu_s=posted.redis_cpu_s,
            busiest_share=posted.busiest_share,
            machine_busy_s=posted.machine_busy_s,
        )

    def measure(self, signed: bool, log: Callable[[str], None]) -> tuple[Window, int]:
        """One window, run again (at most twice) while it is lopsided; and the reruns."""
        return unless_lopsided(lambda: self.window(signed), "(k)", log)


def stored_signatures(stack: Stack, games: Sequence[Game]) -> dict[str, int]:
    """How many moves of ``games``' logs carry a signature and how many do not: every signed
    game's moves must, no unsigned game's may."""
    client = stack.redis.client()
    store = RedisEventStore(client)
    counts = {"signed_games_moves_signed": 0, "signed_games_moves_unsigned": 0}
    counts |= {"plain_games_moves_signed": 0, "plain_games_moves_unsigned": 0}
    try:
        for game in games:
            side = "signed_games" if game.signed else "plain_games"
            for game_id in game.ids:
                for event in store.read(game_id):
                    if event.actor == "system":
                        continue
                    has = "signature" in event.data
                    counts[f"{side}_moves_{'signed' if has else 'unsigned'}"] += 1
    finally:
        client.close()
    return counts


# -- the benchmark ------------------------------------------------------------------------


def run(report: Report, *, config: Config, log: Callable[[str], None]) -> None:
    """Both parts; results in ``report`` under (k)."""
    log(f"(k) in process: best of {config.micro_repeats} x {config.micro_calls} calls each")
    micro = in_process(config)
    log(f"(k) scripting {config.script_length} Arktia actions (in process)")
    script = policy.script(0, config.script_length)
    log(
        f"(k) the app in process: {config.api_rounds} rounds of {config.api_block} signed and "
        f"{config.api_block} unsigned POSTs"
    )
    local = api_in_process(script, config)
    log("(k) starting Redis (AOF, appendfsync always) and gunicorn")
    with Stack() as stack:
        log(f"(k) {config.samples} signed POSTs interleaved with as many unsigned")
        on, off, paired = paired_latency(stack, script, config.samples)
        log(
            f"(k) {config.clients} clients, {config.rounds} rounds of {config.window:.0f}s "
            "windows, signed and unsigned alternating"
        )
        load = Load(stack, script, config)
        windows: list[Window] = []
        reruns = 0
        for round_ in range(config.rounds):
            for signed in (True, False) if round_ % 2 == 0 else (False, True):
                window, again = load.measure(signed, log)
                windows.append(window)
                reruns += again
        stored = stored_signatures(stack, [*paired, *load.games.values()])
    if stored["signed_games_moves_unsigned"] or stored["plain_games_moves_signed"]:
        raise BenchError(f"(k) the logs do not hold what was posted: {stored}")
    if not stored["signed_games_moves_signed"]:
        raise BenchError("(k) no signed move was stored: nothing signed was measured")
    receipted = all(game.receipted for game in [*paired, *load.games.values()])
    _report(report, config, micro, local, on, off, windows, reruns, stored, receipted)


def _report(
    report: Report,
    config: Config,
    micro: dict[str, float],
    local: dict[str, Any],
    on: list[float],
    off: list[float],
    windows: list[Window],
    reruns: int,
    stored: dict[str, int],
    receipted: bool,
) -> None:
    def add(name: str, value: float, unit: str, note: str = "") -> None:
        report.add(Result(GROUP, name, value, unit, note=note))

    add("client: sign a move (PlayerKey.sign_action)", micro["client_sign_action_us"], "µs")
    add("server: check a move's signature (Ed25519 verify)", micro["server_verify_us"], "µs")
    add("action message (canonical JSON)", micro["action_message_us"], "µs")
    add("load a signed body (schema)", micro["load_signed_body_us"], "µs")
    add("load an unsigned body (shortcut)", micro["load_unsigned_body_us"], "µs")
    add("receipt: mark, message, service signature", micro["receipt_us"], "µs")
    ratios = local["round_ratios"]
    add("in process: CPU a POST, signed", local["signed_us"], "µs")
    add("in process: CPU a POST, unsigned", local["unsigned_us"], "µs")
    add(
        "in process: ratio CPU a POST signed / unsigned",
        ratio(local["signed_us"], local["unsigned_us"]),
        "x",
        note=f"rounds {min(ratios):.3f}-{max(ratios):.3f}",
    )

    signed = [w for w in windows if w.signed]
    plain = [w for w in windows if not w.signed]

    def per_move(side: Sequence[Window], attr: str) -> float:
        total = sum(float(getattr(w, attr)) for w in side)
        return 1e6 * total / max(1, sum(w.posts for w in side))

    api_on, api_off = per_move(signed, "api_cpu_s"), per_move(plain, "api_cpu_s")
    per_round = [
        ratio(a.api_cpu_s / max(1, a.posts), b.api_cpu_s / max(1, b.posts))
        for a, b in zip(signed, plain, strict=True)
        if b.api_cpu_s and b.posts
    ]
    spread = f"rounds {min(per_round):.3f}-{max(per_round):.3f}" if per_round else ""
    if reruns:
        spread += f"; {reruns} lopsided window(s) run again"
    add("gunicorn CPU a move, signed", api_on, "µs")
    add("gunicorn CPU a move, unsigned", api_off, "µs")
    add("ratio gunicorn CPU a move signed / unsigned", ratio(api_on, api_off), "x", note=spread)
    add("gunicorn CPU a signed move costs more", api_on - api_off, "µs")
    redis_on, redis_off = per_move(signed, "redis_cpu_s"), per_move(plain, "redis_cpu_s")
    add("Redis CPU a move, signed / unsigned", ratio(redis_on, redis_off), "x")
    rate_on = sum(w.measured for w in signed) / sum(w.seconds for w in signed)
    rate_off = sum(w.measured for w in plain) / sum(w.seconds for w in plain)
    n = config.clients
    add(f"moves/s, signed, {n} clients", rate_on, "moves/s")
    add(f"moves/s, unsigned, {n} clients", rate_off, "moves/s")
    add("ratio moves/s signed / unsigned", ratio(rate_on, rate_off), "x")
    p50_on, p50_off = median(on), median(off)
    add("move p50, signed (one client)", 1000 * p50_on, "ms")
    add("move p50, unsigned (one client)", 1000 * p50_off, "ms")
    add("ratio move p50 signed / unsigned", ratio(p50_on, p50_off), "x")
    report.details["signing"] = {
        "config": config.__dict__,
        "in_process_us": micro,
        "api_in_process": local,
        "paired_latency": {"signed": latency_summary(on), "unsigned": latency_summary(off)},
        "api_cpu_us_per_move": {"signed": api_on, "unsigned": api_off},
        "redis_cpu_us_per_move": {"signed": redis_on, "unsigned": redis_off},
        "windows": [w.to_json() for w in windows],
        "reruns": reruns,
        "stored": stored,
        "answers_carry_receipts": receipted,
    }
