"""Board pictures: valid SVG, one shape per piece of the view, nothing hidden, deterministic,
and readable: seat names, coordinates, the last move, the winners, a key to what is drawn.

Each game draws its own SVG (``GAMES[name].svg``, from the game's ``svg.py``) from a
``Scene``: the view, the seat names, the last action and the outcome.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from domain.engine.game import Scene
from domain.games import GAMES
from tests.support.scenes import (
    CODE,
    NAMES,
    Reference,
    bracket,
    pairs,
    reference,
    references,
)

NS = "{http://www.w3.org/2000/svg}"


def _versions(ref: Reference) -> list[int]:
    last = ref.last
    return sorted({1, 2, last // 3, 2 * last // 3, last})


def _cases(game: str) -> list[tuple[Path, int]]:
    return [(p, v) for p in references(game) for v in _versions(reference(p))]


def _fold(path: Path, version: int) -> tuple[Reference, Any, dict[str, Any]]:
    """The folded game, the state and the spectator view at ``version``."""
    ref = reference(path)
    return ref, ref.states[version - 1], ref.scene(version).view


def _render(ref: Reference, version: int) -> tuple[str, ET.Element]:
    title = f"{ref.game} · v{version}"
    out = ref.svg(version, title)
    assert out == ref.svg(version, title), "rendering is deterministic"
    root = ET.fromstring(out)
    assert root.tag == f"{NS}svg"
    assert root.findtext(f"{NS}title") == title
    return out, root


def _classes(root: ET.Element) -> Counter[str]:
    return Counter(e.attrib["class"] for e in root.iter() if "class" in e.attrib)


def _id(case: tuple[Path, int]) -> str:
    return f"{case[0].stem}@{case[1]}"


def _words(root: ET.Element) -> str:
    """Every text people read in the picture but the caller's title (its first two texts)."""
    texts = [e for e in root.iter() if e.tag in (f"{NS}text", f"{NS}title")]
    return "\n".join("".join(e.itertext()) for e in texts[2:])


def _by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in e.attrib.get("class", "").split()]


def _text_of(root: ET.Element, cls: str) -> str:
    return " ".join(" ".join("".join(e.itertext()).split()) for e in _by_class(root, cls))


@pytest.mark.parametrize("case", _cases("arktia"), ids=_id)
def test_arktia_draws_every_tile_hole_stack_and_piece(case: tuple[Path, int]) -> None:
    ref, _, view = _fold(*case)
    _, root = _render(ref, case[1])
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
    ref, state, view = _fold(*case)
    _, root = _render(ref, case[1])
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
    ref = reference(references("iceberg")[0])
    state = ref.states[2]
    assert state.board.layout and not state.board.face_up
    _, root = _render(ref, 3)
    classes = _classes(root)
    assert classes["tile face-down"] == 24 and classes["tile face-up"] == 0
    assert classes["value"] == 0 and classes["suit"] == 0


@pytest.mark.parametrize("case", _cases("ice-breakers"), ids=_id)
def test_ice_breakers_draws_cells_harbors_and_ships(case: tuple[Path, int]) -> None:
    ref, _, view = _fold(*case)
    _, root = _render(ref, case[1])
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


