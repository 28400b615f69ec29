"""What a game brings to Floe: one bundle of rules, what a bot needs to know, and pictures.

Everything outside a game's own package reaches the game through its ``Game`` bundle, found
by name in ``domain.games.GAMES``. Nothing else names a game: the bots (``domain.ai``), the
service and the replay tools all work through these fields, so a new game is a new package
and one line in the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from domain.engine.rules import Action, Rules
from domain.engine.types import JSON, SYSTEM_EVENT_TYPES

B = TypeVar("B")
B_contra = TypeVar("B_contra", contravariant=True)


class Shuffler(Protocol):
    """The random source a world sampler draws from (the bot's own generator)."""

    def randrange(self, n: int) -> int:
        """An integer in [0, n), every value equally likely."""
        ...

    def shuffle(self, items: list[Any]) -> None:
        """Shuffle ``items`` in place."""
        ...


#: How good ``board`` looks to ``seat``, from what that seat may see (higher is better).
Heuristic = Callable[[B, int], float]
#: ``board`` with every part hidden from the bot replaced by a sample consistent with the
#: public part; must read nothing secret, so twins that differ only in secrets sample alike.
WorldSampler = Callable[[B, Shuffler], B]


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How hard the ``mcts`` bot thinks: iterations per move, exploration, heuristic scale."""

    iterations: int
    exploration: float = 0.7
    #: A heuristic lead of ``scale`` reads as a value of 0.75 (see ``domain.ai.mcts.squash``).
    scale: float = 3.0


class Planner(Protocol[B_contra]):
    """A co-operative game's team plan: a pure function of the public board.

    Bots that follow the plan (``greedy`` and ``mcts``) act as one team. Because the plan
    reads only the board, every such bot computes the same plan and knows whether the plan
    wants it to act now.
    """

    def driver(self, board: B_contra) -> int:
        """The seat whose decisions steer play now (the active player, or one owing a choice)."""
        ...

    def next_step(self, board: B_contra, team: frozenset[int]) -> tuple[int, Action] | None:
        """The plan's next (seat, action) for seats in ``team``; None when it wants nothing."""
        ...

    def alternatives(self, board: B_contra, seat: int, planned: Action) -> Sequence[Action]:
        """Options worth comparing by playouts instead of ``planned`` (empty: take it)."""
        ...

    def playout_score(self, board: B_contra) -> float:
        """How well a played-out position ended for the team (higher is better)."""
        ...


@dataclass(frozen=True, slots=True)
class BotKit(Generic[B]):
    """What the generic bots in ``domain.ai`` need to know about one game."""

    heuristic: Heuristic[B]
    search: SearchSettings
    #: None when the game hides nothing from any seat.
    sample_world: WorldSampler[B] | None = None
    #: Nothing hidden and no chance: replaying the same moves always reaches the same
    #: position, so a search may keep the positions it reached.
    perfect_information: bool = False
    planner: Planner[B] | None = None


@dataclass(frozen=True, slots=True)
class LastMove:
    """The action that made a position: the seat that acted and the action JSON it posted
    (``data.action`` of the stored event, so a picture names cells and cards as actions do).
    """

    seat: int
    action: JSON


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything one picture shows: the board as the viewer sees it, and what is beside it.

    - ``view``: ``rules.view`` for this viewer at this version (never the board itself);
    - ``names``: seat names by seat number, as ``game_created`` recorded them;
    - ``move``: the action that made this version, if a seat's action did (None for the
      start, a random draw, the end);
    - ``outcome``: ``Outcome.to_json()`` once the game is over, else None;
    - ``title``: the picture's heading (the SVG's ``<title>`` and header line).

    Every field is something the viewer may already see, so a picture drawn from a scene
    shows nothing hidden. Build one with ``Scene.of``.
    """

    view: JSON
    names: tuple[str, ...] = ()
    move: LastMove | None = None
    outcome: JSON | None = None
    title: str = ""

    @classmethod
    def of(
        cls,
        view: Mapping[str, Any],
        *,
        names: Iterable[str] = (),
        event: Mapping[str, Any] | None = None,
        outcome: Mapping[str, Any] | None = None,
        title: str = "",
    ) -> Scene:
        """A scene from JSON as the API and export files carry it; ``event`` is the stored
        (or shown) event that made this version: it becomes ``move`` when a seat acted.
        """
        return cls(
            view=dict(view),
            names=tuple(str(n) for n in names),
            move=_last_move(event),
            outcome=None if outcome is None else dict(outcome),
            title=title,
        )

    def name(self, seat: object) -> str:
        """Seat ``seat``'s name (``seat N`` when the scene has no name for it)."""
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"


def _last_move(event: Mapping[str, Any] | None) -> LastMove | None:
    if event is None or event.get("type") in SYSTEM_EVENT_TYPES:
        return None
    actor, data = event.get("actor"), event.get("data")
    action = data.get("action") if isinstance(data, Mapping) else None
    if not isinstance(actor, int) or isinstance(actor, bool) or not isinstance(action, Mapping):
        return None
    return LastMove(seat=actor, action=dict(action))


#: ``(scene, colour)`` -> the lines of a text picture (ANSI seat colours when ``colour``).
TextPicture = Callable[[Scene, bool], list[str]]
#: ``scene`` -> a standalone SVG document, byte-identical for equal scenes.
SvgPicture = Callable[[Scene], str]


@dataclass(frozen=True, slots=True)
class Game(Generic[B]):
    """One game, whole: its rules (with view and action parsing), its bot kit, its pictures.

    Pictures are drawn from a ``Scene`` (the *view* JSON and what is beside the board), never
    from the board, so they can show nothing the viewer may not see.
    """

    rules: Rules[B]
    bot: BotKit[B]
    text: TextPicture
    svg: SvgPicture
    #: Whether players play against each other (a tournament ranks them); False for a
    #: co-operative game, where the table wins or loses together.
    competitive: bool = True

    @property
    def name(self) -> str:
        return self.rules.name
