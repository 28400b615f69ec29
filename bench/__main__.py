"""Entry point of ``make bench``: run (a) throughput, (b) latency vs version, (c) folding.

The default set is (a)-(f), (i) (``bench.clocks``: timeout lateness with 1,000 running
clocks, and what a clock costs a move), (j) (``bench.pairings``: seat balance and repeated
tables of simulated swiss and round-robin events, the pairings before seat balancing against
those of now, in process), (k) (``bench.signing``: server CPU a move for signed posts
against unsigned ones in the same run, and Ed25519's cost in process) and (l)
(``bench.sweeping``: a sweep's reads with 200 live games as finished ones pile up, against
reading every game's record) and (m) (``bench.archiving``: 10,000 short bot games through a
real ``floe run`` with archiving on, Redis's memory after the first 500 and at the end);
(g) and (h) run when asked for (``--only``).

(a) puts Floe's move path beside a bare XADD route and beside boardgame.io 0.50.2 (in-memory
and FlatFile stores, ``bench.peer``: needs ``node`` and ``npm``, and ``npm ci``s
``bench/peer`` on first use; without them it says "not measured" and goes on), and the
socket path beside its own bare route (``bench.sockets``, Node too; ``--no-sockets`` skips
it), then runs the same again pinned, server on one core and load on another
(``--no-pinned`` skips it).

Every duration and size is a flag (and an environment variable, for ``make bench``), so a
quick pass and a careful one are the same code. Prints a table and writes the JSON report.

Not in this set: ``python -m bench.attacks`` (``make bench-attacks``) times honest clients under
each hostile load; ``python -m bench.servers`` (``make bench-servers``) weighs HTTP servers for
the app, and ``python -m bench.profile_post`` splits a move's CPU by package.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import itertools
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench import (
    archiving,
    clocks,
    cluster,
    dice,
    folding,
    latency,
    memory,
    pairings,
    policy,
    signing,
    sweeping,
    throughput,
    tournament,
    verifying,
)
from bench.report import Report, git_state, load_average, machine, table
from bench.stack import Stack

RESULTS = Path(__file__).resolve().parent / "results"
#: Seed of the long game's script (b) and its events (c); the clients of (a) use 0..15.
LONG_GAME_SEED = 1000


def _env(name: str, default: str) -> str:
    return os.environ.get(name) or default


def _csv_ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Floe benchmarks: (a) HTTP and socket throughput vs bare XADD routes and "
        "boardgame.io (also pinned: server on one core, load on another), (b) POST latency "
        "at version ~10 vs 2,000/5,000, (c) events/s of play.fold, (d) dice and bot moves "
        "through the job workers, (e) floe replay verify over a thousand games, and a 64-bot "
        "swiss with and without bot replay; (f) memory: "
        "Redis bytes per game, bytes per cached game, RSS with a bounded cache (quick form; "
        "--memory-full for all of it); (g) a 64-bot swiss tournament on 1, 2 and 4 job "
        "workers; (h) Floe on a Redis Cluster against one Redis (g and h are not in the "
        "default set: --only g, --only h); (i) clocks: timeout lateness with 1,000 running "
        "clocks, and moves with a clock against moves without; (j) pairings: seat balance and "
        "repeated tables over simulated tournaments, before and after seat balancing; (k) "
        "signing: server CPU a move, signed posts against unsigned, and Ed25519 in process; (l) "
        "sweeping: a sweep's reads as finished games pile up (0, 5,000, 20,000); (m) archiving: "
        "10,000 short bot games through floe run with archiving on, Redis memory early and "
        "late, the archive's size.",
    )
    parser.add_argument("--quick", action="store_true", help="short runs (about 1 minute)")
    parser.add_argument(
        "--only",
        type=_csv,
        default=_csv(_env("BENCH_ONLY", "a,b,c,d,e,f,i,j,k,l,m")),
        help="which benchmarks, e.g. a,c (env BENCH_ONLY)",
    )
    parser.add_argument(
        "--clients",
        type=int,
        default=int(_env("BENCH_CLIENTS", "16")),
        help="(a) concurrent clients, one game each (env BENCH_CLIENTS)",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        help="(a) seconds measured per load and fsync policy (env BENCH_DURATION; 12, quick 3)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="(a) windows the duration is split into, order rotated per round (4, quick 2)",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=None,
        help="(a) unmeasured seconds before each window (0.5)",
    )
    parser.add_argument(
        "--script-length",
        type=int,
        default=None,
        help="(a) scripted actions per client before it starts a new game",
    )
    parser.add_argument(
        "--fsync",
        type=_csv,
        default=_csv(_env("BENCH_FSYNC", "always,everysec")),
        help="(a) Redis appendfsync policies to run (env BENCH_FSYNC)",
    )
    parser.add_argument(
        "--no-legal-get",
        dest="legal_get",
        action="store_false",
        help="(a) skip the phase that also GETs legal-actions before each POST",
    )
    parser.add_argument(
        "--bgio",
        action=argparse.BooleanOptionalAction,
        default=_env("BENCH_BGIO", "1") != "0",
        help="(a) also measure boardgame.io 0.50.2 (bench/peer, needs node and npm; "
        "env BENCH_BGIO=0 to skip)",
    )
    parser.add_argument(
        "--sockets",
        action=argparse.BooleanOptionalAction,
        default=_env("BENCH_SOCKETS", "1") != "0",
        help="(a) also measure the socket path: the bare socket route, Floe's socket and a "
        "bot's loop on it (bench/sockets.py, driven from Node; env BENCH_SOCKETS=0 to skip)",
    )
    parser.add_argument(
        "--pinned",
        action=argparse.BooleanOptionalAction,
        default=_env("BENCH_PINNED", "1") != "0",
        help="(a) also run fsync always with the server on one core and the load on another "
        "(skipped below 2 cores; env BENCH_PINNED=0 to skip)",
    )
    parser.add_argument(
        "--pinned-rounds",
        type=int,
        default=None,
        help="(a) rounds of the pinned variant, same window length (half of --rounds, min 2)",
    )
    parser.add_argument(
        "--samples", type=int, default=None, help="(b) POSTs measured per version (200, quick 100)"
    )
    parser.add_argument(
        "--versions",
        type=_csv_ints,
        default=None,
        help="(b) long-game versions to measure at (2000,5000; quick 2000)",
    )
    parser.add_argument(
        "--fold-events", type=int, default=None, help="(c) events folded (5000, quick 2000)"
    )
    parser.add_argument("--fold-repeats", type=int, default=10, help="(c) best of this many")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="(c) also write a cProfile of one fold and one decode + fold next to the JSON",
    )
    parser.add_argument(
        "--dice-duration",
        type=float,
        default=10.0,
        help="(d) seconds of 16-client rolling, and of 16 bot games playing",
    )
    parser.add_argument("--dice-samples", type=int, default=200, help="(d) rolls timed alone")
    parser.add_argument("--dice-workers", type=int, default=1, help="(d) floe worker processes")
    parser.add_argument(
        "--dice-backlog",
        type=int,
        default=2000,
        help="(d) deals queued while the workers are stopped, then timed as they drain",
    )
    parser.add_argument(
        "--dice-queue",
        choices=("memory", "store"),
        default=_env("BENCH_DICE_QUEUE", "memory"),
        help="(d) where the job queues live: a Redis of their own in memory, as floe run "
        "starts it, or the event store's (env BENCH_DICE_QUEUE)",
    )
    parser.add_argument(
        "--verify-games", type=int, default=1000, help="(e) finished games to verify"
    )
    parser.add_argument(
        "--verify-bots",
        type=int,
        default=64,
        help="(e) bots of the swiss verified with and without bot replay (0: skip it)",
    )
    parser.add_argument(
        "--verify-bot-rounds",
        type=int,
        default=None,
        help="(e) rounds of that swiss (6, quick 2)",
    )
    parser.add_argument(
        "--memory-full",
        action="store_true",
        help="(f) the whole of python -m bench.memory (about 2 minutes), not its quick form",
    )
    parser.add_argument(
        "--clock-games",
        type=int,
        default=None,
        help="(i) clocked games left to time out (1000, quick 250)",
    )
    parser.add_argument(
        "--clock-move-s",
        type=_csv_ints,
        default=None,
        help="(i) MIN,MAX of their per_move clocks, spread over the games (5,20; quick 3,8)",
    )
    parser.add_argument(
        "--clock-background",
        type=int,
        default=None,
        help="(i) games whose hour-long clocks run beside them throughout (1000, quick 250)",
    )
    parser.add_argument(
        "--pairing-events",
        type=int,
        default=None,
        help="(j) simulated events per format (200, quick 40)",
    )
    parser.add_argument(
        "--signing-windows",
        type=int,
        default=None,
        help="(k) rounds of a signed and an unsigned window each (4, quick 2)",
    )
    parser.add_argument(
        "--archive-games",
        type=int,
        default=None,
        help="(m) bot games played through floe run (10000, quick 2000)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS / "latest.json")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    quick = args.quick
    if args.duration is None:
        args.duration = float(_env("BENCH_DURATION", "3" if quick else "12"))
    if args.rounds is None:
        args.rounds = 2 if quick else 4
    if args.warmup is None:
        args.warmup = 0.5
    if args.samples is None:
        args.samples = 100 if quick else 200
    if args.versions is None:
        args.versions = [2000] if quick else [2000, 5000]
    if args.verify_bot_rounds is None:
        args.verify_bot_rounds = 2 if quick else 6
    if args.fold_events is None:
        args.fold_events = 2000 if quick else 5000
    if args.script_length is None:
        args.script_length = 120 if quick else 250
    if args.clock_move_s is not None and (
        len(args.clock_move_s) != 2 or not 1 <= args.clock_move_s[0] <= args.clock_move_s[1]
    ):
        parser.error("--clock-move-s takes MIN,MAX with 1 <= MIN <= MAX")
    return args


def clocks_config(args: argparse.Namespace) -> clocks.Config:
    """(i)'s sizes: its quick or full form, with the games and clocks asked for."""
    config = clocks.Config.quick() if args.quick else clocks.Config()
    if args.clock_games is not None:
        config = dataclasses.replace(config, games=args.clock_games)
    if args.clock_move_s is not None:
        low, high = args.clock_move_s
        config = dataclasses.replace(config, move_s_min=low, move_s_max=high)
    if args.clock_background is not None:
        config = dataclasses.replace(config, background=args.clock_background)
    return config


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    began = time.monotonic()

    def log(message: str) -> None:
        print(f"[{time.monotonic() - began:6.1f}s] {message}", file=sys.stderr, flush=True)

    report = Report()
    load_before = load_average()
    cores = os.cpu_count() or 1
    if load_before is not None and load_before > 0.5 * cores:
        log(f"warning: load average {load_before:.2f} on {cores} cores before starting")
    run_a, run_b, run_c = ("a" in args.only), ("b" in args.only), ("c" in args.only)
    run_d, run_e = "d" in args.only, "e" in args.only

    long_steps: list[policy.Step] = []
    long_events = [policy.created_event()]
    if run_b or run_c:
        needed = max(
            max(args.versions) + args.samples + 10 if run_b else 0,
            args.fold_events if run_c else 0,
        )
        log(f"scripting one long game ({needed} actions, in process)")
        for step, event in itertools.islice(policy.steps(LONG_GAME_SEED), needed):
            long_steps.append(step)
            long_events.append(event)
        if len(long_steps) < needed:
            log(f"warning: the scripted game ended after {len(long_steps)} actions")

    if run_c:
        log(f"(c) folding {args.fold_events} events, best of {args.fold_repeats}")
        profile = args.output.parent / "fold-profile.txt" if args.profile else None
        if profile is not None:
            profile.parent.mkdir(parents=True, exist_ok=True)
        folding.run(
            report,
            events=long_events[: args.fold_events],
            repeats=args.fold_repeats,
            profile_to=profile,
        )

    if run_e:
        verifying.run(
            report, games=args.verify_games, events=100, jobs=os.cpu_count() or 1, log=log
        )
        if args.verify_bots:
            verifying.run_bots(
                report,
                players=args.verify_bots,
                rounds=args.verify_bot_rounds,
                repeats=1 if args.quick else 2,
                log=log,
            )

    if "f" in args.only:  # python -m bench.memory --help for its knobs
        if args.memory_full:
            memory.run(report, log=log)
        else:
            memory.quick(report, log=log)

    if "g" in args.only:  # python -m bench.tournament --help for its knobs
        quick = args.quick  # 16 bots, 3 rounds: about a minute
        tournament.run(report, count=16 if quick else 64, rounds=3 if quick else 6, log=log)

    if "h" in args.only:  # python -m bench.cluster --help for its knobs
        config = cluster.Config.quick() if args.quick else cluster.Config()
        cluster.run(report, config=config, log=log)

    if "i" in args.only:  # its own floe run-like stack: bench/clocks.py says what it measures
        # One address makes a thousand live games: no per-creator quotas (as below).
        os.environ.setdefault("FLOE_LIVE_GAMES_PER_CREATOR", "0")
        os.environ.setdefault("FLOE_STORED_BYTES_PER_CREATOR", "0")
        os.environ.setdefault("FLOE_BOT_GAMES_PER_CREATOR", "0")
        clocks.run(report, config=clocks_config(args), log=log)

    if "j" in args.only:  # in process; python -m bench.pairings --help for its knobs
        simulated = pairings.Config.quick() if args.quick else pairings.Config()
        if args.pairing_events is not None:
            simulated = dataclasses.replace(simulated, events=args.pairing_events)
        pairings.run(report, config=simulated, log=log)

    if "k" in args.only:  # its own stack; bench/signing.py says what it measures
        os.environ.setdefault("FLOE_LIVE_GAMES_PER_CREATOR", "0")
        os.environ.setdefault("FLOE_STORED_BYTES_PER_CREATOR", "0")
        os.environ.setdefault("FLOE_BOT_GAMES_PER_CREATOR", "0")
        measured = signing.Config.quick() if args.quick else signing.Config()
        if args.signing_windows is not None:
            measured = dataclasses.replace(measured, rounds=args.signing_windows)
        signing.run(report, config=measured, log=log)

    if "l" in args.only:  # its own Redis; bench/sweeping.py says what it measures
        swept = sweeping.Config.quick() if args.quick else sweeping.Config()
        sweeping.run(report, config=swept, log=log)

    if "m" in args.only:  # its own floe run; bench/archiving.py says what it measures
        archived = archiving.Config.quick() if args.quick else archiving.Config()
        if args.archive_games is not None:
            archived = dataclasses.replace(
                archived, games=args.archive_games, early=min(archived.early, args.archive_games)
            )
        archiving.run(report, config=archived, log=log)

    scripts: list[list[policy.Step]] = []
    if run_a:
        log(f"scripting {args.clients} games of {args.script_length} actions (in process)")
        scripts = throughput.make_scripts(args.clients, args.script_length)

    command: list[str] = []
    if run_a or run_b or run_d:
        log("starting Redis (AOF, appendfsync always) and gunicorn")
        # Every client is 127.0.0.1 and (a) makes hundreds of games: no per-creator quotas
        # (gunicorn reads them from the environment, as it does the rate limits).
        os.environ.setdefault("FLOE_LIVE_GAMES_PER_CREATOR", "0")
        os.environ.setdefault("FLOE_STORED_BYTES_PER_CREATOR", "0")
        os.environ.setdefault("FLOE_BOT_GAMES_PER_CREATOR", "0")
        queue = args.dice_queue if run_d else "store"
        with dice.queue_redis(queue) as queue_url, Stack() as stack:
            command = stack.command
            if run_b:
                latency.run(
                    stack,
                    report,
                    script=long_steps,
                    samples=args.samples,
                    window=20,
                    targets=args.versions,
                    log=log,
                )
            if run_d:
                dice.run(
                    stack,
                    report,
                    clients=args.clients,
                    duration=args.dice_duration,
                    samples=args.dice_samples,
                    workers=args.dice_workers,
                    queue=queue_url,
                    backlog=args.dice_backlog,
                    log=log,
                )
            if run_a:
                throughput.run(
                    stack,
                    report,
                    scripts=scripts,
                    duration=args.duration,
                    rounds=args.rounds,
                    warmup=args.warmup,
                    fsync_policies=args.fsync,
                    legal_get=args.legal_get,
                    log=log,
                    bgio=args.bgio,
                    socket=args.sockets,
                    pinned=args.pinned,
                    pinned_rounds=args.pinned_rounds,
                )

    elapsed = time.monotonic() - began
    load_after = load_average()
    print(table(report.results))
    before = "?" if load_before is None else f"{load_before:.2f}"
    print(f"\ntotal {elapsed:.0f}s; 1-minute load average {before} before the run")
    if load_before is not None and load_before > 0.5 * cores:
        print(f"note: the machine was busy before the run ({cores} cores): numbers are noisy")
    document = {
        "command": " ".join([Path(sys.executable).name, "-m", "bench", *sys.argv[1:]]),
        "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "elapsed_s": elapsed,
        "machine": {**machine(), "loadavg_before": load_before, "loadavg_after": load_after},
        "code": git_state(str(Path(__file__).resolve().parent.parent)),
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "server_command": command,
        "results": [r.to_json() for r in report.results],
        "details": report.details,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(document, indent=2, default=str) + "\n")
    print(f"wrote {args.output}")
    missed = [r for r in report.results if r.met is False]
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
