"""The service key (``service.keys.service_key``): made once, private, the same for every
process that starts at once, rotated without losing the old public keys; where the settings
and ``floe run`` say it lives; and ``floe keys``."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from domain.engine.signing import is_public_key
from replay.ed25519 import signature_is_valid
from service.cli import main as floe
from service.keys.service_key import (
    RETIRED_FILE,
    ServiceKeyError,
    default_file,
    for_file,
    load,
    rotate,
)
from service.run.supervisor import parse_settings
from service.settings import Settings
from tests.support.waiting import PROMPTLY

AT = "2026-11-28T12:00:00Z"


def test_a_first_load_makes_a_private_key_file_and_every_later_load_reads_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "data" / "keys" / "service.key"
    made = load(path)
    assert is_public_key(made.public_key) and made.path == path and made.retired == ()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    text = path.read_text(encoding="ascii")
    assert len(text) == 65 and text.endswith("\n") and int(text, 16) >= 0
    assert load(path).public_key == made.public_key
    assert sorted(p.name for p in path.parent.iterdir()) == ["service.key"], "no temporary left"
    signature = made.sign(b"a message")
    assert signature_is_valid(made.public_key, b"a message", signature)
    assert made.sign(b"a message") == signature, "Ed25519 signs deterministically"
    assert made.listed() == [{"public_key": made.public_key, "current": True}]


@pytest.mark.processes
def test_processes_starting_at_once_agree_on_one_key(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "service.key"
    script = "import sys; from pathlib import Path; from service.keys.service_key import load; "
    script += "print(load(Path(sys.argv[1])).public_key)"
    started = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(8)
    ]
    keys = {process.communicate(timeout=PROMPTLY)[0].strip() for process in started}
    assert all(process.returncode == 0 for process in started)
    assert keys == {load(path).public_key}
    assert [p.name for p in path.parent.iterdir()] == ["service.key"]


def test_a_rotation_lists_every_old_public_key_newest_first(tmp_path: Path) -> None:
    path = tmp_path / "service.key"
    first = load(path)
    old, second = rotate(path, at=AT)
    assert old == first.public_key and second != old
    assert load(path).public_key == second
    old_again, third = rotate(path, at="2026-11-29T12:00:00Z")
    assert old_again == second
    now = load(path)
    assert now.public_key == third and now.retired == (second, first.public_key)
    assert now.listed() == [
        {"public_key": third, "current": True},
        {"public_key": second, "current": False},
        {"public_key": first.public_key, "current": False},
    ]
    retired = json.loads((tmp_path / RETIRED_FILE).read_text(encoding="utf-8"))["retired"]
    assert retired == [
        {"public_key": second, "retired_at": "2026-11-29T12:00:00Z"},
        {"public_key": first.public_key, "retired_at": AT},
    ]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_there_is_nothing_to_rotate_before_a_first_start(tmp_path: Path) -> None:
    with pytest.raises(ServiceKeyError, match="no service key"):
        rotate(tmp_path / "service.key", at=AT)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "text", ["", "not a key\n", "ab" * 31 + "\n", "zz" * 32 + "\n", "ab" * 33 + "\n"]
)
def test_a_key_file_that_holds_no_key_stops_the_process_naming_it(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "service.key"
    path.write_text(text, encoding="ascii")
    with pytest.raises(ServiceKeyError, match=f"{path} is not a service key"):
        load(path)


@pytest.mark.parametrize("text", ["{", "[]", '{"retired": [{"public_key": "AB"}]}'])
def test_a_damaged_list_of_retired_keys_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "service.key"
    load(path)
    (tmp_path / RETIRED_FILE).write_text(text, encoding="utf-8")
    with pytest.raises(ServiceKeyError, match=RETIRED_FILE):
        load(path)


def test_without_a_file_the_key_lives_in_memory_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    one, two = for_file(None), for_file(None)
    assert one.path is None and one.public_key != two.public_key
    assert list(tmp_path.iterdir()) == [], "nothing written"


def test_where_the_settings_say_the_key_lives(tmp_path: Path) -> None:
    assert Settings().service_key_file is None, "a Settings built in code: in memory"
    assert Settings.from_env({}).service_key_file is None
    assert Settings.from_env({"FLOE_DATA_DIR": "/srv/floe"}).service_key_file == Path(
        "/srv/floe/keys/service.key"
    )
    both = {"FLOE_DATA_DIR": "/srv/floe", "FLOE_SERVICE_KEY_FILE": "/etc/floe/key"}
    assert Settings.from_env(both).service_key_file == Path("/etc/floe/key")
    # floe run: its data directory (the flag wins over the variable), unless a file is named
    run = parse_settings(["--data-dir", str(tmp_path)], {"FLOE_DATA_DIR": "/srv/floe"})
    assert run.service_key_file == default_file(tmp_path) == tmp_path / "keys" / "service.key"
    assert parse_settings([], {}).service_key_file == Path(".floe-data/keys/service.key")
    named = parse_settings(["--data-dir", str(tmp_path)], {"FLOE_SERVICE_KEY_FILE": "/k"})
    assert named.service_key_file == Path("/k")


def test_floe_keys_shows_the_answer_of_get_v1_keys_and_rotates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "service.key"
    assert floe(["keys", "show", "--file", str(path)]) == 1
    assert "no service key" in capsys.readouterr().err
    assert not path.exists(), "show makes nothing"
    first = load(path).public_key
    assert floe(["keys", "show", "--file", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == {"keys": [{"public_key": first, "current": True}]}
    assert floe(["keys", "rotate", "--file", str(path)]) == 0
    said = capsys.readouterr().out
    second = load(path).public_key
    assert first in said and second in said
    assert floe(["keys", "show", "--file", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["keys"] == [
        {"public_key": second, "current": True},
        {"public_key": first, "current": False},
    ]
