"""The README's two commands, and the curl tour (``docs/guide/tour.md``) run as written
against a real service it starts.

The README has one ```` ```sh ```` block, the two commands the reader starts with, checked
for what it says. Every block of the tour is accounted for: the service block (its first,
the one that ends in ``make run``) runs in a ``bash`` of its own, where ``make run`` stands for ``.venv/bin/floe run`` (what the Makefile's
target runs once ``.venv`` exists), on a free ``PORT``; then every numbered block, the tour and
the tables and tournaments after it, is pasted, in order, into one other ``bash`` (``set -euo
pipefail``: any failing command fails its block). Both run in a fresh directory standing in for
the repository root (its ``.venv`` is this interpreter's). Neither shell is given
``FLOE_ORGANIZER_TOKEN``: the service block makes it and the tournament block reads it, as a
reader's would. Each block must finish, and say what the tour promises it says. Nothing is
skipped: a block the test has no expectation for fails it, and so does a missing one. Waits are
on conditions (the health endpoint answering, the blocks running to their end), never on a
clock.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.run.redis_server import free_tcp_port
from tests.support.waiting import AT_LENGTH, PROMPTLY

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TOUR = ROOT / "docs" / "guide" / "tour.md"
STARTUP_SECONDS = 2 * PROMPTLY
TOUR_SECONDS = AT_LENGTH
BEGIN, DONE = "@@readme-block-begin", "@@readme-block-done"

#: What each step's output must contain (regular expressions), by the step's number: the
#: number its block's first comment gives it ("# 5. Mistakes get ..."). Answers are compact
#: JSON; a space after a colon is allowed, so the promises hold for either spacing.
PROMISES: dict[int, list[str]] = {
    0: [r'"status": ?"ok"', r'"redis": ?"ok"'],
    1: [r'"id": ?"[0-9a-f]+"', r'"seed_commitment"', r'"token"'],
    2: [r'"status": ?"active"', r'"to_act": ?\[0\]', r'"outcome": ?null'],
    3: [r'"version": ?1', r'"actions": ?\[\{"type": ?"place"'],
    4: [r'"version": ?2', r'"command_id": ?"ann-1"'],
    5: [r'"code": ?"not_your_turn"', r"^HTTP 403$"],
    6: [r'"events": ?\[\{', r'"command_id": ?"ann-1"'],
    7: [r'"version": ?2', r'"status": ?"active"'],
    8: [r"^event: place$", r"^event: game_over$", r"^event: seed_revealed$", r"^over \{'winners'"],
    # verify exits 0 only for ok (set -e checks it); Ann and Bo gave no keys, so it says so.
    9: [r"\bok \(\d+ events; seats 0 and 1 unsigned: their moves rest on the host's word\)$"],
    # Tables: opened with a seat free, then started by the join that takes it.
    10: [
        r'"status": ?"open"',
        r'"host_token": ?"',
        r'"seat": ?1, ?"token": ?"',
        r'"status": ?"started"',
        r'"game_id": ?"[0-9a-f]{16}"',
        r"^active \['Ann', 'Bo'\]$",
    ],
    # Tournaments: created with the token the service block made, then run to the end.
    11: [
        r'"status": ?"running"',
        r'"seed_commitments": ?\["[0-9a-f]{64}"',
        r"^the page: http://127\.0\.0\.1:\d+/tournaments/[0-9a-f]{16}$",
    ],
    12: [
        r"^finished$",
        *(rf"^\d+(-\d+)? {name} \d+(/2)?$" for name in ("Rex", "Ria", "Gus", "Gil")),
    ],
    13: [
        *(
            rf"^tournament\.jsonl round {r} table {t} \(game [0-9a-f]{{16}}\): ok "
            for r in (1, 2, 3)
            for t in (1, 2)
        ),
        r"\(tournament [0-9a-f]{16}\): ok \(6 games, 3 of 3 rounds\)$",
        r"^1 ok, 0 incomplete, 0 failed$",
    ],
}


def sh_blocks(text: str) -> list[str]:
    """The ```sh blocks of ``text``, in order."""
    return re.findall(r"^```sh\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def starts_the_service(block: str) -> bool:
    return any(line.split("#")[0].strip().endswith("make run") for line in block.splitlines())


