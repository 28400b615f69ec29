"""The protocol every game implements, over its own frozen board type ``B``.

``check`` is the only place a game's rules refuse anything; ``evolve`` trusts the log and never
fails on a stored event, so replay, time travel and audit are all one fold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from domain.engine.departures import LeaveReason
from domain.engine.types import JSON, Event, GameCreated, Outcome

if TYPE_CHECKING:
    from domain.engine.game import GameInfo

B = TypeVar("B")

DrawKind = Literal["uniform", "shuffle", "derangement"]


@dataclass(frozen=True, slots=True)
class Draw:
    """A random draw the game waits for: recorded as a ``random`` event with this label."""

    label: str
    kind: DrawKind
    n: int


class Action(Protocol):
    """A player's action: a small value type that prints itself as the API's JSON."""

    @property
    def type(self) -> str: ...

    def to_json(self) -> JSON: ...


class Rules(Protocol[B]):
    """One game's rules. Every method is pure and deterministic.

    ``info`` is the game's declaration; ``name``, ``rules_version``, ``min_players`` and
    ``max_players`` are its fields, for short (``DeclaredRules`` reads them from it).
    """

    @property
    def info(self) -> GameInfo: ...

    @property
    def name(self) -> str: ...

    @property
    def rules_version(self) -> str: ...

    @property
    def min_players(self) -> int: ...

    @property
    def max_players(self) -> int: ...

    #: Labels of ``random`` events whose outcome stays hidden until the game ends.
    secret_draw_labels: frozenset[str]

    def initial_board(self, created: GameCreated) -> B:
        """The board before any action; raises ``InvalidSetup`` for unusable options."""
        ...

    def parse_action(self, data: Mapping[str, Any]) -> Action:
        """The action a JSON object names; raises ``MalformedAction`` when it fits no schema."""
        ...

    def to_act(self, board: B) -> tuple[int, ...]:
        """Seats with at least one legal action now, ascending."""
        ...

    def pending(self, board: B) -> JSON | None:
        """The decision owed now (a tie choice, a melt, …), if any, as JSON for clients."""
        ...

    def pending_draw(self, board: B) -> Draw | None:
        """The random draw the game waits for, if any."""
        ...

    def legal_actions(self, board: B, seat: int) -> Sequence[Action]:
        """Every distinct action ``seat`` may take now; empty when it may not act."""
        ...

    def check(self, board: B, seat: int, action: Action) -> None:
        """Raise ``IllegalAction`` unless ``seat`` (already in ``to_act``) may take ``action``."""
        ...

    def evolve(self, board: B, event: Event) -> B:
        """The board after a stored action or ``random`` event. Total: no validation."""
        ...

    def leave(self, board: B, seat: int, reason: LeaveReason) -> B:
        """The board once ``seat`` has left the game (``domain.engine.departures``): it
        resigned (or was forfeited) or timed out, perhaps out of turn. The seat is never to
        act again and, in a competitive game, never among the winners; whether the game goes
        on is the game's to say, through ``outcome`` (a competitive game with one seat left
        in ends anyway)."""
        ...

    def outcome(self, board: B) -> Outcome | None:
        """The outcome once the rules say the game is over, else None."""
        ...

    def view(self, board: B, viewer: int | None) -> JSON:
        """The board as ``viewer`` (a seat, or None for a spectator) may see it."""
        ...


class DeclaredRules:
    """The base of every game's rules: the fields of the game's declaration (``info``, set
    by the subclass) under the names the ``Rules`` protocol gives them."""

    info: GameInfo

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def rules_version(self) -> str:
        return self.info.rules_version

    @property
    def min_players(self) -> int:
        return self.info.min_seats

    @property
    def max_players(self) -> int:
        return self.info.max_seats
