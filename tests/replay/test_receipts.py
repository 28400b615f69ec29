"""``floe replay verify --receipts FILE --keys KEYS``: the receipts players kept hold an
export to what the service showed. A host's careful forgery (another legal move, the game
played on, every hash chained, the seed revealed) passes every other check and fails here,
naming the receipt's version; a receipt no key of the service signed proves nothing and fails
nothing; a game not over cannot be held to its marks yet."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from domain.engine.signing import receipt_mark, receipt_message
from replay.cli import main as replay
from replay.ed25519 import public_key_of, sign
from replay.receipts import check_game, parse_receipts
from tests.support.bots import forge_move, service_log
from tests.support.replay_cli import floe, write_events
from tests.support.tournament_exports import build

#: The service's key in these tests, and a key that is not the service's.
SERVICE = "5e" * 32
STRANGER = "a7" * 32
GAME = "receipted-game"


def receipts_of(
    events: Sequence[dict[str, Any]], key: str = SERVICE, mark_of: dict[int, str] | None = None
) -> list[dict[str, Any]]:
    """The receipt ``key`` signs for each event, as the service makes them (``mark_of``:
    marks to sign instead of the true ones, by version)."""
    seed = bytes.fromhex(events[-1]["data"]["seed"])
    made = []
    for event in events:
        game_id, version = event["game_id"], event["version"]
        mark = (mark_of or {}).get(version) or receipt_mark(seed, event["hash"])
        signature = sign(key, receipt_message(game_id, version, mark))
        made.append({"game_id": game_id, "version": version, "mark": mark, "signature": signature})
    return made


def write_lines(path: Path, rows: Sequence[Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def genuine() -> list[dict[str, Any]]:
    """A finished game of two people, as the service wrote it."""
    return service_log("arktia", [None, None], GAME)


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    """The saved answer of ``GET /v1/keys``: the service's key, current."""
    listed = {"keys": [{"public_key": public_key_of(SERVICE), "current": True}]}
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(listed), encoding="utf-8")
    return path


def verify(
    capsys: pytest.CaptureFixture[str], *args: str, keys: Path | str | None = None
) -> tuple[int, list[str]]:
    more = [] if keys is None else ["--keys", str(keys)]
    code = replay(["verify", "--no-progress", *args, *more])
    return code, capsys.readouterr().out.splitlines()


