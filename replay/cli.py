"""``floe replay``: export a game, verify any number of games in parallel, and look at one
version by version (``show`` prints a version, ``step`` walks through them).

Every file is untrusted input: ``verify`` gives each its own verdict whatever it holds, and
``show``/``step`` audit the log first and show only the versions the audit passed, under a
banner saying why the others are not shown (docs/guide/replay.md).

``verify`` also reads dumps (``floe archive dump``'s ``.ndjson.zst``): each game in one gets
its own verdict (``replay.dump_audit``).

Exit codes: ``verify`` 0 when every verdict is ok, else 1; ``show``/``step`` 0 when shown, 1
when the version asked for lies in the part of the log that fails verification, 2 when
nothing can be shown (unreadable, no usable first event, no such version, no terminal).
Every command exits 141 (128 + SIGPIPE, as a process killed by it would) without a word
when whoever reads its output stops reading (``floe replay show x.jsonl | head -1``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from replay import source
from replay.bots import ReplayTally
from replay.dump import is_dump
from replay.verify import Verdict, verify_lines

if TYPE_CHECKING:
    from replay.receipts import GameReceipts
    from replay.timeline import Timeline
    from replay.tournament import TournamentVerdict

#: The exit code when stdout is a pipe nobody reads any more.
PIPE_CLOSED = 141

VERIFY_HELP = """\
output:
  one line per game, in the order named: the file (and the game id it holds) or the game
  id, then ok, incomplete or failed, where and why; then a summary line
  "N ok, N incomplete, N failed". With --json, one JSON object per game and line, with
  the keys file (null for a game id), game_id (null when the log holds none), status,
  events, version, reason (null unless failed), bot_replay and unsigned_seats, and no
  summary line.

