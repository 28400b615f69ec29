"""Where the shared specification lives: ``../shared`` beside the checkout (or FLOE_SHARED)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("FLOE_SHARED", ROOT.parent / "shared"))
CONFORMANCE = SHARED / "conformance"


def conformance_games(prefix: str = "conf-") -> list[Path]:
    """Export files of the reference games (the ``.legal.jsonl`` companions excluded)."""
    files = sorted(CONFORMANCE.glob(f"{prefix}*.jsonl"))
    return [f for f in files if not f.name.endswith(".legal.jsonl")]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
