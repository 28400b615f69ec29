"""The socket rows of ``make bench`` (a): the bare socket route and Floe's socket, from Node.

One short run of (a) through ``python -m bench``'s own entry point must really play over
sockets: every message answered, every move accepted, the ratios of issue 29 reported. The
phases put the bot's loop where the legal-GET loop is. Nothing here is timed: rates are only
checked to be positive, since the figures are BENCHMARKS.md's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench import pinning, throughput
from bench.__main__ import main as bench_main

SOCKET_ROWS = ("bare_socket", "socket", "socket_bot")


@pytest.mark.processes
def test_a_short_run_of_a_plays_every_socket_load_without_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"the socket driver runs on Node: install Node.js and npm ({missing})"
    # As `make bench` runs it (quotas off: the clients are one address making many games).
    monkeypatch.setenv("FLOE_LIVE_GAMES_PER_CREATOR", "0")
    monkeypatch.setenv("FLOE_STORED_BYTES_PER_CREATOR", "0")
    monkeypatch.setenv("FLOE_BOT_GAMES_PER_CREATOR", "0")
    output = tmp_path / "bench.json"
    argv = ["--only", "a", "--clients", "2", "--duration", "0.8", "--rounds", "1"]
    argv += ["--warmup", "0.1", "--fsync", "always", "--no-legal-get", "--no-pinned"]
    argv += ["--no-bgio", "--script-length", "20"]  # 20: games run out and are replaced
    assert bench_main([*argv, "--output", str(output)]) == 0
    report = json.loads(output.read_text())
    names = {result["name"] for result in report["results"]}
    assert {f"{load} rate" for load in SOCKET_ROWS} <= names, names
    assert {
        "ratio socket moves/s / bare socket/s",
        "ratio socket bot loop / socket moves/s",
        "ratio bare socket/s / bare http/s",
    } <= names
    details = report["details"]["throughput"]
    assert details["sockets"]["measured"] is True
    assert details["sockets"]["floe_socket"] == {"measured": True}
    window = details["appendfsync_always"]
    for load in SOCKET_ROWS:
        assert window[load]["ok"] > 0 and window[load]["errors"] == 0, window[load]
    assert window["bare_socket"]["statuses"] == {"200": window["bare_socket"]["ok"]}
    assert window["socket"]["statuses"] == {"201": window["socket"]["ok"]}
    # The server side's CPU was sampled inside the window (gunicorn's workers served it).
    assert window["socket"]["cpu_ms_per_op_api"] > 0


def test_the_bots_loop_on_the_socket_runs_where_the_legal_get_loop_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pinning, "cores", lambda: [0, 1])
    planned, _ = throughput.phases(
        ["always", "everysec"],
        rounds=4,
        legal_get=True,
        bgio=True,
        pinned=True,
        pinned_rounds=2,
        log=lambda _: None,
        socket_loads=SOCKET_ROWS,
    )
    first, second, pinned = planned
    assert {"bare_socket", "socket", "socket_bot"} <= set(first.loads)
    assert {"bare_socket", "socket"} <= set(second.loads)
    assert "socket_bot" not in second.loads
    assert {"bare_socket", "socket", "socket_bot", "bgio_memory"} <= set(pinned.loads)


def test_without_floe_s_route_only_the_bare_socket_is_planned() -> None:
    planned, _ = throughput.phases(
        ["always"],
        rounds=2,
        legal_get=False,
        bgio=False,
        pinned=False,
        pinned_rounds=2,
        log=lambda _: None,
        socket_loads=["bare_socket"],
    )
    assert planned[0].loads == ["actions", "bare_xadd", "bare_socket"]
