"""The tournament benchmark (``python -m bench.tournament``), shrunk to a smoke test: a real
``floe run`` runs a 4-bot swiss of 2 rounds by itself, and its export verifies. The figures
are BENCHMARKS.md's; nothing here is timed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import tournament


@pytest.mark.processes
def test_a_tiny_run_of_the_tournament_benchmark_finishes_and_its_export_verifies(
    tmp_path: Path,
) -> None:
    output = tmp_path / "tournament.json"
    # --stall: how long the run may see nothing change before it fails (generous: a busy
    # machine is slow, not stalled).
    argv = ["--players", "4", "--rounds", "2", "--workers", "2", "--stall", "120"]
    assert tournament.main([*argv, "--output", str(output)]) == 0
    report = json.loads(output.read_text())
    [run] = report["details"]["tournament"]["runs"]
    assert run["workers"] == 2 and run["games"] == 4
    assert run["verify_code"] == 0 and "1 ok, 0 incomplete, 0 failed" in run["verify_summary"], run
    assert run["bot_moves"] > 0 and run["log_errors"] == []
