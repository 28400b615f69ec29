"""The manual's example scripts (``docs/examples/``), loaded as modules for the tests that
run them: they are scripts beside the manual, not a package."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SOCKET_CLIENT = Path(__file__).resolve().parents[2] / "docs" / "examples" / "socket_client.py"


def load_example(path: Path = SOCKET_CLIENT) -> ModuleType:
    """The example at ``path`` as a module of its own."""
    spec = importlib.util.spec_from_file_location(f"{path.stem}_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
