"""(f) Memory: what a game costs Redis, and what serving many large games costs a process.

``.venv/bin/python -m bench.memory`` (or ``python -m bench --only f``) starts a private
redis-server and builds Floe on it as the other in-process parts do (``bench.in_process``: the
tests' ``RedisServer`` in memory, a free port on 127.0.0.1, never 6379; jobs only counted)
and measures:

(a) **Redis bytes per finished game**: seeded random games of each kind (Arktia on its
    published board and on a 200-tile board, Iceberg, Ice Breakers) are played to the end
    through the service's own command path, draws made as the worker makes them, then
    ``MEMORY USAGE <key> SAMPLES 0`` is summed over the game's keys (``service/store/events.py``:
    ``events_key``, ``meta_key``, ``seed_key``, ``commands_key``); the game's entry in the
    ``floe:games`` index and the growth of ``used_memory`` are reported beside it. Job keys
    (RQ's, transient) are not counted: the jobs go to a queue that only counts them.

    The same pass measures **bytes per cached game in a worker process**: ``floe worker``
    builds its repository with ``service.bootstrap.build`` as this does, so each finished
    game's entry in ``StateCache`` (its head and its snapshots, every ``SNAPSHOT_EVERY``
    versions) is what a worker holds for it, measured with ``deep_size`` the way the cache
    charges it (head and each snapshot apart, plus ``ENTRY_OVERHEAD``); the cache's own
    running estimate and the catalog's (game metadata) are reported beside it. With the bound
    in force (``FLOE_CACHE_BYTES`` as ``floe worker`` reads it, default 256 MiB, of which
    states get all but a sixteenth) that gives how many such games a process holds.

(b) **A process's RSS serving N large-board games**, once with the byte-bounded cache
    (``--rss-budget``) and once with an unbounded one (the peer), each in a fresh child
    process under the same load: N 4-seat games on a 200-tile board, each created and played
    ``--moves`` random legal moves, then a second pass of ``--revisit`` moves in every game
    (which refolds the evicted ones from Redis). RSS (``/proc/self/statm``) is read after a
    warm-up game and after the load, after ``gc.collect()``. The caches' own estimate is
    printed beside the growth, to show how honest it is.

``python -m bench`` runs a quick form (``quick()``, about 15 s, in the default set as (f)):
2 games of each kind for (a), and only the bounded peer for (b), on a small budget that a
few hundred games overflow several times; ``--memory-full`` (or this module) runs all of it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import redis

from bench.in_process import counting_floe, ephemeral_redis
from bench.report import Report, Result
from domain.engine import play
from domain.engine.status import GameStatus
from domain.games.arktia.setup import MAX_BOARD_TILES
from service.bootstrap import Floe
from service.caching.sizes import ENTRY_OVERHEAD, deep_size
from service.games.access import Viewer
from service.games.commands import CreateGame, NewPlayer, PlayAction
from service.games.repository import CATALOG_SHARE
from service.games.state_cache import SNAPSHOT_EVERY
from service.settings import Settings
from service.store.events import GAMES_INDEX, commands_key, events_key, meta_key, seed_key
from tests.support.boards import hexagonish

MIB = 1024 * 1024
#: What (a) plays: label, game, options, seats.
KINDS: list[tuple[str, str, dict[str, Any], int]] = [
    ("Arktia, 36-tile board, 2 seats", "arktia", {}, 2),
    ("Arktia, 200-tile board, 4 seats", "arktia", {"board": "big"}, 4),
    ("Iceberg, 2 seats", "iceberg", {}, 2),
    ("Ice Breakers, 3 seats", "ice-breakers", {}, 3),
]
#: The unbounded peer's budget: more than any load here can fill.
UNBOUNDED = 1 << 50


def new_game(floe: Floe, game: str, options: dict[str, Any], seats: int) -> str:
    if options.get("board") == "big":
        options = {**options, "board": hexagonish(MAX_BOARD_TILES)}
    players = tuple(NewPlayer(f"p{i}") for i in range(seats))
    game_id = floe.commands.create(CreateGame(game, players, options), Viewer()).id
    draws(floe, game_id)
    return game_id


def draws(floe: Floe, game_id: str) -> None:
    """Make every draw the game awaits, as the worker would."""
    meta = floe.repository.meta(game_id)
    state = floe.repository.latest(meta)
    while play.status(meta.rules, state) == GameStatus.AWAITING_RANDOM:
        floe.automation.resolve_draw(game_id, state.version)
        state = floe.repository.latest(meta)


def play_moves(floe: Floe, game_id: str, moves: int | None, chooser: random.Random) -> int:
    """Random legal moves (retiring rarely) until ``moves`` are made or the game is over;
    each through ``GameCommands.play`` with a client's command id. Returns moves made."""
    meta = floe.repository.meta(game_id)
    made = 0
    while moves is None or made < moves:
        state = floe.repository.latest(meta)
        seats = play.to_act(meta.rules, state)
        if state.over or not seats:
            break
        seat = chooser.choice(seats)
        actions = play.legal_actions(meta.rules, state, seat)
        weights = [0.02 if a.type == "retire" else 1.0 for a in actions]
        action = chooser.choices(actions, weights)[0].to_json()
        floe.commands.play(meta, PlayAction(seat, action, state.version, f"c{state.version}"))
        draws(floe, game_id)
        made += 1
    return made


