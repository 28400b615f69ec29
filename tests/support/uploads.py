"""Uploads for the upload tests: long real exports, and a gate that holds an upload's job.

The gate is the upload child's test hook (``service.uploads.child``: ``UPLOADS_TEST_GATE``, a
FIFO each job opens and reads to its end before it starts). ``Gate.hold`` waits until a job
is blocked on it, which proves the job is running in its child; closing releases it.
"""

from __future__ import annotations

import errno
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from domain.engine import play
from domain.engine.canonical import canonical_json
from domain.engine.log import GENESIS_HASH, seal
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, SeatInfo
from domain.games import GAMES
from tests.support.waiting import PROMPTLY, wait_for

GATE_ENV = "UPLOADS_TEST_GATE"
NDJSON = {"Content-Type": "application/x-ndjson"}
AT = "2026-11-22T12:00:00Z"


class Gate:
    """A FIFO at ``path``: set ``UPLOADS_TEST_GATE`` to it before the children start."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path

    def _writer(self) -> int | None:
        try:
            return os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            if error.errno == errno.ENXIO:  # no job is waiting at the gate
                return None
            raise

    @contextmanager
    def hold(self, timeout: float = PROMPTLY) -> Iterator[None]:
        """Until the ``with`` ends, every job now at the gate is held in its child."""
        writer = wait_for(self._writer, lambda fd: fd is not None, timeout, "a job at the gate")
        assert writer is not None
        try:
            yield
        finally:
            os.close(writer)

    def release_all(self) -> None:
        """Let any job at the gate now through."""
        writer = self._writer()
        if writer is not None:
            os.close(writer)


#: The game of the long exports: it never draws, so any seed makes the same file.
GAME = "arktia"


def long_export(events: int, options: dict[str, Any] | None = None) -> bytes:
    """A real Arktia game of about ``events`` events (fewer if it ends first: each move is
    a random legal one that does not end the game while another is left), sealed as the
    service seals it, as an export file."""
    rules = GAMES[GAME].rules
    created = GameCreated(
        GAME,
        rules.rules_version,
        {"turn_limit": 10_000, **(options or {})},
        (SeatInfo(0, "a"), SeatInfo(1, "b")),
        "0" * 64,
    )
    stream = [Event(GAME_CREATED, SYSTEM, created.to_json())]
    state = play.new_game(rules, "upload-long", created)
    chooser = random.Random(27)
    while len(stream) < events and not state.over:
        [seat] = play.to_act(rules, state)
        legal = play.legal_actions(rules, state, seat)
        chooser.shuffle(legal)
        decided = play.decide(rules, state, seat, legal[0])
        for action in legal:
            decided = play.decide(rules, state, seat, action)
            if len(decided) == 1:
                break
        for event in decided:
            state = play.apply(rules, state, event)
        stream.extend(decided)
    lines, prev = [], GENESIS_HASH
    for version, event in enumerate(stream[:events], start=1):
        command = None if event.actor == SYSTEM else f"c{version}"
        [stored] = seal(
            "upload-long", [event], first_version=version, prev_hash=prev, at=AT, command_id=command
        )
        prev = stored.hash
        lines.append(canonical_json(stored.to_json()))
    return "".join(line + "\n" for line in lines).encode()


def fit(export: bytes, limit: int) -> bytes:
    """The longest prefix of whole lines of ``export`` within ``limit`` bytes."""
    while len(export) > limit:
        export = export[: export.rindex(b"\n", 0, len(export) - 1) + 1]
    return export
