"""Every board picture marks the places a person may tap (``data-pick``), and every legal
action that names something on the board can be reached by tapping.

The game page follows the board-tap protocol (docs/reference/http-api.md, "board.svg"): a
place is a coordinate pair, named by an action holding an equal list at any depth, or an
object, named by an action (or an object inside it) holding each of its keys with that value
or a list containing it. ``names`` below is that rule in Python. Seeded games are played from
legal actions; at sampled positions each seat to act gets its own picture (drawn from its
view, as ``board.svg`` draws it), and each of its actions with anything beyond a ``type``
must be named by some place marked in that picture.
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from domain.engine import play, rng
from domain.engine.game import Game, Scene
from domain.engine.types import GAME_CREATED, SYSTEM, Event, GameCreated, GameState, SeatInfo
from domain.games import GAMES

SEED = bytes(range(32))
NAMES = ["Ann", "Bo", "Cy", "Di"]
#: Positions of each game whose pictures are checked (a sample, to stay quick).
SAMPLES = 60
#: The smallest text each game's picture had before places were marked: never smaller now.
SMALLEST = {"arktia": 10.0, "iceberg": 10.0, "ice-breakers": 9.0}
SVG = "{http://www.w3.org/2000/svg}"
SETUPS = [
    (name, seats, seed)
    for name, game in sorted(GAMES.items())
    for seats in range(game.rules.min_players, min(game.rules.max_players, 4) + 1)
    for seed in range(2)
]


def names(action: Any, place: Any) -> bool:
    """Whether ``action`` names ``place``, by the board-tap protocol."""
    if isinstance(place, list):
        return _holds_list(action, place)
    return _holds_object(action, place)


def _holds_list(value: Any, place: list[Any]) -> bool:
    if value == place:
        return True
    if isinstance(value, list):
        return any(_holds_list(item, place) for item in value)
    if isinstance(value, dict):
        return any(_holds_list(item, place) for item in value.values())
    return False


def _has(value: Any, key: str, wanted: Any) -> bool:
    if key not in value:
        return False
    got = value[key]
    return got == wanted or (isinstance(got, list) and wanted in got)


def _holds_object(value: Any, place: dict[str, Any]) -> bool:
    if isinstance(value, dict):
        if all(_has(value, key, wanted) for key, wanted in place.items()):
            return True
        return any(_holds_object(item, place) for item in value.values())
    if isinstance(value, list):
        return any(_holds_object(item, place) for item in value)
    return False


def test_the_names_rule_reads_as_the_protocol_says() -> None:
    clear = {"type": "clear", "cell": [3, 4]}
    sail = {"type": "move_ship", "ship": 2, "path": [[3, 3], [3, 4]]}
    move = {"type": "move", "from": {"square": [3, 3]}, "to": {"tile": [1, 2]}}
    give = {"type": "give", "card": "c01", "to": 1}
    assert names(clear, [3, 4]) and names(sail, [3, 4]) and not names(clear, [4, 3])
    assert names(move, {"square": [3, 3]}) and names(move, {"tile": [1, 2]})
    assert not names(move, {"square": [1, 2]}) and names(move, [1, 2])
    assert names(give, {"card": "c01"}) and names(give, {"card": "c01", "to": 1})
    assert not names(give, {"card": "c01", "to": 0}) and names(sail, {"ship": 2})
    assert names({"type": "x", "cards": ["c01", "c02"]}, {"cards": "c02"})


def picks(svg: str) -> list[Any]:
    """The places marked in a picture, each checked to be canonical JSON of an allowed
    shape: a pair of integers, or an object of one or more keys."""
    found = []
    for element in ET.fromstring(svg).iter():
        text = element.get("data-pick")
        if text is None:
            continue
        place = json.loads(text)
        assert json.dumps(place, sort_keys=True, separators=(",", ":")) == text, text
        if isinstance(place, list):
            assert len(place) == 2 and all(type(v) is int for v in place), text
        else:
            assert isinstance(place, dict) and place, text
        found.append(place)
    return found


def _created(game: Game[Any], seats: int) -> GameCreated:
    return GameCreated(
        game=game.name,
        rules_version=game.rules.rules_version,
        options={},
        seats=tuple(SeatInfo(i, NAMES[i]) for i in range(seats)),
        seed_commitment="0" * 64,
    )


def _positions(game: Game[Any], seats: int, seed: int) -> list[GameState[Any]]:
    """Every position of one seeded random game where some seat acts."""
    rules = game.rules
    chooser = random.Random(f"{game.name}/{seats}/{seed}")
    log = [Event(GAME_CREATED, SYSTEM, _created(game, seats).to_json())]
    state = play.fold(rules, f"g{seed}", log)
    out: list[GameState[Any]] = []
    while not state.over and len(out) < 2_000:
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = rng.draw(
                SEED, state.game_id, state.version + 1, draw.label, draw.kind, draw.n
            )
            for event in play.resolve_draw(rules, state, outcome):
                state = play.apply(rules, state, event)
            continue
        out.append(state)
        seat = chooser.choice(play.to_act(rules, state))
        actions = [a for a in play.legal_actions(rules, state, seat) if a.type != "resign"]
        for event in play.decide(rules, state, seat, chooser.choice(actions)):
            state = play.apply(rules, state, event)
    return out


def _unreached(game: Game[Any], state: GameState[Any], seat: int) -> list[Any]:
    """The actions of ``seat`` with something to name that its picture marks nowhere."""
    rules = game.rules
    scene = Scene.of(rules.view(state.board, seat), names=NAMES, title="t")
    places = picks(game.svg(scene))
    actions = [a.to_json() for a in play.legal_actions(rules, state, seat)]
    return [
        action
        for action in actions
        if set(action) != {"type"} and not any(names(action, p) for p in places)
    ]


def _types(game: Game[Any], state: GameState[Any]) -> set[str]:
    seats = play.to_act(game.rules, state)
    return {a.type for seat in seats for a in play.legal_actions(game.rules, state, seat)}


@pytest.mark.slow  # 18 whole games, every position's actions: 1-3 s each
@pytest.mark.parametrize(("name", "seats", "seed"), SETUPS)
def test_every_action_naming_a_place_can_be_tapped(name: str, seats: int, seed: int) -> None:
    """A sample of positions, and every position offering an action type checked fewer
    than three times so far (so rare ones, a gift or a kept group, are checked too)."""
    game = GAMES[name]
    positions = _positions(game, seats, seed)
    sample = set(random.Random(seed).sample(range(len(positions)), min(SAMPLES, len(positions))))
    seen: dict[str, int] = {}
    offered: set[str] = set()
    for i, state in enumerate(positions):
        types = _types(game, state)
        offered |= types
        if i not in sample and all(seen.get(t, 0) >= 3 for t in types):
            continue
        for seat in play.to_act(game.rules, state):
            assert _unreached(game, state, seat) == [], (state.version, seat)
        for t in types:
            seen[t] = seen.get(t, 0) + 1
    assert offered and set(seen) == offered, "every type offered was checked"


def test_the_three_hosted_games_are_checked() -> None:
    assert {"arktia", "iceberg", "ice-breakers"} <= set(GAMES) == set(SMALLEST)


def _picture(game: Game[Any], state: GameState[Any]) -> ET.Element:
    scene = Scene.of(game.rules.view(state.board, None), names=NAMES, title="t")
    return ET.fromstring(game.svg(scene))


@pytest.mark.parametrize("name", sorted(SMALLEST))
def test_no_text_is_smaller_than_it_was(name: str) -> None:
    game = GAMES[name]
    positions = _positions(game, 2, 0)
    for state in positions[:: max(1, len(positions) // 20)]:
        sizes = [float(e.get("font-size", 99)) for e in _picture(game, state).iter(f"{SVG}text")]
        assert min(sizes) >= SMALLEST[name], (state.version, min(sizes))


def _chips(root: ET.Element) -> dict[str, str]:
    """Each card chip's words by its card id, from its ``data-pick``."""
    out = {}
    for g in root.iter(f"{SVG}g"):
        place = json.loads(g.get("data-pick", "null"))
        if isinstance(place, dict) and "card" in place:
            out[place["card"]] = " ".join("".join(g.itertext()).split())
    return out


