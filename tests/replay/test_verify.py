"""``floe replay verify`` catches every kind of tampering, and passes honest games."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from domain.engine.canonical import canonical_json
from replay.bots import BotReplay
from replay.verify import Verdict, verify
from tests.support.reference_games import conformance_games, read_jsonl
from tests.support.replay_cli import rechain

ARKTIA = next(p for p in conformance_games() if "arktia-3p" in p.name)
ICEBERG = next(p for p in conformance_games() if "iceberg-2p" in p.name)


def renumber(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return rechain([{**e, "version": i} for i, e in enumerate(events, start=1)])


@pytest.mark.parametrize("path", conformance_games(), ids=lambda p: p.stem)
def test_every_reference_game_verifies_ok(path: Path) -> None:
    verdict = verify(read_jsonl(path))
    people = BotReplay("no_bots")  # every seat of a reference game is a person's
    seats = tuple(range(len(read_jsonl(path)[0]["data"]["seats"])))  # none has a key
    assert verdict == Verdict(path.stem, "ok", len(read_jsonl(path)), bots=people, unsigned=seats)


def test_an_edited_field_without_a_new_hash_fails_there() -> None:
    events = read_jsonl(ARKTIA)
    events[9]["data"]["action"]["size"] = "T" if events[9]["data"]["action"]["size"] != "T" else "G"
    verdict = verify(events)
    assert (verdict.status, verdict.version) == ("failed", 10)
    assert "hash" in (verdict.reason or "")


def test_an_illegal_action_with_every_hash_recomputed_fails_there() -> None:
    events = read_jsonl(ARKTIA)
    events[4]["data"]["action"]["tile"] = [40, 40]
    verdict = verify(rechain(events))
    assert (verdict.status, verdict.version) == ("failed", 5)
    assert "illegal place" in (verdict.reason or "")


def test_a_changed_random_outcome_with_hashes_recomputed_fails_there() -> None:
    events = read_jsonl(ICEBERG)
    die = next(e for e in events if e["type"] == "random" and e["data"]["label"] == "die")
    die["data"]["outcome"] = (die["data"]["outcome"] + 1) % 6
    verdict = verify(rechain(events))
    assert (verdict.status, verdict.version) == ("failed", die["version"])
    assert "seed" in (verdict.reason or "")


def test_a_changed_deal_fails_at_the_deal() -> None:
    events = read_jsonl(ICEBERG)
    tiles = events[1]["data"]["outcome"]
    tiles[0], tiles[1] = tiles[1], tiles[0]
    verdict = verify(rechain(events))
    assert (verdict.status, verdict.version) == ("failed", 2)


@pytest.mark.parametrize(
    ("change", "version"),
    [
        (lambda ev: ev[:20] + ev[21:], 21),  # dropped
        (lambda ev: [*ev[:20], ev[20], *ev[20:]], 22),  # duplicated
        (lambda ev: [*ev[:20], ev[21], ev[20], *ev[22:]], 21),  # reordered
    ],
    ids=["dropped", "duplicated", "reordered"],
)
def test_dropped_duplicated_or_reordered_events_fail(change: Any, version: int) -> None:
    events = change(read_jsonl(ARKTIA))
    as_is = verify(events)
    assert as_is.status == "failed" and as_is.version == version
    forged = verify(renumber(events))  # even renumbered and rechained, the rules object
    assert forged.status == "failed"


def test_a_swapped_seed_fails() -> None:
    events = read_jsonl(ARKTIA)
    events[-1]["data"]["seed"] = "00" * 32
    verdict = verify(rechain(events))
    assert (verdict.status, verdict.version) == ("failed", len(events))
    assert "commitment" in (verdict.reason or "")


@pytest.mark.parametrize("keep", [1, 2, 30, 73, 74])
def test_a_truncated_file_is_incomplete_not_ok(keep: int) -> None:
    events = read_jsonl(ARKTIA)[:keep]
    assert verify(events).status == "incomplete"


def test_a_forged_game_over_fails_saying_what_differs() -> None:
    events = read_jsonl(ARKTIA)
    due = canonical_json(events[-2]["data"])
    events[-2]["data"]["winners"] = [0]
    verdict = verify(rechain(events))
    assert (verdict.status, verdict.version) == ("failed", len(events) - 1)
    held = canonical_json(events[-2]["data"])
    assert due != held
    assert verdict.reason == (
        f"the rules call for game_over with {due} here, the log has game_over with {held}"
    )


def test_long_data_of_an_unowed_event_is_clipped_on_both_sides() -> None:
    events = read_jsonl(ARKTIA)
    events[-2]["data"]["winners"] = list(range(500))
    reason = verify(rechain(events)).reason or ""
    assert reason.startswith("the rules call for game_over with {")
    assert ", the log has game_over with {" in reason and reason.endswith("…")
    assert len(reason) <= 240


def json_lookalikes(value: Any) -> Any:
    """``value`` with every integer 0 or 1 turned into ``false``/``true``, and every other
    integer into a float: equal in Python, different as JSON."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return bool(value) if value in (0, 1) else float(value)
    if isinstance(value, list):
        return [json_lookalikes(v) for v in value]
    if isinstance(value, dict):
        return {k: json_lookalikes(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("target", ["game_over", "random", "action"])
def test_a_python_equal_but_json_different_event_fails(target: str) -> None:
    """``[true]`` is not ``[1]``, nor ``2.0`` ``2``: a re-signed log that writes an outcome,
    a draw or an action another way than the rules do is refused where it is."""
    events = read_jsonl(ICEBERG)
    if target == "game_over":
        event = events[-2]
    elif target == "random":
        event = next(e for e in events if e["type"] == "random" and e["data"]["label"] == "die")
    else:
        event = next(
            e for e in events if isinstance(e["actor"], int) and e["data"]["action"].get("to")
        )
    event["data"] = json_lookalikes(event["data"])
    verdict = verify(rechain(events))
    assert (verdict.status, verdict.version) == ("failed", event["version"]), verdict


def test_events_after_the_end_fail() -> None:
    events = read_jsonl(ARKTIA)
    extra = {**events[-1], "version": len(events) + 1}
    verdict = verify(rechain([*events, extra]))
    assert verdict.status == "failed"


@pytest.mark.processes
def test_the_cli_verifies_many_files_in_parallel_and_exits_by_verdict(tmp_path: Path) -> None:
    honest = [str(p) for p in conformance_games()]
    tampered = tmp_path / "tampered.jsonl"
    events = read_jsonl(ARKTIA)
    events[3]["actor"] = 1
    tampered.write_text("".join(json.dumps(e) + "\n" for e in events))
    command = [sys.executable, "-m", "service.cli", "replay", "verify", "--json"]
    ok = subprocess.run([*command, *honest], capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    verdicts = [json.loads(line) for line in ok.stdout.splitlines()]
    assert [v["status"] for v in verdicts] == ["ok"] * len(honest)
    bad = subprocess.run(
        [*command, *honest, str(tampered)], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 1
    last = json.loads(bad.stdout.splitlines()[-1])
    assert (last["status"], last["version"]) == ("failed", 4)
