"""``make bench-ai``: how strong the bots are, and how long they think.

Quick mode (the default, about 15 minutes on two cores) plays fewer games and gives every rate
its 95% confidence interval; ``--full`` plays the issue's 200 games per pairing (hours). Games
run in a process pool, one per core. Every finished game is appended to a JSON-lines file as
soon as it ends, so a long run can be stopped and resumed (``--resume``) and a partial run
still reports what it has.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from bench.ai.arena import GameRecord, Match, play_game
from bench.ai.summary import TARGETS, summarize

RESULTS = Path(__file__).resolve().parent.parent / "results"

HEAD_TO_HEAD = [
    (game, a, b)
    for game in ("arktia", "iceberg")
    for a, b in (("mcts", "random"), ("mcts", "greedy"), ("greedy", "random"))
]


def matches() -> list[Match]:
    """Every pairing and team the report covers."""
    found = [Match(f"{game}-{a}-vs-{b}", game, (a, b)) for game, a, b in HEAD_TO_HEAD]
    for strength in ("mcts", "greedy"):
        for seats in (2, 3, 4):
            team = (strength,) * seats
            found.append(
                Match(f"ice-breakers-{strength}-{seats}p", "ice-breakers", team, {}, False)
            )
            found.append(
                Match(
                    f"ice-breakers-intro-{strength}-{seats}p",
                    "ice-breakers",
                    team,
                    {"intro": True},
                    False,
                )
            )
    return found


def games_for(match: Match, full: bool) -> int:
    """How many games each match gets: 200 in full mode; in quick mode, what fits."""
    if full:
        return 200
    if "mcts" not in match.strengths:
        return 100 if match.game != "ice-breakers" else 20
    if match.game == "ice-breakers":
        return 40 if match.options.get("intro") else 16
    return 20


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.ai", description=__doc__)
    parser.add_argument("--full", action="store_true", help="200 games per pairing (hours)")
    parser.add_argument("--only", default="", help="comma-separated match keys to run")
    parser.add_argument("--games", type=int, default=0, help="games per match (overrides)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--resume", action="store_true", help="keep games already recorded")
    parser.add_argument("--out", type=Path, default=None, help="JSON-lines file of games")
    return parser.parse_args(argv)


def _run(task: tuple[Match, int]) -> GameRecord:
    return play_game(*task)


def _load(path: Path) -> list[GameRecord]:
    records = []
    for line in path.read_text().splitlines():
        data = json.loads(line)
        data["seats"] = tuple(data["seats"])
        data["winners"] = tuple(data["winners"])
        records.append(GameRecord(**data))
    return records


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    mode = "full" if args.full else "quick"
    out: Path = args.out or RESULTS / f"ai-{mode}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    chosen = [m for m in matches() if not args.only or m.key in args.only.split(",")]
    done = _load(out) if args.resume and out.exists() else []
    if not args.resume:
        out.write_text("")
    have = {(r.key, r.index) for r in done}
    tasks = [
        (match, index)
        for match in chosen
        for index in range(args.games or games_for(match, args.full))
        if (match.key, index) not in have
    ]
    # Matches with a target first (a long run stopped early still answers the issue), then
    # the slowest games first, so the pool's cores finish together.
    tasks.sort(
        key=lambda t: (
            t[0].key not in TARGETS,
            "mcts" not in t[0].strengths,
            t[0].game != "iceberg",
        )
    )
    print(f"bench-ai ({mode}): {len(tasks)} games to play on {args.workers} processes", flush=True)
    started = time.monotonic()
    records = list(done)
    with out.open("a") as sink, multiprocessing.Pool(args.workers) as pool:
        for count, record in enumerate(pool.imap_unordered(_run, tasks), 1):
            sink.write(json.dumps(asdict(record)) + "\n")
            sink.flush()
            records.append(record)
            if count % 10 == 0 or count == len(tasks):
                elapsed = time.monotonic() - started
                print(f"  {count}/{len(tasks)} games, {elapsed:.0f} s", flush=True)
    report = summarize(records, chosen)
    print(report.text)
    summary_path = out.with_suffix(".summary.json")
    summary_path.write_text(json.dumps(report.data, indent=2) + "\n")
    print(f"games: {out}\nsummary: {summary_path}\nwall time: {time.monotonic() - started:.0f} s")
    return 0 if report.all_met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