# ----- (a) Redis bytes per game ---------------------------------------------------------------


def memory_usage(client: redis.Redis, key: str) -> int:
    value: Any = client.memory_usage(key, samples=0)  # every element, not a sample
    return int(value or 0)


def game_bytes(client: redis.Redis, game_id: str) -> int:
    keys = (events_key(game_id), meta_key(game_id), seed_key(game_id), commands_key(game_id))
    return sum(memory_usage(client, key) for key in keys)


def cached_bytes(floe: Floe, game_id: str) -> tuple[int, int]:
    """The game's entry in the process's ``StateCache`` measured afresh, as the cache charges
    it: ``ENTRY_OVERHEAD`` + ``deep_size`` of the head + of each snapshot, each apart (so what
    a snapshot shares with the head counts twice, as it does in the cache). Returns (that
    total, the snapshots' part)."""
    states = floe.repository.states
    head = states.head(game_id)
    if head is None:
        raise RuntimeError(f"game {game_id} is not cached")
    snapshots = 0
    for version in range(SNAPSHOT_EVERY, head.state.version + 1, SNAPSHOT_EVERY):
        snapshot = states.nearest(game_id, version)
        if snapshot is not None and snapshot.version == version:
            snapshots += deep_size(snapshot)
    return ENTRY_OVERHEAD + deep_size(head) + snapshots, snapshots


def redis_per_game(
    client: redis.Redis, games: int, log: Callable[[str], None]
) -> list[dict[str, Any]]:
    """Per kind: Redis bytes per finished game, and what the finished game costs the
    repository's caches in this process (which, like a worker's, holds every game it
    played: the budget here is 256 MiB)."""
    floe = counting_floe(client, cache_bytes=256 * MIB)
    states, catalog = floe.repository.states, floe.repository.catalog
    rows = []
    for label, game, options, seats in KINDS:
        client.flushall()
        used_before = int(client.info("memory")["used_memory"])
        charged_before, catalog_before = states.bytes, catalog.bytes
        sizes: list[int] = []
        events: list[int] = []
        cached: list[int] = []
        snapshots: list[int] = []
        for seed in range(games):
            game_id = new_game(floe, game, options, seats)
            play_moves(floe, game_id, None, random.Random(seed))
            assert floe.repository.latest(floe.repository.meta(game_id)).over
            sizes.append(game_bytes(client, game_id))
            events.append(int(client.xlen(events_key(game_id))))
            total, in_snapshots = cached_bytes(floe, game_id)
            cached.append(total)
            snapshots.append(in_snapshots)
        used_after = int(client.info("memory")["used_memory"])
        index = memory_usage(client, GAMES_INDEX) / games
        row: dict[str, Any] = {
            "kind": label,
            "games": games,
            "bytes_mean": statistics.mean(sizes),
            "bytes_max": max(sizes),
            "events_mean": statistics.mean(events),
            "bytes_per_event": sum(sizes) / sum(events),
            "index_bytes_per_game": index,
            "used_memory_per_game": (used_after - used_before) / games,
            "cached_bytes_mean": statistics.mean(cached),
            "cached_bytes_max": max(cached),
            "cached_snapshot_bytes_mean": statistics.mean(snapshots),
            "cache_estimate_per_game": (states.bytes - charged_before) / games,
            "catalog_bytes_per_game": (catalog.bytes - catalog_before) / games,
        }
        log(
            f"(f) {label}: {row['bytes_mean'] / 1024:.1f} KiB a game in Redis (max "
            f"{row['bytes_max'] / 1024:.1f}), {row['events_mean']:.0f} events; "
            f"{row['cached_bytes_mean'] / 1024:.1f} KiB cached in the process"
        )
        rows.append(row)
    client.flushall()
    return rows