def test_ice_breakers_shows_the_report_stack_only_once_over() -> None:
    ref = reference(references("ice-breakers")[0])
    before = _words(ET.fromstring(ref.svg(ref.last // 2)))
    after = _words(ET.fromstring(ref.svg(ref.last)))
    assert "Ice reports, in order" not in before and "Ice reports, in order" in after


def test_every_hosted_game_draws_itself() -> None:
    """Pictures come with the game: every bundle has both, and none is shared by mistake."""
    assert len({game.svg for game in GAMES.values()}) == len(GAMES)
    assert len({game.text for game in GAMES.values()}) == len(GAMES)


def test_text_is_escaped() -> None:
    ref = reference(references("arktia")[0])
    root = ET.fromstring(ref.svg(5, '<b>&"x"</b>'))
    assert root.findtext(f"{NS}title") == '<b>&"x"</b>'


# ----- readable pictures -------------------------------------------------------------------


def _expected_outcome(ref: Reference) -> list[str]:
    """What the final picture must say: the winners by name and the scores, or the team's fate."""
    outcome = ref.states[-1].outcome
    assert outcome is not None
    names = ref.names()
    if ref.game == "ice-breakers":
        extra = outcome.extra
        fate = "The team wins" if outcome.winners else "The team loses"
        return [fate, f"{extra['delivered']} of {extra['in_play']} ships delivered"]
    winners = [names[w] for w in outcome.winners]
    said = [*winners, "wins" if len(winners) == 1 else "share the win"]
    if outcome.scores:
        order = list(outcome.winners) + sorted(
            (s for s in outcome.scores if s not in outcome.winners),
            key=lambda s: (-outcome.scores[s], s),
        )
        said.append("\u2013".join(str(outcome.scores[s]) for s in order))
    return said


@pytest.mark.parametrize("path", references(), ids=lambda p: p.stem)
def test_the_final_picture_names_the_winners_and_scores(path: Path) -> None:
    ref = reference(path)
    _, root = _render(ref, ref.last)
    said = _text_of(root, "outcome")
    assert said, "the final picture says how the game ended"
    for words in _expected_outcome(ref):
        assert words in said, (words, said)
    if ref.game == "arktia":  # "Ann wins 7–5": the winner's name, then the scores
        (winner,) = ref.states[-1].outcome.winners  # type: ignore[union-attr]
        assert re.fullmatch(rf"{re.escape(ref.names()[winner])} wins \d+(–\d+)+", said), said
    early = ET.fromstring(ref.svg(ref.last // 2))
    assert not _by_class(early, "outcome"), "no outcome before the end"


def test_a_shared_win_and_a_team_success_are_said_as_such() -> None:
    iceberg = reference(next(p for p in references("iceberg") if "3p-draw" in p.name))
    root = ET.fromstring(iceberg.svg(iceberg.last))
    assert _text_of(root, "outcome") == "player 1 and player 2 share the win"
    success = reference(next(p for p in references("ice-breakers") if "success" in p.name))
    root = ET.fromstring(success.svg(success.last))
    assert _text_of(root, "outcome") == "The team wins: 6 of 6 ships delivered in 9 turns"


def _coords(root: ET.Element, cls: str = "coord") -> list[str]:
    return ["".join(e.itertext()) for e in _by_class(root, cls)]


@pytest.mark.parametrize("path", references("arktia"), ids=lambda p: p.stem)
def test_arktia_labels_every_hex_with_its_q_r(path: Path) -> None:
    ref = reference(path)
    for version in (2, ref.last):
        view = ref.scene(version).view
        _, root = _render(ref, version)
        labels = sorted(_coords(root))
        assert labels == sorted(f"{q},{r}" for q, r in view["tiles"] + view["holes"])


def test_iceberg_labels_tiles_and_squares_on_both_axes() -> None:
    ref = reference(references("iceberg")[0])
    _, root = _render(ref, ref.last // 2)
    assert sorted(_coords(root, "tile-coord")) == sorted(str(i) for i in range(5) for _ in "xy")
    assert sorted(_coords(root, "square-coord")) == sorted(str(i) for i in range(10) for _ in "xy")


def test_ice_breakers_labels_columns_and_rows() -> None:
    ref = reference(references("ice-breakers")[0])
    _, root = _render(ref, ref.last // 2)
    assert sorted(_coords(root), key=int) == sorted(
        [str(x) for x in range(13)] + [str(y) for y in range(10)], key=int
    )


def test_arktia_has_a_legend_of_piece_sizes() -> None:
    ref = reference(references("arktia")[0])
    _, root = _render(ref, ref.last // 2)
    (legend,) = _by_class(root, "size-legend")
    words = " ".join("".join(legend.itertext()).split())
    for size in ("T Torus", "D Diskus", "G Globus"):
        assert size in words
    assert len(_by_class(legend, "size-key")) == 3, "each size drawn as on the board"


@pytest.mark.parametrize("path", references(), ids=lambda p: p.stem)
def test_seats_are_named_not_numbered(path: Path) -> None:
    names = ('Ann <the "first"> & co', *NAMES[1:])
    ref = reference(path, names)
    for version in (2, ref.last // 2, ref.last):
        out = ref.svg(version)
        words = _words(ET.fromstring(out))
        for seat in range(len(ref.names())):
            assert ref.names()[seat] in words, (seat, version)
        assert not re.search(r"\bseat \d", words), words
    assert "&lt;the" in out and "<the" not in out, "names are escaped"


def _action_cases() -> list[tuple[Path, int]]:
    """Per reference game: its first actions, a few in the middle and its last action."""
    cases = []
    for path in references():
        ref = reference(path)
        acted = [v for v in range(1, ref.last + 1) if ref.is_action(v)]
        picked = {*acted[:3], *acted[len(acted) // 2 : len(acted) // 2 + 6], acted[-1]}
        cases += [(path, v) for v in sorted(picked)]
    return cases


@pytest.mark.parametrize("case", _action_cases(), ids=_id)
def test_the_last_move_is_marked(case: tuple[Path, int]) -> None:
    path, version = case
    ref = reference(path, NAMES[: len(reference(path).names())])
    _, root = _render(ref, version)
    event = ref.event(version)
    said = _text_of(root, "last-move")
    assert said.startswith(f"Last move: {ref.names()[event['actor']]}: "), said
    action = event["data"]["action"]
    cells = _named_cells(action)
    for xy in cells:
        assert bracket(xy) in said, (xy, said)
    if cells:
        assert _by_class(root, "moved"), "the cells the move names are outlined"
    if "card" in action:
        assert action["card"] in said, "cards by the ids actions use"
    before = ET.fromstring(ref.svg(version - 1)) if not ref.is_action(version - 1) else None
    if before is not None:
        assert not _by_class(before, "last-move") and not _by_class(before, "moved")


def _named_cells(action: dict[str, Any]) -> list[list[int]]:
    return pairs({k: v for k, v in action.items() if k != "type"})


@pytest.mark.slow
@pytest.mark.parametrize("path", references(), ids=lambda p: p.stem)
def test_no_code_or_repr_is_shown_and_every_version_is_well_formed(path: Path) -> None:
    """Over every version: parseable SVG, and no ``snake_case`` code in what people read."""
    ref = reference(path)
    for version in range(1, ref.last + 1):
        words = _words(ET.fromstring(ref.svg(version)))
        assert not CODE.search(words), (version, CODE.findall(words))
        assert "{'" not in words and "[{" not in words, version


def test_equal_scenes_draw_the_same_bytes() -> None:
    for path in references():
        ref = reference(path)
        scene = ref.scene(ref.last // 2)
        again = Scene.of(
            dict(scene.view),
            names=scene.names,
            event=ref.event(ref.last // 2),
            outcome=scene.outcome,
            title=scene.title,
        )
        assert GAMES[ref.game].svg(scene) == GAMES[ref.game].svg(again)
