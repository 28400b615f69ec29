"""The house rules of docs/internals/architecture.md, checked on every module's imports.

- ``domain`` is pure: no service, replay, web, Redis, queue, clock, OS or ``random`` imports.
- ``replay`` never imports ``service`` (the CLI hands it a store).
- Only the API layer (``service/api``) imports Flask, Werkzeug or marshmallow.
- Nothing outside ``domain/games`` imports a game's package or names a game: everything
  else reaches games through their bundles in the registry.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAME_PACKAGES = sorted(p.name for p in (ROOT / "domain" / "games").iterdir() if p.is_dir())
GAME_NAMES = re.compile(r"arktia|iceberg|ice[-_ ]?breakers", re.IGNORECASE)


def modules(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def imports(path: Path) -> Iterator[str]:
    """Every module name ``path`` imports, at any depth (function-level imports too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def top(name: str) -> str:
    return name.split(".")[0]


def show(path: Path) -> str:
    return str(path.relative_to(ROOT)) if ROOT in path.parents else str(path)


def offences(paths: list[Path], forbidden: set[str]) -> list[str]:
    return [
        f"{show(path)} imports {name}"
        for path in paths
        for name in imports(path)
        if top(name) in forbidden or name in forbidden
    ]


def test_the_layout_is_what_these_rules_expect() -> None:
    assert GAME_PACKAGES == ["arktia", "ice_breakers", "iceberg"]
    assert modules("domain") and modules("service") and modules("replay")
    assert (ROOT / "service" / "api").is_dir()


def test_the_domain_imports_nothing_impure() -> None:
    impure = {
        "service", "replay", "flask", "werkzeug", "marshmallow", "redis", "rq",
        "random", "time", "os", "datetime", "subprocess", "socket", "threading",
    }  # fmt: skip
    assert offences(modules("domain"), impure) == []


def test_the_domain_imports_only_the_standard_library_and_itself() -> None:
    """An allow-list: anything but ``sys.stdlib_module_names`` and ``domain`` is refused
    (orjson reaches the domain only as a function the service hands it)."""
    allowed = set(sys.stdlib_module_names) | {"domain", "__future__"}
    outside = [
        f"{show(path)} imports {name}"
        for path in modules("domain")
        for name in imports(path)
        if top(name) not in allowed
    ]
    assert outside == []


def test_replay_never_imports_the_service() -> None:
    assert offences(modules("replay"), {"service"}) == []


def test_only_the_api_layer_speaks_http() -> None:
    outside_api = [
        path
        for package in ("domain", "service", "replay")
        for path in modules(package)
        if (ROOT / "service" / "api") not in path.parents
    ]
    assert offences(outside_api, {"flask", "werkzeug", "marshmallow"}) == []


@pytest.mark.parametrize(
    "package", ["domain/ai", "domain/engine", "domain/pictures", "service", "replay"]
)
def test_no_game_is_imported_outside_the_games(package: str) -> None:
    games = {f"domain.games.{name}" for name in GAME_PACKAGES}
    found = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in modules(package)
        for name in imports(path)
        if any(name == game or name.startswith(game + ".") for game in games)
    ]
    assert found == []


def test_the_bots_take_a_bundle_and_never_look_one_up() -> None:
    assert offences(modules("domain/ai"), {"domain.games"}) == []


def test_no_game_is_named_outside_the_games() -> None:
    """The registry (``domain/games/__init__.py``) is the one place that names them all."""
    named = []
    for package in ("domain", "service", "replay"):
        for path in modules(package):
            inside = path.relative_to(ROOT).parts[:3]
            if (
                inside[:2] == ("domain", "games")
                and len(inside) == 3
                and inside[2] in GAME_PACKAGES
            ):
                continue  # a game's own package
            if path == ROOT / "domain" / "games" / "__init__.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if GAME_NAMES.search(line):
                    named.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert named == []


def test_the_api_contract_names_no_game_either() -> None:
    """The spec's sources outside the games (``service/api/spec``) are game-agnostic too: a
    new game's contract comes from its own package, through the registry."""
    named = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "service" / "api" / "spec").rglob("*.yaml"))
        if path.name != "openapi.yaml"  # what they build, the games' contracts included
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if GAME_NAMES.search(line)
    ]
    assert named == []


def test_the_rules_catch_what_they_claim_to(tmp_path: Path) -> None:
    """A module that breaks the rules is caught, imports inside functions included."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nimport orjson\n\ndef f():\n    from flask import Flask\n")
    assert list(imports(bad)) == ["os", "orjson", "flask"]
    assert "orjson" not in sys.stdlib_module_names and "json" in sys.stdlib_module_names
    assert offences([bad], {"os", "flask"}) == [f"{bad} imports os", f"{bad} imports flask"]
    assert GAME_NAMES.search("Ice Breakers") and GAME_NAMES.search("ice_breakers")
