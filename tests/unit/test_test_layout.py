"""How the tests are laid out: what they share lives in ``tests/support`` (each module saying
what it offers), never in a test module or a conftest another module imports; the tests never
import the benchmark (``bench/``), and the benchmark takes from the tests only their support
code (``tests.support``). Every marker a test uses is registered with its meaning."""

from __future__ import annotations

import ast
import dataclasses
import functools
import tomllib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from tests.support.markers import PROCESS_FIXTURES

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
    package = package_of(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            source = source_of(node, package)
            yield node.lineno, source
            for alias in node.names:
                yield node.lineno, f"{source}.{alias.name}"


def source_of(node: ast.ImportFrom, package: list[str]) -> str:
    """The module ``from ... import`` takes from, relative to ``package`` when it says so."""
    if not node.level:
        return node.module or ""
    base = ".".join(package[: len(package) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def package_of(path: Path) -> list[str]:
    """The package a relative import in ``path`` starts from."""
    package = module_name(path).split(".")
    return package if path.name == "__init__.py" else package[:-1]


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


# ---------------------------------------------------------------------------------------
# Every test that starts processes is marked ``processes``, so `make check` never runs it.
# Read from the source: a test starts processes when it, a fixture it asks for (its module's,
# a conftest's, a plugin's, through other fixtures too) or a function it calls (its module's
# or tests/support's, at any depth) calls one of ``STARTS_A_PROGRAM``. The modules of such
# tests are then collected as pytest collects them (tests/conftest.py marks by directory and
# by fixture), and each such test must carry the mark, however it got it.
#
# Processes that the code under test starts for itself, in a test's own process (an app's
# upload-audit children, a replay's process pool, the benchmark's `git`), are not the test's:
# they are not looked for, and do not take a test out of the fast lane.
# ---------------------------------------------------------------------------------------

#: What starts another program, by the name called: the standard library's ways, and the
#: project's own launchers of redis-servers (one, ``floe run``'s, or a Redis Cluster of them).
#: Not the rest of service/run: a test may call ``supervisor.run`` for a refusal that comes
#: before anything is started.
STARTS_A_PROGRAM = frozenset(
    {
        *(f"subprocess.{name}" for name in ("Popen", "run", "call", "check_call", "check_output")),
        *(f"os.{name}" for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system")),
        "os.popen",
        "asyncio.create_subprocess_exec",
        "asyncio.create_subprocess_shell",
        "multiprocessing.Process",
        "concurrent.futures.ProcessPoolExecutor",
        "service.run.redis_server.RedisServer",
        "service.run.redis_cluster.start_cluster",
        "service.run.supervisor.start_embedded_redis",
        "service.run.supervisor.start_queue_redis",
    }
)
#: The session's own redis-server (tests/conftest.py): the fast lane runs on it, so asking
#: for it (through ``redis_url``) is not starting processes.
SESSION_SERVERS = frozenset({"redis_server"})


@dataclasses.dataclass
class Module:
    """A module of the tests, as far as the search for processes needs it."""

    path: Path
    name: str
    #: What each name bound at its top means, fully qualified (``Popen``: subprocess.Popen).
    names: dict[str, str]
    #: Its top-level functions and classes, and its test classes' tests (``TestX.test_y``).
    definitions: dict[str, Definition] = dataclasses.field(default_factory=dict)
    plugins: tuple[str, ...] = ()  # its ``pytest_plugins``

    def qualify(self, node: ast.expr) -> str | None:
        """``subprocess.Popen``, ``sp.run`` or ``floe_run`` as the dotted name it means."""
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute) and (base := self.qualify(node.value)):
            return f"{base}.{node.attr}"
        return None

    @property
    def is_test_module(self) -> bool:
        return self.path.name.startswith("test_")


@dataclasses.dataclass(frozen=True)
class Definition:
    """A function or class: what it calls (the names resolved to where they are defined) and,
    for a test or a fixture, which fixtures it asks for."""

    module: Module
    name: str
    calls: frozenset[str]
    asks_for: tuple[str, ...]
    fixture: str | None  # the name of the fixture it defines, if it is one

    @property
    def qualified(self) -> str:
        return f"{self.module.name}.{self.name}"

    @property
    def is_test(self) -> bool:
        return self.module.is_test_module and self.name.split(".")[-1].startswith("test")


Function = ast.FunctionDef | ast.AsyncFunctionDef


def read_module(path: Path) -> Module:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = Module(path, module_name(path), names={})
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                module.names[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom):
            source = source_of(node, package_of(path))
            for alias in node.names:
                module.names[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, Function | ast.ClassDef):
            module.names[node.name] = f"{module.name}.{node.name}"
        elif isinstance(node, ast.Assign) and "pytest_plugins" in [
            target.id for target in node.targets if isinstance(target, ast.Name)
        ]:
            module.plugins = tuple(ast.literal_eval(node.value))
    for node in tree.body:
        if isinstance(node, Function | ast.ClassDef):
            add_definition(module, node.name, node)
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for method in node.body:
                if isinstance(method, Function):
                    add_definition(module, f"{node.name}.{method.name}", method)
    return module


def add_definition(module: Module, name: str, node: Function | ast.ClassDef) -> None:
    """``node``'s calls are every call in its body, nested functions' too (a fixture that
    returns a starter starts what it returns); a class's, every call in its methods."""
    calls = {
        qualified
        for statement in node.body
        for call in ast.walk(statement)
        if isinstance(call, ast.Call) and (qualified := module.qualify(call.func))
    }
    asks_for: tuple[str, ...] = ()
    fixture = None
    if isinstance(node, Function):
        asks_for = tuple(argument.arg for argument in node.args.posonlyargs + node.args.args)
        fixture = fixture_name(module, node)
    module.definitions[name] = Definition(module, name, frozenset(calls), asks_for, fixture)


def fixture_name(module: Module, node: Function) -> str | None:
    """The fixture ``node`` defines (``@pytest.fixture``, perhaps with ``name=``), if any."""
    for decorator in node.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        if module.qualify(called) == "pytest.fixture":
            keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
            named = [ast.literal_eval(k.value) for k in keywords if k.arg == "name"]
            return str(named[0]) if named else node.name
    return None


def fixtures_seen(
    module: Module, modules: dict[str, Module], index: dict[str, Definition]
) -> dict[str, Definition]:
    """The fixtures a test of ``module`` may ask for, by name: the plugins', then the
    conftests' from the top folder down, then its own (defined or imported); the nearest
    one wins, as in pytest. (``index``: every definition by qualified name.)"""
    plugins = [modules[name] for m in modules.values() for name in m.plugins if name in modules]
    folders = [folder for folder in reversed(module.path.parents) if folder.is_relative_to(ROOT)]
    conftests = [modules[n] for f in folders if (n := module_name(f / "conftest.py")) in modules]
    imports = [index[name] for name in module.names.values() if name in index]
    seen: dict[str, Definition] = {}
    for source in [*plugins, *conftests]:
        seen.update({d.fixture: d for d in source.definitions.values() if d.fixture})
    seen.update({d.fixture: d for d in [*imports, *module.definitions.values()] if d.fixture})
    return seen


class Search:
    """Which definitions of ``modules`` start processes, and how (``why``: by qualified
    name, what each does that starts them, and the definition that leads to, if ours)."""

    def __init__(self, modules: dict[str, Module]) -> None:
        self.modules = modules
        self.index = {d.qualified: d for m in modules.values() for d in m.definitions.values()}
        self.seen = {m.name: fixtures_seen(m, modules, self.index) for m in modules.values()}
        self.why: dict[str, tuple[str, str | None]] = {}
        while found := {
            q: r for q, d in self.index.items() if q not in self.why and (r := self.reason(d))
        }:
            self.why.update(found)

    def fixture(self, asker: Definition, name: str) -> Definition | None:
        """The fixture ``name`` that ``asker`` gets (a fixture overriding another of its
        name gets that one, not itself: left out here)."""
        fixture = self.seen[asker.module.name].get(name)
        return fixture if fixture is not asker else None

    def reason(self, d: Definition) -> tuple[str, str | None] | None:
        for called in sorted(d.calls):
            if called in STARTS_A_PROGRAM:
                return f"{called}()", None
            if called in self.why:
                return f"{called}()", called
        for name in set(d.asks_for) - SESSION_SERVERS:
            if (fixture := self.fixture(d, name)) and fixture.qualified in self.why:
                return f"fixture {name}", fixture.qualified
        return None

    def explain(self, qualified: str) -> str:
        """``fixture served → tests.support.floe_run.floe_run() → subprocess.Popen()``."""
        steps: list[str] = []
        at: str | None = qualified
        while at is not None and len(steps) < 20:
            said, at = self.why[at]
            steps.append(said)
        return " → ".join(steps)

    def closure(self, d: Definition) -> set[str]:
        """The fixtures ``d`` asks for, those ask for, and so on, by name (as pytest
        counts a test's fixtures)."""
        names: set[str] = set()
        asked = [(d, name) for name in d.asks_for]
        while asked:
            asker, name = asked.pop()
            if name not in names:
                names.add(name)
                if fixture := self.fixture(asker, name):
                    asked += [(fixture, further) for further in fixture.asks_for]
        return names

    def starting_tests(self) -> dict[tuple[Path, str], str]:
        """``(path, test's name)`` of every test that starts processes, and how it does."""
        return {
            (d.module.path, d.name): self.explain(q)
            for q, d in self.index.items()
            if d.is_test and q in self.why
        }


def read_tests(*folders: Path) -> dict[str, Module]:
    """Every module in ``folders``, by dotted name."""
    return {m.name: m for m in (read_module(p) for f in folders for p in python_files(f))}


class Collected:
    """A pytest plugin that keeps what its session collected."""

    def __init__(self) -> None:
        self.items: list[pytest.Item] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.items = list(session.items)


def collect(paths: Iterable[Path]) -> list[pytest.Item]:
    """The tests in ``paths`` as pytest collects them, marks and all, in this process: under
    the suite the modules are imported already, so this takes a second or two."""
    collected = Collected()
    options = ["--collect-only", "--quiet", "--assert=plain", "--capture=no"]
    blocked = ["cacheprovider", "xdist", "faulthandler"]
    arguments = [*options, *(f"-pno:{name}" for name in blocked), *map(str, sorted(set(paths)))]
    assert pytest.main(arguments, plugins=[collected]) == pytest.ExitCode.OK
    return collected.items


def source_name(item: pytest.Item) -> str:
    """``test_x`` (parametrized or not), or ``TestY.test_x``: a test as the source names it."""
    name = getattr(item, "originalname", item.name)
    cls = getattr(item, "cls", None)
    return f"{cls.__name__}.{name}" if cls else name


def unmarked(items: list[pytest.Item], starting: dict[tuple[Path, str], str]) -> list[str]:
    return [
        f"{item.nodeid}: {how}"
        for item in items
        if (how := starting.get((item.path, source_name(item))))
        and item.get_closest_marker("processes") is None
    ]


@functools.cache
def the_suite() -> Search:
    return Search(read_tests(TESTS, BENCH_TESTS))


def test_every_test_that_starts_processes_is_marked_so() -> None:
    """Else `make check`, the fast lane, would start it: mark it ``processes`` (a fixture of
    a conftest that starts processes goes into tests/support/markers.py's PROCESS_FIXTURES;
    a module's own, into its module's ``pytestmark``)."""
    starting = the_suite().starting_tests()
    assert len(starting) > 100  # the search finds what is known to be there
    assert unmarked(collect(path for path, _ in starting), starting) == []


def test_every_conftest_fixture_that_starts_processes_marks_its_users() -> None:
    """By tests/conftest.py's rule: it is one of PROCESS_FIXTURES, or asks for one (pytest
    counts what a fixture asks for among the test's fixtures). The session's own Redis aside."""
    search = the_suite()
    shared = [
        d
        for q, d in search.index.items()
        if d.fixture and not d.module.is_test_module and q in search.why
    ]
    assert {d.fixture for d in shared} >= {"start_worker", "floe", "serve_api", "redis_server"}
    missing = [
        f"{d.module.path.relative_to(ROOT)}: {d.fixture}: {search.explain(d.qualified)}"
        for d in shared
        if not ({d.fixture} | search.closure(d)) & (PROCESS_FIXTURES | SESSION_SERVERS)
    ]
    assert missing == [], "add them to PROCESS_FIXTURES (tests/support/markers.py)"


FAKE_TESTS = {
    "tests/support/launch.py": """
import subprocess as sp
from service.run.redis_server import RedisServer

def start():
    return sp.Popen(["true"])

class Server:
    def start(self):
        self.server = RedisServer()
""",
    "tests/conftest.py": """
import pytest
from service.run.redis_server import RedisServer

@pytest.fixture(scope="session")
def redis_server():
    with RedisServer() as server:
        yield server

@pytest.fixture
def redis_url(redis_server):
    return redis_server.url
""",
    "tests/e2e/conftest.py": """
import pytest
from tests.support import launch

@pytest.fixture(name="server")
def _server(redis_url):
    return launch.start()
""",
    "tests/e2e/test_fake.py": """
import os
import subprocess
from concurrent.futures import ProcessPoolExecutor
from subprocess import run

import pytest
from tests.support.launch import Server

def helper():
    return Server()

@pytest.fixture
def served():
    yield helper()

def test_direct():
    run(["true"])

def test_via_helper():
    helper()

def test_via_own_fixture(served):
    pass

def test_via_conftest_fixture(server):
    pass

def test_pool():
    with ProcessPoolExecutor() as pool:
        pass

class TestThing:
    def test_method(self):
        os.fork()

def test_on_the_session_redis(redis_url):
    pass

def test_naming_a_process_type_only(p: subprocess.Popen[bytes]) -> None:
    kept: subprocess.Popen[bytes] | None = None
    assert isinstance(p, subprocess.Popen)
""",
}


def test_the_search_for_processes_finds_each_way_a_test_starts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Directly, through a helper of its module or of tests/support, a fixture of its module
    or of a conftest (renamed, asking for another); not the session's Redis, nor a type."""
    for name, source in FAKE_TESTS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(source)
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    search = Search(read_tests(tmp_path / "tests"))
    starting = search.starting_tests()
    assert sorted(name for _, name in starting) == [
        "TestThing.test_method",
        "test_direct",
        "test_pool",
        "test_via_conftest_fixture",
        "test_via_helper",
        "test_via_own_fixture",
    ]
    found = {name: how for (_, name), how in starting.items()}
    assert found["test_via_conftest_fixture"] == (
        "fixture server → tests.support.launch.start() → subprocess.Popen()"
    )
    assert found["test_via_own_fixture"] == (
        "fixture served → tests.e2e.test_fake.helper() → tests.support.launch.Server()"
        " → service.run.redis_server.RedisServer()"
    )
    server = search.index["tests.e2e.conftest._server"]
    assert search.closure(server) == {"redis_url", "redis_server"}


def test_a_test_found_starting_processes_is_named_unless_it_is_marked() -> None:
    """On tests as pytest collects them: one marked by its module, one not marked at all."""
    marked = TESTS / "unit" / "test_open_files.py"
    plain = Path(__file__)
    claimed = {
        (marked, "test_a_limit_already_high_enough_is_never_lowered"): "runs python",
        (plain, "test_every_marker_is_registered_with_its_meaning"): "claimed",
    }
    assert unmarked(collect([marked, plain]), claimed) == [
        "tests/unit/test_test_layout.py::test_every_marker_is_registered_with_its_meaning: claimed"
    ]
