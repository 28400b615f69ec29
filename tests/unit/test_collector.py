"""A server process tunes its garbage collector once its code is loaded (in a child
process, so the suite's own collector is left as it was)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.run.collector import GEN0_THRESHOLD, OLDER_THRESHOLD

pytestmark = pytest.mark.processes  # each test runs a child python

#: Where the child imports ``service`` from, whatever the suite's working directory.
REPOSITORY = Path(__file__).resolve().parents[2]

SCRIPT = """
import gc, json
loaded = [[i] for i in range(1000)]  # what the process holds once loaded
before = {"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count()}
from service.run.collector import tune_for_server
tune_for_server()
later = [[i] for i in range(10)]
tracked = {id(o) for o in gc.get_objects()}
print(json.dumps({
    "before": before,
    "threshold": gc.get_threshold(),
    "frozen": gc.get_freeze_count(),
    "loaded_walked": sum(id(o) in tracked for o in loaded),
    "later_walked": sum(id(o) in tracked for o in later),
}))
"""


def tuned() -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=REPOSITORY
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_what_is_loaded_is_frozen_and_what_comes_later_is_still_collected() -> None:
    result = tuned()
    assert result["before"] == {"threshold": [700, 10, 10], "frozen": 0}
    assert isinstance(result["frozen"], int) and result["frozen"] >= 1000
    assert result["loaded_walked"] == 0  # never walked again by a collection
    assert result["later_walked"] == 10


def test_collections_are_spaced_out() -> None:
    assert tuned()["threshold"] == [GEN0_THRESHOLD, OLDER_THRESHOLD, OLDER_THRESHOLD]
