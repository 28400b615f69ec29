"""What a game brings to Floe: its declaration, one bundle of rules, what a bot needs to know,
pictures, and its contract.

Everything outside a game's own package reaches the game through its ``Game`` bundle, found
by name in ``domain.games.GAMES``. Nothing else names a game: the bots (``domain.ai``), the
service and the replay tools all work through these fields, so a new game is a new package
and one line in the registry. What a game *is* (name, seats, information, co-operative or
not, rules version, options) it declares once, in a ``GameInfo`` its rules carry; what its
JSON looks like, in a ``Contract``: plain JSON Schema, its package's ``contract.json``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from importlib import resources
from typing import Any, Generic, Literal, Protocol, TypeVar

from domain.engine.errors import InvalidSetup
from domain.engine.parsing import bool_option, check_setup, int_option
from domain.engine.rules import Action, Rules
from domain.engine.types import DECISION, JSON, SYSTEM_EVENT_TYPES, TIMEOUT

B = TypeVar("B")
B_contra = TypeVar("B_contra", contravariant=True)

#: ``perfect``: every seat sees the whole position; ``hidden``: some of it is secret.
Information = Literal["perfect", "hidden"]
#: ``competitive``: the players play against each other (a tournament ranks them);
#: ``co-operative``: the table wins or loses together.
Play = Literal["competitive", "co-operative"]
OptionType = Literal["integer", "boolean", "string", "array"]
OptionValue = int | bool | str | None
#: A game's contract, in its package (``Contract.load``).
CONTRACT_FILE = "contract.json"


@dataclass(frozen=True, slots=True)
class OptionParameter:
    """One option a game may be created with, as its rules version defines it.

    ``read`` is how the game's setup takes it from the options given (the refusals are the
    standard ``invalid_option`` ones of ``domain.engine.parsing``); ``json_schema`` is how
    the API's contract states it.
    """

    name: str
    type: OptionType
    #: The value when the option is absent; None when the rules choose (``description`` says).
    default: OptionValue
    #: One line: what the option does.
    description: str
    #: An ``integer``'s bounds, inclusive.
    minimum: int | None = None
    maximum: int | None = None
    #: The only values supported (empty: any value of ``type`` within the bounds).
    choices: tuple[OptionValue, ...] = ()
    #: The refusal's message for a value outside ``choices``.
    unsupported: str = ""
    #: More of a value's JSON Schema (an ``array``'s items and length); the game's setup
    #: checks such a value itself.
    schema: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.type == "integer" and not (
            type(self.default) is int and self.minimum is not None and self.maximum is not None
        ):
            raise ValueError(f"option {self.name}: an integer needs its default and bounds")
        if self.type == "boolean" and type(self.default) is not bool:
            raise ValueError(f"option {self.name}: a boolean needs its default")
        if self.choices and not self.unsupported:
            raise ValueError(f"option {self.name}: say why other values are refused")

    def read(self, given: Mapping[str, Any]) -> Any:
        """The option's value in ``given`` (its default when absent); ``InvalidSetup``
        (``invalid_option``) for a value the parameter does not allow."""
        value: Any
        if self.type == "integer":
            assert type(self.default) is int and self.minimum is not None
            assert self.maximum is not None
            value = int_option(given, self.name, self.default, self.minimum, self.maximum)
        elif self.type == "boolean":
            value = bool_option(given, self.name, bool(self.default))
        else:
            value = given.get(self.name, self.default)
        if self.choices and value not in self.choices:
            raise InvalidSetup("invalid_option", self.unsupported)
        return value

    def json_schema(self) -> JSON:
        """The option's value as JSON Schema (2020-12)."""
        # An option whose default the rules choose may be given as null: the default too.
        kind: str | list[str] = self.type if self.default is not None else [self.type, "null"]
        schema: JSON = {"type": kind, **self.schema}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        if len(self.choices) == 1:
            schema["const"] = self.choices[0]
        elif self.choices:
            schema["enum"] = list(self.choices)
        # The default is said, not given as ``default``: code generators take an object's
        # property with a ``default`` for one always present, and an option never is.
        described = self.description
        if self.default is not None:
            described += f" Default: {_json_word(self.default)}."
        schema["description"] = described
        return schema