def test_ice_breakers_cards_are_chips_in_words() -> None:
    game = GAMES["ice-breakers"]
    gifts = [
        state
        for seats, seed in [(2, 0), (2, 1), (3, 0), (3, 1), (4, 0), (4, 1)]
        for state in _positions(game, seats, seed)
        if (game.rules.view(state.board, None).get("pending") or {}).get("type") == "give"
    ]
    assert gifts, "some game had cards to give out"
    for state in [gifts[0], gifts[-1]]:
        view = game.rules.view(state.board, None)
        root = _picture(game, state)
        chips = _chips(root)
        shown = [*(c for h in view["hands"] for c in h["cards"]), *view["pending"]["cards"]]
        assert {c["id"] for c in shown} == set(chips)
        for c in shown:
            words = f"Power {c['value']}" if c["kind"] == "power" else None
            assert chips[c["id"]].endswith(c["id"]) and (words is None or words in chips[c["id"]])
        said = " ".join("".join(e.itertext()) for e in root.iter(f"{SVG}text"))
        assert not re.search(r"\((?:P\d+|R3|B1|AB2)\)", said), said
        targets = [json.loads(e.get("data-pick", "null")) for e in root.iter(f"{SVG}g")]
        assert [t for t in targets if isinstance(t, dict) and "to" in t] == [
            {"to": seat} for seat in range(len(view["hands"]))
        ]