# ----- (b) RSS of a process serving many large games ---------------------------------------


def rss_bytes() -> int:
    """This process's resident set now (Linux), else its peak."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def serve(url: str, cache_bytes: int, games: int, moves: int, revisit: int) -> dict[str, Any]:
    """The child's load (one process, one peer): returns its numbers."""
    client = redis.Redis.from_url(url)
    floe = counting_floe(client, cache_bytes=cache_bytes)
    warm = new_game(floe, "arktia", {"board": "big"}, 4)
    play_moves(floe, warm, moves + revisit, random.Random(-1))
    gc.collect()
    before = rss_bytes()
    started = time.perf_counter()
    made = 0
    ids = []
    for number in range(games):
        ids.append(new_game(floe, "arktia", {"board": "big"}, 4))
        made += play_moves(floe, ids[-1], moves, random.Random(number))
    first_pass = time.perf_counter() - started
    for number, game_id in enumerate(ids):
        made += play_moves(floe, game_id, revisit, random.Random(games + number))
    elapsed = time.perf_counter() - started
    gc.collect()
    after = rss_bytes()
    states, catalog = floe.repository.states, floe.repository.catalog
    return {
        "cache_bytes": cache_bytes,
        "games": games,
        "moves": made,
        "rss_before": before,
        "rss_after": after,
        "rss_growth": after - before,
        "estimate_states": states.bytes,
        "estimate_catalog": catalog.bytes,
        "games_cached": len(states.games()),
        "first_pass_s": first_pass,
        "elapsed_s": elapsed,
        "ms_per_move": 1000 * elapsed / max(1, made),
    }


def rss_peers(
    url: str,
    budget: int,
    games: int,
    moves: int,
    revisit: int,
    log: Callable[[str], None],
    *,
    unbounded: bool = True,
) -> list[dict[str, Any]]:
    rows = []
    peers = [("bounded", budget)] + ([("unbounded", UNBOUNDED)] if unbounded else [])
    for name, cache_bytes in peers:
        log(f"(f) RSS: {name} cache, {games} games of 200 tiles ({moves} + {revisit} moves)")
        argv = [
            sys.executable, "-m", "bench.memory", "--child", url,
            "--cache-bytes", str(cache_bytes), "--rss-games", str(games),
            "--moves", str(moves), "--revisit", str(revisit),
        ]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        row = {"peer": name, **json.loads(done.stdout)}
        log(
            f"(f) {name}: RSS +{row['rss_growth'] / MIB:.1f} MiB, estimate "
            f"{(row['estimate_states'] + row['estimate_catalog']) / MIB:.1f} MiB, "
            f"{row['games_cached']} games cached, {row['ms_per_move']:.2f} ms a move"
        )
        rows.append(row)
    return rows


# ----- the report -----------------------------------------------------------------------------


#: How far a bounded process's RSS growth may pass its budget: the estimate is a few percent
#: under the RSS it stands for, and the allocator keeps some freed memory (BENCHMARKS.md).
RSS_SLACK = 1.25


