"""The dependency locks against ``pyproject.toml`` (each dependency says there what it is for).

- ``requirements/run.txt`` (what ``make run`` installs) holds every runtime dependency and no
  development tool; ``requirements/dev.txt`` (what ``make test`` installs) holds every
  dependency of both groups.
- Both hold Floe's build requirements (``[build-system] requires``): ``make`` builds Floe
  with them, without build isolation.
- Every line of a lock pins one package with ``==``, at a version inside the range
  ``pyproject.toml`` asks for, and the runtime pins are the same in both locks.
- No lock names an index or a local path: pip's own configuration chooses where from.

A failure here usually means ``pyproject.toml`` changed without ``make lock``.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
RUN_LOCK = ROOT / "requirements" / "run.txt"
DEV_LOCK = ROOT / "requirements" / "dev.txt"
#: Tools that must never reach a production install.
DEV_TOOLS = ("mypy", "ruff", "pytest", "schemathesis", "hypothesis", "pip-tools", "freezegun")


def project() -> dict[str, list[Requirement]]:
    """pyproject.toml's requirements that apply here: ``runtime``, ``dev`` and ``build``
    (``make`` installs Floe without build isolation, from the locks' build requirements)."""
    document = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    table = document["project"]
    groups = {
        "runtime": (table["dependencies"], ""),
        "dev": (table["optional-dependencies"]["dev"], "dev"),
        "build": (document["build-system"]["requires"], ""),
    }
    return {
        group: [
            requirement
            for requirement in map(Requirement, lines)
            if requirement.marker is None or requirement.marker.evaluate({"extra": extra})
        ]
        for group, (lines, extra) in groups.items()
    }


def pins(lock: Path) -> dict[str, Version]:
    """``{canonical name: version}`` from a lock, checking that every line is a bare pin."""
    found: dict[str, Version] = {}
    for number, raw in enumerate(lock.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{lock.relative_to(ROOT)}:{number}: {raw!r}"
        assert not line.startswith("-"), f"{where}: no pip options in a lock (index, path, -e)"
        requirement = Requirement(line)
        specifiers = list(requirement.specifier)
        assert requirement.url is None and not requirement.extras, f"{where}: a plain name"
        assert len(specifiers) == 1 and specifiers[0].operator == "==", f"{where}: pin with =="
        name = canonicalize_name(requirement.name)
        assert name not in found, f"{where}: pinned twice"
        found[name] = Version(specifiers[0].version)
    return found


def test_every_lock_line_is_a_pin_and_names_no_index() -> None:
    for lock in (RUN_LOCK, DEV_LOCK):
        assert pins(lock), f"{lock} pins nothing"
        text = lock.read_text(encoding="utf-8")
        assert not re.search(r"://|index-url|find-links|trusted-host", text), (
            f"{lock.relative_to(ROOT)} names an index or a location"
        )


def test_the_runtime_lock_holds_no_development_tool() -> None:
    run = pins(RUN_LOCK)
    assert not [tool for tool in DEV_TOOLS if tool in run], "make run would install dev tools"
    runtime = {canonicalize_name(r.name) for r in project()["runtime"]}
    dev_only = {canonicalize_name(r.name) for r in project()["dev"]} - runtime
    assert not sorted(dev_only & run.keys()), "the runtime lock holds dev-only dependencies"


@pytest.mark.parametrize(
    ("group", "locks"),
    [("runtime", (RUN_LOCK, DEV_LOCK)), ("dev", (DEV_LOCK,)), ("build", (RUN_LOCK, DEV_LOCK))],
)
def test_every_dependency_is_pinned_within_its_range_in_its_locks(
    group: str, locks: tuple[Path, ...]
) -> None:
    for lock in locks:
        pinned = pins(lock)
        for requirement in project()[group]:
            name = canonicalize_name(requirement.name)
            where = f"{group} dependency {requirement} in {lock.relative_to(ROOT)}"
            assert name in pinned, f"{where}: missing (run make lock)"
            assert requirement.specifier.contains(pinned[name], prereleases=True), (
                f"{where}: pinned at {pinned[name]}, outside its range (run make lock)"
            )


def test_the_suite_tests_the_versions_make_run_installs() -> None:
    run, dev = pins(RUN_LOCK), pins(DEV_LOCK)
    differ = {name: (run[name], dev.get(name)) for name in run if dev.get(name) != run[name]}
    assert not differ, f"run.txt and dev.txt disagree (run, dev): {differ}"
