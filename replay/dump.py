"""Reading a dump (``floe archive dump``): one zstandard stream of many games' export lines,
each game's lines one after another, as a tournament export holds them after its manifest.

A dump may hold millions of games, so it is read as a stream and handed out one game at a
time. Like every file replay reads, it is untrusted: a line that is not usable JSON stays in
the game it is in (whose audit fails it there), and zstandard data that is corrupt, cut
short or not zstandard at all is a ``DumpError``, raised once every whole game before it has
been handed out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import zstandard

from replay.source import BadLine, parse_line

#: The first four bytes of every zstandard frame.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: Compressed bytes decompressed at a time. Small, since a hostile frame can expand each of
#: its bytes a great deal, and all of one call's output is held at once.
CHUNK = 1 << 14


def is_dump(name: str) -> bool:
    """Whether ``name`` is a dump: a name ending ``.zst``, or a file that starts with
    zstandard's magic bytes (which no export, starting ``{``, does)."""
    if name.endswith(".zst"):
        return True
    try:
        with Path(name).open("rb") as file:
            return file.read(len(ZSTD_MAGIC)) == ZSTD_MAGIC
    except (OSError, ValueError):
        return False


@dataclass(slots=True)
class DumpGame:
    """One game's lines in a dump: its place (1 for the first game), the id its lines carry
    (None when its first lines carry none), the dump's line number of its first line, and
    how many compressed bytes had been read when it was complete."""

    number: int
    game_id: str | None
    first: int
    lines: list[str] = field(default_factory=list)
    read: int = 0


class DumpError(Exception):
    """The dump cannot be read on: ``reason`` says why, ``cut`` is the game it broke off in
    (None when no game had begun)."""

    def __init__(self, reason: str, cut: DumpGame | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.cut = cut


def read_games(path: str) -> Iterator[DumpGame]:
    """The games of the dump at ``path``, in order, one at a time; ``DumpError`` after the
    last whole game when the dump cannot be read to its end."""
    game: DumpGame | None = None
    number = 0
    lines = _lines(path)
    while True:
        try:
            line, read, line_number = next(lines)
        except StopIteration:
            break
        except DumpError as error:
            raise DumpError(error.reason, game) from None
        if not line.strip():
            if game is not None:
                game.lines.append(line)
            continue
        game_id = _game_id(line)
        if game is None or (game_id is not None and game_id != game.game_id):
            if game is not None:
                yield game
            number += 1
            game = DumpGame(number, game_id, line_number)
        game.lines.append(line)
        game.read = read
    if game is not None:
        yield game


def _game_id(line: str) -> str | None:
    """The ``game_id`` a line names, or None (not usable JSON, or no id): such a line stays
    in the game before it."""
    try:
        event: Any = parse_line(line)
    except BadLine:
        return None
    game_id = event.get("game_id") if isinstance(event, dict) else None
    return game_id if isinstance(game_id, str) else None


def _lines(path: str) -> Iterator[tuple[str, int, int]]:
    """The dump's decompressed lines (split on ``\\n`` only, bytes that are not UTF-8 kept as
    lone surrogates, as ``source.read_file`` does), each with the compressed bytes read so far
    and its line number."""
    held: list[bytes] = []  # the line begun in the pieces before, not ended yet
    number = read = 0
    for chunk, read in _decompressed(path):
        pieces = chunk.split(b"\n")
        if len(pieces) > 1:
            pieces[0] = b"".join([*held, pieces[0]])
            held = []
        held.append(pieces.pop())
        for piece in pieces:
            number += 1
            yield piece.decode("utf-8", errors="surrogateescape"), read, number
    tail = b"".join(held)
    if tail:
        yield tail.decode("utf-8", errors="surrogateescape"), read, number + 1


def _decompressed(path: str) -> Iterator[tuple[bytes, int]]:
    """The dump's bytes decompressed, piece by piece, with the compressed bytes read so far;
    ``DumpError`` when the file cannot be read."""
    try:
        with Path(path).open("rb") as file:
            yield from _frames(file)
    except OSError as error:
        raise DumpError(f"cannot read: {error.strerror or error}", None) from None


def _frames(file: BinaryIO) -> Iterator[tuple[bytes, int]]:
    """Every frame of ``file`` decompressed: frames may follow one another (``cat a.zst
    b.zst`` is a dump too). ``DumpError`` when the file is empty, is no zstandard, is corrupt
    (its checksum or its structure) or ends inside a frame."""
    decompressor = zstandard.ZstdDecompressor()
    frame, begun, frames, read = decompressor.decompressobj(), False, 0, 0
    while data := file.read(CHUNK):
        read += len(data)
        while data:
            begun = True
            try:
                out = frame.decompress(data)
            except zstandard.ZstdError as error:
                raise DumpError(_corrupt(error, frames), None) from None
            if out:
                yield out, read
            if not frame.eof:
                break
            frames += 1
            data, frame, begun = frame.unused_data, decompressor.decompressobj(), False
    if begun:
        raise DumpError(
            "the dump is cut short: its zstandard data ends inside a frame (truncated?)", None
        )
    if frames == 0:
        raise DumpError("the file is empty: a dump holds at least one zstandard frame", None)


def _corrupt(error: zstandard.ZstdError, frames: int) -> str:
    """What a decompression error means to a reader."""
    what = str(error).removeprefix("zstd decompressor error: ")
    if frames == 0 and "Unknown frame descriptor" in what:
        return "not a dump: the file is not zstandard data"
    return f"the dump is corrupt: its zstandard data does not decompress ({what})"
