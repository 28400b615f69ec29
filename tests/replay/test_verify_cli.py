"""``floe replay verify`` on many files, and on hostile ones: every game gets its own verdict,
named, summed up, and kept apart from the progress on stderr."""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path

import pytest

from domain.engine.log import StoredEvent
from replay.cli import main, verify_all, verify_one
from replay.verify import Verdict
from tests.support.reference_games import ROOT, conformance_games, read_jsonl
from tests.support.replay_cli import FLOE, damaged, floe, reference, replace_line

ARKTIA = reference("arktia-3p")
ICEBERG = reference("iceberg-2p")
ARKTIA_EVENT_5 = ARKTIA.read_bytes().split(b"\n")[4]

#: One hostile line 5 in an otherwise honest game: what it is, and what the reason says.
HOSTILE = {
    "surrogate": (ARKTIA_EVENT_5.replace(b'"at":"', b'"at":"\\ud800'), "lone surrogate"),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "nests deeper than"),
    "bad-utf8": (ARKTIA_EVENT_5.replace(b'"at":"', b'"at":"\xff\xfe\xc3'), "not valid UTF-8"),
    "number": (b"12345", "not a stored event but a JSON number"),
    "huge-integer": (
        ARKTIA_EVENT_5.replace(b'"version":5', b'"version":' + b"9" * 5000),
        "5000 digits",
    ),
    "huge-float": (ARKTIA_EVENT_5.replace(b'"version":5', b'"version":1e999'), "too large"),
    "nan": (ARKTIA_EVENT_5.replace(b'"version":5', b'"version":NaN'), "NaN"),
    "not-json": (b'{"version": 5,', "not JSON"),
}


def hostile(tmp: Path, kind: str) -> Path:
    line, _ = HOSTILE[kind]
    assert line != ARKTIA_EVENT_5
    return replace_line(ARKTIA, tmp / f"{kind}.jsonl", 5, line)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FLOE, "verify", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.processes
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_line_fails_its_file_and_spares_the_good_one(tmp_path: Path, kind: str) -> None:
    bad = hostile(tmp_path, kind)
    result = run("--json", str(ARKTIA), str(bad))  # two files: verified one after the other
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    good, verdict = (json.loads(line) for line in result.stdout.splitlines())
    assert good["status"] == "ok" and good["file"] == str(ARKTIA)
    assert verdict["file"] == str(bad)
    assert (verdict["status"], verdict["version"]) == ("failed", 5), verdict
    assert HOSTILE[kind][1] in verdict["reason"], verdict
    if kind != "number":  # a line that is not usable JSON is named by its line number
        assert verdict["reason"].startswith("line 5 "), verdict


@pytest.mark.processes
@pytest.mark.parametrize("jobs", ["1", "2"], ids=["sequential", "pool"])
def test_every_file_of_a_hostile_batch_gets_its_own_verdict(tmp_path: Path, jobs: str) -> None:
    bad = [hostile(tmp_path, kind) for kind in sorted(HOSTILE)]
    names = [str(ARKTIA), *map(str, bad), str(ICEBERG)]
    result = run("--json", "--jobs", jobs, *names)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    verdicts = [json.loads(line) for line in result.stdout.splitlines()]
    assert [v["file"] for v in verdicts] == names
    assert [v["status"] for v in verdicts] == ["ok", *["failed"] * len(bad), "ok"]
    for kind, verdict in zip(sorted(HOSTILE), verdicts[1:-1], strict=True):
        assert verdict["version"] == 5 and HOSTILE[kind][1] in verdict["reason"], verdict


@pytest.mark.processes
def test_verify_names_each_file_and_sums_up(tmp_path: Path) -> None:
    honest = [str(p) for p in conformance_games()[:3]]
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(ARKTIA.read_text().splitlines(keepends=True)[:30]))
    broken, missing = damaged(tmp_path), tmp_path / "missing.jsonl"
    names = [*honest, str(cut), str(broken), str(missing)]
    for jobs in ("1", "2"):
        result = run("--jobs", jobs, *names)
        assert result.returncode == 1
        *lines, total = result.stdout.splitlines()
        assert len(lines) == len(names)
        for name, line in zip(names, lines, strict=True):
            assert line.startswith(f"{name}"), line
        game_id = read_jsonl(ARKTIA)[0]["game_id"]
        assert lines[0].startswith(f"{honest[0]} (game {Path(honest[0]).stem}): ok (")
        assert lines[3].startswith(
            f"{cut} (game {game_id}): incomplete (30 events; seats 0, 1 and 2 unsigned"
        )
        assert lines[4].startswith(f"{broken} (game {game_id}): failed at version 26: ")
        assert lines[5] == f"{missing}: failed: cannot read: No such file or directory (0 events)"
        assert total == "3 ok, 1 incomplete, 2 failed"
    ok = run(*honest)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "3 ok, 0 incomplete, 0 failed"


