"""``floe replay``: export a game, and verify any number of games in parallel."""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from replay import source
from replay.verify import Verdict, verify_lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="floe replay", description="audit and export games")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="write a game's export file (needs REDIS_URL)")
    export.add_argument("game_id")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    check = commands.add_parser("verify", help="audit games: export files or ids")
    check.add_argument("games", nargs="+", help="export files, or game ids with REDIS_URL")
    check.add_argument("--json", action="store_true", help="one JSON verdict per line")
    check.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    args = parser.parse_args(argv)
    if args.command == "export":
        lines = source.read_store(args.game_id)
        text = "".join(line + "\n" for line in lines)
        if args.output is None:
            sys.stdout.write(text)
        else:
            args.output.write_text(text, encoding="utf-8")
        return 0
    verdicts = verify_all(args.games, jobs=args.jobs, progress=sys.stderr.isatty())
    for verdict in verdicts:
        print(json.dumps(verdict.to_json()) if args.json else str(verdict))
    return 0 if all(v.status == "ok" for v in verdicts) else 1


def verify_one(name: str) -> Verdict:
    try:
        lines = source.read(name)
    except OSError as error:
        return Verdict(name, "failed", 0, None, f"cannot read: {error.strerror}")
    verdict = verify_lines(lines)
    return (
        verdict
        if verdict.game_id
        else Verdict(name, verdict.status, verdict.events, verdict.version, verdict.reason)
    )


def verify_all(names: list[str], *, jobs: int, progress: bool = False) -> list[Verdict]:
    """Verdicts in the order the games were named; many files run in parallel processes."""
    if jobs <= 1 or len(names) < 4:
        return [verify_one(name) for name in names]
    verdicts: list[Verdict] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for done, verdict in enumerate(pool.map(verify_one, names, chunksize=16), start=1):
            verdicts.append(verdict)
            if progress:
                bar = "#" * (30 * done // len(names))
                print(f"\r[{bar:<30}] {done}/{len(names)}", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return verdicts
