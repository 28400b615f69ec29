"""Result records, percentiles, the printed table and the machine description.

One small place for these so every benchmark reports alike and the JSON is one shape.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

Goal = Literal[">=", "<="]


@dataclass
class Result:
    """One reported number, with its target when it has one."""

    group: str
    name: str
    value: float
    unit: str
    target: float | None = None
    goal: Goal = ">="
    note: str = ""

    @property
    def met(self) -> bool | None:
        if self.target is None:
            return None
        return self.value >= self.target if self.goal == ">=" else self.value <= self.target

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "met": self.met}


@dataclass
class Report:
    """Everything one run produced: the numbers plus free-form details per benchmark."""

    results: list[Result] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def add(self, result: Result) -> Result:
        self.results.append(result)
        return result

    def write(self, output: Path) -> None:
        """Print the table and write the JSON report to ``output`` (a module run alone)."""
        print(table(self.results))
        output.parent.mkdir(parents=True, exist_ok=True)
        document = {"results": [r.to_json() for r in self.results], "details": self.details}
        output.write_text(json.dumps(document, indent=2) + "\n")
        print(f"wrote {output}")


def percentile(samples: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (no interpolation): a value that was actually observed."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def latency_summary(seconds: Sequence[float]) -> dict[str, float]:
    """p50/p90/p99/max in milliseconds, and the sample count."""
    return {
        "n": len(seconds),
        "p50_ms": percentile(seconds, 50) * 1000,
        "p90_ms": percentile(seconds, 90) * 1000,
        "p99_ms": percentile(seconds, 99) * 1000,
        "max_ms": max(seconds) * 1000 if seconds else math.nan,
    }


def machine() -> dict[str, Any]:
    """What the numbers were measured on: they mean little without it."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        cpu = platform.processor() or "unknown"
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }


def load_average() -> float | None:
    """The 1-minute load average: other work on the machine skews every number here."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def git_state(root: str) -> dict[str, Any]:
    """Commit and uncommitted files of the code measured (it changes under our feet)."""

    def git(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, timeout=10, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout

    dirty = [line[3:] for line in git("status", "--porcelain").splitlines() if line.strip()]
    return {"commit": git("rev-parse", "HEAD").strip(), "dirty": dirty}


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isnan(value):
        return "nan"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    if abs(value) < 1:
        return f"{value:.3f}"
    return f"{value:.2f}"


def table(results: Sequence[Result]) -> str:
    """A plain-text table: one line per result, targets and verdicts where they apply."""
    rows = [("benchmark", "metric", "value", "unit", "target", "ok")]
    for r in results:
        target = "" if r.target is None else f"{r.goal} {_fmt(r.target)}"
        ok = "" if r.met is None else ("yes" if r.met else "NO")
        rows.append((r.group, r.name, _fmt(r.value), r.unit, target, ok))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        cells = [
            cell.rjust(widths[i]) if i == 2 else cell.ljust(widths[i]) for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    notes = [f"  {r.group} / {r.name}: {r.note}" for r in results if r.note]
    if notes:
        lines += ["", "notes:", *notes]
    return "\n".join(lines)


def json_safe(value: Any) -> Any:
    """NaN and infinities (a figure a tool did not print) as null, inside lists and dicts
    too: strict JSON readers refuse them."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe(item) for item in value]
    return value
