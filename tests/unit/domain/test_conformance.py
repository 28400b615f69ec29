"""Replay every reference game through the domain and agree on each legal-action list.

Each action is re-decided with the rules (so it must be legal where it was played), the
events folded, and at every point listed in ``<id>.legal.jsonl`` our ``to_act`` and each
seat's legal actions must equal the reference exactly. The final ``game_over`` must equal
what our rules decide.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from domain.engine import play, rng
from domain.engine.canonical import canonical_json
from domain.engine.types import GAME_OVER, RANDOM, Event
from domain.games import GAMES
from tests.support.reference_games import conformance_games, read_jsonl

HOSTED = [p for p in conformance_games() if read_jsonl(p)[0]["data"]["game"] in GAMES]


def test_every_hosted_game_has_reference_games() -> None:
    hosted = {read_jsonl(p)[0]["data"]["game"] for p in HOSTED}
    assert hosted == set(GAMES)


def _as_listed(action: dict[str, Any]) -> dict[str, Any]:
    """The reference lists give a ``move_ship`` by its final cell only (tests/data/conformance/README.md)."""
    if action["type"] == "move_ship":
        return {**action, "path": action["path"][-1:]}
    return action


def _legal_lists(rules: Any, state: Any) -> dict[str, list[str]]:
    return {
        str(seat): sorted(
            canonical_json(_as_listed(a.to_json())) for a in play.legal_actions(rules, state, seat)
        )
        for seat in play.to_act(rules, state)
    }


@pytest.mark.parametrize("path", HOSTED, ids=lambda p: p.stem)
def test_reference_game_replays_with_identical_legal_actions(path: Path) -> None:
    events = read_jsonl(path)
    points = {p["version"]: p for p in read_jsonl(path.with_suffix(".legal.jsonl"))}
    rules = GAMES[events[0]["data"]["game"]].rules
    state = play.fold(
        rules, events[0]["game_id"], [Event("game_created", "system", events[0]["data"])]
    )
    seed = bytes.fromhex(events[-1]["data"]["seed"])
    if 1 in points:
        _agree(rules, state, points.pop(1))
    decided: list[Event] = []
    for stored in events[1:]:
        event = Event(stored["type"], stored["actor"], stored["data"])
        if stored["actor"] != "system":
            action = rules.parse_action(stored["data"]["action"])
            assert action.to_json() == stored["data"]["action"]
            decided = play.decide(rules, state, stored["actor"], action)
            assert decided[0] == event
        elif stored["type"] == RANDOM:
            data = stored["data"]
            outcome = rng.draw(
                seed, stored["game_id"], stored["version"], data["label"], data["kind"], data["n"]
            )
            assert outcome == data["outcome"], "the outcome recomputes from the revealed seed"
            decided = play.resolve_draw(rules, state, outcome)
            assert decided[0] == event
        elif stored["type"] == GAME_OVER:
            assert decided[-1] == event, "our rules end the game with the same outcome"
        state = play.apply(rules, state, event)
        point = points.pop(stored["version"], None)
        if point is not None:
            _agree(rules, state, point)
        else:
            assert not play.to_act(rules, state), f"someone may act at {stored['version']}"
    assert not points, "every listed point was reached"
    assert state.over and state.seed == events[-1]["data"]["seed"]


def _agree(rules: Any, state: Any, point: dict[str, Any]) -> None:
    assert list(play.to_act(rules, state)) == point["to_act"], point["version"]
    expected = {
        seat: sorted(canonical_json(a) for a in actions) for seat, actions in point["legal"].items()
    }
    assert _legal_lists(rules, state) == expected, f"legal actions at {point['version']}"
