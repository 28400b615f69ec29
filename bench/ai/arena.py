"""One bot game played in process, exactly as the workers would play it, and what it showed.

A game is named by a ``Match`` (which game, which strength in each seat, options) and an
index; its id and seed derive from both, so every run of the benchmark plays the same games
and any one can be replayed alone. Draws come from the seed as the draw worker makes them;
each bot's move from its ``bot-<seat>`` stream, as the bot worker makes it.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

from domain.ai import POLICIES, bot_to_move
from domain.engine import play, rng
from domain.engine.rng import DrawStream
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, GameState, SeatInfo
from domain.games import GAMES


@dataclass(frozen=True, slots=True)
class Match:
    """A pairing (or a co-operative team) to be played many times."""

    key: str
    game: str
    strengths: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    #: Head-to-head: alternate which seat the first strength takes, game by game.
    alternate: bool = True

    def seats_for(self, index: int) -> tuple[str, ...]:
        if self.alternate and index % 2 == 1:
            return tuple(reversed(self.strengths))
        return self.strengths


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What one finished game says: who won, how the team did, and every move's think time."""

    key: str
    index: int
    seats: tuple[str, ...]
    winners: tuple[int, ...]
    delivered: int | None
    in_play: int | None
    moves: int
    #: Think time of every bot move, by strength (seconds).
    think: dict[str, list[float]]

    def score_of(self, strength: str) -> float:
        """The share of the win taken by ``strength`` (a shared win splits it)."""
        if not self.winners:
            return 0.0
        mine = sum(1 for seat in self.winners if self.seats[seat] == strength)
        return mine / len(self.winners)

    @property
    def success(self) -> bool:
        return self.delivered is not None and self.delivered == self.in_play


def seed_of(key: str, index: int) -> bytes:
    return hashlib.sha256(f"floe-bench-ai/{key}/{index}".encode()).digest()


def new_state(match: Match, index: int) -> GameState[Any]:
    rules = GAMES[match.game].rules
    seats = match.seats_for(index)
    created = GameCreated(
        match.game,
        rules.rules_version,
        dict(match.options),
        tuple(SeatInfo(i, f"{strength}-{i}", strength) for i, strength in enumerate(seats)),
        rng.seed_commitment(seed_of(match.key, index)),
    )
    game_id = f"bench-{match.key}-{index}"
    return play.fold(rules, game_id, [Event(GAME_CREATED, SYSTEM, created.to_json())])


def play_game(match: Match, index: int, max_actions: int = 50_000) -> GameRecord:
    """Play game ``index`` of ``match`` to the end."""
    game = GAMES[match.game]
    rules = game.rules
    seats = match.seats_for(index)
    seed = seed_of(match.key, index)
    state = new_state(match, index)
    think: dict[str, list[float]] = {strength: [] for strength in set(seats)}
    moves = 0
    for _ in range(max_actions):
        if state.over:
            break
        draw = rules.pending_draw(state.board)
        if draw is not None:
            drawn = rng.draw(seed, state.game_id, state.version + 1, draw.label, draw.kind, draw.n)
            state = play.resolve_draw_step(rules, state, drawn)[1]
            continue
        seat = bot_to_move(game, state)
        if seat is None:
            raise RuntimeError(f"{state.game_id}: no bot to move at v{state.version}")
        stream = DrawStream(seed, state.game_id, state.version + 1, f"bot-{seat}")
        started = time.perf_counter()
        action = POLICIES[seats[seat]].choose(game, state, seat, stream)
        think[seats[seat]].append(time.perf_counter() - started)
        state = play.step(rules, state, seat, action)[1]
        moves += 1
    outcome = state.outcome
    if outcome is None:
        raise RuntimeError(f"{state.game_id}: unfinished after {max_actions} actions")
    extra = outcome.extra
    return GameRecord(
        key=match.key,
        index=index,
        seats=seats,
        winners=outcome.winners,
        delivered=int(extra["delivered"]) if "delivered" in extra else None,
        in_play=int(extra["in_play"]) if "in_play" in extra else None,
        moves=moves,
        think=think,
    )
