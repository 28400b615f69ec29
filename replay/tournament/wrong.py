"""A problem found while reading a tournament export, and how a problem quotes the file.

Apart from the verdict, so that reading the manifest and printing the verdict (which shows
what was read) do not import each other.
"""

from __future__ import annotations

#: A problem quotes at most this much of what it found (a hostile file may hold megabytes).
MAX_QUOTE = 80


class Wrong(Exception):
    """Something the export holds that it should not: where it is, and why it is wrong."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")
        self.where = where
        self.why = why

    def __str__(self) -> str:
        return f"{self.where}: {self.why}"


def quote(text: str, limit: int = MAX_QUOTE) -> str:
    """``text``, cut to ``limit`` characters (the last one an ellipsis) when longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
