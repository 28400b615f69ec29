"""docs/reference/configuration.md is generated from ``Settings``, and says all there is.

The page is written by ``service.settings_reference`` from the ``setting(...)`` declarations
in ``service/settings.py``; these tests fail when the committed page differs from what the
generator writes now, and when the code reads a ``FLOE_`` variable the declarations miss.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from service.settings import Settings, declared_settings
from service.settings_reference import COMMAND, PAGE, markdown

ROOT = Path(__file__).resolve().parents[2]
#: ``FLOE_`` names in the code that are not environment variables, and why.
NOT_VARIABLES = {
    "FLOE_SETTINGS": "the Flask config key the app keeps its Settings under",
}


def test_the_committed_page_is_what_the_generator_writes() -> None:
    committed = (ROOT / PAGE).read_text(encoding="utf-8")
    assert committed == markdown(), (
        f"{PAGE} differs from service/settings.py's declarations: run `{COMMAND}` "
        f"(python -m service.settings_reference {PAGE}) and commit the page"
    )


class Recording(Mapping[str, str]):
    """An empty environment that remembers every name asked for."""

    def __init__(self) -> None:
        self.asked: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.asked.add(name)
        raise KeyError(name)

    def get(self, name: str, default: object = None) -> object:  # type: ignore[override]
        self.asked.add(name)
        return default

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def test_from_env_reads_exactly_the_declared_variables() -> None:
    env = Recording()
    assert Settings.from_env(env) == Settings()
    declared = [setting.env for _, setting, _ in declared_settings()]
    assert len(declared) == len(set(declared)), "a variable is declared twice"
    assert env.asked == set(declared)


def floe_names(path: Path) -> Iterator[str]:
    """Every ``FLOE_*`` word in the string literals of ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield from re.findall(r"\bFLOE_[A-Z0-9_]+\b", node.value)


def test_every_floe_variable_the_code_names_is_declared() -> None:
    declared = {setting.env for _, setting, _ in declared_settings()}
    page = (ROOT / PAGE).read_text(encoding="utf-8")
    for package in ("domain", "service", "replay"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in floe_names(path):
                if name in NOT_VARIABLES:
                    continue
                where = path.relative_to(ROOT)
                assert name in declared, f"{where} names {name}, which Settings does not declare"
                assert f"`{name}`" in page, f"{name} ({where}) is missing from {PAGE}"
