"""How the tests are laid out: what they share lives in ``tests/support`` (each module saying
what it offers), never in a test module or a conftest another module imports; the tests never
import the benchmark (``bench/``), and the benchmark takes from the tests only their support
code (``tests.support``). Every marker a test uses is registered with its meaning."""

from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
BENCH = ROOT / "bench"
BENCH_TESTS = BENCH / "tests"
SUPPORT = TESTS / "support"


#: Folders that hold no code of the project's own (bench/peer's npm packages, caches).
NOT_OURS = frozenset({"__pycache__", "node_modules"})


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if not NOT_OURS.intersection(p.parts))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def imported(path: Path) -> tuple[tuple[int, str], ...]:
    """``(line, module)`` for every module ``path`` imports, relative imports resolved; for
    ``from package import name`` both ``package`` and ``package.name`` (it may be a module)."""
    return tuple(_imported(path))


def _imported(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            yield node.lineno, source
            for alias in node.names:
                yield node.lineno, f"{source}.{alias.name}"


def is_test_module(module: str) -> bool:
    """A test module or a conftest of the tests or of the benchmark's tests."""
    last = module.rsplit(".", 1)[-1]
    inside = module.startswith(("tests.", "bench.tests."))
    return inside and (last.startswith("test_") or last == "conftest")


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def violations(files: list[Path], broken: Callable[[str], bool]) -> list[str]:
    """``file:line: module`` for every import in ``files`` of a module ``broken`` refuses."""
    return [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in files
        for line, module in imported(path)
        if broken(module)
    ]


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    files = python_files(TESTS) + python_files(BENCH_TESTS)
    assert violations(files, is_test_module) == [], "move what is shared into tests/support"


def test_the_tests_never_import_the_benchmark() -> None:
    assert violations(python_files(TESTS), lambda module: within(module, "bench")) == []


def test_the_benchmark_takes_only_the_support_code_from_the_tests() -> None:
    files = [p for p in python_files(BENCH) if not p.is_relative_to(BENCH_TESTS)]
    assert (
        violations(
            files, lambda module: within(module, "tests") and not within(module, "tests.support")
        )
        == []
    )


def test_the_checks_see_what_they_look_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules find each kind of import they forbid (a checker that finds nothing proves
    nothing)."""
    fake = tmp_path / "tests" / "e2e"
    fake.mkdir(parents=True)
    source = fake / "test_fake.py"
    source.write_text(
        "import bench.stack\n"
        "from tests.e2e.test_openapi import OpenApi\n"
        "from tests.e2e import test_tokens\n"
        "from . import conftest\n"
        "from tests.support.api import bearer\n"
    )
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert [line for line, m in imported(source) if is_test_module(m)] == [2, 3, 4]
    assert [line for line, m in imported(source) if within(m, "bench")] == [1]


def test_every_support_module_says_what_it_offers() -> None:
    missing = [
        str(path.relative_to(ROOT))
        for path in python_files(SUPPORT)
        if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert missing == []


def test_every_marker_is_registered_with_its_meaning() -> None:
    document = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = document["tool"]["pytest"]["ini_options"]["markers"]
    names = {line.split(":", 1)[0] for line in markers}
    assert {"slow", "processes", "browser", "cluster"} <= names
    assert all(line.split(":", 1)[1].strip() for line in markers), "a marker without meaning"
