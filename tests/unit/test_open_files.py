"""The API process raises its open-files limit to fit its connections (in a child process,
so the suite's own limit is left as it was)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.processes  # each test runs a child python

SCRIPT = """
import resource, sys
from service.run.open_files import raise_open_files
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
start = min(int(sys.argv[2]), hard)
resource.setrlimit(resource.RLIMIT_NOFILE, (start, hard))
now = raise_open_files(int(sys.argv[1]))
print(now, resource.getrlimit(resource.RLIMIT_NOFILE)[0], start, hard)
"""


def run(connections: int, start: int) -> tuple[int, int, int, int]:
    argv = [sys.executable, "-c", SCRIPT, str(connections), str(start)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
    now, soft, started, hard = map(int, out)
    return now, soft, started, hard


def test_the_soft_limit_is_raised_to_fit_the_connections_and_their_overhead() -> None:
    now, soft, _, hard = run(1000, 256)
    expected = 1000 + 512 if hard < 0 else min(1512, hard)
    assert now == soft == expected


def test_a_limit_already_high_enough_is_never_lowered() -> None:
    now, soft, started, _ = run(100, 4096)
    assert now == soft == started
    assert started > 100 + 512
