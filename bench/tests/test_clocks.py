"""The clocks benchmark (``python -m bench --only i``), shrunk to a smoke test: twenty clocked
games on a real stack (API, two workers, the queue Redis) each time out once while thirty
more clocks keep running, and the move cost phase plays moves with and without a clock. The
figures are BENCHMARKS.md's; nothing here is timed beyond the benchmark's own bound on
lateness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.__main__ import main as bench_main


@pytest.mark.processes
def test_a_tiny_run_of_the_clocks_benchmark_sees_every_timeout_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As `make bench` runs it (quotas off: one address makes every game).
    monkeypatch.setenv("FLOE_LIVE_GAMES_PER_CREATOR", "0")
    monkeypatch.setenv("FLOE_STORED_BYTES_PER_CREATOR", "0")
    monkeypatch.setenv("FLOE_BOT_GAMES_PER_CREATOR", "0")
    output = tmp_path / "bench.json"
    argv = ["--only", "i", "--quick", "--clock-games", "20", "--clock-move-s", "2,3"]
    argv += ["--clock-background", "30"]
    assert bench_main([*argv, "--output", str(output)]) == 0
    report = json.loads(output.read_text())
    results = {result["name"]: result for result in report["results"]}
    assert results["games without exactly one timeout, on time"]["value"] == 0, results
    assert results["timeouts recorded, 20 games"]["value"] == 20
    p50, p99 = (results[f"timeout lateness p{p}, 20 clocks + 30 running"] for p in (50, 99))
    # A timeout is never stamped before its due moment; a busy machine may make it late.
    assert 0 <= p50["value"] <= p99["value"] and p99["target"] == 2.0
    for name in ("ratio move p50 clocked / no clock", "ratio moves/s clocked / no clock"):
        assert results[name]["value"] > 0, name
    # The background clocks ran throughout: never fewer armed, none of their games moved on.
    running = results["clocks running through the wait, fewest"]
    assert running["target"] == 30 and running["met"], running
    details = report["details"]["clocks"]
    lateness = details["lateness"]
    assert lateness["summary_s"]["n"] == 20 and lateness["wrong"] == {}
    assert lateness["background"] == 30 and lateness["background_moved_on"] == 0
    assert lateness["clocks_running"]["first"] >= 30 + 1  # some timed games still running
    assert lateness["clocks_running"]["last"] >= 30
    windows = details["move_cost"]["windows"]
    assert {w["clocked"] for w in windows} == {True, False}
    assert all(w["moves"] > 0 for w in windows)
    assert details["worker_log_problems"] == []
