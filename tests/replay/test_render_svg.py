"""Board pictures: valid SVG, one shape per piece of the view, nothing hidden, deterministic.

Each game draws its own SVG (``GAMES[name].svg``, from the game's ``svg.py``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from domain.engine import play
from domain.engine.types import Event
from domain.games import GAMES
from tests.shared_files import conformance_games, read_jsonl

NS = "{http://www.w3.org/2000/svg}"


def _games(game: str) -> list[Path]:
    return [p for p in conformance_games() if read_jsonl(p)[0]["data"]["game"] == game]


def _fold(path: Path, version: int) -> tuple[str, Any, dict[str, Any]]:
    """The game name, the folded state and the spectator view at ``version``."""
    events = read_jsonl(path)
    game = events[0]["data"]["game"]
    rules = GAMES[game].rules
    kept = [Event(e["type"], e["actor"], e["data"]) for e in events if e["version"] <= version]
    state = play.fold(rules, events[0]["game_id"], kept)
    view: dict[str, Any] = rules.view(state.board, None)
    return game, state, view


def _versions(path: Path) -> list[int]:
    last = len(read_jsonl(path))
    return sorted({1, 2, last // 3, 2 * last // 3, last})


def _cases(game: str) -> list[tuple[Path, int]]:
    return [(p, v) for p in _games(game) for v in _versions(p)]


def svg(game: str, view: dict[str, Any], title: str) -> str:
    return GAMES[game].svg(view, title)


def _render(game: str, view: dict[str, Any], version: int) -> tuple[str, ET.Element]:
    out = svg(game, view, f"{game} · v{version}")
    assert out == svg(game, view, f"{game} · v{version}"), "rendering is deterministic"
    root = ET.fromstring(out)
    assert root.tag == f"{NS}svg"
    assert root.findtext(f"{NS}title") == f"{game} · v{version}"
    return out, root


def _classes(root: ET.Element) -> Counter[str]:
    return Counter(e.attrib["class"] for e in root.iter() if "class" in e.attrib)


def _id(case: tuple[Path, int]) -> str:
    return f"{case[0].stem}@{case[1]}"


@pytest.mark.parametrize("case", _cases("arktia"), ids=_id)
def test_arktia_draws_every_tile_hole_stack_and_piece(case: tuple[Path, int]) -> None:
    game, _, view = _fold(*case)
    _, root = _render(game, view, case[1])
    classes = _classes(root)
    controlled = len(view["stacks"])
    assert classes["tile"] + classes["tile controlled"] == len(view["tiles"])
    assert classes["tile controlled"] == controlled
    assert classes["hole"] == len(view["holes"])
    assert classes["stack"] == controlled
    sizes = Counter(p["size"] for s in view["stacks"] for p in s["pieces"])
    for size in ("G", "D", "T"):
        assert classes[f"piece {size}"] == sizes[size]
    assert classes["legend"] == len(view["players"])


def _face_up_values(root: ET.Element) -> list[str]:
    return sorted(
        g.findtext(f"{NS}text") or ""
        for g in root.iter(f"{NS}g")
        if g.attrib.get("class") == "tile face-up"
    )


@pytest.mark.parametrize("case", _cases("iceberg"), ids=_id)
def test_iceberg_shows_face_up_values_and_never_a_face_down_one(case: tuple[Path, int]) -> None:
    game, state, view = _fold(*case)
    _, root = _render(game, view, case[1])
    classes = _classes(root)
    by_state = Counter(t["state"] for t in view["tiles"])
    assert classes["tile face-down"] == by_state["face_down"]
    assert classes["tile face-up"] == by_state["face_up"]
    assert classes["hole"] == 1
    assert classes["coin"] == len(view["coins"]) + len(view["players"])  # + one key per hand
    shown = sorted(str(t["value"]) for t in view["tiles"] if t["state"] == "face_up")
    assert _face_up_values(root) == shown
    assert classes["value"] == len(shown)
    for tile in root.iter(f"{NS}g"):
        if tile.attrib.get("class") == "tile face-down":
            assert not "".join(tile.itertext()).strip(), "a face-down tile carries no text"
            assert tile.find(f".//{NS}text") is None
    if state.board.phase != "deal":
        assert len(state.board.layout) == 24, "the secret layout exists, and stayed secret"


def test_an_early_iceberg_picture_shows_no_value_at_all() -> None:
    path = _games("iceberg")[0]
    game, state, view = _fold(path, 3)
    assert state.board.layout and not state.board.face_up
    _, root = _render(game, view, 3)
    classes = _classes(root)
    assert classes["tile face-down"] == 24 and classes["tile face-up"] == 0
    assert classes["value"] == 0 and classes["suit"] == 0


@pytest.mark.parametrize("case", _cases("ice-breakers"), ids=_id)
def test_ice_breakers_draws_cells_harbors_and_ships(case: tuple[Path, int]) -> None:
    game, _, view = _fold(*case)
    _, root = _render(game, view, case[1])
    classes = _classes(root)
    sides = Counter(c["side"] for c in view["channels"])
    assert classes["cell ice"] == sides["ice"]
    assert classes["cell water"] == sides["water"]
    assert sum(n for k, n in classes.items() if k.split()[0] == "harbor") == len(
        view["destinations"]
    )
    assert classes["harbor-number"] == len(view["destinations"])
    afloat = [s for s in view["ships"] if s["cell"] is not None]
    pinned = sum(1 for s in afloat if s["pinned"])
    assert classes["ship"] + classes["ship pinned"] == len(afloat)
    assert classes["ship pinned"] == classes["pin"] == pinned
    assert classes["hand"] >= len(view["hands"])
    values = sorted(
        g.findtext(f"{NS}text") or ""
        for g in root.iter(f"{NS}g")
        if g.attrib.get("class", "").startswith("cell ")
    )
    assert values == sorted(str(c["value"]) for c in view["channels"])


def test_every_hosted_game_draws_itself() -> None:
    """Pictures come with the game: every bundle has both, and none is shared by mistake."""
    assert len({game.svg for game in GAMES.values()}) == len(GAMES)
    assert len({game.text for game in GAMES.values()}) == len(GAMES)


def test_text_is_escaped() -> None:
    _, _, view = _fold(_games("arktia")[0], 5)
    root = ET.fromstring(svg("arktia", view, '<b>&"x"</b>'))
    assert root.findtext(f"{NS}title") == '<b>&"x"</b>'
