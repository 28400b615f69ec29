"""``floe archive dump`` on real finished games, from both real archives (an SQLite file and
the suite's PostgreSQL), and ``floe replay verify`` reading what it wrote.

The games are played to their end in process, on a real Redis, each at a time the test
chooses (the service clock is handed in), and archived as the mover archives them. Both
commands run as real subprocesses, as an operator runs them.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
import redis
import zstandard

from domain.engine import play
from service.archive.moving import archived_game
from service.archive.protocol import Archive, ArchivedGame
from service.bootstrap import Floe, build
from service.games.access import Viewer
from service.games.commands import CreateGame, NewPlayer, PlayAction
from service.settings import Settings
from tests.support import archives
from tests.support.reference_games import ROOT

pytestmark = pytest.mark.processes  # every test runs the floe CLI

#: An empty archive's URL: an SQLite file, or a new PostgreSQL database (each test, both).
archive_url = archives.archive_url
#: The archive opened on it, closed after the test.
archive = archives.archive

#: When each game ends: the first the day before 2026-11-01, the second on its first second.
ENDS = ("2026-10-31T23:59:59Z", "2026-11-01T00:00:00Z", "2026-11-02T08:30:00Z")


class SetClock:
    """The service clock, at whatever time the test sets."""

    def __init__(self) -> None:
        self.now = "2026-10-01T00:00:00Z"

    def __call__(self) -> str:
        return self.now


def finished_game(service: Floe, clock: SetClock, at: str) -> str:
    """A two-person Arktia game of two turns, played to its end at the time ``at``."""
    clock.now = at
    players = (NewPlayer("ann"), NewPlayer("bob"))
    created = CreateGame("arktia", players, options={"turn_limit": 2})
    game_id = service.commands.create(created, Viewer()).id
    meta = service.repository.meta(game_id)
    state = service.repository.latest(meta)
    while not state.over:
        seat = play.to_act(meta.rules, state)[0]
        action = play.legal_actions(meta.rules, state, seat)[0].to_json()
        service.commands.play(meta, PlayAction(seat, action, state.version, f"c{state.version}"))
        state = service.repository.latest(meta)
    return game_id


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """Where the dumps go: a folder of their own (the SQLite archive is in tmp_path/data)."""
    folder = tmp_path / "dumps"
    folder.mkdir()
    return folder


@pytest.fixture
def games(redis_url: str, redis_client: redis.Redis, archive: Archive) -> list[ArchivedGame]:
    """Three finished games, archived out of their order of ending: in ``ENDS``' order."""
    clock = SetClock()
    service = build(
        Settings(redis_url=redis_url, live_games_per_creator=0, bot_games_per_creator=0),
        redis_client=redis_client,
        clock=clock,
    )
    ids = [finished_game(service, clock, at) for at in ENDS]
    copies = []
    for game_id in ids:
        resident = service.store.resident(game_id)
        assert resident is not None
        copies.append(archived_game(resident))
    for copy in (copies[1], copies[2], copies[0]):
        archive.put(copy)
    assert [c.ended_at for c in copies] == list(ENDS)
    return copies


