"""Bots playing whole games in the domain alone, as the workers would: new games, play-outs,
the positions of a random game where someone must act, the next move at a table of people
and bots, whole logs as the service writes them, and a forger's copy of one with one move
changed."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from domain.ai import POLICIES, MctsPolicy, PlayoutSettings, Policy, bot_to_move
from domain.engine import play, rng
from domain.engine.canonical import canonical_json
from domain.engine.log import GENESIS_HASH, event_of, seal
from domain.engine.rng import DrawStream
from domain.engine.rules import Action
from domain.engine.types import (
    GAME_CREATED,
    GAME_OVER,
    SEED_REVEALED,
    SYSTEM,
    Event,
    GameCreated,
    GameState,
    SeatInfo,
)
from domain.games import GAMES

SEED = bytes(range(32))


def new_game(
    game: str, seats: int, game_id: str, bots: list[str] | None = None, **options: Any
) -> GameState[Any]:
    """A new game; ``bots`` names each seat's strength (no bots: the domain plays alone)."""
    rules = GAMES[game].rules
    strengths: list[str | None] = list(bots) if bots else [None] * seats
    created = GameCreated(
        game,
        rules.rules_version,
        options,
        tuple(SeatInfo(i, f"p{i}", strengths[i]) for i in range(seats)),
        "0" * 64,
    )
    return play.fold(rules, game_id, [Event(GAME_CREATED, SYSTEM, created.to_json())])


#: ``mcts`` at a fraction of its strength: the same code paths, for legality checks that
#: need not wait for full-strength thinking (``make bench-ai`` measures the real thing).
LIGHT: Mapping[str, Policy] = {
    **POLICIES,
    "mcts": MctsPolicy(iterations=60, playouts=PlayoutSettings(playouts=2)),
}


def play_out(
    state: GameState[Any],
    strengths: list[str],
    seed: bytes = SEED,
    policies: Mapping[str, Policy] = POLICIES,
) -> GameState[Any]:
    """Play a whole game with bots in every seat, as the workers would."""
    game = GAMES[state.created.game]
    rules = game.rules
    for _ in range(20_000):
        if state.over:
            return state
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = rng.draw(
                seed, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
            )
            for event in play.resolve_draw(rules, state, outcome):
                state = play.apply(rules, state, event)
            continue
        seat = bot_to_move(game, state)
        assert seat is not None, "a game of bots waits for no bot"
        stream = DrawStream(seed, state.game_id, state.version + 1, f"bot-{seat}")
        action = policies[strengths[seat]].choose(game, state, seat, stream)
        assert action in play.legal_actions(rules, state, seat)
        for event in play.decide(rules, state, seat, action):
            state = play.apply(rules, state, event)
    raise AssertionError("the bots' game did not end")


def positions(
    game: str, seats: int, game_id: str, overrides: Mapping[str, Any] | None = None, **options: Any
) -> Iterator[GameState[Any]]:
    """Every position of a random game where a seat must act; ``overrides`` replaces the
    outcome of the setup draws with those labels (a different hidden deal)."""
    rules = GAMES[game].rules
    state = new_game(game, seats, game_id, **options)
    chooser = random.Random(7)
    while not state.over:
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = (overrides or {}).get(draw.label)
            if outcome is None:
                outcome = rng.draw(
                    SEED, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
                )
            state = play.resolve_draw_step(rules, state, outcome)[1]
            continue
        yield state
        seat = play.to_act(rules, state)[0]
        actions = play.legal_actions(rules, state, seat)
        state = play.step(rules, state, seat, chooser.choice(actions))[1]


def next_move(
    game_name: str,
    state: GameState[Any],
    seed: bytes,
    chooser: random.Random,
    *,
    bots: bool = True,
) -> tuple[int, Action, str]:
    """Who moves next, how, and the command id, as a table of people and bots plays: a seat
    picked at random among those to act; a person's move a seeded random choice (retiring
    rarely), a bot seat's the move of the bot the worker plays there (``bot_to_move``, its
    policy on its ``bot-<seat>`` stream, command id ``bot-<version>``), which
    ``floe replay verify`` makes again. With no bots (or ``bots=False``: bot seats move as
    people do), the picks are those of a table of people only (the same calls to
    ``chooser``)."""
    game = GAMES[game_name]
    rules = game.rules
    kinds = {info.seat: info.bot for info in state.created.seats if info.bot and bots}
    to_act = play.to_act(rules, state)
    seat = chooser.choice(to_act)
    if seat in kinds:
        due = bot_to_move(game, state)
        if due is not None:
            stream = DrawStream(seed, state.game_id, state.version + 1, f"bot-{due}")
            action = POLICIES[kinds[due]].choose(game, state, due, stream)
            return due, action, f"bot-{state.version}"
        seat = chooser.choice([s for s in to_act if s not in kinds])  # a person drives now
    actions = play.legal_actions(rules, state, seat)
    weights = [0.02 if a.type == "retire" else 1.0 for a in actions]
    return seat, chooser.choices(actions, weights)[0], f"{seat}-{state.version}"


