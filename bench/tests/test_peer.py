"""The boardgame.io peer of ``make bench`` (a): ``bench.peer`` and its place in throughput.

Without Node the peer must step aside, saying so, and (a) must still measure Floe; with Node
(this machine and CI have it) one short in-memory window must really play: moves answered
by the server's broadcast, none lost. Nothing here is timed: rates are only checked to be
positive, since the figures are BENCHMARKS.md's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench import peer, pinning, throughput
from bench.__main__ import main as bench_main


@pytest.fixture
def no_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH with nothing on it: no node, no npm (Redis and gunicorn need no PATH)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.mark.usefixtures("no_node")
def test_without_node_the_peer_says_it_is_not_measured() -> None:
    said: list[str] = []
    assert peer.find_node() is None
    assert peer.prepare(said.append) is None
    assert said == ["node not found: boardgame.io not measured"]


@pytest.mark.processes
@pytest.mark.usefixtures("no_node")
def test_without_node_the_throughput_bench_still_measures_floe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # As `make bench` runs it (quotas off: the clients are one address making many games).
    monkeypatch.setenv("FLOE_LIVE_GAMES_PER_CREATOR", "0")
    monkeypatch.setenv("FLOE_STORED_BYTES_PER_CREATOR", "0")
    monkeypatch.setenv("FLOE_BOT_GAMES_PER_CREATOR", "0")
    output = tmp_path / "bench.json"
    argv = ["--only", "a", "--clients", "2", "--duration", "0.6", "--rounds", "1"]
    argv += ["--warmup", "0.1", "--fsync", "always", "--no-legal-get", "--no-pinned"]
    assert bench_main([*argv, "--output", str(output)]) == 0
    assert "node not found: boardgame.io not measured" in capsys.readouterr().err
    report = json.loads(output.read_text())
    names = {result["name"] for result in report["results"]}
    assert {"actions rate", "bare_xadd rate", "ratio moves/s / bare/s"} <= names
    assert not any("bgio" in name for name in names), names
    details = report["details"]["throughput"]
    assert details["bgio"]["measured"] is False
    assert details["appendfsync_always"]["actions"]["ok"] > 0


@pytest.mark.processes
def test_a_one_second_in_memory_window_plays_moves_without_errors() -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"this test runs boardgame.io: install Node.js and npm ({missing})"
    said: list[str] = []
    node = peer.prepare(said.append)
    assert node is not None, said  # npm ci failed: the log says why
    load = peer.window(node, "memory", matches=16, seconds=1.0, warmup=0.3)
    assert load.name == "bgio_memory" and load.clients == 16
    assert load.errors == 0
    assert load.rate > 0 and load.ok == len(load.latencies)
    assert all(latency > 0 for latency in load.latencies)
    # CPU sampled from /proc inside the window: the Node server did the serving.
    assert load.cpu["server"] > 0 and "client" in load.cpu
    assert peer.installed()


def test_rounds_rotate_so_every_load_takes_every_position() -> None:
    loads = ["actions", "bare_xadd", "bgio_memory", "bgio_flatfile"]
    orders = [throughput.rotated(loads, i) for i in range(len(loads))]
    for position in range(len(loads)):
        assert sorted(order[position] for order in orders) == sorted(loads)


def test_the_pinned_variant_is_skipped_with_a_reason_below_two_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pinning, "cores", lambda: [0])
    said: list[str] = []
    planned, reason = throughput.phases(
        ["always", "everysec"],
        rounds=4,
        legal_get=True,
        bgio=True,
        pinned=True,
        pinned_rounds=2,
        log=said.append,
    )
    assert [phase.group for phase in planned] == [
        "(a) http, fsync always",
        "(a) http, fsync everysec",
    ]
    assert "needs 2 cores" in reason and said == [f"(a) pinned variant skipped: {reason}"]
    assert planned[0].loads[-1] == "actions_with_legal_get"
    assert "actions_with_legal_get" not in planned[1].loads


def test_the_pinned_variant_runs_fsync_always_with_every_load_on_two_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pinning, "cores", lambda: [0, 1])
    planned, reason = throughput.phases(
        ["always", "everysec"],
        rounds=4,
        legal_get=True,
        bgio=True,
        pinned=True,
        pinned_rounds=2,
        log=lambda _: None,
    )
    assert reason == ""
    pinned = planned[-1]
    assert pinned.group == "(a) pinned, fsync always" and pinned.fsync == "always"
    assert pinned.pin == ({0}, {1}) and pinned.rounds == 2
    expected = {"actions", "bare_xadd", "bgio_memory", "bgio_flatfile", "actions_with_legal_get"}
    assert set(pinned.loads) == expected