def run(
    report: Report,
    *,
    games: int = 5,
    rss_games: int = 2000,
    rss_budget: int = 16 * MIB,
    moves: int = 20,
    revisit: int = 5,
    unbounded: bool = True,
    log: Callable[[str], None] = print,
) -> None:
    bound = Settings.from_env().cache_bytes  # FLOE_CACHE_BYTES, as floe worker reads it
    with ephemeral_redis("floe-bench-memory-") as server:
        client = server.client()
        try:
            per_game = redis_per_game(client, games, log)
            peers = rss_peers(
                server.url, rss_budget, rss_games, moves, revisit, log, unbounded=unbounded
            )
        finally:
            client.close()
    group = "(f) memory"
    states_bound = bound - bound // CATALOG_SHARE
    for row in per_game:
        row["games_at_bound"] = states_bound / row["cached_bytes_mean"]
        # The catalog's share evicts metadata only (a re-read of a small hash, not a refold).
        row["catalog_games_at_bound"] = (bound // CATALOG_SHARE) / row["catalog_bytes_per_game"]
    report.add(Result(group, "cache bound in force (FLOE_CACHE_BYTES)", bound, "B"))
    for row in per_game:
        kind = row["kind"]
        report.add(Result(group, f"Redis per finished game: {kind}", row["bytes_mean"], "B"))
        report.add(
            Result(group, f"cached per game in a worker: {kind}", row["cached_bytes_mean"], "B")
        )
        report.add(Result(group, f"games at the bound: {kind}", row["games_at_bound"], "games"))
    for row in peers:
        report.add(Result(group, f"RSS growth, {row['peer']} cache", row["rss_growth"], "B"))
        if row["peer"] == "bounded":
            report.add(
                Result(
                    group,
                    f"RSS growth / budget, {row['games']} games served, {row['games_cached']} fit",
                    row["rss_growth"] / row["cache_bytes"],
                    "x",
                    RSS_SLACK,
                    "<=",
                    note=f"budget {row['cache_bytes'] / MIB:g} MiB, 4-seat 200-tile games",
                )
            )
    report.details["memory"] = {
        "cache_bound": bound,
        "states_bound": states_bound,
        "redis_per_game": per_game,
        "rss": peers,
    }


def quick(report: Report, *, log: Callable[[str], None] = print) -> None:
    """The form in ``python -m bench``'s default set: about 15 s."""
    run(report, games=2, rss_games=250, rss_budget=4 * MIB, moves=6, revisit=2,
        unbounded=False, log=log)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__)
    parser.add_argument("--games", type=int, default=5, help="(a) finished games per kind")
    parser.add_argument("--rss-games", type=int, default=2000, help="(b) 200-tile games served")
    parser.add_argument(
        "--rss-budget", type=int, default=16 * MIB, help="(b) the bounded peer's cache bytes"
    )
    parser.add_argument("--moves", type=int, default=20, help="(b) moves per game, first pass")
    parser.add_argument("--revisit", type=int, default=5, help="(b) moves per game, second pass")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the quick form of python -m bench (other knobs ignored)",
    )
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--child", metavar="REDIS_URL", help=argparse.SUPPRESS)
    parser.add_argument("--cache-bytes", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        numbers = serve(args.child, args.cache_bytes, args.rss_games, args.moves, args.revisit)
        print(json.dumps(numbers))
        return 0

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    report = Report()
    if args.quick:
        quick(report, log=log)
    else:
        run(
            report,
            games=args.games,
            rss_games=args.rss_games,
            rss_budget=args.rss_budget,
            moves=args.moves,
            revisit=args.revisit,
            log=log,
        )
    details = report.details["memory"]
    print(f"{'Redis per finished game':34} {'mean KiB':>9} {'max KiB':>8} {'events':>7} "
          f"{'B/event':>8} {'used_memory KiB':>16}")  # fmt: skip
    for row in details["redis_per_game"]:
        print(
            f"{row['kind']:34} {row['bytes_mean'] / 1024:9.1f} {row['bytes_max'] / 1024:8.1f} "
            f"{row['events_mean']:7.0f} {row['bytes_per_event']:8.0f} "
            f"{row['used_memory_per_game'] / 1024:16.1f}"
        )
    bound = details["cache_bound"]
    print(f"\n{'Cached in a worker, per game':34} {'mean KiB':>9} {'max KiB':>8} "
          f"{'snapshots':>9} {'estimate':>8} {'catalog':>8} {'at the bound':>13}")  # fmt: skip
    for row in details["redis_per_game"]:
        print(
            f"{row['kind']:34} {row['cached_bytes_mean'] / 1024:9.1f} "
            f"{row['cached_bytes_max'] / 1024:8.1f} "
            f"{row['cached_snapshot_bytes_mean'] / 1024:9.1f} "
            f"{row['cache_estimate_per_game'] / 1024:8.1f} "
            f"{row['catalog_bytes_per_game'] / 1024:8.1f} {row['games_at_bound']:13,.0f}"
        )
    print(f"(KiB; the bound in force, FLOE_CACHE_BYTES: {bound / MIB:g} MiB, states get "
          f"{details['states_bound'] / MIB:g} MiB of it)")  # fmt: skip
    served = details["rss"][0]["games"]
    print(f"\n{'RSS, ' + str(served) + ' 200-tile games':34} {'growth MiB':>10} "
          f"{'estimate MiB':>12} {'cached':>7} {'ms/move':>8}")  # fmt: skip
    for row in details["rss"]:
        estimate = (row["estimate_states"] + row["estimate_catalog"]) / MIB
        budget = "" if row["cache_bytes"] >= UNBOUNDED else f" ({row['cache_bytes'] / MIB:g} MiB)"
        print(
            f"{row['peer'] + budget:34} {row['rss_growth'] / MIB:10.1f} "
            f"{estimate:12.1f} {row['games_cached']:7d} {row['ms_per_move']:8.2f}"
        )
    if args.json:
        args.json.write_text(json.dumps(details, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
