"""The hash chain of docs/reference/format.md, recomputed from every reference export and the doc's example."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from domain.engine.canonical import canonical_json
from domain.engine.log import GENESIS_HASH, event_hash, seal
from domain.engine.types import Event
from tests.support.reference_games import (
    CHECKSUMS,
    CONFORMANCE,
    ROOT,
    conformance_games,
    read_jsonl,
)

FORMAT = ROOT / "docs" / "reference" / "format.md"


def test_there_are_reference_games_to_check() -> None:
    assert len(conformance_games()) >= 9


def test_the_reference_files_are_the_recorded_bytes() -> None:
    """Every file of the set is there, unchanged since it was copied (``SHA256SUMS``)."""
    recorded: dict[str, str] = {}
    for line in CHECKSUMS.read_text(encoding="ascii").splitlines():
        digest, name = line.split("  ", 1)
        recorded[name] = digest
    present = {p.name for p in CONFORMANCE.glob("*.jsonl")}
    assert present == set(recorded)
    assert len(recorded) == 2 * len(conformance_games())  # each game with its legal lists
    for name, digest in recorded.items():
        assert hashlib.sha256((CONFORMANCE / name).read_bytes()).hexdigest() == digest, name


def test_the_documented_example_chains_and_shows_the_bytes_hashed() -> None:
    """docs/reference/format.md's two-line export and the exact bytes it says line 1 hashes."""
    text = FORMAT.read_text(encoding="utf-8")
    [export] = re.findall(r"```jsonl\n(.*?)```", text, re.S)
    [hashed] = re.findall(r"```text\n(0{64}\{.*?)\n```", text, re.S)
    lines = export.splitlines()
    events = [json.loads(line) for line in lines]
    assert [canonical_json(e) for e in events] == lines  # written canonically
    prev = GENESIS_HASH
    for number, event in enumerate(events, start=1):
        assert (event["version"], event["prev_hash"]) == (number, prev)
        assert event_hash(event) == event["hash"]
        prev = event["hash"]
    first = {k: v for k, v in events[0].items() if k != "hash"}
    assert hashed == GENESIS_HASH + canonical_json(first)
    size = re.search(r"line 1 are these (\d+) bytes", text)
    assert size is not None and int(size[1]) == len(hashed.encode("utf-8"))
    assert f"is `{events[0]['hash']}`" in " ".join(text.split())


@pytest.mark.parametrize("path", conformance_games(), ids=lambda p: p.stem)
def test_every_conformance_export_chains_and_commits_to_its_seed(path: Path) -> None:
    events = read_jsonl(path)
    prev = GENESIS_HASH
    for number, event in enumerate(events, start=1):
        assert event["version"] == number
        assert event["prev_hash"] == prev
        assert event_hash(event) == event["hash"]
        prev = event["hash"]
    seed = bytes.fromhex(events[-1]["data"]["seed"])
    assert hashlib.sha256(seed).hexdigest() == events[0]["data"]["seed_commitment"]


def test_seal_numbers_and_chains_and_keeps_command_ids_off_system_events() -> None:
    sealed = seal(
        "g",
        [Event("retire", 0, {"action": {"type": "retire"}}), Event("game_over", "system", {})],
        first_version=5,
        prev_hash=GENESIS_HASH,
        at="2026-01-01T00:00:00Z",
        command_id="c1",
    )
    assert [e.version for e in sealed] == [5, 6]
    assert [e.command_id for e in sealed] == ["c1", None]
    assert sealed[1].prev_hash == sealed[0].hash
    assert all(event_hash(e.to_json()) == e.hash for e in sealed)


def test_any_edit_breaks_the_hash() -> None:
    [event] = seal(
        "g",
        [Event("retire", 0, {})],
        first_version=2,
        prev_hash=GENESIS_HASH,
        at="t",
        command_id="c",
    )
    edited = {**event.to_json(), "actor": 1}
    assert event_hash(edited) != event.hash