@pytest.mark.processes
def test_json_keeps_the_file_and_the_game_apart(tmp_path: Path) -> None:
    missing, garbage = tmp_path / "missing.jsonl", tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n")
    result = run("--json", str(ARKTIA), str(missing), str(garbage))
    verdicts = [json.loads(line) for line in result.stdout.splitlines()]  # no summary object
    assert [set(v) for v in verdicts] == [
        {"file", "game_id", "status", "events", "version", "reason", "bot_replay", "unsigned_seats"}
    ] * 3
    people = {"status": "no_bots", "moves": 0, "seats": []}
    assert [v["bot_replay"] for v in verdicts] == [people, None, None]  # no usable event 1
    assert [v["unsigned_seats"] for v in verdicts] == [[0, 1, 2], None, None]
    assert verdicts[0]["file"] == str(ARKTIA)
    assert verdicts[0]["game_id"] == read_jsonl(ARKTIA)[0]["game_id"]
    assert verdicts[1]["file"] == str(missing) and verdicts[1]["game_id"] is None
    assert verdicts[1]["status"] == "failed" and "cannot read" in verdicts[1]["reason"]
    assert verdicts[2]["file"] == str(garbage) and verdicts[2]["game_id"] is None
    assert verdicts[2]["reason"].startswith("line 1 is not JSON")


class Store:
    """An event store holding the reference Arktia game under its own id."""

    def read(self, game_id: str, *, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        events = read_jsonl(ARKTIA)
        if game_id != events[0]["game_id"]:
            return []
        return [StoredEvent.from_json(e) for e in events]


def test_a_game_read_by_id_is_named_by_its_id(capsys: pytest.CaptureFixture[str]) -> None:
    game_id = read_jsonl(ARKTIA)[0]["game_id"]
    code = main(["verify", game_id, "no-such-game", str(ICEBERG)], open_store=Store)
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[0] == (
        f"{game_id}: ok ({len(read_jsonl(ARKTIA))} events; seats 0, 1 and 2 unsigned: their "
        "moves rest on the host's word)"
    )
    assert lines[1].startswith("no-such-game: failed: no such file, and no game 'no-such-game'")
    assert lines[2].startswith(f"{ICEBERG} (game ")
    assert lines[3] == "2 ok, 0 incomplete, 1 failed"
    main(["verify", "--json", game_id], open_store=Store)
    verdict = json.loads(capsys.readouterr().out)
    assert (verdict["file"], verdict["game_id"], verdict["status"]) == (None, game_id, "ok")


@pytest.mark.processes
def test_progress_goes_to_stderr_only() -> None:
    names = [str(p) for p in conformance_games()[:5]]
    for args in (["--progress"], ["--progress", "--json"]):
        result = run(*args, "--jobs", "2", *names)
        assert result.returncode == 0, result.stderr
        assert "verified 5/5" in result.stderr
        assert "verified" not in result.stdout and "#" not in result.stdout
        assert len(result.stdout.splitlines()) == 5 + ("--json" not in args)
    quiet = run("--jobs", "2", *names)  # stderr is not a terminal: no progress by default
    assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.mark.processes
def test_progress_is_shown_when_stderr_is_a_terminal() -> None:
    names = [str(p) for p in conformance_games()[:4]]
    master, slave = os.openpty()
    process = subprocess.Popen(
        [*FLOE, "verify", "--jobs", "2", *names],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
    )
    os.close(slave)
    try:
        out, _ = process.communicate(timeout=120)  # a few hundred bytes: the pty holds them
        seen = b""
        while select.select([master], [], [], 30)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the writer is gone and everything it wrote has been read
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert process.returncode == 0
    assert b"verified 4/4" in seen and b"\r[" in seen
    assert "verified" not in out and out.splitlines()[-1] == "4 ok, 0 incomplete, 0 failed"


@pytest.mark.processes
def test_verify_help_documents_the_output_and_progress() -> None:
    shown = floe("verify", "--help").stdout
    assert "--progress" in shown and "--no-progress" in shown
    assert "stderr" in shown and "terminal" in shown
    assert "N ok, N incomplete, N failed" in shown and "game_id" in shown


def die_on_marked_files(name: str, lines: list[str] | None) -> Verdict:
    """Verify as usual, except that a file named ``*die*`` kills its worker process."""
    if "die" in Path(name).name:
        os._exit(3)
    return verify_one(name, lines)


@pytest.mark.processes
def test_a_worker_that_dies_costs_no_other_file_its_verdict(tmp_path: Path) -> None:
    dying = tmp_path / "die.jsonl"
    dying.write_bytes(ARKTIA.read_bytes())
    names = [str(p) for p in conformance_games()[:3]] + [str(dying)]
    names += [str(p) for p in conformance_games()[3:6]]
    verdicts = verify_all(names, jobs=2, check=die_on_marked_files)
    assert [v.file for v in verdicts] == names
    assert [v.status for v in verdicts] == ["ok"] * 3 + ["failed"] + ["ok"] * 3
    assert "died" in (verdicts[3].reason or "")


def test_verify_one_never_raises(tmp_path: Path) -> None:
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    verdict = verify_one(str(folder))
    assert (verdict.status, verdict.file, verdict.game_id) == ("failed", str(folder), None)
    assert verdict.reason == "cannot read: Is a directory"
