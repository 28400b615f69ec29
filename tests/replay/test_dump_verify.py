"""``floe replay verify`` on a dump (``floe archive dump``'s ``.ndjson.zst``): every game in it
verified as its own export would be, named by its place in the dump, read as a stream; a dump
that is corrupt, cut short or no zstandard at all is a failed verdict, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import zstandard

from domain.engine.signing import receipt_mark, receipt_message
from replay.cli import main as replay
from replay.ed25519 import public_key_of, sign
from tests.support.bots import forge_move, service_log
from tests.support.reference_games import conformance_games
from tests.support.replay_cli import floe

GAMES = conformance_games()
EXPORTS = [path.read_bytes() for path in GAMES]
#: The service's key, which signs the receipts.
SERVICE = "5e" * 32
IDS = [json.loads(export.split(b"\n", 1)[0])["game_id"] for export in EXPORTS]


def pack(path: Path, *exports: bytes) -> Path:
    """A dump of ``exports``, one zstandard frame with its checksum, as the dump writes."""
    data = b"".join(exports)
    path.write_bytes(zstandard.ZstdCompressor(write_checksum=True).compress(data))
    return path


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    return pack(tmp_path / "games.ndjson.zst", *EXPORTS)


def verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = replay(["verify", "--no-progress", *args])
    return code, capsys.readouterr().out.splitlines()


@pytest.mark.processes
def test_every_game_of_a_dump_gets_its_own_verdict_named_by_its_place(dump: Path) -> None:
    done = floe("verify", str(dump))
    assert done.returncode == 0, done.stdout + done.stderr
    *lines, total = done.stdout.splitlines()
    assert len(lines) == len(GAMES)
    for number, (line, game_id) in enumerate(zip(lines, IDS, strict=True), start=1):
        assert line.startswith(f"{dump}#{number} (game {game_id}): ok ("), line
    assert total == f"{len(GAMES)} ok, 0 incomplete, 0 failed"

    as_json = floe("verify", "--json", str(dump))
    verdicts = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [(v["file"], v["game_id"], v["status"]) for v in verdicts] == [
        (f"{dump}#{number}", game_id, "ok") for number, game_id in enumerate(IDS, start=1)
    ]


def test_a_pool_and_one_process_give_the_same_verdicts(
    dump: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alone = verify(capsys, "--jobs", "1", str(dump))
    pooled = verify(capsys, "--jobs", "3", str(dump))
    assert alone == pooled
    assert alone[0] == 0 and alone[1][-1] == f"{len(GAMES)} ok, 0 incomplete, 0 failed"


def test_a_hostile_line_fails_its_game_alone_counting_from_its_first_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = EXPORTS[1].split(b"\n")
    lines[4] = b'{"version": 5,'
    bad = pack(tmp_path / "bad.ndjson.zst", EXPORTS[0], b"\n".join(lines), *EXPORTS[2:])
    code, out = verify(capsys, str(bad))
    assert code == 1
    assert out[1].startswith(f"{bad}#2 (game {IDS[1]}): failed at version 5: line 5 is not JSON")
    assert all(" ok (" in line for i, line in enumerate(out[:-1]) if i != 1), out
    assert out[-1] == f"{len(GAMES) - 1} ok, 0 incomplete, 1 failed"


@pytest.mark.processes
def test_a_corrupt_dump_ends_with_a_failed_verdict_not_a_traceback(dump: Path) -> None:
    data = bytearray(dump.read_bytes())
    data[len(data) // 2] ^= 0x55
    dump.write_bytes(bytes(data))
    done = floe("verify", "--json", str(dump))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr
    *_, last = (json.loads(line) for line in done.stdout.splitlines())
    assert last["status"] == "failed" and "the dump is corrupt" in last["reason"], last
    assert last["file"].startswith(f"{dump}#"), "the game it broke off in is named"


def test_a_dump_cut_short_fails_the_game_it_breaks_off_in(
    dump: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = dump.read_bytes()
    dump.write_bytes(data[: len(data) * 2 // 3])
    code, out = verify(capsys, "--json", str(dump))
    assert code == 1
    *whole, cut = (json.loads(line) for line in out)
    assert whole and all(v["status"] == "ok" for v in whole)
    number = len(whole) + 1
    assert cut["file"] == f"{dump}#{number}" and cut["game_id"] == IDS[number - 1]
    assert cut["status"] == "failed" and "not verified" in cut["reason"]
    assert "cut short" in cut["reason"], cut


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{}\n", "not a dump: the file is not zstandard data"),
        (b"", "the file is empty"),
        (None, "cannot read: No such file or directory"),
    ],
    ids=["not zstandard", "empty", "missing"],
)
def test_a_dump_that_cannot_be_read_fails_as_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, reason: str
) -> None:
    path = tmp_path / "games.ndjson.zst"
    if content is not None:
        path.write_bytes(content)
    code, out = verify(capsys, str(path))
    assert code == 1
    assert out[0].startswith(f"{path}: failed: {reason}"), out
    assert out[1:] == ["0 ok, 0 incomplete, 1 failed"]


def test_a_dump_is_known_by_its_magic_bytes_and_its_frames_may_follow_one_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = pack(tmp_path / "a", *EXPORTS[:4]).read_bytes()
    second = pack(tmp_path / "b", *EXPORTS[4:]).read_bytes()
    both = tmp_path / "games.bin"
    both.write_bytes(first + second)
    code, out = verify(capsys, str(both))
    assert code == 0, out
    assert out[-1] == f"{len(GAMES)} ok, 0 incomplete, 0 failed"
    assert out[4].startswith(f"{both}#5 (game {IDS[4]}): ok")


def test_a_dump_of_no_games_holds_no_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = pack(tmp_path / "none.ndjson.zst")
    assert verify(capsys, str(empty)) == (0, ["0 ok, 0 incomplete, 0 failed"])


@pytest.mark.processes
@pytest.mark.parametrize("command", ["show", "step"])
def test_show_and_step_send_a_dump_to_verify(dump: Path, command: str) -> None:
    done = floe(command, str(dump))
    assert done.returncode == 2
    assert "is a dump of many games" in done.stderr and "verify" in done.stderr


@pytest.mark.processes
def test_progress_counts_the_games_and_the_share_of_the_file(dump: Path) -> None:
    done = floe("verify", "--progress", str(dump))
    assert done.returncode == 0
    shown = done.stderr.splitlines()
    assert shown and all(line.startswith("verified ") for line in shown), shown
    assert shown[-1] == f"verified {len(GAMES)} games, 100% of {dump}"
    assert not any(line.startswith("verified ") for line in done.stdout.splitlines())


def signed_receipts(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The receipts the service (key ``SERVICE``) signs for each event of a finished game."""
    seed = bytes.fromhex(events[-1]["data"]["seed"])
    made = []
    for event in events:
        game_id, version = event["game_id"], event["version"]
        mark = receipt_mark(seed, event["hash"])
        signature = sign(SERVICE, receipt_message(game_id, version, mark))
        made.append({"game_id": game_id, "version": version, "mark": mark, "signature": signature})
    return made


