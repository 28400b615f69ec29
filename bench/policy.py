"""Deterministic Arktia scripts that keep a game going for thousands of versions.

Arktia has no randomness, so an action sequence worked out in process with the domain is
valid for *any* new game: clients replay it over HTTP without asking ``legal-actions``, and
every measured request is exactly one POST. The policy never retires, never places a
player's last reserve piece (an empty reserve would force a melt after every turn, which
shrinks the board until the game ends), prefers actions that capture nothing, and never
picks an action that ends the game when another is available.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from domain.engine import play
from domain.engine.errors import GameError
from domain.engine.rules import Action, Rules
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, GameState, SeatInfo
from domain.games import GAMES
from domain.games.arktia.actions import Move, Place
from domain.games.arktia.board import ArktiaBoard
from domain.games.arktia.hexes import DIRECTIONS

GAME = "arktia"
#: High enough that the turn limit never ends a benchmark game (docs/reference/rules/arktia.md).
TURN_LIMIT = 10_000
OPTIONS: dict[str, Any] = {"turn_limit": TURN_LIMIT}


@dataclass(frozen=True, slots=True)
class Step:
    """One scripted action: the seat that posts it, and the API's JSON for it."""

    seat: int
    action: dict[str, Any]


def rules() -> Rules[Any]:
    return GAMES[GAME].rules


def created_event(players: int = 2) -> Event:
    """The ``game_created`` event of a benchmark game (the seed commitment is irrelevant)."""
    rule = rules()
    created = GameCreated(
        game=GAME,
        rules_version=rule.rules_version,
        options=dict(OPTIONS),
        seats=tuple(SeatInfo(i, f"bench-{i}") for i in range(players)),
        seed_commitment="0" * 64,
    )
    return Event(GAME_CREATED, SYSTEM, created.to_json())


def _kept(state: GameState[Any]) -> int:
    return sum(player.kept for player in state.board.players)


def _candidates(board: ArktiaBoard, seat: int) -> list[Action]:
    """Every place or move the policy would consider, unchecked (``decide`` checks them).

    Far cheaper than ``legal_actions``, which runs the connectivity check for every move.
    """
    out: list[Action] = []
    if sum(board.players[seat].reserve) > 1:
        out += [
            Place(size, tile)
            for size in board.placement_sizes(seat)
            for tile in board.placement_tiles(seat)
        ]
    for source, stack in board.stacks.items():
        if stack.controller != seat:
            continue
        for unit in stack.units():
            for dq, dr in DIRECTIONS:
                target = (source[0] + dq, source[1] + dr)
                while target in board.tiles:
                    out.append(Move(source, unit, target))
                    target = (target[0] + dq, target[1] + dr)
    return out


def choose(state: GameState[Any], seat: int, rng: random.Random) -> tuple[Action, list[Event]]:
    """The next action of ``seat`` and its events: see the module docstring for the rules."""
    rule = rules()
    board: ArktiaBoard = state.board
    if board.ties or board.melt_owed or board.phase != "play":
        action = rng.choice(play.legal_actions(rule, state, seat))  # forced or opening
        return action, play.decide(rule, state, seat, action)
    candidates = _candidates(board, seat)
    rng.shuffle(candidates)
    fallback: tuple[Action, list[Event]] | None = None
    for action in candidates:
        try:
            events = play.decide(rule, state, seat, action)
        except GameError:
            continue
        if len(events) > 1:
            continue  # it would end the game
        after = play.apply(rule, state, events[0])
        if _kept(after) == _kept(state) and not after.board.ties:
            return action, events
        fallback = fallback or (action, events)
    if fallback is not None:
        return fallback
    action = rng.choice(play.legal_actions(rule, state, seat))  # only game-enders are left
    return action, play.decide(rule, state, seat, action)


def steps(seed: int, players: int = 2) -> Iterator[tuple[Step, Event]]:
    """An endless-as-possible script: each step and the event the server will store for it.

    Stops when the game ends (the policy avoids that while it has any choice).
    """
    rule = rules()
    rng = random.Random(seed)
    state = play.fold(rule, f"bench-{seed}", [created_event(players)])
    while not state.over:
        [seat] = play.to_act(rule, state)
        action, events = choose(state, seat, rng)
        for event in events:
            state = play.apply(rule, state, event)
        yield Step(seat, action.to_json()), events[0]


def script(seed: int, length: int, players: int = 2) -> list[Step]:
    """The first ``length`` steps of :func:`steps` (fewer if the game ends first)."""
    out: list[Step] = []
    for step, _ in steps(seed, players):
        out.append(step)
        if len(out) >= length:
            break
    return out
