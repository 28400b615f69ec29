"""Bot replay: every bot seat's move made again, and required to be the move the log holds.

A bot's move depends only on the state, the seat's kind and its byte stream (``domain.ai``:
the ``bot-<seat>`` stream of the game's seed at the version the move gets; searches bounded
by iterations and playouts, never by time). So the audit plays each bot seat again exactly as
the worker does (``service.jobs.handlers``): the seat ``bot_to_move`` names, the policy of its
kind with no time budget, and compares. A log whose bot moves were changed, re-signed or not,
fails at the first one, in words an organizer reads: "the bot of seat 2 (greedy) would have
played X at version 17, the log says Y".

The seed is revealed only at the end, so a game not over cannot be replayed yet: its verdict
says so and nothing fails. A person's seat is never replayed. Replaying costs what the bots
thought (a full-strength ``mcts`` move, a fraction of a second), so it can be skipped
(``--no-bot-replay``); the verdict then says it was.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from domain.ai import POLICIES, bot_to_move
from domain.engine import rng
from domain.engine.canonical import canonical_json
from domain.engine.game import Game
from domain.engine.types import GameCreated, GameState

#: ``replayed``: with the seed, every bot move the audit reached was made again and matched;
#: ``skipped``: not asked for; ``no_seed``: the log reveals no seed (yet), so none could be;
#: ``no_bots``: every seat is a person's.
ReplayStatus = Literal["replayed", "skipped", "no_seed", "no_bots"]

#: A move quoted in a reason is cut to this many characters (both must fit in one reason).
MOVE_QUOTE = 80


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A bot seat of the game, and how many of its moves were made again."""

    seat: int
    kind: str
    moves: int = 0

    def __str__(self) -> str:
        return f"seat {self.seat} ({self.kind})"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.kind, "moves": self.moves}


@dataclass(frozen=True, slots=True)
class BotReplay:
    """What bot replay did for one log: its status and every bot seat."""

    status: ReplayStatus
    seats: tuple[BotSeat, ...] = ()

    @property
    def moves(self) -> int:
        return sum(seat.moves for seat in self.seats)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "moves": self.moves,
            "seats": [seat.to_json() for seat in self.seats],
        }

    def describe(self) -> str | None:
        """The verdict's words for it (None for a game of people only)."""
        seats = ", ".join(map(str, self.seats))
        if self.status == "replayed":
            return f"{self.moves} bot moves re-derived: {seats}"
        if self.status == "skipped":
            return f"bot replay skipped (--no-bot-replay): {seats}"
        if self.status == "no_seed":
            return f"bot moves not re-derived, no seed revealed: {seats}"
        return None


@dataclass(frozen=True, slots=True)
class ReplayTally:
    """Bot replay over many games (a tournament's): ``skipped`` when it was, else
    ``replayed`` when any game's bots were, ``no_seed`` when no game with bots reveals its
    seed yet, ``no_bots`` when no game has any."""

    status: ReplayStatus
    #: Games with a bot seat, those of them whose bots were replayed, and the moves made again.
    games: int = 0
    replayed: int = 0
    moves: int = 0

    @classmethod
    def of(cls, replays: Iterable[BotReplay | None]) -> ReplayTally:
        with_bots = [r for r in replays if r is not None and r.status != "no_bots"]
        done = [r for r in with_bots if r.status == "replayed"]
        status: ReplayStatus = "no_bots"
        if any(r.status == "skipped" for r in with_bots):
            status = "skipped"
        elif done:
            status = "replayed"
        elif with_bots:
            status = "no_seed"
        return cls(status, len(with_bots), len(done), sum(r.moves for r in done))

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "games": self.games,
            "replayed": self.replayed,
            "moves": self.moves,
        }

    def describe(self) -> str | None:
        """The words for it (None when no game has bots)."""
        if self.status == "skipped":
            return f"bot replay skipped (--no-bot-replay) in {self.games} games with bots"
        if self.status == "no_seed":
            return f"bot moves not re-derived: no game of {self.games} with bots reveals its seed"
        if self.status == "no_bots":
            return None
        text = f"{self.moves} bot moves re-derived in {self.replayed} games"
        waiting = self.games - self.replayed
        return text + (f" ({waiting} more reveal no seed yet)" if waiting else "")


class BotReplayer:
    """Plays one log's bot seats again, move by move, as the audit reaches them."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._started = False
        self._game: Game[Any] | None = None
        self._seed: bytes | None = None
        self._kinds: dict[int, Any] = {}
        self._moves: Counter[int] = Counter()

    def start(self, game: Game[Any], created: GameCreated, seed: bytes | None) -> None:
        """The game's bundle, its first event and the seed the log reveals (None: none, or
        one that does not open its commitment)."""
        self._started = True
        self._game, self._seed = game, seed
        self._kinds = {info.seat: info.bot for info in created.seats if info.bot}

    @property
    def status(self) -> ReplayStatus:
        if not self._kinds:
            return "no_bots"
        if not self.enabled:
            return "skipped"
        return "replayed" if self._seed is not None else "no_seed"

    def result(self) -> BotReplay | None:
        """What was done (None when the log's first event could not be read)."""
        if not self._started:
            return None
        seats = tuple(
            BotSeat(seat, _kind(kind), self._moves[seat]) for seat, kind in self._kinds.items()
        )
        return BotReplay(self.status, seats)

    def check(self, state: GameState[Any], stored: Mapping[str, Any]) -> str | None:
        """Why the action ``stored`` (legal in ``state``, the state before it) is not the move
        its seat's bot makes there (None when it is, or when its seat is a person's)."""
        seat = stored["actor"]
        if self.status != "replayed" or seat not in self._kinds:
            return None
        game, seed = self._game, self._seed
        assert game is not None and seed is not None
        kind, version = self._kinds[seat], stored["version"]
        who = f"the bot of seat {seat} ({_kind(kind)})"
        logged = stored["data"]["action"]
        policy = POLICIES.get(kind) if isinstance(kind, str) else None
        if policy is None:
            known = ", ".join(sorted(POLICIES))
            return f"{who} is no bot Floe plays ({known}), so it cannot have moved"
        due = bot_to_move(game, state)
        if due != seat:
            whose = "no bot" if due is None else f"the bot of seat {due}"
            return (
                f"{who} would not have moved at version {version} ({whose} was to move "
                f"there), the log says {_quote(logged)}"
            )
        stream = rng.DrawStream(seed, state.game_id, version, f"bot-{seat}")
        try:
            action = policy.choose(game, state, seat, stream)
        except Exception as error:  # a bug in a bot is a verdict here too, never a traceback
            return f"{who} cannot decide at version {version} ({type(error).__name__})"
        made = action.to_json()
        if canonical_json(made) != canonical_json(logged):
            return (
                f"{who} would have played {_quote(made)} at version {version}, the log says "
                f"{_quote(logged)}"
            )
        self._moves[seat] += 1
        return None


def _kind(kind: Any) -> str:
    return kind if isinstance(kind, str) else canonical_json(kind)[:20]


def _quote(action: Any) -> str:
    """An action as its canonical JSON, cut to ``MOVE_QUOTE`` characters."""
    text = canonical_json(action)
    return text if len(text) <= MOVE_QUOTE else text[: MOVE_QUOTE - 1] + "…"
