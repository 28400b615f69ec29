"""Value types shared by every game: events, outcomes, seats and the folded game state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from domain.engine.clock import Clocks, ClockSpec

JSON = dict[str, Any]
Actor = int | Literal["system"]
SYSTEM: Literal["system"] = "system"

#: The system event types. Every other event type is the type of a player action.
GAME_CREATED = "game_created"
RANDOM = "random"
GAME_OVER = "game_over"
SEED_REVEALED = "seed_revealed"
#: A seat's clock ran out (``domain.engine.clock``, ``domain.engine.departures``).
TIMEOUT = "timeout"
#: An organizer decided a live game (``domain.engine.departures``).
DECISION = "decision"
SYSTEM_EVENT_TYPES = frozenset({GAME_CREATED, RANDOM, TIMEOUT, DECISION, GAME_OVER, SEED_REVEALED})

B = TypeVar("B")


@dataclass(frozen=True, slots=True, init=False)
class Event:
    """An event as the domain sees it: what happened and who did it.

    The store wraps it in the envelope of docs/reference/format.md (version, time, hashes);
    the domain never needs those, so folding an export file and folding a live stream are the
    same thing.
    """

    type: str
    actor: Actor
    data: Mapping[str, Any]

    def __init__(self, type: str, actor: Actor, data: Mapping[str, Any]) -> None:
        # What the dataclass would write, through the slots' own setters: its ``__init__``
        # goes through ``object.__setattr__`` (it is frozen), nearly twice as slow, and
        # reading a stored game makes an ``Event`` of every event.
        _set_type(self, type)
        _set_actor(self, actor)
        _set_data(self, data)


# ``slots=True`` makes a new class: its slots are only there once it is made.
_set_type = Event.__dict__["type"].__set__
_set_actor = Event.__dict__["actor"].__set__
_set_data = Event.__dict__["data"].__set__


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as recorded in ``game_created``: never its token.

    ``public_key`` (64 hex, Ed25519) is set for a seat whose player signs its actions
    (``domain.engine.signing``); it is written only then, so an unsigned seat's record is
    exactly what it always was.
    """

    seat: int
    name: str
    bot: str | None = None
    public_key: str | None = None

    def to_json(self) -> JSON:
        out: JSON = {"seat": self.seat, "name": self.name, "bot": self.bot}
        if self.public_key is not None:
            out["public_key"] = self.public_key
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatInfo:
        key = data.get("public_key")
        return cls(
            seat=int(data["seat"]),
            name=str(data["name"]),
            bot=data.get("bot"),
            public_key=None if key is None else str(key),
        )


@dataclass(frozen=True, slots=True)
class TournamentSlot:
    """Where a tournament game sits: its tournament, round and table (both from 1)."""

    id: str
    round: int
    table: int

    def to_json(self) -> JSON:
        return {"id": self.id, "round": self.round, "table": self.table}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentSlot:
        if not isinstance(data, Mapping):
            raise TypeError("tournament is not an object")
        round_, table = data["round"], data["table"]
        if not isinstance(round_, int) or not isinstance(table, int):
            raise TypeError("tournament round and table are integers")
        return cls(id=str(data["id"]), round=round_, table=table)


@dataclass(frozen=True, slots=True)
class GameCreated:
    """The data of event 1, which pins everything a fold needs to start.

    ``tournament`` is set only for a game a tournament made, and ``clock`` only for a game
    played against one; each is written only then, so every other game's first event is
    exactly what it always was.
    """

    game: str
    rules_version: str
    options: Mapping[str, Any]
    seats: tuple[SeatInfo, ...]
    seed_commitment: str
    tournament: TournamentSlot | None = None
    clock: ClockSpec | None = None

    def to_json(self) -> JSON:
        out: JSON = {
            "game": self.game,
            "rules_version": self.rules_version,
            "options": dict(self.options),
            "seats": [s.to_json() for s in self.seats],
            "seed_commitment": self.seed_commitment,
        }
        if self.tournament is not None:
            out["tournament"] = self.tournament.to_json()
        if self.clock is not None:
            out["clock"] = self.clock.to_json()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameCreated:
        return cls(
            game=str(data["game"]),
            rules_version=str(data["rules_version"]),
            options=dict(data.get("options") or {}),
            seats=tuple(SeatInfo.from_json(s) for s in data["seats"]),
            seed_commitment=str(data["seed_commitment"]),
            tournament=(
                TournamentSlot.from_json(data["tournament"]) if "tournament" in data else None
            ),
            clock=ClockSpec.from_json(data["clock"]) if "clock" in data else None,
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winners`` (several for a shared win, none for a failure), scores."""

    winners: tuple[int, ...]
    scores: Mapping[int, int]
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSON:
        out: JSON = {
            "winners": list(self.winners),
            "scores": {str(seat): points for seat, points in sorted(self.scores.items())},
        }
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        extra = {k: v for k, v in data.items() if k not in ("winners", "scores")}
        return cls(
            winners=tuple(int(w) for w in data["winners"]),
            scores={int(k): int(v) for k, v in data["scores"].items()},
            extra=extra,
        )


@dataclass(frozen=True, slots=True, init=False)
class GameState(Generic[B]):
    """A game folded up to ``version``: the game's own board plus what every game shares.

    ``clocks`` is None for a game without a clock; ``left`` lists the seats that resigned,
    timed out or were forfeited, in that order.
    """

    game_id: str
    version: int
    created: GameCreated
    board: B
    outcome: Outcome | None = None
    seed: str | None = None
    clocks: Clocks | None = None
    left: tuple[int, ...] = ()

    def __init__(
        self,
        game_id: str,
        version: int,
        created: GameCreated,
        board: B,
        outcome: Outcome | None = None,
        seed: str | None = None,
        clocks: Clocks | None = None,
        left: tuple[int, ...] = (),
    ) -> None:
        # As ``Event``'s: ``play.apply`` makes one of these per event it folds.
        _set_game_id(self, game_id)
        _set_version(self, version)
        _set_created(self, created)
        _set_board(self, board)
        _set_outcome(self, outcome)
        _set_seed(self, seed)
        _set_clocks(self, clocks)
        _set_left(self, left)

    @property
    def over(self) -> bool:
        return self.outcome is not None


# Each field's slot setter, in field order (see ``_set_type``).
(
    _set_game_id,
    _set_version,
    _set_created,
    _set_board,
    _set_outcome,
    _set_seed,
    _set_clocks,
    _set_left,
) = (GameState.__dict__[name].__set__ for name in GameState.__match_args__)