def service_and_steps(tour: str) -> tuple[str, list[str]]:
    """The tour's service block (its first) and its numbered blocks."""
    service, *steps = sh_blocks(tour)
    assert starts_the_service(service), f"the tour opens with the service block:\n{service}"
    assert not any(starts_the_service(step) for step in steps), "one service block"
    return service, steps


def step_number(block: str) -> int:
    found = re.match(r"# (\d+)\. ", block)
    assert found, f"a tour block that does not start with its step number:\n{block}"
    return int(found.group(1))


def driver(blocks: list[str], directory: Path) -> Path:
    """One bash script sourcing each block in turn, between markers naming it."""
    lines = ["set -euo pipefail"]
    for index, block in enumerate(blocks):
        path = directory / f"block-{index}.sh"
        path.write_text(block, encoding="utf-8")
        lines += [
            f"printf '\\n{BEGIN} {index}\\n'",
            f". {shlex.quote(str(path))}",
            f"printf '\\n{DONE} {index}\\n'",
        ]
    script = directory / "tour.sh"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return script


def outputs(transcript: str) -> dict[int, str]:
    """Each block's output (stdout and stderr) by index; only blocks that finished."""
    found: dict[int, str] = {}
    for match in re.finditer(
        rf"^{BEGIN} (\d+)\n(.*?)^{DONE} \1$", transcript, flags=re.MULTILINE | re.DOTALL
    ):
        found[int(match.group(1))] = match.group(2)
    return found


