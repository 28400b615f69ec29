"""(e) Verification throughput: ``floe replay verify`` over a thousand exported games, and
what bot replay costs a 64-bot tournament's export.

The games are made here, not read from anywhere: seeded random Arktia and Iceberg games
played through the domain, their draws made from a real seed exactly as the worker makes
them, sealed into the hash chain and written as export files. Then the CLI's own
``verify_all`` (the code path of ``floe replay verify``) audits them all, in parallel.

The tournament (``run_bots``) is (g)'s made in process: a swiss of 64 bots, ``greedy`` and
``random`` in turn, on Arktia, tables of 2, each bot moving as the worker moves it
(``tests.support.tournament_exports``). Its export is audited as ``floe replay verify``
audits a tournament file (``audit_file``, one process), with and without bot replay,
alternately, in the same run: the ratio is what ``--no-bot-replay`` saves.
"""

from __future__ import annotations

import random
import secrets
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.report import Report, Result
from domain.engine import play, rng
from domain.engine.canonical import canonical_json
from domain.engine.log import GENESIS_HASH, seal
from domain.engine.types import GAME_OVER, SEED_REVEALED, SYSTEM, Event, GameCreated, SeatInfo
from domain.games import GAMES
from replay.bots import ReplayTally
from replay.cli import verify_all
from replay.tournament import TournamentVerdict, audit_file
from tests.support.tournament_exports import build

AT = "2026-11-22T12:00:00Z"


def make_game(index: int, target_events: int) -> list[str]:
    """One finished game of about ``target_events`` events, as export lines."""
    game = ("arktia", "iceberg")[index % 2]
    rules = GAMES[game].rules
    chooser = random.Random(index)
    seed = secrets.token_bytes(32)
    game_id = f"bench-{index:05d}"
    options: dict[str, Any] = {"turn_limit": target_events} if game == "arktia" else {}
    created = GameCreated(
        game,
        rules.rules_version,
        options,
        (SeatInfo(0, "a"), SeatInfo(1, "b")),
        rng.seed_commitment(seed),
    )
    events = [Event("game_created", SYSTEM, created.to_json())]
    state = play.fold(rules, game_id, events)
    while not state.over:
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = rng.draw(seed, game_id, state.version + 1, draw.label, draw.kind, draw.n)
            new, state = play.resolve_draw_step(rules, state, outcome)
        else:
            seat = chooser.choice(play.to_act(rules, state))
            actions = play.legal_actions(rules, state, seat)
            weights = [0.02 if a.type == "retire" else 1.0 for a in actions]
            new, state = play.step(rules, state, seat, chooser.choices(actions, weights)[0])
        events += new
        if new[-1].type == GAME_OVER:
            events.append(Event(SEED_REVEALED, SYSTEM, {"seed": seed.hex()}))
    sealed = seal(game_id, events, first_version=1, prev_hash=GENESIS_HASH, at=AT, command_id="c")
    return [canonical_json(e.to_json()) for e in sealed]


def run(report: Report, *, games: int, events: int, jobs: int, log: Callable[[str], None]) -> None:
    log(f"(e) making {games} finished games of about {events} events")
    with tempfile.TemporaryDirectory(prefix="floe-verify-") as folder:
        paths: list[str] = []
        total = 0
        for index in range(games):
            lines = make_game(index, events)
            total += len(lines)
            path = Path(folder) / f"game-{index:05d}.jsonl"
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            paths.append(str(path))
        log(f"(e) verifying {games} games ({total} events) with {jobs} processes")
        started = time.perf_counter()
        verdicts = verify_all(paths, jobs=jobs)
        elapsed = time.perf_counter() - started
    failed = [v for v in verdicts if v.status != "ok"]
    if failed:
        raise RuntimeError(f"{len(failed)} honest games did not verify: {failed[0]}")
    group = "(e) verify"
    report.add(Result(group, f"{games} games, seconds", elapsed, "s", 10.0, "<="))
    report.add(Result(group, "games per second", games / elapsed, "games/s"))
    report.add(Result(group, "events per second", total / elapsed, "events/s"))
    report.details["verify"] = {"games": games, "events": total, "jobs": jobs, "seconds": elapsed}


def run_bots(
    report: Report, *, players: int, rounds: int, repeats: int, log: Callable[[str], None]
) -> None:
    """Audit a ``players``-bot swiss of ``rounds`` rounds with and without bot replay,
    ``repeats`` times each, alternately; report the best of each and their ratio."""
    log(f"(e) playing a swiss of {players} bots, {rounds} rounds, in process")
    names = [(f"bot{i:02d}", "greedy" if i % 2 == 0 else "random") for i in range(players)]
    export = build("arktia", "swiss", names, rounds=rounds, seed=players)
    seconds: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="floe-verify-bots-") as folder:
        path = str(export.write(Path(folder) / "tournament.ndjson"))
        verdicts: dict[bool, TournamentVerdict] = {}
        for _ in range(repeats):
            for replay in (False, True):
                started = time.perf_counter()
                verdicts[replay] = audit_file(path, bot_replay=replay)
                seconds[replay].append(time.perf_counter() - started)
    bad = [v for v in verdicts.values() if v.status != "ok"]
    if bad:
        raise RuntimeError(f"an honest tournament did not verify: {bad[0]}")
    tally = ReplayTally.of(g.verdict.bots for g in verdicts[True].games)
    games, moves = len(verdicts[True].games), tally.moves
    events = len(export.lines()) - 1
    without, with_ = min(seconds[False]), min(seconds[True])
    group = f"(e) verify, {players} bots"
    size = f"{games} games, {events} events"
    log(f"(e) {size}: {without:.2f} s without bot replay, {with_:.2f} s with ({moves} moves)")
    report.add(Result(group, f"{size}, --no-bot-replay, seconds", without, "s"))
    report.add(Result(group, f"{size}, bot replay, seconds", with_, "s"))
    report.add(Result(group, "bot replay / --no-bot-replay", with_ / without, "x"))
    per_move = (with_ - without) / max(moves, 1) * 1000
    report.add(Result(group, f"per bot move re-derived ({moves} moves)", per_move, "ms"))
    report.details["verify_bots"] = {
        "players": players,
        "rounds": rounds,
        "games": games,
        "events": events,
        "bot_moves": moves,
        "seconds_without": seconds[False],
        "seconds_with": seconds[True],
    }
