"""The pairings benchmark (``python -m bench --only j``), shrunk to a smoke test: a few
simulated events per format, played with the pairings of before and of now. The figures are
BENCHMARKS.md's; nothing here is timed."""

from __future__ import annotations

import json
from pathlib import Path

from bench.__main__ import main as bench_main
from bench.pairings import FORMATS


def test_a_tiny_run_of_the_pairings_benchmark_reports_every_format_before_and_after(
    tmp_path: Path,
) -> None:
    output = tmp_path / "bench.json"
    argv = ["--only", "j", "--quick", "--pairing-events", "6"]
    assert bench_main([*argv, "--output", str(output)]) == 0
    report = json.loads(output.read_text())
    formats = report["details"]["pairings"]["formats"]
    assert list(formats) == list(FORMATS)
    for figures in formats.values():
        assert figures["events"] == 6
        before, after = figures["before"], figures["after"]
        assert before["players"] == after["players"] > 0
        assert before["tables"] > 0 and after["tables"] > 0
        # Within what a plan allows, the pairings of now never repeat a table.
        assert after["repeated_tables"] == 0
    names = {result["name"] for result in report["results"]}
    for format in FORMATS:
        for when in ("before", "after"):
            assert f"{format}: players |firsts - seconds| > 2, {when}" in names
            assert f"{format}: third first seat in a row, {when}" in names
            assert f"{format}: repeated tables, {when}" in names
