"""The hash chain of DESIGN.md, recomputed from every conformance export."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from domain.engine.log import GENESIS_HASH, event_hash, seal
from domain.engine.types import Event
from tests.shared_files import conformance_games, read_jsonl


def test_there_are_reference_games_to_check() -> None:
    assert len(conformance_games()) >= 9


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
