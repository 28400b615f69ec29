"""Rates with 95% confidence intervals, think times, and the issue's targets, from game records."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.ai.arena import GameRecord, Match
from bench.report import percentile

Z95 = 1.959964

#: The issue's targets: (match key, what is measured, at least).
TARGETS: dict[str, tuple[str, float]] = {
    "arktia-mcts-vs-random": ("mcts wins", 0.95),
    "arktia-mcts-vs-greedy": ("mcts wins", 0.70),
    "iceberg-mcts-vs-random": ("mcts wins", 0.90),
    "ice-breakers-mcts-3p": ("success", 0.50),
    "ice-breakers-intro-mcts-2p": ("success", 0.99),
    "ice-breakers-intro-mcts-3p": ("success", 0.99),
    "ice-breakers-intro-mcts-4p": ("success", 0.99),
}
THINK_TARGET = 1.0  # median seconds per mcts move


def wilson(successes: float, n: int) -> tuple[float, float]:
    """The Wilson score interval at 95% (a shared win counts as its share)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Report:
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    all_met: bool = True


def summarize(records: Sequence[GameRecord], matches: Sequence[Match]) -> Report:
    lines = [
        f"{'match':36} {'games':>5}  {'rate':>6}  {'95% CI':>13}  {'target':>7}  extra",
    ]
    data: dict[str, Any] = {"matches": {}, "think": {}}
    all_met = True
    for match in matches:
        games = [r for r in records if r.key == match.key]
        if not games:
            continue
        n = len(games)
        entry: dict[str, Any] = {"games": n}
        if match.game == "ice-breakers":
            measured = "success"
            hits: float = sum(1 for r in games if r.success)
            delivered = statistics.mean(r.delivered or 0 for r in games)
            entry["mean_delivered"] = delivered
            extra = f"mean delivered {delivered:.2f} of {games[0].in_play}"
        else:
            first = match.strengths[0]
            measured = f"{first} wins"
            hits = sum(r.score_of(first) for r in games)
            draws = sum(1 for r in games if len(r.winners) != 1)
            extra = f"{draws} shared or drawn" if draws else ""
        rate = hits / n
        low, high = wilson(hits, n)
        entry.update(measured=measured, rate=rate, ci95=[low, high])
        target = TARGETS.get(match.key)
        target_text = ""
        if target is not None:
            met = rate >= target[1]
            entry.update(target=target[1], met=met)
            all_met = all_met and met
            target_text = f">={target[1]:.2f}{'' if met else ' MISS'}"
        data["matches"][match.key] = entry
        lines.append(
            f"{match.key:36} {n:5d}  {rate:6.3f}  [{low:.3f}, {high:.3f}]  {target_text:>7}  "
            f"{extra}"
        )
    lines.append("")
    lines.append(f"{'think time per move':36} {'moves':>7}  {'median':>8}  {'p95':>8}  {'max':>8}")
    for game in ("arktia", "iceberg", "ice-breakers"):
        for strength in ("mcts", "greedy"):
            samples = [
                t for r in records if _game_of(r.key) == game for t in r.think.get(strength, [])
            ]
            if not samples:
                continue
            median = statistics.median(samples)
            p95 = percentile(samples, 95)
            key = f"{game} {strength}"
            data["think"][key] = {"moves": len(samples), "median": median, "p95": p95}
            mark = ""
            if strength == "mcts":
                met = median <= THINK_TARGET
                all_met = all_met and met
                mark = "" if met else "  MISS (target median <= 1 s)"
            lines.append(
                f"{key:36} {len(samples):7d}  {median:8.3f}  {p95:8.3f}  {max(samples):8.3f}{mark}"
            )
    data["all_met"] = all_met
    return Report("\n".join(lines), data, all_met)


def _game_of(key: str) -> str:
    for game in ("ice-breakers", "arktia", "iceberg"):
        if key.startswith(game):
            return game
    return key
