"""The attacks of the availability review, each a context manager: on once it yields (its
pressure ramped up), torn down when the ``with`` ends; what it yields says, at the end,
what the attacker got.

Each attacker has loopback addresses of its own (``127.0.N.M``: all of 127/8 is local on
Linux), apart from the honest probes' (``127.0.0.1``, ``127.0.0.20``): the caps, quotas
and rate limits are per address, and an attack must not be measured by its own limits.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

from bench.attacks.context import Context, Sizes, end_game
from bench.attacks.flooding import Flooder, Request
from bench.attacks.flooding import summary as flood_summary
from bench.attacks.holding import Holder
from bench.attacks.holding import summary as hold_summary
from bench.attacks.probes import BotReplies, Probe, api_memory, growth_under, under
from domain.games.arktia.setup import MAX_BOARD_TILES
from service.api.replays import MAX_REPLAY_BYTES
from tests.support.boards import hexagonish
from tests.support.floe_run import call, new_game, queued_job_ids
from tests.support.waiting import AT_LENGTH, wait_for

MB = 1_000_000
#: The review's junk export: 2 MiB less a few bytes of ``0`` lines, every one parsed.
JUNK_EXPORT = b"0\n" * 1048568
NDJSON = "application/x-ndjson"
MCTS_4 = [{"name": f"m{n}", "bot": "mcts"} for n in range(4)]
Summary = Callable[[], str]


@dataclass(frozen=True)
class Attack:
    name: str
    what: str
    start: Callable[[Context], AbstractContextManager[Summary]]
    #: Probes of its own beside health and a move (made before the idle phase).
    probes: Callable[[Context], list[Probe]] = lambda _: []
    #: Made before the idle phase, so that setting it up is not measured as the attack.
    prepare: Callable[[Context], object] = lambda _: None


def _ramp(holders: list[Holder], sizes: Sizes) -> None:
    """Until every held connection has been tried once (at most a third of the phase)."""
    deadline = time.monotonic() + sizes.seconds / 3
    while not all(holder.ramped() for holder in holders) and time.monotonic() < deadline:
        time.sleep(0.05)  # a poll's pace: the condition decides


@contextmanager
def uploads(ctx: Context) -> Iterator[Summary]:
    """Junk 2 MiB exports, two at once from each of several addresses, and a real long
    export uploaded in a loop from another."""
    port, export = ctx.run.port, ctx.long_game()[2]
    sources = [f"127.0.10.{1 + n // 2}" for n in range(2 * ctx.sizes.upload_addresses)]
    flooders = [
        Flooder(port, sources, lambda: Request("POST", "/v1/replays", JUNK_EXPORT, NDJSON)),
        Flooder(port, ["127.0.10.100"], lambda: Request("POST", "/v1/replays", export, NDJSON)),
    ]
    try:
        begun = len(sources) + 1
        wait_for(lambda: sum(f.sent for f in flooders), begun.__le__, 60, "every upload begun")
        yield (
            lambda: (
                f"junk: {flood_summary(flooders[:1])}; "
                f"long export ({len(export) / MB:.1f} MB): {flood_summary(flooders[1:])}"
            )
        )
    finally:
        for flooder in flooders:
            flooder.close()


def _bot_games(ctx: Context) -> list[str]:
    """The flood's games: four mcts seats each, on the biggest board, from one address."""
    options = {"board": hexagonish(MAX_BOARD_TILES)}
    body = {"game": "arktia", "players": MCTS_4, "options": options}
    ids = []
    for _ in range(ctx.sizes.bot_games):
        reply = call(ctx.run.port, "POST", "/v1/games", body, source="127.0.11.1")
        if reply[0] == 201:
            ids.append(reply[1]["id"])
    return ids


@contextmanager
def bots(ctx: Context) -> Iterator[Summary]:
    """All-mcts games on the biggest board from one address, within its quota; ended by
    the organizer at teardown, and the queues left to drain."""
    games = _bot_games(ctx)
    try:
        yield lambda: f"{len(games)} of {ctx.sizes.bot_games} big mcts games accepted"
    finally:
        decision = {"decision": "result", "winners": [], "reason": "benchmark over"}
        for game_id in games:
            end_game(ctx, game_id, decision)
        queues = ctx.run.queue_redis()
        wait_for(lambda: queued_job_ids(queues), lambda ids: not ids, AT_LENGTH, "queues drain")


def _bot_probe(ctx: Context) -> list[Probe]:
    return [
        Probe(
            "random bot's reply",
            BotReplies(ctx.run.port),
            "p99 < 3 s",
            under(3.0),
            count=ctx.sizes.bot_replies,
        )
    ]


@contextmanager
def slowloris(ctx: Context) -> Iterator[Summary]:
    """Many connections from one address, each trickling a header byte a second."""
    opening = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n"
    holder = Holder(ctx.run.port, "127.0.13.1", ctx.sizes.slowloris, opening, trickle=b"X")
    try:
        _ramp([holder], ctx.sizes)
        yield lambda: hold_summary([holder])
    finally:
        holder.close()