def a_persons_move(events: list[dict[str, Any]]) -> int:
    """A version halfway through the game where a person moved."""
    moves = [int(e["version"]) for e in events if isinstance(e["actor"], int)]
    return moves[len(moves) // 2]


def test_a_genuine_export_is_confirmed_by_every_receipt(
    genuine: list[dict[str, Any]], keys: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = write_events(tmp_path / "game.jsonl", genuine)
    kept = write_lines(tmp_path / "kept.jsonl", receipts_of(genuine))
    code, out = verify(capsys, str(export), "--receipts", str(kept), keys=keys)
    assert code == 0
    count = len(genuine)
    assert f"receipts of game {GAME}: {count} kept, {count} confirmed by this export" in out[1]
    assert out[-1] == "1 ok, 0 incomplete, 0 failed"


def test_a_forgery_that_passes_every_other_check_fails_at_the_receipts_version(
    genuine: list[dict[str, Any]], keys: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    moved = a_persons_move(genuine)
    forged, _ = forge_move(genuine, moved)
    export = write_events(tmp_path / "forged.jsonl", forged)
    assert verify(capsys, str(export))[0] == 0, "without receipts the host's forgery passes"
    kept = write_lines(tmp_path / "kept.jsonl", receipts_of(genuine))
    code, out = verify(capsys, str(export), "--receipts", str(kept), keys=keys)
    assert code == 1
    assert out[0].startswith(
        f"{export} (game {GAME}): failed at version {moved}: the service's receipt for version "
        f"{moved} (kept by a player) contradicts this export: the log was rewritten after "
        f"version {moved - 1} ("
    )
    assert f"{moved - 1} confirmed by this export" in out[1]
    code, out = verify(capsys, str(export), "--json", "--receipts", str(kept), keys=keys)
    verdict = json.loads(out[0])
    assert (verdict["status"], verdict["version"]) == ("failed", moved)
    [found] = verdict["receipts"]
    assert found["confirmed"] == list(range(1, moved))
    assert found["contradicted"][0] == moved and found["version"] == moved


def test_with_few_receipts_kept_the_rewrite_is_placed_between_them(
    genuine: list[dict[str, Any]],
) -> None:
    moved = a_persons_move(genuine)
    forged, _ = forge_move(genuine, moved)
    kept = receipts_of(genuine)[: moved - 3] + receipts_of(genuine)[moved + 1 :]
    receipts = parse_receipts(json.dumps(r) for r in kept).receipts
    found = check_game(GAME, forged, receipts, [public_key_of(SERVICE)])
    assert found.confirmed == tuple(range(1, moved - 2)) and found.version == moved + 2
    assert found.reason == (
        f"the service's receipt for version {moved + 2} (kept by a player) contradicts this "
        f"export: the log was rewritten after version {moved - 3} (the last a receipt "
        f"confirms), by version {moved + 2}"
    )


def test_a_receipt_no_key_of_the_service_signed_is_reported_and_fails_nothing(
    genuine: list[dict[str, Any]], keys: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = write_events(tmp_path / "game.jsonl", genuine)
    wrong = {3: "00" * 32}  # a mark that contradicts the export, signed by someone else
    made_up = receipts_of(genuine, STRANGER, wrong)[:4]
    kept = write_lines(tmp_path / "kept.jsonl", [*receipts_of(genuine)[4:], *made_up])
    code, out = verify(capsys, str(export), "--receipts", str(kept), keys=keys)
    assert code == 0
    confirmed = len(genuine) - 4
    assert f"{len(genuine)} kept, {confirmed} confirmed by this export" in out[1]
    assert "4 signed by no key of the service (versions 1, 2, 3, 4): not the service's" in out[2]
    code, out = verify(capsys, str(export), "--json", "--receipts", str(kept), keys=keys)
    assert json.loads(out[0])["receipts"][0]["not_the_services"] == [1, 2, 3, 4]


def test_a_receipt_for_a_version_the_export_lacks_fails_it(
    genuine: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = write_events(tmp_path / "game.jsonl", genuine)
    last = len(genuine)
    beyond = {**genuine[-1], "version": last + 1}  # the service signed an event at N + 1
    kept = write_lines(tmp_path / "kept.jsonl", receipts_of([*genuine, beyond])[-1:])
    code, out = verify(capsys, str(export), "--receipts", str(kept), keys=public_key_of(SERVICE))
    assert code == 1
    assert (
        f"failed at version {last + 1}: the service's receipt for version {last + 1} (kept by "
        f"a player) is for an event this export does not hold (it ends at version {last}): "
        f"the log was rewritten at version {last + 1} or before"
    ) in out[0]


def test_a_game_not_over_cannot_be_held_to_its_marks_yet(
    genuine: list[dict[str, Any]], keys: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = genuine[:20]
    export = write_events(tmp_path / "live.jsonl", cut)
    kept = write_lines(tmp_path / "kept.jsonl", receipts_of(genuine)[:25])
    code, out = verify(capsys, str(export), "--receipts", str(kept), keys=keys)
    assert code == 1 and ": incomplete (20 events" in out[0]
    assert "25 kept, none checked: this export reveals no seed" in out[1]
    code, out = verify(capsys, str(export), "--json", "--receipts", str(kept), keys=keys)
    verdict = json.loads(out[0])
    assert verdict["status"] == "incomplete" and verdict["receipts"][0]["checked"] is False


def test_receipts_of_other_games_and_lines_that_are_no_receipt_are_named(
    genuine: list[dict[str, Any]], keys: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = write_events(tmp_path / "game.jsonl", genuine)
    other = [{**r, "game_id": "another-game"} for r in receipts_of(genuine)[:3]]
    rows: list[Any] = [*receipts_of(genuine), *other, {"game_id": GAME, "version": 0}, [1]]
    kept = write_lines(tmp_path / "kept.jsonl", rows)
    with kept.open("a", encoding="utf-8") as more:
        more.write("{not json\n\n")
    code, out = verify(capsys, str(export), "--receipts", str(kept), keys=keys)
    assert code == 0
    assert out[2] == (
        "receipts of game another-game (versions 1, 2, 3): no export named holds this game"
    )
    assert out[3].startswith(f"{kept} line {len(genuine) + 4} is not a receipt")
    assert out[4].startswith(f"{kept} line {len(genuine) + 5} is not a receipt")
    assert out[5].startswith(f"{kept} line {len(genuine) + 6} is not JSON")
    code, out = verify(capsys, str(export), "--json", "--receipts", str(kept), keys=keys)
    closing = json.loads(out[-1])["receipts"]
    assert closing["other_games"] == [{"game_id": "another-game", "versions": [1, 2, 3]}]
    assert closing["read"] == len(genuine) + 3 and len(closing["unreadable"]) == 3


def test_a_tournament_game_a_receipt_contradicts_fails_the_tournament(
    keys: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = build("arktia", "round_robin", ["Ada", "Bo", "Cy"])
    path = export.write(tmp_path / "cup.ndjson")
    game = export.log(2, 1)
    kept = write_lines(tmp_path / "kept.jsonl", receipts_of(game))
    code, out = verify(capsys, str(path), "--receipts", str(kept), keys=keys)
    assert code == 0
    assert (
        f"receipts of game {game[0]['game_id']}: {len(game)} kept, {len(game)} confirmed"
        in (out[-2])
    )
    # the service signed another event at version 9 than the export holds there
    shown = receipts_of(game, mark_of={9: "42" * 32})
    write_lines(tmp_path / "kept.jsonl", shown)
    code, out = verify(capsys, str(path), "--receipts", str(kept), keys=keys)
    assert code == 1
    problem = (
        f"round 2 table 1 (game {game[0]['game_id']}): the service's receipt for version 9 "
        "(kept by a player) contradicts this export: the log was rewritten after version 8"
    )
    assert f"{path} problem: {problem}" in out
    assert any(line.startswith(f"{path} (tournament ") and ": failed" in line for line in out)
    code, out = verify(capsys, str(path), "--json", "--receipts", str(kept), keys=keys)
    document = json.loads(out[0])
    assert document["status"] == "failed" and problem in document["problems"]
    assert document["receipts"][0]["contradicted"] == [9]


@pytest.mark.parametrize("args", [["--receipts", "kept.jsonl"], ["--keys", "keys.json"]])
def test_receipts_without_keys_or_keys_without_receipts_are_a_usage_error(
    genuine: list[dict[str, Any]],
    keys: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    write_events(tmp_path / "game.jsonl", genuine)
    write_lines(tmp_path / "kept.jsonl", receipts_of(genuine))
    with pytest.raises(SystemExit) as exited:
        replay(["verify", "--no-progress", "game.jsonl", *args])
    assert exited.value.code == 2
    assert "--receipts and --keys go together" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("receipts", "keys_given", "said"),
    [
        ("missing.jsonl", "keys.json", "cannot read missing.jsonl"),
        ("kept.jsonl", "kept.jsonl", "--keys kept.jsonl: not JSON"),
        ("kept.jsonl", "game.jsonl", "--keys game.jsonl: not JSON"),
        ("kept.jsonl", "listed.json", "not the answer of GET /v1/keys"),
        ("kept.jsonl", "no-such-key", "neither a public key"),
    ],
)
def test_receipts_or_keys_that_cannot_be_used_stop_before_any_verdict(
    genuine: list[dict[str, Any]],
    keys: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    receipts: str,
    keys_given: str,
    said: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    write_events(tmp_path / "game.jsonl", genuine)
    write_lines(tmp_path / "kept.jsonl", receipts_of(genuine))
    (tmp_path / "listed.json").write_text('{"keys": [{"public_key": "AB"}]}', encoding="utf-8")
    args = ["verify", "--no-progress", "game.jsonl", "--receipts", receipts, "--keys", keys_given]
    assert replay(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and said in err


@pytest.mark.processes
def test_the_command_exits_by_the_verdicts_with_receipts(
    genuine: list[dict[str, Any]], keys: Path, tmp_path: Path
) -> None:
    forged, _ = forge_move(genuine, a_persons_move(genuine))
    honest = write_events(tmp_path / "game.jsonl", genuine)
    bad = write_events(tmp_path / "forged.jsonl", forged)
    kept = write_lines(tmp_path / "kept.jsonl", receipts_of(genuine))
    receipts = ["--receipts", str(kept), "--keys", str(keys)]
    assert floe("verify", str(honest), *receipts).returncode == 0
    rewritten = floe("verify", str(honest), str(bad), *receipts)
    assert rewritten.returncode == 1 and "1 ok, 0 incomplete, 1 failed" in rewritten.stdout
    usage = floe("verify", str(honest), "--receipts", str(kept))
    assert usage.returncode == 2 and "--keys" in usage.stderr
