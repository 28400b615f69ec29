"""(e) Verification throughput: ``floe replay verify`` over a thousand exported games.

The games are made here, not read from anywhere: seeded random Arktia and Iceberg games
played through the domain, their draws made from a real seed exactly as the worker makes
them, sealed into the hash chain and written as export files. Then the CLI's own
``verify_all`` (the code path of ``floe replay verify``) audits them all, in parallel.
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
from replay.cli import verify_all

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