def wait_healthy(base: str, process: subprocess.Popen[bytes]) -> None:
    """Poll /v1/health until it answers 200 (bounded), failing at once if the process exits."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/v1/health", timeout=5) as response:
                if response.status == 200 and json.loads(response.read())["status"] == "ok":
                    return
        except (OSError, urllib.error.HTTPError, ValueError):
            pass
        try:  # waiting on the process between polls: its exit fails the test at once
            process.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            continue
        raise AssertionError("floe run exited during start-up")
    raise AssertionError("floe run did not become healthy")


#: ``make run`` in the service block, as the Makefile runs it once ``.venv`` is installed;
#: any other ``make`` is refused (the test installs nothing).
MAKE_RUN = """make() {
  if [ "$*" != run ]; then echo "the README test stands in for make run only, not: make $*" >&2; return 2; fi
  exec .venv/bin/floe run
}
"""


def start_service(block: str, home: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """The service block in a bash of its own at ``home``; its output goes to a log there."""
    script = home.parent / "service.sh"
    script.write_text(f"set -euo pipefail\n{MAKE_RUN}{block}", encoding="utf-8")
    with (home.parent / "floe-run.log").open("ab") as log:
        return subprocess.Popen(
            ["bash", str(script)],
            cwd=home,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def run_tour(page: str, workdir: Path) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    """Start the service as its block says, on a free port; run the numbered blocks against
    it; stop it (Ctrl-C's signal)."""
    service, blocks = service_and_steps(page)
    home = workdir / "repo"
    home.mkdir()
    (home / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    port = free_tcp_port()
    unset = ("REDIS_URL", "FLOE_ORGANIZER_TOKEN", "FLOE_DATA_DIR")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env["PORT"] = str(port)
    log_path = workdir / "floe-run.log"
    server = start_service(service, home, env)
    try:
        try:
            wait_healthy(f"http://127.0.0.1:{port}", server)
        except AssertionError as error:  # what the service said is the place to look
            said = (workdir / "floe-run.log").read_text(errors="replace")[-4000:]
            raise AssertionError(f"{error}; its output ended:\n{said}") from error
        tour = subprocess.Popen(
            ["bash", str(driver(blocks, workdir))],
            cwd=home,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group: a stuck block dies whole
        )
        try:
            transcript, _ = tour.communicate(timeout=TOUR_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(tour.pid, signal.SIGKILL)
            transcript, _ = tour.communicate()
            transcript += f"\n(the tour was still running after {TOUR_SECONDS} s: killed)"
        done = subprocess.CompletedProcess(tour.args, tour.wait(), transcript)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
    assert server.returncode == 0, log_path.read_text(errors="replace")
    return blocks, done


def test_readme_starts_with_make_run_and_make_test() -> None:
    text = README.read_text(encoding="utf-8")
    first = re.search(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    assert first and text.index(first.group(0)) < 200, "the first screen is the two commands"
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    assert commands == ["make run", "make test"]


def test_every_shell_block_is_checked_or_run() -> None:
    """No block escapes: the README's one block is checked above; the tour's run below."""
    blocks = sh_blocks(README.read_text(encoding="utf-8"))
    assert len(blocks) == 1 and "make run" in blocks[0], "the README's only block: two commands"
    assert "docs/guide/tour.md" in README.read_text(encoding="utf-8"), "the README links the tour"
    service, steps = service_and_steps(TOUR.read_text(encoding="utf-8"))
    assert "FLOE_ORGANIZER_TOKEN=" in service, "the service block starts the organizer's service"
    assert [step_number(step) for step in steps] == list(range(len(steps)))


@pytest.mark.parametrize("page", [README, TOUR], ids=["README", "tour"])
def test_names_no_outside_files_and_no_fixed_port(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    # The product team's spec folder sits beside a checkout, never in a clone.
    for outside in (re.compile(r"\.\./shared"), re.compile(r"DESIGN\.md")):
        assert not outside.search(text), (
            f"{page.name} cites {outside.pattern}: a clone has only docs/"
        )
    for block in sh_blocks(text):
        for fixed in ("localhost:8000", "127.0.0.1:8000"):
            assert fixed not in block, f"a command hard-codes {fixed}, not $PORT:\n{block}"
    for target in re.findall(r"\]\((?!https?:)([^)#\s]+)", text):
        assert (page.parent / target).exists(), (
            f"{page.name} links to {target}, which does not exist"
        )


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A working directory with a short path: the service block keeps its Redis socket in
    ``.floe-data/redis/redis.sock`` under it, and a Unix socket's path is capped at 107 bytes,
    which pytest's own temporary directories pass once their numbers grow."""
    with tempfile.TemporaryDirectory(prefix="floe-readme-") as made:
        yield Path(made)


@pytest.mark.processes
def test_the_tour_runs_as_written_against_floe_run(short_dir: Path) -> None:
    tmp_path = short_dir
    blocks, done = run_tour(TOUR.read_text(encoding="utf-8"), tmp_path)
    transcript = done.stdout
    steps = [step_number(block) for block in blocks]
    finished = outputs(transcript)
    for index, step in enumerate(steps):
        assert index in finished, (
            f"step {step} did not finish (bash exit {done.returncode}):\n{transcript}"
        )
        for promise in PROMISES.get(step, []):
            assert re.search(promise, finished[index], flags=re.MULTILINE), (
                f"step {step} does not say {promise!r}; it said:\n{finished[index]}"
            )
    assert done.returncode == 0, transcript
    assert steps == sorted(PROMISES), f"the tour's steps are {steps}, the test knows {PROMISES}"
    assert "PORT=${PORT:-8000}" in blocks[0], "the port is chosen once, from PORT"
    assert all("--max-time" in b for b in blocks if "/events/stream" in b), "SSE is bounded"
    assert (tmp_path / "repo" / "game.jsonl").stat().st_size > 0
    assert (tmp_path / "repo" / "tournament.jsonl").stat().st_size > 0
    token = (tmp_path / "repo" / ".floe-data" / "organizer-token").stat()
    assert token.st_mode & 0o077 == 0, "the organizer token is readable by its owner only"
