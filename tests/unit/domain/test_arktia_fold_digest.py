"""Arktia's fold, pinned: random games (captures, ties, melts, leaving, the turn limit, 2 to 4
seats) and one long game like the benchmark's, digested version by version.

The fold is tuned for speed (bench/folding.py); this is the guard that tuning changes nothing
anyone can observe. Each game is played with ``play.step`` from legal actions picked by a
seeded ``random.Random``; every version's event, board (every field, the stacks in their
dictionary order, which the benchmark's policy iterates), pending decision, seats to act and
their legal actions go into one SHA-256, whose value the rules as they were before the tuning
gave. ``play.fold`` (which folds runs of events on a working copy: ``arktia.folding``) must
reach the state stepping reached, at every cut tried. A digest that changes means some game
now plays differently: find out why before writing the new one here.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from domain.engine import play
from domain.engine.canonical import canonical_json
from domain.engine.departures import Forfeit, Resign
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, GameState, SeatInfo
from domain.games.arktia import ARKTIA, evolving
from domain.games.arktia.board import ArktiaBoard
from domain.games.arktia.folding import Working
from domain.games.arktia.hexes import rows
from tests.support.positions.arktia import d, g, position

#: Two players on exactly the tiles they need (24): every turn with an empty reserve melts.
TIGHT_24 = rows([(0, 0, 5), (1, -1, 4), (2, -2, 3), (3, -3, 2)])

#: (seats, options, seeds): every setup the rules distinguish. The seeds past 100 were picked
#: for what random play seldom reaches: a player out with too few pieces (3p 101, 127, 4p 103,
#: 107), ties and colours a dropped tie left split (3p 154, 4p 110, 158).
SETUPS: list[tuple[int, dict[str, Any], list[int]]] = [
    (2, {}, list(range(6))),
    (2, {"turn_limit": 30}, [10, 11, 12]),
    (2, {"board": [list(t) for t in sorted(TIGHT_24)]}, [13, 14, 15]),
    (3, {}, [16, 17, 18, 19, 20, 101, 127, 154]),
    (3, {"neutrals_3p": True}, [21, 22, 23, 24]),
    (4, {}, [25, 26, 27, 28, 29, 30, 103, 107, 110, 158]),
]
EXPECTED = "44c0213ab2f1a102b6d58d9792284ef82c947b73d801e0cfa8c86ea33bd283eb"


def _created(seats: int, options: dict[str, Any]) -> Event:
    data = GameCreated(
        game="arktia",
        rules_version=ARKTIA.rules_version,
        options=options,
        seats=tuple(SeatInfo(i, f"p{i}") for i in range(seats)),
        seed_commitment="0" * 64,
    ).to_json()
    return Event(GAME_CREATED, SYSTEM, data)


def _board(board: ArktiaBoard) -> dict[str, Any]:
    """Every field of the board, sets sorted (their iteration order is not the board's)."""
    out: dict[str, Any] = {name: getattr(board, name) for name in ArktiaBoard._fields}
    out["stacks"] = [[list(tile), list(stack)] for tile, stack in board.stacks.items()]
    out["ties"] = [[tie.colour, [sorted(group) for group in tie.groups]] for tie in board.ties]
    out["players"] = [repr(player) for player in board.players]
    for name in ("shape", "tiles", "left", "unsettled"):
        out[name] = sorted(out[name])
    return out


def _digest_state(digest: Any, state: GameState[Any]) -> None:
    seats = play.to_act(ARKTIA, state)
    point = {
        "version": state.version,
        "board": _board(state.board),
        "pending": ARKTIA.pending(state.board),
        "to_act": list(seats),
        "legal": {
            str(seat): [a.to_json() for a in play.legal_actions(ARKTIA, state, seat)]
            for seat in seats
        },
        "outcome": None if state.outcome is None else state.outcome.to_json(),
        "left": list(state.left),
    }
    digest.update(canonical_json(point).encode())


def _pick(chooser: random.Random, state: GameState[Any], seat: int, legal: list[Any]) -> Any:
    """Mostly an action that captures (random play seldom does), else any."""
    if chooser.random() < 0.6:
        for action in chooser.sample(legal, min(8, len(legal))):
            after = play.step(ARKTIA, state, seat, action)[1].board
            if after.ties or sum(p.kept for p in after.players) > sum(
                p.kept for p in state.board.players
            ):
                return action
    return chooser.choice(legal)


def _play(digest: Any, seed: int, seats: int, options: dict[str, Any]) -> None:
    """One random game to its end (or 400 events), stepped and digested, then folded."""
    chooser = random.Random(seed)
    events = [_created(seats, options)]
    state = play.fold(ARKTIA, f"g{seed}", events)
    states = [state]  # the state at each version, from 1
    _digest_state(digest, state)
    while not state.over and len(events) < 400:
        [seat] = play.to_act(ARKTIA, state)
        still_in = [s for s in range(seats) if s not in state.left]
        roll = chooser.random()
        if state.board.ties and roll < 0.5:  # leave with a tie owed: its colour stays split
            new, state = play.step(ARKTIA, state, seat, Resign())
        elif roll < 0.005:
            new, state = play.step(ARKTIA, state, chooser.choice(still_in), Resign())
        elif roll < 0.01:
            decision = Forfeit(chooser.choice(still_in), "digest")
            new, state = play.decide_decision(ARKTIA, state, decision)
        else:
            legal = play.legal_actions(ARKTIA, state, seat)
            staying = [action for action in legal if action.type != "retire"]
            action = _pick(chooser, state, seat, staying if staying and roll > 0.02 else legal)
            new, state = play.step(ARKTIA, state, seat, action)
        for event in new:
            digest.update(canonical_json([event.type, event.actor, dict(event.data)]).encode())
        events += new
        states += [state] * len(new)  # a cut inside a step is never tried
        _digest_state(digest, state)
    for cut in [*range(2, len(events), 23), len(events)]:
        if states[cut - 1].version == cut:
            assert play.fold(ARKTIA, f"g{seed}", events[:cut]) == states[cut - 1]
    _check_working_copies(events, states)


def _check_working_copies(events: list[Event], states: list[GameState[Any]]) -> None:
    """Take each place and move a ``folding.Working`` takes, on one copy for as long as it
    keeps it: after each, its board is the stepped one, and its own record of the tiles (each
    colour's, the empty ones) is what its stacks say."""
    working: Working | None = None
    for version, event in enumerate(events[1:], start=2):
        action = event.data.get("action", {})
        before, after = states[version - 2].board, states[version - 1].board
        if event.type not in ("move", "place") or states[version - 1].version != version:
            working = None
            continue
        working = working or Working.of(before)
        if working is None:
            continue
        assert working.frozen() == before
        if event.type == "place" and not working.is_empty(action["tile"]):
            working = None
            continue
        take = working.move if event.type == "move" else working.place
        handed = take(int(str(event.actor)), action)
        if handed is not None:
            assert handed == after
            working = None
            continue
        assert working.frozen() == after
        where: dict[int, set[tuple[int, int]]] = {}
        for tile, stack in working.stacks.items():
            for colour in {colour for colour in stack if colour is not None}:
                where.setdefault(colour, set()).add(tile)
        assert {colour: tiles for colour, tiles in working.where.items() if tiles} == where
        assert working.empty == set(after.tiles) - set(working.stacks)


def test_random_games_play_and_fold_as_pinned() -> None:
    digest = hashlib.sha256()
    for seats, options, seeds in SETUPS:
        for seed in seeds:
            _play(digest, seed, seats, options)
    assert digest.hexdigest() == EXPECTED, digest.hexdigest()


def _long_game(seed: int, length: int) -> tuple[list[Event], list[GameState[Any]]]:
    """A long two-seat game, as the benchmark plays one: no capture while another action
    will do, no retiring and no placing of a last reserve piece (so no melts), until seat 1
    retires halfway and seat 0 plays on alone. Its events, and the state after each."""
    chooser = random.Random(seed)
    events = [_created(2, {"turn_limit": 10_000})]
    states = [play.fold(ARKTIA, "long", events)]
    while not states[-1].over and len(states) < length:
        state = states[-1]
        [seat] = play.to_act(ARKTIA, state)
        legal = list(play.legal_actions(ARKTIA, state, seat))
        if seat == 1 and len(states) > length // 2:
            legal = [action for action in legal if action.type == "retire"] or legal
        elif state.board.phase == "play" and not (state.board.ties or state.board.melt_owed):
            spare = sum(state.board.players[seat].reserve) > 1
            legal = [a for a in legal if a.type == "move" or (a.type == "place" and spare)]
        chooser.shuffle(legal)
        kept = sum(p.kept for p in state.board.players)
        for action in legal[:8]:
            new, after = play.step(ARKTIA, state, seat, action)
            if sum(p.kept for p in after.board.players) == kept and not after.board.ties:
                break
        events += new
        for event in new:
            states.append(play.apply(ARKTIA, states[-1], event))
        assert states[-1] == after
    return events, states


def test_a_long_game_folds_to_every_state_it_stepped_through() -> None:
    events, states = _long_game(1000, 1200)
    assert states[-1].board.players[1].ended == "retired"
    digest = hashlib.sha256()
    for state in states:
        digest.update(canonical_json(_board(state.board)).encode())
    assert digest.hexdigest() == EXPECTED_LONG, digest.hexdigest()
    for cut in (2, 10, 40, 300, 601, 602, 900, len(events)):
        assert play.fold(ARKTIA, "long", events[:cut]) == states[cut - 1]


EXPECTED_LONG = "917af269e0609b90cca8d0aa658ea9df3a4772617f6727aa691f95158382533d"


def _move(seat: int, source: tuple[int, int], target: tuple[int, int], unit: str = "all") -> Event:
    action = {"type": "move", "from": list(source), "unit": unit, "to": list(target)}
    return Event("move", seat, {"action": action})


def test_a_seat_that_can_no_longer_place_is_found_out_in_a_fold() -> None:
    """Where red could place when last asked is taken, and red has nowhere else to place
    nor any move: the fold must put red out (rule a) as evolving event by event does,
    not trust what it found before."""
    tiles = frozenset({(5, 1), (6, 1), (7, 1), (8, 1), (9, 1), (10, 0), (11, 0)})
    board = position({(8, 1): g(0), (9, 1): d(0), (10, 0): d(1)}, seats=2, tiles=tiles).board
    events = [
        _move(0, (8, 1), (9, 1)),  # red may place on (11, 0), next to its (10, 0)
        _move(1, (10, 0), (11, 0)),
        _move(0, (9, 1), (10, 0)),  # red's only neighbour tile is taken, and it cannot move
    ]
    stepped = board
    for event in events:
        stepped = evolving.evolve(stepped, event)
    assert stepped.players[1].ended == "no_action"
    assert stepped.current == 0
    assert ARKTIA.evolve_all(board, events) == stepped


def _place(seat: int, size: str, tile: tuple[int, int]) -> Event:
    return Event("place", seat, {"action": {"type": "place", "size": size, "tile": list(tile)}})


def test_a_colour_placed_apart_is_searched_in_full_again() -> None:
    """A log the rules never write places yellow far from the rest: the fold must not go on
    trusting that yellow is one group (it searched it in full before) when a later move may
    split it, and removes the stray piece as evolving event by event does."""
    ring = [(6, 5), (6, 4), (5, 4), (4, 5), (4, 6), (5, 6)]  # around (5, 5), in order
    tiles = frozenset({*ring, (5, 5), (0, 0), (10, 10), (11, 10)})
    stacks = {tile: g(0) for tile in ring} | {ring[1]: d(0), (10, 10): d(1)}
    board = position(stacks, seats=2, tiles=tiles).board
    events = [
        _move(0, ring[0], ring[1]),  # two arcs of yellow around the source: searched in full
        _move(1, (10, 10), (11, 10)),
        _place(0, "T", (0, 0)),  # far from yellow
        _move(1, (11, 10), (10, 10)),
        _move(0, ring[3], (5, 5)),  # two arcs again, which the centre joins; (0, 0) stays apart
    ]
    stepped = board
    for event in events:
        stepped = evolving.evolve(stepped, event)
    assert (0, 0) not in stepped.stacks
    assert ARKTIA.evolve_all(board, events) == stepped