@contextmanager
def streams(ctx: Context) -> Iterator[Summary]:
    """Idle live streams on an idle game, spread over many addresses (each under the
    per-address cap of long requests)."""
    status, game, _ = new_game(ctx.run.port, "arktia", source="127.0.14.250")
    assert status == 201, game
    opening = f"GET /v1/games/{game['id']}/events/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    addresses = ctx.sizes.stream_addresses
    store = ctx.run.redis()
    before, clients = api_memory(ctx.run)(), len(store.client_list())
    holders = [
        Holder(ctx.run.port, f"127.0.14.{1 + n}", ctx.sizes.streams // addresses, opening)
        for n in range(addresses)
    ]
    try:
        _ramp(holders, ctx.sizes)
        deadline = time.monotonic() + ctx.sizes.seconds / 3
        while time.monotonic() < deadline:  # until every stream the server took is answered
            held = sum(holder.answered_now() for holder in holders)
            if held >= min(ctx.sizes.streams, sum(h.open_now() for h in holders)):
                break
            time.sleep(0.05)  # a poll's pace: the condition decides
        per_stream = (api_memory(ctx.run)() - before) / max(1, held)
        more_clients = len(store.client_list()) - clients
        yield (
            lambda: (
                f"{hold_summary(holders)}; once ramped, about {per_stream / 1024:.1f} KiB of API "
                f"memory a held stream and {more_clients} more Redis connections in all"
            )
        )
    finally:
        for holder in holders:
            holder.close()


@contextmanager
def read_ahead(ctx: Context) -> Iterator[Summary]:
    """Requests to health and to a move route declaring a 2 MiB body and sending all but
    its last bytes, held open (and reopened when the server closes them)."""
    game_id = new_game(ctx.run.port, "arktia", source="127.0.15.250")[1]["id"]
    length = MAX_REPLAY_BYTES
    body = b"{" + b" " * (length - 64)
    routes = ["GET /v1/health", f"POST /v1/games/{game_id}/actions"]
    holders = []
    per_address = ctx.sizes.read_ahead // ctx.sizes.read_ahead_addresses
    for n in range(ctx.sizes.read_ahead_addresses):
        head = (
            f"{routes[n % 2]} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n"
        ).encode()
        holders.append(Holder(ctx.run.port, f"127.0.15.{1 + n}", per_address, head + body))
    try:
        _ramp(holders, ctx.sizes)
        yield lambda: hold_summary(holders)
    finally:
        for holder in holders:
            holder.close()


def _memory_probe(ctx: Context) -> list[Probe]:
    limit = 150 * MB
    return [
        Probe(
            "API memory (all processes)",
            api_memory(ctx.run),
            "growth < 150 MB",
            growth_under(limit),
            unit="MB",
            count=8,
            background=True,
            pace=0.25,
        )
    ]


@contextmanager
def boards(ctx: Context) -> Iterator[Summary]:
    """Pictures of a long game's past versions, random ones (no cache helps), from several
    addresses, each at 90% of its rate limit (as the requests are counted, not as the
    pictures cost)."""
    game_id, last, _ = ctx.long_game()
    per_address = ctx.settings.rate_limit_per_address / ctx.settings.rate_limit_window_seconds
    threads = 4  # per address: enough to reach the pace while pictures take ~10 ms
    pace = threads / (0.9 * per_address) if per_address else 0.0
    sources = [f"127.0.16.{1 + n // threads}" for n in range(threads * ctx.sizes.board_addresses)]
    path = f"/v1/games/{game_id}/board.svg?version="
    pick = random.Random(27)
    flooder = Flooder(
        ctx.run.port, sources, lambda: Request("GET", f"{path}{pick.randint(1, last)}"), pace
    )
    try:
        yield lambda: flood_summary([flooder])
    finally:
        flooder.close()


ATTACKS = [
    Attack(
        "uploads",
        "2 MiB junk exports (b'0\\n' x 1048568), two at once per address, and a real long "
        "export in a loop",
        uploads,
        prepare=Context.long_game,
    ),
    Attack("slowloris", "connections from one address trickling header bytes", slowloris),
    Attack("streams", "idle live streams from many addresses", streams),
    Attack(
        "read-ahead",
        "bodies declared 2 MiB on health and a move route, all but 64 bytes sent, held",
        read_ahead,
        probes=_memory_probe,
    ),
    Attack(
        "boards",
        "board.svg of random past versions at the rate limit",
        boards,
        prepare=Context.long_game,
    ),
    Attack(
        "bots",
        "four-seat all-mcts Arktia games on the biggest board from one address",
        bots,
        probes=_bot_probe,
    ),
]
NAMES = [attack.name for attack in ATTACKS]
