"""Which tests the markers ``browser``, ``cluster`` and ``processes`` fall on, by rule
(``tests/conftest.py`` applies them at collection), and which run Floe's services.

The markers, and what each means, are registered in pyproject.toml: `make check` runs the
tests none of them marks, `make test` runs everything. The rules:

* by directory: every test under tests/browser is ``browser`` and ``processes``, under
  tests/cluster ``cluster`` and ``processes``, under tests/faults ``processes``;
* by fixture: a test that asks for a fixture starting processes (``PROCESS_FIXTURES``, even
  through another fixture) is ``processes``.

A test that starts processes itself (the floe CLI, a redis-server, ``floe run``, a child
python), or through a fixture of its own module, says so with ``@pytest.mark.processes`` (the
module's ``pytestmark`` when every test in it does). tests/unit/test_test_layout.py finds, in
the source, every test that starts processes and fails while one is not marked, and while a
conftest's fixture that starts them is missing here. ``slow`` is always written by hand,
where ``--durations=0`` shows a test (or a large family of them) is slow.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
#: The marks every test in a directory of tests/ gets.
DIRECTORY_MARKS: dict[str, tuple[str, ...]] = {
    "browser": ("browser", "processes"),
    "cluster": ("cluster", "processes"),
    "faults": ("processes",),
}
#: Fixtures that start processes: a test asking for one is marked ``processes``.
PROCESS_FIXTURES = frozenset(
    {
        "start_worker",  # floe worker (tests/conftest.py)
        "worker",
        "serve_api",  # gunicorn (tests/faults/conftest.py)
        "durable_redis",  # a redis-server of its own (tests/faults/conftest.py)
        "floe",  # floe run (tests/browser/conftest.py)
        "redis_cluster",  # six redis-servers (tests/cluster/conftest.py)
        "postgres_server",  # a PostgreSQL of its own (tests/support/postgres.py)
    }
)
#: The xdist group of every test that runs Floe's services (floe run, gunicorn, workers, a
#: cluster, Chromium): under ``--dist loadgroup`` (``make test``) they run one at a time on
#: one worker, beside the other worker's in-process tests, and their session fixtures (the
#: cluster, the browser's ``floe run``) start once.
SERVICES = "services"


def directory_of(path: Path) -> str:
    """The directory of tests/ ``path`` is in ("" outside tests/, e.g. bench/tests)."""
    return path.relative_to(TESTS).parts[0] if path.is_relative_to(TESTS) else ""


def marks_for(path: Path, fixtures: Iterable[str]) -> tuple[set[str], bool]:
    """The marks the rules give a test, and whether it runs Floe's services."""
    marks = set(DIRECTORY_MARKS.get(directory_of(path), ()))
    services = directory_of(path) in DIRECTORY_MARKS
    if PROCESS_FIXTURES.intersection(fixtures):
        marks.add("processes")
        services = True
    return marks, services