signatures:
  every action of a seat with a public_key in game_created must carry that key's
  signature over the game, the version before it and the action ("the signature of seat 1
  at version 12 is not seat 1's key's over this move"). A person's seat without a key is
  named unsigned ("seat 1 unsigned: its moves rest on the host's word"; unsigned_seats in
  --json); a bot's moves are re-derived instead.

bots:
  every move of a bot seat is made again from the state before it, the seat's kind and
  its stream of the revealed seed, and must be the logged move ("the bot of seat 2
  (greedy) would have played X at version 17, the log says Y"). The verdict names the
  bot seats replayed; a game not over reveals no seed, so its bots cannot be replayed
  yet (said, not failed). --no-bot-replay skips it (a search bot's moves cost what it
  thought), and the verdict says it was skipped. bot_replay in --json: status
  (replayed, skipped, no_seed, no_bots), moves, and seats [{seat, bot, moves}].

tournaments:
  a file whose first line is {"tournament": {...}} is a tournament export, audited as a
  whole: a line per game (round, table, game id, verdict), the standings recomputed from
  the verified games, every problem found, one verdict for the tournament (counted once
  in the summary), then the crosstable (W won, D shared the win, L lost, then the
  opponents' numbers; ? no verified result, * corrected, bye, - not in the round) and
  each director's decision. With --json, one object for it: file, tournament_id,
  status, reason, rounds, planned_rounds, cancelled, rules_version, games, problems,
  unchecked, standings, crosstable, decisions, unsigned_players and bot_replay (status,
  games with bots, replayed, moves); each game has its bot_replay and unsigned_seats too.

dumps:
  a file whose name ends .zst, or that starts with zstandard's magic bytes, is a dump
  (floe archive dump): many games' export lines, one game after another, in one
  zstandard stream. It is read as a stream, and each game in it is verified exactly as
  its own export file would be, with its own verdict named FILE#N (its place in the dump,
  1 for the first) and the game id its log holds, e.g. "dump.ndjson.zst#7 (game g-18):
  ok"; line numbers in a reason count from the game's first line. Each game counts in
  the summary. A dump that is corrupt, cut short or no zstandard at all ends with one
  failed verdict: for the game it breaks off in (not verified), or for the file when no
  game had begun. show and step do not read dumps.

receipts:
  --receipts FILE holds receipts players kept (JSON lines {"game_id", "version", "mark",
  "signature"}: each action's receipts and each streamed event's receipt, with the game's
  id), --keys the service's public keys (a file holding the saved answer of GET /v1/keys,
  or of floe keys show, or a public key's 64 hex digits; repeat it for more). A receipt
  signed by none of the keys is reported as not the service's and counts for nothing. Of
  a game whose export reveals the seed, every receipt's mark must be the one the export's
  event at that version gives; else the game fails: "the service's receipt for version 7
  (kept by a player) contradicts this export: the log was rewritten after version 6". A
  game not over cannot be held to its marks yet (said, not failed). A line per game says
  what its receipts found; then receipts of games no export holds, and lines of FILE that
  are no receipt. With --json, each verdict has receipts (a list, one entry per game with
  receipts: game_id, kept, checked, confirmed, contradicted, not_the_services, version,
  reason), and one last line {"receipts": {file, read, unreadable, other_games}}.

progress:
  "verified N/M" goes to stderr, never to stdout: redrawn in place when stderr is a
  terminal (the default there), one line per tenth with --progress when it is not.
  --no-progress turns it off.

exit codes:
  0 every verdict is ok; 1 any is incomplete or failed; 2 bad arguments (--receipts
  without --keys, a receipts or keys file that cannot be used);
  141 stdout was closed early (e.g. piped into head)."""


def main(argv: list[str], *, open_store: source.OpenStore | None = None) -> int:
    """``floe replay``; ``open_store`` opens the event store that game ids are read from.

    A closed stdout (``| head -1``) ends the command quietly with ``PIPE_CLOSED``: stdout is
    pointed at /dev/null so that the interpreter's last flush cannot complain either.
    """
    try:
        code = _main(argv, open_store)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return PIPE_CLOSED
    return code


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout: nothing will be flushed to it either
        pass


def _main(argv: list[str], open_store: source.OpenStore | None) -> int:
    parser = argparse.ArgumentParser(prog="floe replay", description="audit and export games")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="write a game's export file (needs REDIS_URL)")
    export.add_argument("game_id")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    check = commands.add_parser(
        "verify",
        help="audit games: export files or ids",
        description="Audit games, each on its own: export files, or game ids with REDIS_URL.",
        epilog=VERIFY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("games", nargs="+", help="export files, or game ids with REDIS_URL")
    check.add_argument("--json", action="store_true", help="one JSON verdict per line")
    check.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    no_bot_replay(check)
    check.add_argument(
        "--receipts",
        metavar="FILE",
        help="receipts players kept (JSON lines), held against the exports (needs --keys)",
    )
    check.add_argument(
        "--keys",
        action="append",
        metavar="KEYS",
        help="the service's public keys: the saved answer of GET /v1/keys, or a key (repeatable)",
    )
    check.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress on stderr (default: only when stderr is a terminal)",
    )
    show = commands.add_parser(
        "show",
        help="print the state at one version",
        description="Print one version of a game. The log is verified first: only the "
        "versions before its first failure are shown, under a banner saying where and why "
        "verification fails (or that the log is incomplete). Of a tournament export, the "
        "game chosen with --game (or --round and --table); without it, the list of its "
        "games (exit 2).",
    )
    show.add_argument("game", help="an export file, or a game id with REDIS_URL")
    show.add_argument(
        "--at",
        type=int,
        help="version (default: the last that can be shown; negative: counted back from it)",
    )
    show.add_argument("--svg", action="store_true", help="an SVG picture instead of text")
    no_bot_replay(show)
    pick_game(show)
    show.add_argument(
        "--colour", choices=("auto", "always", "never"), default="auto", help="ANSI colours"
    )
    step = commands.add_parser(
        "step",
        help="walk through a game's versions in the terminal",
        description="Walk through a game's versions: <-/-> (h/l) step, Home/End, g go to, "
        "Up/Down (j/k) and PgUp/PgDn scroll a board taller than the screen, < and > pan one "
        "wider than it, q quit. The log is verified first, as for show; of a tournament "
        "export, the game chosen with --game (or --round and --table), as for show.",
    )
    step.add_argument("game", help="an export file, or a game id with REDIS_URL")
    step.add_argument("--at", type=int, help="the version to start at (default: 1)")
    no_bot_replay(step)
    pick_game(step)
    args = parser.parse_args(argv)
    if args.command in ("show", "step"):
        return look(args, open_store)
    if args.command == "export":
        try:
            lines = source.read_store(args.game_id, open_store)
        except source.StoreError as error:
            print(f"cannot export {args.game_id}: {error}", file=sys.stderr)
            return 2
        text = "".join(line + "\n" for line in lines)
        if args.output is None:
            sys.stdout.write(text)
        else:
            args.output.write_text(text, encoding="utf-8")
        return 0
    if (args.receipts is None) != (args.keys is None):
        check.error("--receipts and --keys go together: the receipts, and the keys to check them")
    held: dict[str, list[str]] = {}  # the lines of the dump's game being judged
    receipts = None
    if args.receipts is not None:
        from replay.receipts import ReceiptCheck, ReceiptsError, read_keys, read_receipts

        try:
            kept, keys = read_receipts(args.receipts), read_keys(args.keys)
        except ReceiptsError as error:
            print(f"floe replay verify: {error}", file=sys.stderr)
            return 2

        def read_again(name: str) -> list[str]:
            return held[name] if name in held else source.read(name, open_store)

        receipts = ReceiptCheck(kept, keys, read_again)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    from replay.dump_audit import audit_dump
    from replay.timeline import printable
    from replay.tournament import audit_file, is_tournament_file

    dumps = {n for n in args.games if is_dump(n)}
    sets = {n for n in args.games if n not in dumps and source.is_file(n)}
    sets = {n for n in sets if is_tournament_file(n)}
    games = [n for n in args.games if n not in sets and n not in dumps]
    bots = args.bot_replay
    one = partial(verify_one, bot_replay=bots)
    found = iter(
        verify_all(games, jobs=args.jobs, progress=progress, open_store=open_store, check=one)
    )
    tally: Counter[str] = Counter()

    def report(name: str, verdict: Verdict | TournamentVerdict) -> None:
        kept_for: list[GameReceipts] = []
        if receipts is not None:
            verdict, kept_for = receipts.judge(name, verdict)
        tally[verdict.status] += 1
        if args.json:
            document = as_json(verdict)
            if receipts is not None:
                document["receipts"] = [game.to_json() for game in kept_for]
            print(json.dumps(document))
        elif isinstance(verdict, Verdict):
            print(printable(str(verdict)))
        else:
            print("\n".join(map(printable, tournament_report(verdict))))
        if not args.json:
            for line in (line for game in kept_for for line in game.lines()):
                print(printable(f"{verdict.name}: {line}"))

    for name in args.games:  # in the order named; a tournament export is audited as a whole
        if name not in dumps:
            report(name, audit_file(name, bot_replay=bots) if name in sets else next(found))
            continue
        meter = DumpProgress(name, sys.stderr) if progress else None
        for game, verdict in audit_dump(name, bot_replay=bots, jobs=args.jobs):
            named = verdict.file or name
            held[named] = [] if game is None else game.lines
            report(named, verdict)
            held.clear()
            if meter is not None:
                meter.tick(None if game is None else game.read)
        if meter is not None:
            meter.close()
    if receipts is not None and args.json:
        print(json.dumps(receipts.closing_json(args.receipts)))
    elif receipts is not None:
        for line in receipts.closing_lines(args.receipts):
            print(printable(line))
    if not args.json:
        print(summary(tally))
    return 0 if tally.keys() <= {"ok"} else 1


def no_bot_replay(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--no-bot-replay",
        dest="bot_replay",
        action="store_false",
        help="do not make the bots' moves again (the verdict says they were not)",
    )


def pick_game(command: argparse.ArgumentParser) -> None:
    """A tournament export's game to show: by id, or by round and table."""
    group = command.add_argument_group("tournament exports (one game of the set)")
    group.add_argument("--game", dest="game_id", metavar="GAME_ID", help="the game's id")
    group.add_argument("--round", type=int, metavar="R", help="its round (with --table)")
    group.add_argument("--table", type=int, metavar="T", help="its table (with --round)")


def as_json(verdict: Verdict | TournamentVerdict) -> dict[str, object]:
    """``--json``'s object: a tournament's gets ``bot_replay`` for the set and each game."""
    if isinstance(verdict, Verdict):
        return verdict.to_json()
    document = verdict.to_json()
    for game, entry in zip(verdict.games, document["games"], strict=True):
        entry["bot_replay"] = None if game.verdict.bots is None else game.verdict.bots.to_json()
    document["bot_replay"] = ReplayTally.of(g.verdict.bots for g in verdict.games).to_json()
    return document


def tournament_report(verdict: TournamentVerdict) -> list[str]:
    """The tournament's report, then a line when some game's bots were not replayed (skipped,
    or no seed yet); every game's ``bot_replay`` is in ``--json``."""
    lines = verdict.report()
    tally = ReplayTally.of(g.verdict.bots for g in verdict.games)
    bots = tally.describe()
    if bots is not None and tally.replayed < tally.games:
        prefix = "" if verdict.file is None else f"{verdict.file} "
        lines.append(f"{prefix}{bots}")
    return lines


def summary(tally: Mapping[str, int]) -> str:
    """``N ok, N incomplete, N failed``, from the verdicts counted by status."""
    return ", ".join(
        f"{tally.get(status, 0)} {status}" for status in ("ok", "incomplete", "failed")
    )


def look(args: argparse.Namespace, open_store: source.OpenStore | None = None) -> int:
    """``show`` and ``step``: audit and fold the game once, then print or walk its versions."""
    from replay.timeline import TimelineError, load, printable
    from replay.tournament.pick import Choice, NoGameChosen

    def refuse(message: str, code: int) -> int:
        print(printable(message), file=sys.stderr)
        return code

    if is_dump(args.game):
        return refuse(
            f"{args.game} is a dump of many games: {args.command} reads one game's export "
            "(floe replay verify reads dumps)",
            2,
        )
    choice = Choice(args.game_id, args.round, args.table)
    try:
        timeline = load(args.game, open_store, bot_replay=args.bot_replay, choice=choice)
    except NoGameChosen as error:  # a line per game listed: each made printable alone
        lines = f"{args.game}: {error}".split("\n")
        print("\n".join(map(printable, lines)), file=sys.stderr)
        return 2
    except OSError as error:
        return refuse(f"cannot read {args.game}: {error.strerror or error}", 2)
    except source.StoreError as error:
        return refuse(f"cannot read {args.game}: {error}", 2)
    except TimelineError as error:
        return refuse(f"cannot replay {args.game}: {error}", 2)
    version = args.at
    if version is not None and version < 0:
        version += timeline.last + 1
    if version is not None and version < 1:
        return refuse(f"no version {args.at}: {args.game} has 1..{timeline.last}", 2)
    if version is not None and version > timeline.last:
        code = 1 if version <= timeline.size else 2  # 1: the log has it, but it fails there
        return refuse(f"{args.game}: {timeline.refusal(version)}", code)
    if args.command == "step":
        from replay.step import run

        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            print("step needs a terminal; use `show --at N` instead", file=sys.stderr)
            return 2
        run(timeline, version)
        return 0
    version = timeline.last if version is None else version
    if args.svg:
        for line in timeline.banner:  # stdout is the picture: the warning goes beside it
            print(f"floe replay: warning: {printable(line)}", file=sys.stderr)
        return show_svg(timeline, version)
    colour = args.colour == "always" or (args.colour == "auto" and sys.stdout.isatty())
    for line in map(printable, timeline.banner):
        print(f"\x1b[1;31m!! {line}\x1b[0m" if colour else f"!! {line}")
    print("\n".join(map(printable, show_lines(timeline, version, colour=colour))))
    return 0


def show_lines(timeline: Timeline, version: int, *, colour: bool) -> list[str]:
    """``show``'s text: the header, the event that made ``version``, whose turn it is (or
    the outcome), every seat's clock for a game with one, then the board."""
    from domain.games import GAMES
    from replay.step import clock_line, event_lines, header, outcome_line

    clocks = clock_line(timeline, version)
    return [
        header(timeline, version),
        *event_lines(timeline, version),
        outcome_line(timeline, version),
        *([] if clocks is None else [clocks]),
        "",
        *GAMES[timeline.game].text(timeline.scene(version), colour),
    ]


def show_svg(timeline: Timeline, version: int) -> int:
    """Print the SVG picture of ``version``, as the game's own ``svg`` draws it."""
    from domain.games import GAMES

    title = f"{timeline.game_id} version {version}/{timeline.last}"
    picture = GAMES[timeline.game].svg(timeline.scene(version, title))
    sys.stdout.write(picture if picture.endswith("\n") else picture + "\n")
    return 0


def verify_one(name: str, lines: list[str] | None = None, *, bot_replay: bool = True) -> Verdict:
    """The verdict on one game: export file ``name``, or the game with id ``name`` whose
    ``lines`` were read from the store (``bot_replay``: making the bots' moves again). Never
    raises: whatever goes wrong is its verdict."""
    file = name if lines is None else None
    try:
        if lines is None:
            try:
                lines = source.read_file(name)
            except OSError as error:
                reason = f"cannot read: {error.strerror or error}"
                return Verdict(None, "failed", 0, None, reason, file=name)
        verdict = verify_lines(lines, bot_replay=bot_replay)
        if file is None:
            return replace(verdict, game_id=verdict.game_id or name)
        return replace(verdict, file=file)
    except Exception as error:  # a bug, not a verdict on the file: still never lose the others
        return _failed(name, file, f"the verifier crashed: {type(error).__name__}: {error}")


def _failed(name: str, file: str | None, reason: str) -> Verdict:
    return Verdict(None if file else name, "failed", 0, None, reason[:240], file=file)


#: What verifies one game: ``verify_one``, or a stand-in in tests.
Check = Callable[[str, list[str] | None], Verdict]


def verify_all(
    names: list[str],
    *,
    jobs: int,
    progress: bool = False,
    open_store: source.OpenStore | None = None,
    check: Check = verify_one,
) -> list[Verdict]:
    """Verdicts in the order the games were named, one for each whatever happens.

    Games named by id are read from the store here, in this process, and only their lines
    travel to the workers. Four or more games run in ``jobs`` processes; if one of them dies
    (the pool is then broken for every game still in it) those games are verified again, each
    in a process of its own, so only the one that kills its process fails for it.
    """
    meter = Progress(len(names), sys.stderr) if progress else None
    verdicts: list[Verdict | None] = [None] * len(names)
    work: list[tuple[int, str, list[str] | None]] = []
    for index, name in enumerate(names):
        if source.is_file(name):
            work.append((index, name, None))
            continue
        try:
            work.append((index, name, source.read_store(name, open_store)))
        except source.StoreError as error:
            verdicts[index] = _failed(name, None, f"no such file, and {error}")
            _tick(meter)
        except (Exception, SystemExit) as error:  # the store itself failed: this game only
            verdicts[index] = _failed(name, None, f"cannot read from the event store: {error}")
            _tick(meter)
    if jobs <= 1 or len(work) < 4:
        for index, name, lines in work:
            verdicts[index] = _guarded(check, name, lines)
            _tick(meter)
    else:
        lost = _in_pool(check, work, jobs, verdicts, meter)
        for index, name, lines in lost:
            verdicts[index] = _alone(check, name, lines)
            _tick(meter)
    if meter is not None:
        meter.close()
    return [v for v in verdicts if v is not None]


def _guarded(check: Check, name: str, lines: list[str] | None) -> Verdict:
    try:
        return check(name, lines)
    except Exception as error:
        file = name if lines is None else None
        return _failed(name, file, f"the verifier crashed: {type(error).__name__}: {error}")


def _in_pool(
    check: Check,
    work: list[tuple[int, str, list[str] | None]],
    jobs: int,
    verdicts: list[Verdict | None],
    meter: Progress | None,
) -> list[tuple[int, str, list[str] | None]]:
    """Verify ``work`` in a pool, filling ``verdicts``; what a dead worker took with it."""
    lost = []
    with ProcessPoolExecutor(max_workers=min(jobs, len(work))) as pool:
        futures: dict[Future[Verdict], tuple[int, str, list[str] | None]] = {}
        for index, name, lines in work:
            try:
                futures[pool.submit(check, name, lines)] = (index, name, lines)
            except BrokenProcessPool:  # a worker died already: the rest go alone
                lost.append((index, name, lines))
        for future in as_completed(futures):
            index, name, lines = futures[future]
            try:
                verdicts[index] = future.result()
            except BrokenProcessPool:
                lost.append((index, name, lines))
                continue
            except Exception as error:  # a verdict that could not travel back, say
                file = name if lines is None else None
                verdicts[index] = _failed(name, file, f"the verifier crashed: {error!r}")
            _tick(meter)
    return sorted(lost)


def _alone(check: Check, name: str, lines: list[str] | None) -> Verdict:
    """Verify one game in a process of its own, so that if it dies only this game fails."""
    file = name if lines is None else None
    try:
        with ProcessPoolExecutor(max_workers=1) as pool:
            return pool.submit(check, name, lines).result()
    except BrokenProcessPool:
        return _failed(name, file, "the verifier's process died on this game")
    except Exception as error:
        return _failed(name, file, f"the verifier crashed: {error!r}")


def _tick(meter: Progress | None) -> None:
    if meter is not None:
        meter.tick()


class Progress:
    """``verified N/M`` on ``stream`` (stderr): a bar redrawn in place on a terminal, or a
    line each tenth of the way when the stream is a file or a pipe."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.done, self.stream = total, 0, stream
        self.live = stream.isatty()

    def tick(self) -> None:
        self.done += 1
        if self.live:
            bar = "#" * (30 * self.done // self.total)
            self.stream.write(f"\r[{bar:<30}] verified {self.done}/{self.total}")
        elif 10 * self.done // self.total != 10 * (self.done - 1) // self.total:
            self.stream.write(f"verified {self.done}/{self.total}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\n")
            self.stream.flush()


class DumpProgress:
    """``verified N games, P% of FILE`` on ``stream`` (stderr) while a dump is verified: its
    games are not counted before they are read, so the share is of the file's bytes read
    (at most 99% until the last verdict, since the file is read ahead of the verdicts).
    Redrawn in place on a terminal, else a line each tenth of the way and one at the end."""

    def __init__(self, path: str, stream: TextIO) -> None:
        self.path, self.stream, self.games, self.tenths = path, stream, 0, 0
        self.live = stream.isatty()
        try:
            self.size = max(os.path.getsize(path), 1)
        except OSError:
            self.size = 1

    def tick(self, read: int | None) -> None:
        """One more verdict; ``read``: the dump's bytes read by then (None: its last)."""
        self.games += 1
        share = 0.99 if read is None else min(read / self.size, 0.99)
        if self.live:
            self._show(share, "\r")
        elif int(10 * share) > self.tenths:
            self.tenths = int(10 * share)
            self._show(share, "", "\n")

    def close(self) -> None:
        self._show(1.0, "\r" if self.live else "", "\n")

    def _show(self, share: float, start: str, end: str = "") -> None:
        games = "1 game" if self.games == 1 else f"{self.games} games"
        self.stream.write(f"{start}verified {games}, {share:.0%} of {self.path}{end}")
        self.stream.flush()