#: The time of every event ``service_log`` writes (its games have no clock).
AT = "2026-11-22T12:00:00Z"


def service_log(
    game: str, seats: Sequence[str | None], game_id: str, seed: bytes = SEED, **options: Any
) -> list[dict[str, Any]]:
    """A finished game's log as the service writes it: ``seats`` names each seat's bot (None
    for a person, who moves at random), bots move as the worker moves them (``next_move``),
    draws follow from ``seed``, which ``game_over``'s append reveals."""
    rules = GAMES[game].rules
    created = GameCreated(
        game,
        rules.rules_version,
        options,
        tuple(SeatInfo(i, f"p{i}", bot) for i, bot in enumerate(seats)),
        rng.seed_commitment(seed),
    )
    first = seal(
        game_id,
        [Event(GAME_CREATED, SYSTEM, created.to_json())],
        first_version=1,
        prev_hash=GENESIS_HASH,
        at=AT,
        command_id=None,
    )
    state = play.new_game(rules, game_id, created)
    return _play_on([dict(e.to_json()) for e in first], state, seed, random.Random(game_id))


def forge_move(events: list[dict[str, Any]], version: int) -> tuple[list[dict[str, Any]], Any]:
    """A careful forger's copy of a finished game's log (no clock): the action at ``version``
    replaced by another legal one, then the game played on from there as the service plays
    it (``service_log``), the seed revealed at the end, every hash chained. Every event is
    legal and every draw follows from the seed: only bot replay can tell, and only when the
    seat is a bot's. Returns the log and the action put in (JSON)."""
    first, moved = events[0], events[version - 1]
    rules = GAMES[first["data"]["game"]].rules
    seed = bytes.fromhex(events[-1]["data"]["seed"])
    state = play.fold(rules, first["game_id"], [event_of(e) for e in events[: version - 1]])
    logged = canonical_json(moved["data"]["action"])
    seat = moved["actor"]
    legal = play.legal_actions(rules, state, seat)
    other = next(a for a in legal if canonical_json(a.to_json()) != logged)
    move = (seat, other, str(moved["command_id"]))
    chooser = random.Random(version)
    forged = _play_on(list(events[: version - 1]), state, seed, chooser, moved["at"], move)
    return forged, other.to_json()


def _play_on(
    stored: list[dict[str, Any]],
    state: GameState[Any],
    seed: bytes,
    chooser: random.Random,
    at: str = AT,
    move: tuple[int, Action, str] | None = None,
) -> list[dict[str, Any]]:
    """``stored`` (the log up to ``state``) with the game played to its end, ``move`` first."""
    rules = GAMES[state.created.game].rules
    game_id = state.game_id
    while not state.over:
        draw = rules.pending_draw(state.board)
        command_id = None
        if draw is not None:
            outcome = rng.draw(seed, game_id, state.version + 1, draw.label, draw.kind, draw.n)
            new, after = play.resolve_draw_step(rules, state, outcome)
        else:
            actor, action, command_id = move or next_move(state.created.game, state, seed, chooser)
            move = None
            new, after = play.step(rules, state, actor, action)
        if new[-1].type == GAME_OVER:  # the seed is revealed in the same append
            new = [*new, Event(SEED_REVEALED, SYSTEM, {"seed": seed.hex()})]
            after = play.apply(rules, after, new[-1])
        sealed = seal(
            game_id,
            new,
            first_version=state.version + 1,
            prev_hash=stored[-1]["hash"],
            at=at,
            command_id=command_id,
        )
        stored = [*stored, *(dict(e.to_json()) for e in sealed)]
        state = after
    return stored


def moves_by_seat(events: list[dict[str, Any]]) -> dict[int, int]:
    """How many actions each seat's events hold (the system's left out)."""
    counts: dict[int, int] = {}
    for event in events:
        if event["actor"] != "system":
            counts[event["actor"]] = counts.get(event["actor"], 0) + 1
    return counts
