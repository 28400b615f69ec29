"""Text pictures people can read: 80 columns, names not numbers, words not codes or reprs,
cards by the ids actions and events use, the last move and the outcome said in words.

Checked over every version of every reference game (``GAMES[name].text``).
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from domain.games import GAMES
from domain.pictures.words import visible_len
from tests.support.scenes import CODE, NAMES, REPR, bracket, pairs, reference, references

ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: A Coast Guard card's kind as a bare code (``P5 R3``): cards read as words (``Power 5 (c01)``).
BARE_KIND = re.compile(r"\b(?:P(?:5|7|10)|R3|B1|AB2)\b")
CARD_ID = re.compile(r"\bc\d\d\b")


def _paths() -> list[Path]:
    return references()


def _stem(path: Path) -> str:
    return path.stem


@pytest.mark.parametrize("path", _paths(), ids=_stem)
def test_every_line_fits_80_columns_and_shows_no_code_or_repr(path: Path) -> None:
    ref = reference(path)
    for version in range(1, ref.last + 1):
        lines = ref.text(version)
        wide = [line for line in lines if len(line) > 80]
        assert not wide, (version, wide)
        joined = "\n".join(lines)
        assert not CODE.search(joined), (version, CODE.findall(joined))
        assert not REPR.search(joined), (version, REPR.findall(joined))
        assert "\x1b" not in joined


@pytest.mark.parametrize("path", _paths(), ids=_stem)
def test_colour_only_paints_the_same_lines(path: Path) -> None:
    ref = reference(path)
    for version in sorted({2, ref.last // 2, ref.last}):
        plain, painted = ref.text(version), ref.text(version, True)
        assert [ANSI.sub("", line) for line in painted] == plain
        assert all(visible_len(line) <= 80 for line in painted)


@pytest.mark.parametrize("path", _paths(), ids=_stem)
def test_seats_are_named(path: Path) -> None:
    names = ("Annabel Lee", *NAMES[1:])
    ref = reference(path, names)
    for version in sorted({2, ref.last // 2, ref.last}):
        joined = "\n".join(ref.text(version))
        for name in ref.names():
            assert name in joined, (name, version)
        assert not re.search(r"\bseat \d", joined), joined


@pytest.mark.parametrize("path", _paths(), ids=_stem)
def test_the_last_move_is_said_in_the_words_actions_use(path: Path) -> None:
    ref = reference(path, NAMES[: len(reference(path).names())])
    for version in range(2, ref.last + 1):
        joined = " ".join(" ".join(ref.text(version)).split())
        if not ref.is_action(version):
            assert "Last move:" not in joined
            continue
        event = ref.event(version)
        said = joined.split("Last move: ", 1)[1]
        assert said.startswith(f"{ref.names()[event['actor']]}: "), said[:80]
        action = event["data"]["action"]
        for xy in pairs({k: v for k, v in action.items() if k != "type"}):
            assert bracket(xy) in said, (version, xy, said[:120])
        if "card" in action:
            assert action["card"] in said, (version, action, said[:80])


@pytest.mark.parametrize("path", _paths(), ids=_stem)
def test_the_outcome_is_said_in_words(path: Path) -> None:
    ref = reference(path)
    final = "\n".join(ref.text(ref.last))
    assert "Result: " in final
    result = final.split("Result: ", 1)[1].splitlines()[0]
    outcome = ref.states[-1].outcome
    assert outcome is not None
    if ref.game == "ice-breakers":
        assert result.startswith("The team wins" if outcome.winners else "The team loses")
    else:
        for winner in outcome.winners:
            assert ref.names()[winner] in result
    if outcome.scores:
        assert "\u2013".join(str(outcome.scores[w]) for w in outcome.winners) in result
    assert "Result: " not in "\n".join(ref.text(ref.last // 2))


@pytest.mark.parametrize("path", references("ice-breakers"), ids=_stem)
def test_cards_are_shown_by_the_ids_events_use(path: Path) -> None:
    ref = reference(path)
    for version in range(1, ref.last + 1):
        lines = ref.text(version)
        joined = "\n".join(lines)
        assert not BARE_KIND.search(joined), (version, BARE_KIND.findall(joined))
        view = ref.scene(version).view
        for hand in view["hands"]:
            (line,) = [li for li in lines if f"{ref.names()[hand['seat']]} holds" in li]
            held = " ".join(
                li for li in lines[lines.index(line) :] if li == line or li.startswith("    ")
            )
            assert CARD_ID.findall(held)[: len(hand["cards"])] == [c["id"] for c in hand["cards"]]
        action = ref.event(version)["data"].get("action") or {}
        if "card" in action:  # the card played was in hand, by the same id, just before
            before = "\n".join(ref.text(version - 1))
            assert action["card"] in before


def _pending_versions(kind: str) -> list[tuple[Path, int]]:
    found = []
    for path in references("ice-breakers"):
        ref = reference(path)
        for version in range(1, ref.last + 1):
            pending = ref.scene(version).view.get("pending")
            if pending and pending["type"] == kind:
                found.append((path, version))
    return found


def test_a_pending_gift_is_said_in_words() -> None:
    gifts = _pending_versions("give")
    assert gifts, "the reference games give cards out"
    for path, version in gifts[:20]:
        ref = reference(path)
        pending = ref.scene(version).view["pending"]
        lines = ref.text(version)
        (start,) = [i for i, line in enumerate(lines) if line.startswith("Now: ")]
        end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("    "))
        now = " ".join(" ".join(lines[start:end]).split())
        who = ref.names()[pending["seat"]]
        assert now.startswith(f"Now: {who} gives out "), now
        assert [c["id"] for c in pending["cards"]] == CARD_ID.findall(now)
        assert not re.search(r"[{}'\[\]]", now), now


@pytest.mark.parametrize("code", ["no_action", "cannot_melt", "too_few", "retired", "turn_limit"])
def test_arktia_says_in_words_why_a_seat_is_out(code: str) -> None:
    """Every ``ended`` code of the view reads as words, in the text and in the SVG."""
    ref = reference(references("arktia")[0])
    scene = ref.scene(ref.last // 2)
    players = [{**p, "ended": code} for p in scene.view["players"]]
    scene = dataclasses.replace(scene, view={**scene.view, "players": players})
    game = GAMES["arktia"]
    text = "\n".join(game.text(scene, False))
    assert not CODE.search(text), CODE.findall(text)
    root = ET.fromstring(game.svg(scene))
    words = "\n".join("".join(e.itertext()) for e in root.iter() if e.tag.endswith("text"))
    assert not CODE.search(words), CODE.findall(words)
