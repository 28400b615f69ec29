"""The reference games folded once, version by version, as the scenes pictures draw.

Folds the export files directly (no audit), so a test may rename the seats in
``game_created``: names never change how a game folds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from domain.engine import play
from domain.engine.game import Scene
from domain.engine.log import event_of
from domain.engine.types import SYSTEM_EVENT_TYPES, GameState
from domain.games import GAMES
from tests.support.reference_games import conformance_games, read_jsonl

#: A snake_case code such as ``cannot_melt`` or ``keep_group``: never shown to people.
CODE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
#: A Python repr of a dict or a list of dicts/lists: ``{'cards': …}``, ``[{…}]``, ``[[3], …]``.
REPR = re.compile(r"\{'|'\}|\[\{|\[\[|': ")
NAMES = ("Ann", "Bo", "Cy", "Di")


@dataclass(frozen=True)
class Reference:
    """One reference game: its stored events and the state after each (version ``i + 1``)."""

    path: Path
    game: str
    events: tuple[dict[str, Any], ...]
    states: tuple[GameState[Any], ...]

    @property
    def last(self) -> int:
        return len(self.states)

    @property
    def id(self) -> str:
        return self.path.stem

    def event(self, version: int) -> dict[str, Any]:
        return self.events[version - 1]

    def is_action(self, version: int) -> bool:
        event = self.event(version)
        return event["type"] not in SYSTEM_EVENT_TYPES and isinstance(event["actor"], int)

    def names(self) -> list[str]:
        return [s.name for s in self.states[0].created.seats]

    def scene(self, version: int, title: str | None = None) -> Scene:
        state = self.states[version - 1]
        return Scene.of(
            GAMES[self.game].rules.view(state.board, None),
            names=self.names(),
            event=self.event(version),
            outcome=None if state.outcome is None else state.outcome.to_json(),
            title=f"{self.id} v{version}" if title is None else title,
        )

    def text(self, version: int, colour: bool = False) -> list[str]:
        return GAMES[self.game].text(self.scene(version), colour)

    def svg(self, version: int, title: str | None = None) -> str:
        return GAMES[self.game].svg(self.scene(version, title))


def fold(events: Sequence[dict[str, Any]], path: Path) -> Reference:
    game = events[0]["data"]["game"]
    rules = GAMES[game].rules
    states = [play.fold(rules, events[0]["game_id"], [event_of(events[0])])]
    for stored in events[1:]:
        states.append(play.apply(rules, states[-1], event_of(stored)))
    return Reference(path, game, tuple(events), tuple(states))


@cache
def reference(path: Path, names: tuple[str, ...] | None = None) -> Reference:
    """The game in ``path`` folded; with ``names``, its seats renamed (in order) first."""
    events = read_jsonl(path)
    if names is not None:
        data = events[0]["data"]
        seats = [{**s, "name": names[i]} for i, s in enumerate(data["seats"])]
        events[0] = {**events[0], "data": {**data, "seats": seats}}
    return fold(events, path)


def references(game: str | None = None) -> list[Path]:
    """Export files of the reference games (of ``game`` only, when given)."""
    paths = conformance_games()
    return [p for p in paths if game is None or read_jsonl(p)[0]["data"]["game"] == game]


def pairs(value: Any) -> list[list[int]]:
    """Every ``[x, y]`` pair of integers anywhere in an action's JSON."""
    if isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value):
        return [value]
    if isinstance(value, list):
        return [p for item in value for p in pairs(item)]
    if isinstance(value, dict):
        return [p for item in value.values() for p in pairs(item)]
    return []


def bracket(xy: Sequence[int]) -> str:
    """A pair as actions write it and pictures must show it: ``[1, -2]``."""
    return f"[{xy[0]}, {xy[1]}]"
