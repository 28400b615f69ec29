"""What the replay tests share: running ``floe replay`` (plainly, under a pty, through a
pipe), and making damaged, tampered and hostile copies of the reference games."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

from domain.engine.log import event_hash
from tests.support.reference_games import ROOT, conformance_games, read_jsonl
from tests.support.waiting import PROMPTLY

ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
FLOE = [sys.executable, "-m", "service.cli", "replay"]


def reference(name: str) -> Path:
    """The reference game whose file name holds ``name`` (``arktia-3p``, ``iceberg-2p``…)."""
    return next(p for p in conformance_games() if name in p.name)


def floe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*FLOE, *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


def rechain(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Recompute every prev_hash and hash, as a careful forger would."""
    prev = "0" * 64
    out = []
    for event in events:
        event = {**event, "prev_hash": prev}
        event["hash"] = event_hash(event)
        prev = event["hash"]
        out.append(event)
    return out


def write_events(path: Path, events: list[Any]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


def replace_line(source: Path, target: Path, number: int, line: bytes) -> Path:
    """A copy of ``source`` with line ``number`` (1-based) replaced by the raw bytes ``line``."""
    lines = source.read_bytes().split(b"\n")
    lines[number - 1] = line
    target.write_bytes(b"\n".join(lines))
    return target


def damaged(tmp: Path, version: int = 26) -> Path:
    """The Arktia 3-player reference game with one field deleted from the action of event
    ``version`` (its hash left as it was: damage, not forgery)."""
    events = read_jsonl(reference("arktia-3p"))
    action = events[version - 1]["data"]["action"]
    del action[sorted(k for k in action if k != "type")[0]]
    return write_events(tmp / "damaged.jsonl", events)


class Terminal:
    """``floe replay step`` running under a pseudo-terminal of a fixed size."""

    def __init__(self, game: Path, rows: int = 50, cols: int = 110, *args: str) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        # The size is the terminal's alone: LINES or COLUMNS inherited from whoever runs the
        # tests would override it (curses and Python both read them first).
        env = {k: v for k, v in os.environ.items() if k not in ("LINES", "COLUMNS")}
        env |= {"TERM": "xterm", "ESCDELAY": "25"}
        self.process = subprocess.Popen(
            [*FLOE, "step", str(game), *args],
            cwd=ROOT,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""

    def press(self, keys: bytes) -> None:
        self.seen = b""
        os.write(self.master, keys)

    def wait_for(self, pattern: str, timeout: float = PROMPTLY) -> str:
        """Read output until ``pattern`` shows up (escape codes stripped) in what the program
        wrote since the last key pressed, or fail."""
        plain = ANSI.sub(b"", self.seen).decode(errors="replace")
        if re.search(pattern, plain):  # already read, with an earlier pattern
            return plain
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:
                    break  # the child closed the terminal
                plain = ANSI.sub(b"", self.seen).decode(errors="replace")
                if re.search(pattern, plain):
                    return plain
        tail = ANSI.sub(b"", self.seen)[-400:]
        raise AssertionError(f"{pattern!r} never appeared; last output: {tail!r}")

    def exit_code(self, timeout: float = PROMPTLY) -> int:
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        os.close(self.master)


#: The environment without ``PYTHONUNBUFFERED``: unbuffered, CPython drops what a partial
#: write to a closing pipe left over instead of raising, which is not what users run.
BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def through_head(args: list[str]) -> tuple[bytes, int, str]:
    """``floe replay ARGS | head -1`` through a real pipe: head's output, floe's exit code and
    floe's stderr.

    The pipe is shrunk to 4096 bytes, so floe is still writing when head exits whenever its
    output is longer than its first line plus 8192 bytes (what the pipe holds, and what head
    read) - the callers make sure of that, so the closed pipe is met every time, not by luck.
    floe runs with stdout buffered, as from a shell (see ``BUFFERED``).
    """
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)
    head = subprocess.Popen(["head", "-1"], stdin=read, stdout=subprocess.PIPE)
    os.close(read)
    command = subprocess.Popen(
        [*FLOE, *args], cwd=ROOT, stdout=write, stderr=subprocess.PIPE, text=True, env=BUFFERED
    )
    os.close(write)
    first, _ = head.communicate(timeout=120)
    _, err = command.communicate(timeout=120)
    return first, command.returncode, err


def into_closed_pipe(args: list[str]) -> tuple[int, str]:
    """``floe replay ARGS`` writing into a pipe whose reader is already gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [*FLOE, *args],
            cwd=ROOT,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env=BUFFERED,
        )
    finally:
        os.close(write)
    return done.returncode, done.stderr
