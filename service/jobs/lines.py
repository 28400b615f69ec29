"""Which line of the bots' backlog a game's bot moves wait in: the fair lanes.

The bots' backlog keeps one line per creator (``service.jobs.backlog``), so one client's
flood of bot games never holds every other client's bot behind it. A game's line follows
from its meta (``GameMeta``), which never changes, so a process looks it up once per game:

- ``priority``: a game the organizer made (a tournament's, or one it created or gathered at a
  table): the games whose length is not capped (``length_capped`` false). Served first.
- ``creator-<digest>``: a game whose creator is known (``GameMeta.creator``, a digest of the
  client's address): all that creator's games share the line.
- ``game-<digest>``: a game whose creator is not known (a table's game whose creator's
  quotas the table took, a game made before creators were kept): a line of its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from service.games.catalog import Catalog
from service.jobs.backlog import PRIORITY_LINE

#: Names a game's line: its id -> the line.
LineOf = Callable[[str], str]


def creator_line(creator: str) -> str:
    """The line of a creator's games (``creator``: the digest ``GameMeta.creator`` keeps)."""
    return f"creator-{_safe(creator)}"


def game_line(game_id: str) -> str:
    """The line of one game whose creator is not known."""
    return f"game-{_safe(game_id)}"


def _safe(name: str) -> str:
    """A name fit for a line: ``backlog`` keeps ``<line>|<seq>|<item>`` members, so no
    ``|``; hex digests pass as they are, anything else is digested."""
    if name and len(name) <= 64 and all(c in "0123456789abcdef" for c in name):
        return name
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class CreatorLines:
    """``line_of`` on the games' catalog (cached per process, so mostly free)."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog

    def line_of(self, game_id: str) -> str:
        meta = self._catalog.find(game_id)
        if meta is None:
            return game_line(game_id)
        if not meta.length_capped:
            return PRIORITY_LINE
        if meta.creator:
            return creator_line(meta.creator)
        return game_line(game_id)
