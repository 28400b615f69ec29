"""``GET /v1/games/{id}/board.svg``: the picture names the seats, marks the last move (the
event that made the version, as the caller may see it) and, at the end, says who won."""

from __future__ import annotations

import random
from collections.abc import Callable
from xml.etree import ElementTree

from tests.support.api import Game

NewGame = Callable[..., Game]
NS = "{http://www.w3.org/2000/svg}"


def _picture(game: Game, query: str = "") -> ElementTree.Element:
    response = game.get(f"/board.svg{query}")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    return ElementTree.fromstring(response.get_data(as_text=True))


def _said(root: ElementTree.Element, cls: str) -> str:
    found = [e for e in root.iter() if cls in (e.get("class") or "").split()]
    return " ".join(" ".join("".join(e.itertext()).split()) for e in found)


def _words(root: ElementTree.Element) -> str:
    return " ".join("".join(e.itertext()) for e in root.iter(f"{NS}text"))


def test_the_board_picture_names_seats_marks_the_move_and_says_who_won(
    new_game: NewGame,
) -> None:
    game = new_game(2, "arktia")
    first = _picture(game)
    assert "p0" in _words(first) and "p1" in _words(first)
    assert not _said(first, "last-move"), "nobody has moved yet"
    view = game.view()
    seat = view["to_act"][0]
    action = game.legal(seat)["actions"][0]
    assert game.post(seat, action, view["version"]).status_code == 201
    after = _picture(game)
    q, r = action["tile"]
    assert _said(after, "last-move").startswith(f"Last move: p{seat}: place ")
    assert f"[{q}, {r}]" in _said(after, "last-move")
    assert [e for e in after.iter() if e.get("class") == "moved"], "the placed tile is outlined"
    assert not _said(_picture(game, "?version=1"), "last-move"), "version 1: nobody moved"
    assert "(in play)" in (after.findtext(f"{NS}title") or "")
    final = game.play_randomly(random.Random(3))
    said = _said(_picture(game), "outcome")
    winners = [f"p{w}" for w in final["outcome"]["winners"]]
    assert said and all(w in said for w in winners), said
    assert not _said(_picture(game, f"?version={final['version'] - 2}"), "outcome")
