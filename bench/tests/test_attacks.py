"""``python -m bench.attacks``: one cheap attack end to end against a real ``floe run``, and
the judgement of a probe's samples (how fast is the benchmark's business, not the test's)."""

from __future__ import annotations

import pytest

from bench.attacks.harness import main
from bench.attacks.probes import Failed, Samples, growth_under, under


def test_one_quick_attack_runs_end_to_end_and_prints_its_rows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--quick", "--only", "slowloris", "--size", "slowloris=200"]
    argv += ["--probes", "5", "--hold", "2", "--seconds", "60"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    rows = [line for line in printed.splitlines() if line.startswith("| slowloris |")]
    assert [row.split(" | ")[1] for row in rows] == ["health", "a person's move"]
    assert all(row.count(" | ") == 6 for row in rows)  # seven columns
    [note] = [line for line in printed.splitlines() if line.startswith("- **slowloris**")]
    # Every one asked for was opened, all from one address. More may have been: the web
    # processes' accept loops share the connections unevenly, so one process can pass its
    # per-address cap and refuse a few with 429, which the attacker then reopens.
    opened = int(note.split("): ", 1)[1].split(" connections opened")[0])
    assert opened >= 200


def test_an_unknown_attack_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--only", "smoke-signals"])
    assert "no attack smoke-signals" in capsys.readouterr().err


def _fails() -> float:
    raise Failed("503")


def test_a_failed_request_counts_its_time_and_fails_the_target() -> None:
    fast = Samples()
    fast.add(lambda: 0.001)
    assert under(0.25)(fast, fast)
    failing = Samples()
    failing.add(lambda: 0.001)
    failing.add(_fails)
    assert failing.failed == 1 and len(failing.values) == 2
    assert failing.why == {"Failed: 503": 1}
    assert not under(0.25)(fast, failing)


def test_memory_growth_is_measured_from_the_idle_median() -> None:
    idle, attacked = Samples([100e6, 101e6, 102e6]), Samples([200e6, 252e6])
    assert growth_under(160_000_000)(idle, attacked)
    assert not growth_under(150_000_000)(idle, attacked)
