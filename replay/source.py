"""Where a game's log comes from: an export file, or an event store by game id.

The replay tools never reach for a store themselves: whoever runs them (the ``floe``
command) hands in a way to open one, so replay depends only on the ``EventReader`` protocol
and works on export files with no Redis and no service at all.

Export files are read as untrusted input: ``read_file`` never fails on what a file holds (only
on whether it can be read at all), and ``parse_line`` turns each line into JSON or a
``BadLine`` that says why not: invalid UTF-8, a lone surrogate, nesting too deep, a number no
JSON implementation agrees on. Nothing a line holds can raise anything else.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from domain.engine.canonical import canonical_json, is_text, unencodable
from domain.engine.log import EventReader

#: Opens the event store that game ids are looked up in (None: ids cannot be used).
OpenStore = Callable[[], EventReader]
#: No stored event nests deeper than this; a line that does is refused before anything walks it.
MAX_DEPTH = 100
#: Digits in an integer literal (Python itself refuses to convert more than 4300).
MAX_DIGITS = 100


class BadLine(ValueError):
    """A line of an export file that is not usable JSON; the message says why."""


class StoreError(ValueError):
    """A game named by id cannot be read from the event store."""


def is_file(name: str) -> bool:
    try:
        return name.endswith((".jsonl", ".ndjson")) or Path(name).is_file()
    except (OSError, ValueError):  # a name no file system accepts (a NUL byte, too long)
        return False


def read_file(path: str) -> list[str]:
    """The file's lines, split on ``\\n`` only (JSON strings may hold U+2028 and friends).

    Bytes that are not UTF-8 are kept as lone surrogates (``surrogateescape``), so one bad
    line does not hide the others: ``parse_line`` reports it with its line number.
    """
    text = Path(path).read_bytes().decode("utf-8", errors="surrogateescape")
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def read_store(game_id: str, open_store: OpenStore | None) -> list[str]:
    """The stored events of ``game_id`` as export lines, straight from the store."""
    if open_store is None:
        raise StoreError("naming a game by id needs REDIS_URL (or pass an export file)")
    try:
        events = open_store().read(game_id)
    except SystemExit as stop:  # an opener that cannot open says so by exiting
        raise StoreError(str(stop.code)) from None
    if not events:
        raise StoreError(f"no game {game_id!r} in the event store")
    return [canonical_json(e.to_json()) for e in events]


def read(name: str, open_store: OpenStore | None = None) -> list[str]:
    """An export file's lines, or the export lines of the game with id ``name``."""
    return read_file(name) if is_file(name) else read_store(name, open_store)


def parse_line(line: str) -> Any:
    """One export line as JSON, or ``BadLine`` saying what is wrong with it."""
    if not is_text(line):
        raise BadLine("is not valid UTF-8")
    try:
        value = json.loads(
            line,
            parse_int=_integer,
            parse_float=_finite,
            parse_constant=_no_constant,
        )
    except BadLine:
        raise
    except RecursionError:
        raise BadLine(f"nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:
        raise BadLine(f"is not JSON ({_short(str(error))})") from None
    _check_shape(value)
    return value


def parse(lines: list[str]) -> list[Any]:
    """Every non-blank line as JSON (``BadLine`` on the first that is not)."""
    return [parse_line(line) for line in lines if line.strip()]


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise BadLine(f"holds an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadLine(f"holds a number too large for JSON ({_short(text)})")
    return value


def _no_constant(text: str) -> Any:
    raise BadLine(f"holds {text}, which is not JSON")


def _check_shape(value: Any) -> None:
    """No lone surrogates in any string, and no nesting deeper than ``MAX_DEPTH``."""
    problem = unencodable(value, MAX_DEPTH)
    if problem == "surrogate":
        raise BadLine("holds a lone surrogate (\\ud800-\\udfff), which is not text")
    if problem == "depth":
        raise BadLine(f"nests deeper than {MAX_DEPTH} levels")


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
