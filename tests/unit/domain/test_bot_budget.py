"""A bot's time budget: past the deadline the search raises and chooses nothing; within it,
the move is exactly the move of an unbounded search (time never chooses a move).

The clocks here are fakes handed in, as the service hands in ``time.monotonic``: the domain
reads no clock of its own.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import pytest

from domain.ai import UNBOUNDED, BotTimedOut, Budget, MctsPolicy, PlayoutSettings, bot_to_move
from domain.ai.decision import Decision, team_of
from domain.ai.mcts import Search, generator_for
from domain.ai.playouts import choose_by_playouts
from domain.engine import play, rng
from domain.engine.rng import DrawStream
from domain.engine.types import GameState
from domain.games import GAMES
from tests.support.bots import LIGHT, SEED, new_game


class CountingClock:
    """A fake monotonic clock: each read is one second later than the one before."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return float(self.reads)


def never() -> float:
    raise AssertionError("an unbounded search must not read a clock")


def stream(state: GameState[Any], seat: int) -> DrawStream:
    return DrawStream(SEED, state.game_id, state.version + 1, f"bot-{seat}")


def expired() -> Budget:
    """A budget whose deadline has passed already (its clock stands still, after it)."""
    return Budget(seconds=60.0, deadline=0.0, clock=lambda: 1.0)


def test_a_search_past_its_deadline_raises_and_chooses_nothing() -> None:
    game = GAMES["arktia"]
    state = new_game("arktia", 2, "late", ["mcts", "mcts"])
    with pytest.raises(BotTimedOut, match="did not decide within 60 s"):
        MctsPolicy().choose(game, state, 0, stream(state, 0), expired())
    settings = game.bot.search
    with pytest.raises(BotTimedOut):
        Search(game, settings, generator_for(stream(state, 0)), expired()).choose(state, 0)


def test_the_deadline_is_checked_before_every_iteration() -> None:
    """The clock is read once per iteration: the search stops at the first iteration that
    starts after the deadline, not at the end of its 4,000."""
    game = GAMES["arktia"]
    state = new_game("arktia", 2, "every", ["mcts", "mcts"])
    clock = CountingClock()
    budget = Budget.of(10.0, clock)  # read 1 sets the deadline at 11
    with pytest.raises(BotTimedOut):
        MctsPolicy().choose(game, state, 0, stream(state, 0), budget)
    assert clock.reads == 11, "1 read to start, then one per iteration: 9 ran, the 10th raised"


def test_an_unbounded_search_reads_no_clock() -> None:
    game = GAMES["arktia"]
    state = new_game("arktia", 2, "free", ["mcts", "mcts"])
    unbounded = Budget(clock=never)  # no deadline: the clock must never be read
    assert not unbounded.bounded and not UNBOUNDED.bounded
    light = MctsPolicy(iterations=50)
    assert light.choose(game, state, 0, stream(state, 0), unbounded) == light.choose(
        game, state, 0, stream(state, 0)
    )


def playout_decision(game_name: str, seats: int, **options: Any) -> tuple[GameState[Any], int]:
    """A state of a team-plan game where ``mcts`` settles the plan's choice by playouts."""
    game = GAMES[game_name]
    rules, planner = game.rules, game.bot.planner
    assert planner is not None
    strengths = ["mcts"] * seats
    state = new_game(game_name, seats, f"{game_name}-playouts", strengths, **options)
    for _ in range(5_000):
        assert not state.over, "the game ended before any choice by playouts"
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = rng.draw(
                SEED, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
            )
            state = play.resolve_draw_step(rules, state, outcome)[1]
            continue
        seat = bot_to_move(game, state)
        assert seat is not None
        step = planner.next_step(state.board, team_of(state))
        if (
            step is not None
            and step[0] == seat
            and planner.alternatives(state.board, seat, step[1])
        ):
            return state, seat
        action = LIGHT["greedy"].choose(game, state, seat, stream(state, seat))
        state = play.step(rules, state, seat, action)[1]
    raise AssertionError("no choice by playouts found")


def test_playouts_past_their_deadline_raise_and_are_checked_at_every_step() -> None:
    game = GAMES["ice-breakers"]
    planner = game.bot.planner
    assert planner is not None
    state, seat = playout_decision("ice-breakers", 2, intro=True)
    policy = MctsPolicy(playouts=PlayoutSettings(playouts=2))
    with pytest.raises(BotTimedOut):
        policy.choose(game, state, seat, stream(state, seat), expired())
    step = planner.next_step(state.board, team_of(state))
    assert step is not None
    options = planner.alternatives(state.board, seat, step[1])
    # With no deadline in reach, the clock is read at every step of every playout ...
    counting = CountingClock()
    free = policy.choose(game, state, seat, stream(state, seat), Budget(60.0, math.inf, counting))
    checks = counting.reads
    assert checks > 10 * 2 * len(options), "checked at each step, not once per playout"
    assert free == policy.choose(game, state, seat, stream(state, seat))
    # ... so a deadline half-way stops the search half-way, inside a playout.
    clock = CountingClock()
    with pytest.raises(BotTimedOut):
        policy.choose(game, state, seat, stream(state, seat), Budget.of(checks // 2, clock))
    assert clock.reads == 1 + checks // 2
    # And the search function itself, handed an expired budget.
    with pytest.raises(BotTimedOut):
        choose_by_playouts(
            Decision(game, state, seat, stream(state, seat), expired()),
            planner,
            team_of(state),
            step[1],
            options,
            generator_for(stream(state, seat)),
            PlayoutSettings(playouts=2),
        )


Choose = Callable[[GameState[Any], int], Any]


@pytest.mark.parametrize(
    ("game_name", "seats", "options"),
    [
        ("arktia", 2, {}),
        pytest.param("iceberg", 2, {}, marks=pytest.mark.slow),  # ten seconds and more
        ("ice-breakers", 2, {"intro": True}),
    ],
)
def test_a_generous_deadline_gives_the_same_moves_as_none(
    game_name: str, seats: int, options: dict[str, Any]
) -> None:
    """A whole game of light ``mcts`` (search and playouts): every move with a budget of an
    hour on the real monotonic clock is the move chosen with no budget at all."""
    game = GAMES[game_name]
    rules = game.rules
    policy = LIGHT["mcts"]
    state = new_game(game_name, seats, f"{game_name}-generous", ["mcts"] * seats, **options)
    moves = 0
    for _ in range(20_000):
        if state.over:
            break
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = rng.draw(
                SEED, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
            )
            state = play.resolve_draw_step(rules, state, outcome)[1]
            continue
        seat = bot_to_move(game, state)
        assert seat is not None
        free = policy.choose(game, state, seat, stream(state, seat))
        bounded = policy.choose(
            game, state, seat, stream(state, seat), Budget.of(3600.0, time.monotonic)
        )
        assert bounded == free, f"version {state.version}: the budget changed the move"
        state = play.step(rules, state, seat, free)[1]
        moves += 1
    assert state.over and moves > 5


@pytest.mark.slow
def test_a_generous_deadline_gives_the_same_move_at_full_strength() -> None:
    game = GAMES["arktia"]
    state = new_game("arktia", 2, "full-generous", ["mcts", "mcts"])
    policy = MctsPolicy()
    bounded = policy.choose(game, state, 0, stream(state, 0), Budget.of(3600.0, time.monotonic))
    assert bounded == policy.choose(game, state, 0, stream(state, 0))