def floe(*args: str, url: str | None, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    """``floe ARGS`` with ``FLOE_ARCHIVE_URL=url`` (None: no archive) and no other setting of
    this shell's (no FLOE_DATA_DIR that would name an archive of its own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOE_") and k != "REDIS_URL"}
    env["PYTHONPATH"] = str(ROOT)
    if url is not None:
        env["FLOE_ARCHIVE_URL"] = url
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )


def unpacked(path: Path) -> bytes:
    with path.open("rb") as file, zstandard.ZstdDecompressor().stream_reader(file) as reader:
        return reader.read()


def verify(path: Path) -> subprocess.CompletedProcess[bytes]:
    return floe("replay", "verify", "--jobs", "1", str(path), url=None)


def test_a_dump_holds_every_game_byte_for_byte_oldest_first(
    archive_url: str, games: list[ArchivedGame], out: Path
) -> None:
    target = out / "all.ndjson.zst"
    done = floe("archive", "dump", "--output", str(target), url=archive_url)
    assert done.returncode == 0, done.stderr
    assert unpacked(target) == b"".join(game.export for game in games)
    written = done.stderr.decode()
    assert "wrote 3 games" in written and str(target) in written
    assert f"{target.stat().st_size} bytes compressed" in written
    assert [p.name for p in out.iterdir()] == [target.name], "no temporary file is left"

    checked = verify(target)
    lines = checked.stdout.decode().splitlines()
    assert checked.returncode == 0, checked.stdout
    for number, game in enumerate(games, start=1):
        assert lines[number - 1].startswith(f"{target}#{number} (game {game.game_id}): ok ")
    assert lines[-1] == "3 ok, 0 incomplete, 0 failed"


@pytest.mark.parametrize(
    ("since", "first"),
    [("2026-11-01", 1), ("2026-11-01T00:00:00Z", 1), ("2026-11-01T00:00:01Z", 2)],
    ids=["a date", "a time, a game ending on it", "a time, a second later"],
)
def test_since_keeps_only_the_games_that_ended_at_or_after_it(
    archive_url: str, games: list[ArchivedGame], out: Path, since: str, first: int
) -> None:
    target = out / "since.ndjson.zst"
    done = floe("archive", "dump", "--since", since, "-o", str(target), url=archive_url)
    assert done.returncode == 0, done.stderr
    assert unpacked(target) == b"".join(game.export for game in games[first:])
    assert f"wrote {len(games) - first} games".encode() in done.stderr


def test_a_dump_to_stdout_is_the_same_stream(
    archive_url: str, games: list[ArchivedGame], out: Path
) -> None:
    done = floe("archive", "dump", "-o", "-", url=archive_url)
    assert done.returncode == 0, done.stderr
    reader = zstandard.ZstdDecompressor().decompressobj()
    assert reader.decompress(done.stdout) == b"".join(game.export for game in games)
    assert reader.eof
    assert b"wrote 3 games" in done.stderr and b"to stdout" in done.stderr


def test_the_default_file_is_named_for_the_utc_date_in_the_current_folder(
    archive_url: str, games: list[ArchivedGame], out: Path
) -> None:
    before = datetime.now(UTC).date().isoformat()
    done = floe("archive", "dump", url=archive_url, cwd=out)
    after = datetime.now(UTC).date().isoformat()
    assert done.returncode == 0, done.stderr
    (written,) = out.iterdir()
    match = re.fullmatch(r"floe-games-(\d{4}-\d\d-\d\d)\.ndjson\.zst", written.name)
    assert match is not None and match[1] in (before, after), written.name
    assert unpacked(written) == b"".join(game.export for game in games)


def test_verify_fails_the_game_whose_event_was_changed_and_passes_the_others(
    archive_url: str, games: list[ArchivedGame], out: Path
) -> None:
    target = out / "all.ndjson.zst"
    assert floe("archive", "dump", "-o", str(target), url=archive_url).returncode == 0
    data = bytearray(unpacked(target))
    event_3 = len(games[0].export) + sum(map(len, games[1].export.splitlines(True)[:2]))
    digit = data.index(b'"hash":"', event_3) + len(b'"hash":"')
    data[digit] = ord("0") if data[digit] != ord("0") else ord("1")  # one byte of event 3
    tampered = out / "tampered.ndjson.zst"
    tampered.write_bytes(zstandard.ZstdCompressor().compress(bytes(data)))

    checked = verify(tampered)
    assert checked.returncode == 1
    ok_1, failed, ok_3, total = checked.stdout.decode().splitlines()
    assert ok_1.startswith(f"{tampered}#1 (game {games[0].game_id}): ok ")
    assert failed.startswith(f"{tampered}#2 (game {games[1].game_id}): failed at version 3: ")
    assert ok_3.startswith(f"{tampered}#3 (game {games[2].game_id}): ok ")
    assert total == "2 ok, 0 incomplete, 1 failed"


def test_a_truncated_dump_fails_cleanly(
    archive_url: str, games: list[ArchivedGame], out: Path
) -> None:
    target = out / "all.ndjson.zst"
    assert floe("archive", "dump", "-o", str(target), url=archive_url).returncode == 0
    cut = out / "cut.ndjson.zst"
    cut.write_bytes(target.read_bytes()[:-20])

    checked = floe("replay", "verify", "--json", str(cut), url=None)
    assert checked.returncode == 1
    assert b"Traceback" not in checked.stderr, checked.stderr
    *_, last = (json.loads(line) for line in checked.stdout.splitlines())
    assert last["status"] == "failed"
    assert "cut short" in last["reason"], last


@pytest.mark.parametrize("since", ["yesterday", "2026-13-01", "2026-11-01T00:00:00+01:00"])
def test_a_bad_since_exits_2_saying_what_it_takes(archive_url: str, out: Path, since: str) -> None:
    done = floe("archive", "dump", "--since", since, "-o", str(out / "x.zst"), url=archive_url)
    assert done.returncode == 2
    said = done.stderr.decode()
    assert "--since" in said and "2026-11-01" in said and repr(since) in said, said
    assert not list(out.iterdir()), "nothing is written"


def test_without_an_archive_the_dump_exits_2_naming_the_setting(out: Path) -> None:
    done = floe("archive", "dump", "-o", str(out / "x.zst"), url=None)
    assert done.returncode == 2
    assert b"FLOE_ARCHIVE_URL" in done.stderr, done.stderr
    assert not list(out.iterdir())


def test_a_dump_that_fails_part_way_leaves_the_file_it_replaces_whole(
    archive_url: str, games: list[ArchivedGame], out: Path
) -> None:
    """The newest game's export no longer matches its digest: the archive refuses it once
    the dump has written the two before it."""
    newest = games[-1].game_id
    behind_its_back(
        archive_url,
        "UPDATE archived_games SET export_sha256 = ? WHERE game_id = ?",
        ("0" * 64, newest),
    )
    target = out / "floe.ndjson.zst"
    target.write_bytes(b"yesterday's dump")
    done = floe("archive", "dump", "-o", str(target), url=archive_url)
    assert done.returncode == 1
    said = done.stderr.decode()
    assert newest in said and "digest" in said and "nothing written" in said, said
    assert "Traceback" not in said
    assert target.read_bytes() == b"yesterday's dump"
    assert [p.name for p in out.iterdir()] == [target.name], "no temporary file is left"


def behind_its_back(url: str, query: str, params: tuple[str, ...]) -> None:
    """Change the archive's database directly (committed), as damage would."""
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url[len("sqlite:///") :]) as conn:
            conn.execute(query, params)
        return
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(query.replace("?", "%s"), params)
