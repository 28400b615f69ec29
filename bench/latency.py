"""(b) Does a move cost more once a game is long? POST latency near version 10 vs 2,000+.

Event sourcing folds a game from its events; a service that refolded on every request
would slow down linearly with the game's length. One client, one keep-alive connection,
sequential requests (no queueing), so the samples are the per-request cost itself.

One long game is filled through the same API with the same script up to version V (2,000,
then 5,000; the fill rate is reported). Then ``samples`` POSTs on it are measured
*interleaved* with as many POSTs on fresh games near version 10 (each fresh game posts its
first ``window`` scripted actions, versions 1 -> ``window`` + 1: opening placements and the
first moves), so both sides see the same machine: a burst of other load cannot land on one
side only. The ratio is p50(version V) / p50(version ~10) of those paired samples; its
target, at version 5,000, is 1.1 (2,000 is reported beside it, without one).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench import policy
from bench.report import Report, Result, latency_summary
from bench.stack import BenchError, Client, Stack, create_game

#: The version the target is set at, and the target: p50 there <= 1.1 x p50 near version 10.
#: Other versions (2,000) are reported beside it without a target.
TARGET_VERSION = 5000
RATIO_TARGET = 1.1


class Game:
    """A game driven over HTTP by replaying a script from its first action, with ``clock``
    (if any); once the script runs out a new game starts (creating is not counted)."""

    def __init__(
        self,
        client: Client,
        script: Sequence[policy.Step],
        name: str,
        *,
        clock: dict[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.script = script
        self.name = name
        self.clock = clock
        self.games = 0
        self._create()

    def _create(self) -> None:
        self.game_id, self.tokens = create_game(self.client, 2, policy.OPTIONS, self.clock)
        self.version = 1
        self.games += 1

    def post_next(self) -> float:
        """POST the next scripted action; returns the request's wall time in seconds."""
        if self.version > len(self.script):
            self._create()
        step = self.script[self.version - 1]
        body = json.dumps(
            {
                "action": step.action,
                "expected_version": self.version,
                "command_id": f"{self.name}-{self.games}-{self.version}",
            }
        ).encode()
        path = f"/v1/games/{self.game_id}/actions"
        started = time.perf_counter()
        status, raw = self.client.request("POST", path, body, self.tokens[step.seat])
        elapsed = time.perf_counter() - started
        if status != 201:
            raise BenchError(f"{self.name}: POST at version {self.version} -> {status}: {raw!r}")
        self.version = int(json.loads(raw)["version"])
        return elapsed


def run(
    stack: Stack,
    report: Report,
    *,
    script: Sequence[policy.Step],
    samples: int,
    window: int,
    targets: Sequence[int],
    log: Callable[[str], None],
) -> None:
    """Fill one long game to each of ``targets``; measure it against fresh games there."""
    client = stack.client()
    group = "(b) latency vs version"
    details: dict[str, Any] = {"samples": samples, "early_versions": f"1..{window + 1}"}
    fresh_games = 0

    def fresh() -> Game:
        nonlocal fresh_games
        fresh_games += 1
        return Game(client, script, f"early{fresh_games}")

    try:
        # Warm both code paths (imports, caches, the connection) before any sample.
        warm = fresh()
        for _ in range(window):
            warm.post_next()
        long = Game(client, script, "long")
        all_early: list[float] = []
        for target in sorted(targets):
            if target + samples >= len(script):
                raise BenchError(f"the script has {len(script)} steps; {target} needs more")
            log(f"(b) filling one game to version {target}")
            started = time.perf_counter()
            filled = 0
            while long.version < target:
                long.post_next()
                filled += 1
            fill_seconds = time.perf_counter() - started
            log(f"(b) {samples} POSTs at version {target}+ interleaved with {samples} near 10")
            first = long.version
            early: list[float] = []
            late: list[float] = []
            game = fresh()
            for _ in range(samples):
                late.append(long.post_next())
                if game.version > window:
                    game = fresh()
                early.append(game.post_next())
            all_early += early
            base, summary = latency_summary(early), latency_summary(late)
            ratio = summary["p50_ms"] / base["p50_ms"]
            details[f"v{target}"] = {
                "versions": f"{first}..{long.version}",
                "fill_posts": filled,
                "fill_seconds": fill_seconds,
                "fill_rate_per_s": filled / fill_seconds if fill_seconds else 0.0,
                "p50_ratio_vs_v10": ratio,
                **summary,
                "paired_v10": base,
            }
            report.add(Result(group, f"p50 @ v~10 (paired with v{target})", base["p50_ms"], "ms"))
            report.add(Result(group, f"p50 @ v{target}", summary["p50_ms"], "ms"))
            report.add(Result(group, f"p99 @ v~10 (paired with v{target})", base["p99_ms"], "ms"))
            report.add(Result(group, f"p99 @ v{target}", summary["p99_ms"], "ms"))
            bound = RATIO_TARGET if target == TARGET_VERSION else None
            report.add(Result(group, f"ratio p50(v{target}) / p50(v10)", ratio, "x", bound, "<="))
        details["v10_all"] = latency_summary(all_early)
        details["fresh_games"] = fresh_games
    finally:
        client.close()
    report.details["latency"] = details
