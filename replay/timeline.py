"""A game's stored events folded once, so the state at any version is a lookup.

States are immutable and share structure, so the timeline keeps every one: stepping back
and forth, or jumping anywhere, never folds again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.engine import play
from domain.engine.log import event_of
from domain.engine.rules import Rules
from domain.engine.types import GAME_CREATED, GameState, SeatInfo
from domain.games import GAMES
from replay import source


class TimelineError(ValueError):
    """The log cannot be replayed: empty, not starting with ``game_created``, unknown game."""


@dataclass(frozen=True, slots=True)
class Timeline:
    """Every version of one game, 1 to ``last``: its stored event and the state after it."""

    game_id: str
    game: str
    rules: Rules[Any]
    events: tuple[Mapping[str, Any], ...]
    states: tuple[GameState[Any], ...]

    @property
    def last(self) -> int:
        return len(self.states)

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        return self.states[0].created.seats

    def clamp(self, version: int) -> int:
        """``version`` pulled into 1..last."""
        return max(1, min(self.last, version))

    def _index(self, version: int) -> int:
        if not 1 <= version <= self.last:
            raise IndexError(f"version {version} is not in 1..{self.last}")
        return version - 1

    def state(self, version: int) -> GameState[Any]:
        """The state right after event ``version``."""
        return self.states[self._index(version)]

    def event(self, version: int) -> Mapping[str, Any]:
        """The stored event (with its envelope: ``at``, ``actor``…) that made ``version``."""
        return self.events[self._index(version)]

    def view(self, version: int) -> dict[str, Any]:
        """The board at ``version`` as JSON, as a spectator sees it."""
        return dict(self.rules.view(self.state(version).board, None))

    def status(self, version: int) -> str:
        return play.status(self.rules, self.state(version))

    def to_act(self, version: int) -> tuple[int, ...]:
        return play.to_act(self.rules, self.state(version))

    def seat_name(self, actor: object) -> str:
        """``seat 1 (alice)`` for a seat number, the actor itself otherwise (``system``)."""
        if isinstance(actor, int) and 0 <= actor < len(self.seats):
            return f"seat {actor} ({self.seats[actor].name})"
        return str(actor)


def from_events(events: Sequence[Any]) -> Timeline:
    """Fold stored events (dicts, in log order) into a timeline."""
    if not events or not isinstance(events[0], dict):
        raise TimelineError("the log is empty")
    first = events[0]
    if first.get("type") != GAME_CREATED:
        raise TimelineError("the first event is not game_created")
    game = str(first.get("data", {}).get("game"))
    bundle = GAMES.get(game)
    if bundle is None:
        raise TimelineError(f"unknown game {game!r}")
    rules = bundle.rules
    game_id = str(first.get("game_id"))
    states: list[GameState[Any]] = []
    try:
        states.append(play.fold(rules, game_id, [event_of(first)]))
        for stored in events[1:]:
            states.append(play.apply(rules, states[-1], event_of(stored)))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise TimelineError(f"cannot fold event {len(states) + 1}: {error!r}") from None
    return Timeline(game_id, game, rules, tuple(events), tuple(states))


def load(name: str, open_store: source.OpenStore | None = None) -> Timeline:
    """The timeline of a game named by export file, or by id with ``REDIS_URL``."""
    return from_events(source.parse(source.read(name, open_store)))
