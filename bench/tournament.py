"""Tournaments on the RQ workers: ``python -m bench.tournament``.

For each worker count (``--workers``, default 1,2,4), one fresh ``floe run`` (its own Redis,
``FLOE_JOB_WORKERS`` job workers, gunicorn) runs the same tournament: a swiss of
``--players`` bots (alternately ``random`` and ``greedy``), ``--rounds`` rounds of tables of
``--table-size``. Nobody plays: every move is a bot job, every next round an advance job.
The client creates the tournament (``POST /v1/tournaments``, organizer token), then follows
``GET /v1/tournaments/{id}/stream`` until the document it sends says ``finished``: it waits
on the condition, never on a sleep. Then it fetches the export and times
``floe replay verify`` on it (``python -m service.cli replay verify FILE``, a fresh process,
as a person would run it).

Per worker count it reports the tournament's wall time (from the ``POST`` to the stream's
``finished``), the verify time, the bot moves the workers made (events of the export whose
actor is a seat) per second of wall time, and the speed-up over the first worker count, all
in the same run (the machine is shared and noisy: compare the ratios). To say where the time
went it also reports the CPU each part used (from ``/proc``: the draws-only worker, the bot
workers, gunicorn, Redis, the whole machine) and, from the export's own timestamps, how long
each round's slowest game held the round after most of its games were over (the barrier) and
how long each next round took to start.

A run that stops changing for ``--stall`` seconds fails with what each unfinished game is
waiting for and the errors of the run's log (``floe-run.log`` in its data directory, kept).

``--lengths N`` only plays N games of each pairing of each game in process (no service) and
prints their lengths: how the default game was chosen (BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.report import Report, Result, git_state, load_average, machine
from bench.stack import machine_busy
from service.jobs.backlog import Backlog, pending_key
from tests.support.floe_run import FloeRun, call, floe_run

RESULTS = Path(__file__).resolve().parent / "results"
ORGANIZER = "organizer-token-for-bench-tournament"
BOTS = ("random", "greedy")
ENV = {
    "FLOE_ORGANIZER_TOKEN": ORGANIZER,
    "FLOE_RATE_LIMIT_PER_ADDRESS": "0",
    "FLOE_RATE_LIMIT_PER_TOKEN": "0",
}
#: The share of a round's games over when its "tail" (the slowest games alone) starts.
TAIL_FROM = 0.9

Log = Callable[[str], None]


class Stalled(RuntimeError):
    """The tournament stopped changing (or never finished) in time: a stuck round."""


@dataclass
class Outcome:
    """What one worker count measured."""

    workers: int
    tournament_id: str
    wall_s: float
    create_s: float
    verify_s: float
    verify_code: int
    verify_summary: str
    games: int
    events: int
    bot_moves: int
    export_bytes: int
    load_before: float | None
    cpu: dict[str, float]
    #: Redis commands per bot move, by command (``INFO commandstats`` over the run).
    redis_calls: dict[str, float]
    rounds: list[dict[str, float]]
    log_errors: list[str] = field(default_factory=list)
    #: Which run of the benchmark this was (1, 2, ...): the order is alternated.
    order: int = 0

    @property
    def moves_per_s(self) -> float:
        return self.bot_moves / self.wall_s

    @property
    def verified(self) -> bool:
        return self.verify_code == 0


# ----- the tournament ---------------------------------------------------------------------


def players(count: int) -> list[dict[str, str]]:
    return [{"name": f"bot{i:03}", "bot": BOTS[i % 2]} for i in range(count)]


def create(port: int, game: str, count: int, rounds: int, table_size: int) -> dict[str, Any]:
    body = {
        "game": game,
        "format": "swiss",
        "rounds": rounds,
        "table_size": table_size,
        "players": players(count),
    }
    status, created, _ = call(port, "POST", "/v1/tournaments", body, token=ORGANIZER, timeout=120)
    if status != 201:
        raise RuntimeError(f"POST /v1/tournaments answered {status}: {created}")
    return dict(created)


@dataclass
class Timeline:
    """When the client saw each round begin and each game over, in seconds from the ``POST``
    (the stream sends the document on every change: a game over, a round made)."""

    began: dict[int, float] = field(default_factory=dict)
    over: dict[tuple[int, int], float] = field(default_factory=dict)

    def saw(self, document: dict[str, Any], at: float) -> None:
        for round_ in document["rounds"]:
            self.began.setdefault(round_["round"], at)
            for game in round_["games"]:
                if game["status"] == "over":
                    self.over.setdefault((round_["round"], game["table"]), at)

    def rounds(self) -> list[dict[str, float]]:
        """Per round: ``seconds`` from its first sight to its last game over; ``p50_s``, when
        half its games were over (from its start); ``tail_s``, from when ``TAIL_FROM`` of its
        games were over to the last (the slowest games alone hold the round: the barrier);
        ``gap_s``, from the previous round's last game over to this round's first sight (the
        advance job and making the games)."""
        out: list[dict[str, float]] = []
        previous_end: float | None = None
        for number in sorted(self.began):
            start = self.began[number]
            ends = sorted(at for (r, _), at in self.over.items() if r == number)
            if not ends:
                continue
            end = ends[-1]
            out.append(
                {
                    "round": number,
                    "games": len(ends),
                    "seconds": end - start,
                    "p50_s": statistics.median(ends) - start,
                    "tail_s": end - ends[min(len(ends) - 1, int(TAIL_FROM * len(ends)))],
                    "gap_s": 0.0 if previous_end is None else start - previous_end,
                }
            )
            previous_end = end
        return out


def follow(
    port: int,
    tournament_id: str,
    *,
    started: float,
    stall: float,
    deadline: float,
    log: Log,
) -> Timeline:
    """Read the tournament's SSE stream (reconnecting with ``Last-Event-ID`` when the server
    ends it) until a document says ``finished``; what it showed when. ``Stalled`` when
    nothing changed for ``stall`` seconds or ``deadline`` (monotonic) passed."""
    timeline = Timeline()
    last_id = ""
    last_change = time.monotonic()
    while True:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Accept": "text/event-stream"}
        if last_id:
            headers["Last-Event-ID"] = last_id
        try:
            connection.request("GET", f"/v1/tournaments/{tournament_id}/stream", None, headers)
            response = connection.getresponse()
            if response.status != 200:
                raise RuntimeError(f"the stream answered {response.status}: {response.read()!r}")
            data: list[str] = []
            while True:
                now = time.monotonic()
                if now - last_change > stall or now > deadline:
                    raise Stalled(f"no change for {now - last_change:.0f} s")
                raw = response.readline()
                if not raw:
                    break  # the server ended the stream (sse_max_seconds): reconnect
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("id:"):
                    last_id = line[3:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
                elif not line and data:
                    document: dict[str, Any] = json.loads("\n".join(data))
                    data = []
                    last_change = time.monotonic()
                    made = len(timeline.began)
                    timeline.saw(document, time.perf_counter() - started)
                    if len(timeline.began) != made:
                        log(f"  round {len(timeline.began)} of {document['planned_rounds']} began")
                    if document["status"] == "finished":
                        return timeline
        except TimeoutError:
            pass  # no heartbeat for 30 s: check the clocks above, reconnect
        finally:
            connection.close()
        if time.monotonic() > deadline:
            raise Stalled("the deadline passed")


def diagnose(run: FloeRun, tournament_id: str) -> str:
    """What the unfinished games of a stalled tournament wait for, queues, and log errors."""
    lines = [f"data directory (kept): {run.data_dir}"]
    try:
        _, document, _ = call(run.port, "GET", f"/v1/tournaments/{tournament_id}")
        lines.append(f"status {document['status']}, {len(document['rounds'])} rounds made")
        for round_ in document["rounds"]:
            for game in round_["games"]:
                if game["status"] != "over":
                    _, view, _ = call(run.port, "GET", f"/v1/games/{game['game_id']}")
                    lines.append(
                        f"round {round_['round']} table {game['table']} game {game['game_id']}: "
                        f"{game['status']}, v{view.get('version')}, to act {view.get('to_act')}, "
                        f"bot failure {view.get('bot_failure')}"
                    )
    except (OSError, KeyError, ValueError) as error:
        lines.append(f"could not read the tournament: {error!r}")
    try:
        queues = run.queue_redis()
        for name in ("floe:draws", "floe:bots", "floe"):
            pending = queues.zcard(pending_key(name))
            drains = queues.llen(f"rq:queue:{name}")
            failed = queues.zcard(f"rq:failed:{name}")
            lines.append(
                f"queue {name}: {pending} pending, {drains} drain jobs queued, {failed} failed"
            )
        lines.append(f"claimed by workers: {len(Backlog(queues).claims())}")
    except Exception as error:  # diagnostics only: say why and go on
        lines.append(f"could not read the queues: {error!r}")
    lines += log_errors(run.log())[:20]
    return "\n".join(lines)


def log_errors(text: str) -> list[str]:
    """Lines of a ``floe run`` log that report an error (workers and API write there)."""
    pattern = re.compile(r"\b(ERROR|CRITICAL|Traceback|Exception)\b")
    return [line for line in text.splitlines() if pattern.search(line)]


# ----- what the export says -----------------------------------------------------------------


@dataclass
class ExportFacts:
    games: int
    events: int
    bot_moves: int


def read_export(lines: Sequence[str]) -> ExportFacts:
    """Count the games, events and bot moves (events whose actor is a seat) of an export
    (its first line is the tournament, every other line one event of one game)."""
    games: set[str] = set()
    events = moves = 0
    for line in lines[1:]:
        if not line.strip():
            continue
        event = json.loads(line)
        games.add(event["game_id"])
        events += 1
        if isinstance(event["actor"], int):
            moves += 1
    return ExportFacts(len(games), events, moves)


# ----- CPU of the run's processes -------------------------------------------------------------

_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return raw[raw.rfind(")") + 2 :].split()


def _cpu(pid: int) -> float:
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / _TICKS if len(fields) > 12 else 0.0


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def run_processes(run: FloeRun) -> dict[str, list[int]]:
    """The pids of a ``floe run``, by part, from the lines it prints when it starts them."""
    parts: dict[str, list[int]] = defaultdict(list)
    for line in run.log().splitlines():
        found = re.match(r"floe: (\w+) .*\(pid (\d+)", line)
        if found is None:
            continue
        part, pid = found.group(1), int(found.group(2))
        if part == "worker":
            parts["draws worker" if "draws only" in line else "bot workers"].append(pid)
        elif part == "api":
            parts["api"] += [pid, *_children(pid)]
        elif part == "redis":
            parts["redis"].append(pid)
        elif part == "queue":
            parts["queue redis"].append(pid)
    return dict(parts)


def redis_calls(run: FloeRun) -> dict[str, int]:
    """Commands both Redis (the store and the job queues') have run so far, by name
    (``INFO commandstats``)."""
    calls: dict[str, int] = defaultdict(int)
    for client in (run.redis(), run.queue_redis()):
        for name, v in client.info("commandstats").items():
            calls[name.removeprefix("cmdstat_")] += int(v["calls"])
    return dict(calls)


def cpu_sample(parts: dict[str, list[int]]) -> dict[str, float]:
    sample = {part: sum(_cpu(pid) for pid in pids) for part, pids in parts.items()}
    sample["machine"] = machine_busy()
    return sample


# ----- one worker count -----------------------------------------------------------------------


def verify(path: Path) -> tuple[float, int, str]:
    """Time ``floe replay verify`` on ``path`` in a fresh process: seconds, exit code, and
    what it said of the tournament (``ok (192 games, 6 of 6 rounds)``) and in its summary."""
    command = [sys.executable, "-m", "service.cli", "replay", "verify", str(path)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    printed = (done.stdout.strip() or done.stderr.strip()).splitlines()
    verdicts = [line.split("): ", 1)[-1] for line in printed if "(tournament " in line]
    return seconds, done.returncode, "; ".join([*verdicts, *printed[-1:]])


def run_one(
    workers: int,
    *,
    game: str,
    count: int,
    rounds: int,
    table_size: int,
    stall: float,
    timeout: float,
    keep: bool,
    appendfsync: str | None,
    log: Log,
) -> Outcome:
    data_dir = Path(tempfile.mkdtemp(prefix=f"floe-bench-tournament-{workers}w-"))
    failed = True
    try:
        env = {**ENV, "FLOE_JOB_WORKERS": str(workers)}
        with floe_run(data_dir, env) as run:
            parts = run_processes(run)
            if appendfsync is not None:  # a diagnostic peer: floe run's Redis says always
                run.redis().config_set("appendfsync", appendfsync)
            load_before = load_average()
            calls_before = redis_calls(run)
            before = cpu_sample(parts)
            started = time.perf_counter()
            created = create(run.port, game, count, rounds, table_size)
            create_s = time.perf_counter() - started
            tournament_id = created["id"]
            log(f"{workers} worker(s): tournament {tournament_id} created in {create_s:.2f} s")
            try:
                timeline = follow(
                    run.port,
                    tournament_id,
                    started=started,
                    stall=stall,
                    deadline=time.monotonic() + timeout,
                    log=log,
                )
            except Stalled as error:
                raise Stalled(f"{error}\n{diagnose(run, tournament_id)}") from None
            wall_s = time.perf_counter() - started
            after = cpu_sample(parts)
            cpu = {part: (after[part] - before[part]) / wall_s for part in after}
            calls_after = redis_calls(run)
            path = data_dir / f"tournament-{tournament_id}.jsonl"
            connection = http.client.HTTPConnection("127.0.0.1", run.port, timeout=300)
            try:
                connection.request("GET", f"/v1/tournaments/{tournament_id}/export")
                response = connection.getresponse()
                export = response.read()
                if response.status != 200:
                    raise RuntimeError(f"the export answered {response.status}: {export[:300]!r}")
            finally:
                connection.close()
            path.write_bytes(export)
            errors = log_errors(run.log())
        facts = read_export(export.decode("utf-8").splitlines())
        calls = {
            name: (count - calls_before.get(name, 0)) / max(1, facts.bot_moves)
            for name, count in calls_after.items()
        }
        log(f"{workers} worker(s): finished in {wall_s:.1f} s; verifying the export")
        verify_s, code, summary = verify(path)
        log(f"{workers} worker(s): verify took {verify_s:.2f} s, exit {code}: {summary}")
        failed = code != 0
        return Outcome(
            workers=workers,
            tournament_id=tournament_id,
            wall_s=wall_s,
            create_s=create_s,
            verify_s=verify_s,
            verify_code=code,
            verify_summary=summary,
            games=facts.games,
            events=facts.events,
            bot_moves=facts.bot_moves,
            export_bytes=len(export),
            load_before=load_before,
            cpu=cpu,
            redis_calls=dict(sorted(calls.items(), key=lambda item: -item[1])),
            rounds=timeline.rounds(),
            log_errors=errors,
        )
    finally:
        if failed or keep:
            log(f"{workers} worker(s): data directory kept: {data_dir}")
        else:
            shutil.rmtree(data_dir, ignore_errors=True)


def run(
    report: Report,
    *,
    game: str = "arktia",
    count: int = 64,
    rounds: int = 6,
    table_size: int = 2,
    workers: Sequence[int] = (1, 2, 4),
    repeat: int = 1,
    stall: float = 120.0,
    timeout: float = 3600.0,
    keep: bool = False,
    appendfsync: str | None = None,
    log: Log,
) -> list[Outcome]:
    """Run the tournament ``repeat`` times per worker count, the order reversed on every
    other pass (1,2,4 then 4,2,1: a drift in the machine's load hits every count alike);
    add the medians to ``report``."""
    outcomes: list[Outcome] = []
    for attempt in range(repeat):
        for n in workers if attempt % 2 == 0 else list(reversed(workers)):
            outcome = run_one(
                n,
                game=game,
                count=count,
                rounds=rounds,
                table_size=table_size,
                stall=stall,
                timeout=timeout,
                keep=keep,
                appendfsync=appendfsync,
                log=log,
            )
            outcome.order = len(outcomes) + 1
            outcomes.append(outcome)
    group = f"(g) tournament, {game} {count}p x {rounds} rounds"
    summary = summarize(outcomes, workers)
    for row in summary:
        failed = [o for o in outcomes if o.workers == row["workers"] and not o.verified]
        note = f"verify failed: {failed[0].verify_summary}" if failed else ""
        n = row["workers"]
        report.add(Result(group, f"{n} workers: wall time", row["wall_s"], "s", note=note))
        report.add(Result(group, f"{n} workers: verify time", row["verify_s"], "s"))
        report.add(Result(group, f"{n} workers: bot moves/s", row["moves_per_s"], "moves/s"))
        if n != workers[0]:
            report.add(
                Result(group, f"{n} workers: speed-up over {workers[0]}", row["speedup"], "x")
            )
    report.details["tournament"] = {
        "summary": summary,
        "runs": [{**o.__dict__, "moves_per_s": o.moves_per_s} for o in outcomes],
    }
    return outcomes


def summarize(outcomes: Sequence[Outcome], workers: Sequence[int]) -> list[dict[str, Any]]:
    """Per worker count: the median of its runs (and their range); the speed-up is the
    ratio of the median wall times to the first count's."""
    rows = []
    for n in workers:
        mine = [o for o in outcomes if o.workers == n]
        walls = [o.wall_s for o in mine]
        rows.append(
            {
                "workers": n,
                "runs": len(mine),
                "wall_s": statistics.median(walls),
                "wall_min_s": min(walls),
                "wall_max_s": max(walls),
                "moves_per_s": statistics.median(o.moves_per_s for o in mine),
                "verify_s": statistics.median(o.verify_s for o in mine),
                "verified": all(o.verified for o in mine),
            }
        )
    for row in rows:
        row["speedup"] = rows[0]["wall_s"] / row["wall_s"]
    return rows


# ----- printing -----------------------------------------------------------------------------


def _bot_workers(workers: int) -> int:
    return workers if workers == 1 else workers - 1  # the first only draws (floe run)


def print_tables(outcomes: Sequence[Outcome], workers: Sequence[int]) -> None:
    summary = summarize(outcomes, workers)
    print(
        "| job workers | bot workers | runs | wall time, median (range) | bot moves/s "
        "| speed-up | verify time | verified |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in summary:
        spread = "" if row["runs"] == 1 else f" ({row['wall_min_s']:.1f}-{row['wall_max_s']:.1f})"
        print(
            f"| {row['workers']} | {_bot_workers(row['workers'])} | {row['runs']} "
            f"| {row['wall_s']:.1f} s{spread} | {row['moves_per_s']:,.0f} "
            f"| {row['speedup']:.2f}x | {row['verify_s']:.2f} s "
            f"| {'yes' if row['verified'] else 'NO'} |"
        )
    print()
    print("Each run, in the order run:")
    print(
        "| run | job workers | wall time | bot moves/s | verify time | floe replay verify "
        "| games | events | bot moves | load before |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for o in outcomes:
        verdict = o.verify_summary if o.verified else f"FAILED: {o.verify_summary}"
        print(
            f"| {o.order} | {o.workers} | {o.wall_s:.1f} s | {o.moves_per_s:,.0f} "
            f"| {o.verify_s:.2f} s | {verdict} "
            f"| {o.games} | {o.events:,} | {o.bot_moves:,} | {_load(o.load_before)} |"
        )
    print()
    parts = ["draws worker", "bot workers", "api", "redis", "machine"]
    print("CPU, in cores busy on average over the wall time (machine: every process on it):")
    print(
        "| run | job workers | "
        + " | ".join(parts)
        + " | workers' CPU ms a bot move | Redis commands a bot move (top 4) |"
    )
    print("|---|---|" + "---|" * (len(parts) + 2))
    for o in outcomes:
        cells = [f"{o.cpu[p]:.2f}" if p in o.cpu else "-" for p in parts]
        worker_cpu = (o.cpu.get("draws worker", 0.0) + o.cpu.get("bot workers", 0.0)) * o.wall_s
        per_move = 1000 * worker_cpu / max(1, o.bot_moves)
        calls = sum(o.redis_calls.values())
        top = ", ".join(f"{name} {n:.1f}" for name, n in list(o.redis_calls.items())[:4])
        print(
            f"| {o.order} | {o.workers} | "
            + " | ".join(cells)
            + f" | {per_move:.1f} | {calls:.0f}: {top} |"
        )
    print()
    print("Rounds as the stream showed them (s): length; half its games over; tail (from")
    print(f"{TAIL_FROM:.0%} of its games over to the last); gap before it began:")
    print(
        "| run | job workers | "
        + " | ".join(f"round {r['round']}" for r in outcomes[0].rounds)
        + " |"
    )
    print("|---|---|" + "---|" * len(outcomes[0].rounds))
    for o in outcomes:
        cells = [
            f"{r['seconds']:.1f}; {r['p50_s']:.1f}; {r['tail_s']:.1f}; {r['gap_s']:.2f}"
            for r in o.rounds
        ]
        print(f"| {o.order} | {o.workers} | " + " | ".join(cells) + " |")
    for o in outcomes:
        tail = sum(r["tail_s"] for r in o.rounds)
        gaps = sum(r["gap_s"] for r in o.rounds)
        print(
            f"run {o.order}, {o.workers} worker(s): tails {tail:.1f} s "
            f"({tail / o.wall_s:.0%} of the wall time), gaps between rounds {gaps:.2f} s, "
            f"create {o.create_s:.2f} s, export {o.export_bytes:,} bytes"
        )
        if o.log_errors:
            print(f"  {len(o.log_errors)} error lines in floe-run.log, e.g. {o.log_errors[0]}")


# ----- game lengths -----------------------------------------------------------------------


def print_lengths(games: int) -> None:
    """Play ``games`` games of each pairing of each candidate game in process, as the workers
    would (seeds and bot streams as ``bench.ai.arena`` makes them), and print how long they
    are: bot moves, events (draws and system events too) and the seconds the bots thought."""
    from bench.ai.arena import Match, new_state, seed_of
    from domain.ai import POLICIES, bot_to_move
    from domain.engine import play, rng
    from domain.engine.rng import DrawStream
    from domain.games import GAMES

    print("| game | seats | bot moves p50 / max | events p50 / max | think s p50 / max |")
    print("|---|---|---|---|---|")
    for name in ("iceberg", "arktia"):
        game = GAMES[name]
        for pair in (("random", "random"), ("random", "greedy"), ("greedy", "greedy")):
            match = Match(f"tournament-lengths-{name}-{'-'.join(pair)}", name, pair)
            moves: list[int] = []
            events: list[int] = []
            think: list[float] = []
            for index in range(games):
                seats, seed = match.seats_for(index), seed_of(match.key, index)
                state = new_state(match, index)
                moved, thought = 0, 0.0
                while not state.over:
                    draw = game.rules.pending_draw(state.board)
                    if draw is not None:
                        version = state.version + 1
                        drawn = rng.draw(
                            seed, state.game_id, version, draw.label, draw.kind, draw.n
                        )
                        state = play.resolve_draw_step(game.rules, state, drawn)[1]
                        continue
                    seat = bot_to_move(game, state)
                    assert seat is not None
                    stream = DrawStream(seed, state.game_id, state.version + 1, f"bot-{seat}")
                    started = time.perf_counter()
                    action = POLICIES[seats[seat]].choose(game, state, seat, stream)
                    thought += time.perf_counter() - started
                    state = play.step(game.rules, state, seat, action)[1]
                    moved += 1
                moves.append(moved)
                events.append(state.version + 1)  # and the seed_revealed event
                think.append(thought)
            print(
                f"| {name} | {' / '.join(pair)} | {statistics.median(moves):.0f} / {max(moves)} "
                f"| {statistics.median(events):.0f} / {max(events)} "
                f"| {statistics.median(think):.3f} / {max(think):.3f} |"
            )


# ----- the command ---------------------------------------------------------------------------


def _load(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f}"


def _csv_ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.tournament",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", choices=("arktia", "iceberg"), default="arktia")
    parser.add_argument("--players", type=int, default=64, help="bots, random/greedy alternately")
    parser.add_argument("--rounds", type=int, default=6, help="swiss rounds")
    parser.add_argument("--table-size", type=int, default=2)
    parser.add_argument(
        "--workers", type=_csv_ints, default=[1, 2, 4], help="FLOE_JOB_WORKERS of each run"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per worker count, order alternated"
    )
    parser.add_argument("--stall", type=float, default=120.0, help="fail after no change in s")
    parser.add_argument("--timeout", type=float, default=3600.0, help="fail a run after s")
    parser.add_argument("--keep", action="store_true", help="keep each run's data directory")
    parser.add_argument(
        "--appendfsync",
        choices=("always", "everysec", "no"),
        help="a diagnostic peer: CONFIG SET the run's Redis (floe run's is always)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS / "tournament.json")
    parser.add_argument(
        "--lengths",
        type=int,
        metavar="N",
        help="only play N games of each pairing in process and print their lengths",
    )
    args = parser.parse_args(argv)
    if args.lengths:
        print_lengths(args.lengths)
        return 0
    began = time.monotonic()

    def log(message: str) -> None:
        print(f"[{time.monotonic() - began:6.1f}s] {message}", file=sys.stderr, flush=True)

    report = Report()
    load_before = load_average()
    outcomes = run(
        report,
        game=args.game,
        count=args.players,
        rounds=args.rounds,
        table_size=args.table_size,
        workers=args.workers,
        repeat=args.repeat,
        stall=args.stall,
        timeout=args.timeout,
        keep=args.keep,
        appendfsync=args.appendfsync,
        log=log,
    )
    print_tables(outcomes, args.workers)
    elapsed = time.monotonic() - began
    print(f"\ntotal {elapsed:.0f}s; 1-minute load average {_load(load_before)} before the run")
    document = {
        "command": " ".join([Path(sys.executable).name, "-m", "bench.tournament", *sys.argv[1:]]),
        "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "elapsed_s": elapsed,
        "machine": {**machine(), "loadavg_before": load_before, "loadavg_after": load_average()},
        "code": git_state(str(Path(__file__).resolve().parent.parent)),
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "results": [r.to_json() for r in report.results],
        "details": report.details,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(document, indent=2, default=str) + "\n")
    print(f"wrote {args.output}")
    return 0 if all(o.verified for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
