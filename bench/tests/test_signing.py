"""The signing benchmark (``python -m bench --only k``), shrunk to a smoke test: signed and
unsigned Arktia moves posted to a real gunicorn over a real Redis, every signed move stored
with its signature and no unsigned one with any. The figures are BENCHMARKS.md's; nothing
here is timed beyond checking that each figure was measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.__main__ import main as bench_main


@pytest.mark.processes
def test_a_tiny_run_of_the_signing_benchmark_posts_signed_and_unsigned_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As `make bench` runs it (quotas off: one address makes every game).
    monkeypatch.setenv("FLOE_LIVE_GAMES_PER_CREATOR", "0")
    monkeypatch.setenv("FLOE_STORED_BYTES_PER_CREATOR", "0")
    monkeypatch.setenv("FLOE_BOT_GAMES_PER_CREATOR", "0")
    output = tmp_path / "bench.json"
    argv = ["--only", "k", "--quick", "--signing-windows", "1", "--output", str(output)]
    assert bench_main(argv) == 0
    report = json.loads(output.read_text())
    results = {result["name"]: result["value"] for result in report["results"]}
    details = report["details"]["signing"]
    stored = details["stored"]
    # The paired phase alone posts 120 signed moves (20 to warm up, 100 timed).
    assert stored["signed_games_moves_signed"] >= 120
    assert stored["plain_games_moves_unsigned"] >= 120
    assert stored["signed_games_moves_unsigned"] == stored["plain_games_moves_signed"] == 0
    assert details["paired_latency"]["signed"]["n"] == 100
    assert details["answers_carry_receipts"] is True  # both sides pay for them alike
    local = details["api_in_process"]
    assert local["posts_each"] == 60 and len(local["round_ratios"]) == 3
    assert local["signed_us"] > 0 and local["unsigned_us"] > 0
    windows = details["windows"]
    assert [w["signed"] for w in windows] == [True, False]
    assert all(w["posts"] > 0 for w in windows)
    for name in (
        "client: sign a move (PlayerKey.sign_action)",
        "server: check a move's signature (Ed25519 verify)",
        "receipt: mark, message, service signature",
        "in process: ratio CPU a POST signed / unsigned",
        "gunicorn CPU a move, signed",
        "gunicorn CPU a move, unsigned",
        "ratio gunicorn CPU a move signed / unsigned",
        "ratio move p50 signed / unsigned",
    ):
        assert results[name] > 0, name
