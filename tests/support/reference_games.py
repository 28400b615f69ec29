"""The reference games kept in the repository: ``tests/data/conformance/``.

Export files and legal-action lists from an independent implementation of Floe's contracts
(where they came from, and what each file holds: ``tests/data/conformance/README.md``). The
tests read them from here only, so a clone needs nothing beside it. Missing or empty data is
an error, never a reason to skip: a test run without its reference games proves nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
CONFORMANCE = DATA / "conformance"
#: ``sha256sum`` lines for every reference file, checked so an edit cannot pass unnoticed.
CHECKSUMS = CONFORMANCE / "SHA256SUMS"


def conformance_games(prefix: str = "conf-") -> list[Path]:
    """Export files of the reference games (the ``.legal.jsonl`` companions excluded).

    Raises ``FileNotFoundError`` when there are none, so collection fails loudly.
    """
    files = sorted(CONFORMANCE.glob(f"{prefix}*.jsonl"))
    games = [f for f in files if not f.name.endswith(".legal.jsonl")]
    if not games:
        raise FileNotFoundError(f"no reference games {prefix}*.jsonl in {CONFORMANCE}")
    return games


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """One JSON object per non-empty line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