def test_receipts_hold_the_games_of_a_dump_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    genuine = service_log("arktia", [None, None], "receipted-game")
    moved = next(
        int(e["version"]) for e in genuine[len(genuine) // 2 :] if isinstance(e["actor"], int)
    )
    forged, _ = forge_move(genuine, moved)
    export = "".join(json.dumps(e) + "\n" for e in forged).encode()
    dump = pack(tmp_path / "games.ndjson.zst", EXPORTS[0], export, EXPORTS[1])
    kept = tmp_path / "kept.jsonl"
    kept.write_text("".join(json.dumps(r) + "\n" for r in signed_receipts(genuine)))
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [{"public_key": public_key_of(SERVICE), "current": True}]}))
    assert verify(capsys, str(dump))[0] == 0, "without receipts the host's forgery passes"
    code, out = verify(capsys, str(dump), "--receipts", str(kept), "--keys", str(keys))
    assert code == 1
    assert out[0].startswith(f"{dump}#1 (game {IDS[0]}): ok")
    assert out[1].startswith(
        f"{dump}#2 (game receipted-game): failed at version {moved}: the service's receipt "
        f"for version {moved} (kept by a player) contradicts this export"
    )
    assert out[2].startswith(f"{dump}#2 (game receipted-game): receipts of game receipted-game")
    assert out[3].startswith(f"{dump}#3 (game {IDS[1]}): ok")
