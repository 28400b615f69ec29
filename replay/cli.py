"""``floe replay``: export a game, verify any number of games in parallel, and look at one
version by version (``show`` prints a version, ``step`` walks through them)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from replay import source
from replay.verify import Verdict, verify_lines

if TYPE_CHECKING:
    from replay.timeline import Timeline


def main(argv: list[str], *, open_store: source.OpenStore | None = None) -> int:
    """``floe replay``; ``open_store`` opens the event store that game ids are read from."""
    parser = argparse.ArgumentParser(prog="floe replay", description="audit and export games")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="write a game's export file (needs REDIS_URL)")
    export.add_argument("game_id")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    check = commands.add_parser("verify", help="audit games: export files or ids")
    check.add_argument("games", nargs="+", help="export files, or game ids with REDIS_URL")
    check.add_argument("--json", action="store_true", help="one JSON verdict per line")
    check.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    show = commands.add_parser("show", help="print the state at one version")
    show.add_argument("game", help="an export file, or a game id with REDIS_URL")
    show.add_argument("--at", type=int, help="version (default: the last; negative: from the end)")
    show.add_argument("--svg", action="store_true", help="an SVG picture instead of text")
    show.add_argument(
        "--colour", choices=("auto", "always", "never"), default="auto", help="ANSI colours"
    )
    step = commands.add_parser("step", help="walk through a game's versions in the terminal")
    step.add_argument("game", help="an export file, or a game id with REDIS_URL")
    step.add_argument("--at", type=int, help="the version to start at (default: 1)")
    args = parser.parse_args(argv)
    if args.command in ("show", "step"):
        return look(args, open_store)
    if args.command == "export":
        lines = source.read_store(args.game_id, open_store)
        text = "".join(line + "\n" for line in lines)
        if args.output is None:
            sys.stdout.write(text)
        else:
            args.output.write_text(text, encoding="utf-8")
        return 0
    verdicts = verify_all(
        args.games, jobs=args.jobs, progress=sys.stderr.isatty(), open_store=open_store
    )
    for verdict in verdicts:
        print(json.dumps(verdict.to_json()) if args.json else str(verdict))
    return 0 if all(v.status == "ok" for v in verdicts) else 1


def look(args: argparse.Namespace, open_store: source.OpenStore | None = None) -> int:
    """``show`` and ``step``: fold the game once, then print or walk its versions."""
    from replay.timeline import TimelineError, load

    try:
        timeline = load(args.game, open_store)
    except OSError as error:
        print(f"cannot read {args.game}: {error.strerror}", file=sys.stderr)
        return 2
    except (TimelineError, ValueError) as error:
        print(f"cannot replay {args.game}: {error}", file=sys.stderr)
        return 2
    version = args.at
    if version is not None and version < 0:
        version += timeline.last + 1
    if version is not None and not 1 <= version <= timeline.last:
        print(f"no version {args.at}: {args.game} has 1..{timeline.last}", file=sys.stderr)
        return 2
    if args.command == "step":
        from replay.step import run

        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            print("step needs a terminal; use `show --at N` instead", file=sys.stderr)
            return 2
        run(timeline, version)
        return 0
    version = timeline.last if version is None else version
    if args.svg:
        return show_svg(timeline, version)
    colour = args.colour == "always" or (args.colour == "auto" and sys.stdout.isatty())
    print("\n".join(show_lines(timeline, version, colour=colour)))
    return 0


def show_lines(timeline: Timeline, version: int, *, colour: bool) -> list[str]:
    """``show``'s text: the header, the event that made ``version``, then the board."""
    from domain.games import GAMES
    from replay.step import event_lines, header, outcome_line

    return [
        header(timeline, version),
        *event_lines(timeline, version),
        outcome_line(timeline, version),
        "",
        *GAMES[timeline.game].text(timeline.view(version), colour),
    ]


def show_svg(timeline: Timeline, version: int) -> int:
    """Print the SVG picture of ``version``, as the game's own ``svg`` draws it."""
    from domain.games import GAMES

    title = f"{timeline.game_id} version {version}/{timeline.last}"
    picture = GAMES[timeline.game].svg(timeline.view(version), title)
    sys.stdout.write(picture if picture.endswith("\n") else picture + "\n")
    return 0


def verify_one(name: str, lines: list[str] | None = None) -> Verdict:
    """The verdict on one game: an export file, or ``lines`` already read from the store."""
    if lines is None:
        try:
            lines = source.read_file(name)
        except OSError as error:
            return Verdict(name, "failed", 0, None, f"cannot read: {error.strerror}")
    verdict = verify_lines(lines)
    return (
        verdict
        if verdict.game_id
        else Verdict(name, verdict.status, verdict.events, verdict.version, verdict.reason)
    )


def verify_all(
    names: list[str],
    *,
    jobs: int,
    progress: bool = False,
    open_store: source.OpenStore | None = None,
) -> list[Verdict]:
    """Verdicts in the order the games were named; many files run in parallel processes.

    Games named by id are read from the store here, in this process, and only their lines
    travel to the workers.
    """
    logs = [None if source.is_file(name) else source.read_store(name, open_store) for name in names]
    if jobs <= 1 or len(names) < 4:
        return [verify_one(name, lines) for name, lines in zip(names, logs, strict=True)]
    verdicts: list[Verdict] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for done, verdict in enumerate(pool.map(verify_one, names, logs, chunksize=16), start=1):
            verdicts.append(verdict)
            if progress:
                bar = "#" * (30 * done // len(names))
                print(f"\r[{bar:<30}] {done}/{len(names)}", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return verdicts