def _json_word(value: OptionValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game is, declared once: everything else (its rules, the bots, the service's
    checks, tournaments, the API's contract) reads it from here.

    ``name`` is the wire name (``game_created`` records it); ``title`` is how people call the
    game (and, without spaces, how the API's schemas of the game are named).
    """

    name: str
    title: str
    min_seats: int
    max_seats: int
    information: Information
    play: Play
    #: Pins every default and rule: a game folds by the rules version it was created with.
    rules_version: str
    #: Whether the rules wait for random draws (dice, shuffles), which the workers make.
    chance: bool = False
    #: The options, in the order setup reads them.
    options: tuple[OptionParameter, ...] = ()
    #: One line for people: the game, its author and year.
    summary: str = ""

    @property
    def cooperative(self) -> bool:
        return self.play == "co-operative"

    @property
    def deterministic(self) -> bool:
        """Nothing hidden and no chance: the same moves always reach the same position."""
        return self.information == "perfect" and not self.chance

    def option(self, name: str) -> OptionParameter:
        return next(option for option in self.options if option.name == name)

    def check_setup(self, given: Mapping[str, Any], seats: int) -> None:
        """400 ``player_count`` outside the seat counts, ``unknown_option`` for an option
        not declared (refused, never ignored: a typo never falls back to a default)."""
        known = frozenset(option.name for option in self.options)
        check_setup(self.name, given, known, seats, self.min_seats, self.max_seats)

    def read_options(self, given: Mapping[str, Any], seats: int) -> dict[str, Any]:
        """Every option's value for a game of ``seats`` (``check_setup`` first); an ``array``
        option comes as given (None when absent), for the game's setup to check."""
        self.check_setup(given, seats)
        return {option.name: option.read(given) for option in self.options}


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
    """The seat's action that made the position, or the seat a ``timeout`` or an organizer's
    ``forfeit`` took out (as a pseudo-action ``timed_out`` / ``forfeited``, which pictures
    put in words like any action they have none for)."""
    departed = _departure(event)
    if departed is not None:
        return departed
    if event is None or event.get("type") in SYSTEM_EVENT_TYPES:
        return None
    actor, data = event.get("actor"), event.get("data")
    action = data.get("action") if isinstance(data, Mapping) else None
    if not isinstance(actor, int) or isinstance(actor, bool) or not isinstance(action, Mapping):
        return None
    return LastMove(seat=actor, action=dict(action))


def _departure(event: Mapping[str, Any] | None) -> LastMove | None:
    data = event.get("data") if event is not None else None
    if event is None or not isinstance(data, Mapping):
        return None
    said: JSON
    if event.get("type") == TIMEOUT:
        seat, said = data.get("seat"), {"type": "timed_out"}
    elif event.get("type") == DECISION and data.get("decision") == "forfeit":
        seat, said = data.get("seat"), {"type": "forfeited", "reason": data.get("reason")}
    else:
        return None
    if not isinstance(seat, int) or isinstance(seat, bool):
        return None
    return LastMove(seat=seat, action=said)


#: ``(scene, colour)`` -> the lines of a text picture (ANSI seat colours when ``colour``).
TextPicture = Callable[[Scene, bool], list[str]]
#: ``scene`` -> a standalone SVG document, byte-identical for equal scenes.
SvgPicture = Callable[[Scene], str]


@dataclass(frozen=True, slots=True)
class Contract:
    """A game's JSON as the API states it: plain JSON Schema (2020-12), kept as JSON in the
    game's package (``contract.json``, read by ``Contract.load``).

    Schemas may refer to the contract's own ``definitions`` as ``{"$ref": "#/$defs/Name"}``;
    the API's spec names them after the game (``<Title>Tile``), so two games' schemas never
    share a name. Nothing here is read when a game is played: the rules parse and check; the
    contract says in JSON Schema what they accept and answer.
    """

    #: One schema per action type (an object with ``type`` and its fields), in the order
    #: the rules list them.
    actions: Mapping[str, JSON]
    #: ``rules.view``: the board as a viewer sees it.
    state: JSON
    #: ``rules.pending``: one schema per decision type (an object with ``type``).
    pending: Mapping[str, JSON]
    #: ``rules.outcome``'s JSON.
    outcome: JSON
    #: Every code ``check`` refuses with (HTTP 422), and when.
    errors: Mapping[str, str]
    #: The labels of the ``random`` events the game draws: for each, the JSON Schema of its
    #: ``kind``, ``n`` and ``outcome`` (null too while the draw is secret), and a
    #: ``description`` of when it is drawn and what it decides.
    draws: Mapping[str, JSON] = field(default_factory=dict)
    #: Named schemas the others refer to.
    definitions: Mapping[str, JSON] = field(default_factory=dict)
    #: What clients must know of the game beyond the shapes (what it hides, when it draws).
    description: str = ""

    @classmethod
    def load(cls, package: str, name: str = CONTRACT_FILE) -> Contract:
        """The contract in the JSON object ``name`` of ``package``: one member per field
        (the optional ones may be left out) and a ``$comment`` for its readers, nothing else.
        """
        text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError(f"{package}/{name} is not a JSON object")
        known = {member.name for member in fields(cls)}
        unknown = sorted(set(data) - known - {"$comment"})
        if unknown:
            raise ValueError(f"{package}/{name}: a contract has no {unknown[0]!r}")
        return cls(**{key: value for key, value in data.items() if key in known})


@dataclass(frozen=True, slots=True)
class Game(Generic[B]):
    """One game, whole: its rules (with its declaration, view and action parsing), its bot
    kit, its pictures and its contract.

    Pictures are drawn from a ``Scene`` (the *view* JSON and what is beside the board), never
    from the board, so they can show nothing the viewer may not see.
    """

    rules: Rules[B]
    bot: BotKit[B]
    text: TextPicture
    svg: SvgPicture
    contract: Contract

    @property
    def info(self) -> GameInfo:
        return self.rules.info

    @property
    def name(self) -> str:
        return self.rules.info.name
