"""``python -m bench.servers``: wrk's report read right, and no wrk handled.

(What the comparison found about idle streams is held by ``tests/faults/test_hostile_load.py``
for the server ``floe run`` uses; BENCHMARKS.md has the figures.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import servers

WRK_OUTPUT = """\
Running 4s test @ http://127.0.0.1:8000/bench/xadd
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     6.90ms    1.26ms  33.30ms   95.14%
    Req/Sec     2.34k    80.82     2.42k    95.00%
  Latency Distribution
     50%  680.00us
     75%    6.97ms
     90%    7.22ms
     99%    1.20s
  9342 requests in 4.01s, 1.42MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 7
Requests/sec:   2331.50
Transfer/sec:    362.00KB
"""


def test_wrk_report_is_read_with_its_units() -> None:
    result = servers.parse_wrk(WRK_OUTPUT)
    assert result.requests == 9342
    assert result.seconds == pytest.approx(4.01)
    assert result.rps == pytest.approx(2331.5)
    assert result.p50_ms == pytest.approx(0.68)
    assert result.p99_ms == pytest.approx(1200.0)
    assert (result.non_2xx, result.socket_errors) == (7, 5)


def test_lua_strings_survive_any_body() -> None:
    script = servers.lua_script("POST", "tok", '{"a": [[1]]}')
    assert 'wrk.body = [=[{"a": [[1]]}]=]' in script
    assert 'wrk.headers["Authorization"] = [[Bearer tok]]' in script


def test_without_wrk_it_says_so_and_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    output = tmp_path / "servers.json"
    assert servers.main(["--output", str(output)]) == 0
    assert capsys.readouterr().out.strip() == servers.WRK_MISSING
    assert not output.exists()
