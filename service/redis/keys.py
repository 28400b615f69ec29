"""Redis key names, each family written once as a pattern.

Every record Floe keeps in Redis is a family of keys that differ in one part: a game id, a
table id, a client's address, a queue's name. A ``KeyPattern`` writes the family down once,
with ``<id>`` where that part goes, and is called with the part to name one key. Braces
around ``<id>`` make it a Redis Cluster hash tag: all of one game's keys (one table's, one
client's...) share a slot, so a script may touch them together.
"""

from __future__ import annotations

from dataclasses import dataclass

ID = "<id>"


@dataclass(frozen=True, slots=True)
class KeyPattern:
    """``KeyPattern("floe:{<id>}:events")("g1") == "floe:{g1}:events"``."""

    pattern: str

    def __post_init__(self) -> None:
        if self.pattern.count(ID) != 1:
            raise ValueError(f"a key pattern holds {ID} exactly once: {self.pattern!r}")

    def __call__(self, part: str) -> str:
        return self.pattern.replace(ID, part)
