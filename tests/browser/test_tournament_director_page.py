"""The tournament page of a directed tournament, in a real browser against a real ``floe run``.

A player opens the page with their token in its address (``#token=…``, which never reaches a
server): "Your games" shows their game (``my-game``), whose link opens the game page as their
seat; that page links back to its tournament. When their game is over and the organizer
starts the next round, the stream alone brings the new ``my-game``. The crosstable and the
organizer's decisions are drawn by the server (read without JavaScript) and by the script
(from the stream) alike; the page fits a phone. Every wait is one of Playwright's
expectations, never a sleep.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.support.browser import PHONE, Contexts, Floe

#: The page's elements as a tree, as test_tournament_page.py compares them.
TREE = """node => {
    const walk = (n) => n.nodeType === Node.TEXT_NODE
        ? n.textContent.replace(/\\s+/g, " ")
        : [n.tagName.toLowerCase(),
           [...n.attributes].map((a) => `${a.name}=${a.value}`).sort(),
           [...n.childNodes]
               .filter((c) => c.nodeType === Node.ELEMENT_NODE
                   || (c.nodeType === Node.TEXT_NODE && c.textContent.trim()))
               .map(walk)];
    return walk(node);
}"""
NAMES = ["Ada", "Bo", "Cy", "Di"]


def create(floe: Floe) -> dict[str, Any]:
    """Four people at Arktia (two turns a game), two rounds started by the organizer."""
    body = {
        "game": "arktia",
        "format": "swiss",
        "rounds": 2,
        "players": [{"name": name} for name in NAMES],
        "options": {"turn_limit": 2},
        "round_start": "manual",
    }
    created: dict[str, Any] = floe.ok("POST", "/v1/tournaments", body, token=floe.organizer)
    return created


def play_round(floe: Floe, document: dict[str, Any], tokens: list[str]) -> None:
    """Every game of the latest round, played out by its people."""
    for game in document["rounds"][-1]["games"]:
        floe.play_out(game["game_id"], [tokens[p] for p in game["players"]])


def fits_the_screen(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


def test_a_player_follows_their_games_from_the_tournament_page(
    floe: Floe, contexts: Contexts
) -> None:
    created = create(floe)
    tournament_id = created["id"]
    tokens = [p["token"] for p in created["players"]]
    here = f"/v1/tournaments/{tournament_id}"
    first = floe.ok("POST", f"{here}/rounds", token=floe.organizer)
    [game] = [g for g in first["rounds"][0]["games"] if 0 in g["players"]]
    seat = game["players"].index(0)

    page = contexts.page()
    page.goto(f"{floe.url}/tournaments/{tournament_id}#token={tokens[0]}")
    mine = page.get_by_test_id("my-game")
    expect(mine).to_have_text("Your game: round 1, table " + str(game["table"]))
    expect(mine).to_have_attribute("data-game", game["game_id"])
    expect(page.locator("#me-who")).to_have_text("You are Ada (player 0).")
    assert "token" not in page.url, "the token left the address bar"
    # (a token is URL-safe as it is: its link carries it unchanged)
    expect(mine).to_have_attribute("href", f"/games/{game['game_id']}#token={tokens[0]}")

    # the link opens the game as Ada's seat; the game links back to its tournament
    with page.expect_navigation(url=re.compile(rf"/games/{game['game_id']}")):
        mine.click()  # (waiting from before the click: the page may redraw the link meanwhile)
    expect(page.locator("#you")).to_have_text(re.compile(rf"^You play Ada \(seat {seat}"))
    back = page.get_by_test_id("tournament-link")
    expect(back).to_have_attribute("href", f"/tournaments/{tournament_id}")
    expect(back).to_have_text(f"Its tournament (round 1, table {game['table']})")
    back.click()
    page.wait_for_url(f"{floe.url}/tournaments/{tournament_id}")
    expect(page.get_by_test_id("my-game")).to_have_attribute("data-game", game["game_id"])

    # round 1 played out: no game now; the organizer starts round 2; the stream brings it
    play_round(floe, first, tokens)
    expect(page.get_by_test_id("my-game")).to_have_count(0)
    expect(page.locator("#me-now")).to_have_text(
        "Your next game is paired when the organizer starts the next round."
    )
    expect(page.get_by_test_id("my-result")).to_have_count(1)
    second = floe.ok("POST", f"{here}/rounds", token=floe.organizer)
    [later] = [g for g in second["rounds"][1]["games"] if 0 in g["players"]]
    expect(page.get_by_test_id("my-game")).to_have_attribute("data-game", later["game_id"])
    expect(page.get_by_test_id("my-game")).to_have_attribute("data-round", "2")

    # a decision and the crosstable: drawn alike by the server and by the script
    pause = {"decision": "pause", "reason": "Tea."}
    floe.ok("POST", f"{here}/decisions", pause, token=floe.organizer)
    expect(page.get_by_test_id("paused")).to_be_visible()
    expect(page.get_by_test_id("decision")).to_have_text(
        re.compile(r"^1\. pause after round 2, .* UTC: Tea\.$")
    )
    expect(page.locator("#me-now")).to_contain_text("Your game: round 2")
    expect(page.get_by_test_id("cross")).to_have_count(8)
    still = contexts.page(javascript=False)
    still.goto(f"{floe.url}/tournaments/{tournament_id}")
    expect(still.get_by_test_id("paused")).to_be_visible()
    for part in ("#crosstable", "#decisions", "#status", "#round-start", "#rounds-made"):
        assert still.locator(part).evaluate(TREE) == page.locator(part).evaluate(TREE), part
    expect(still.get_by_test_id("me")).to_be_hidden()  # the server never sees the token

    phone = contexts.page(PHONE)
    phone.goto(f"{floe.url}/tournaments/{tournament_id}#token={tokens[1]}")
    expect(phone.get_by_test_id("my-game")).to_be_visible()
    assert fits_the_screen(phone), "the tournament page is wider than a phone"


def test_a_refused_token_is_said_and_forgotten(floe: Floe, contexts: Contexts) -> None:
    created = create(floe)
    tournament_id = created["id"]
    old = created["players"][2]["token"]
    floe.ok("POST", f"/v1/tournaments/{tournament_id}/players/2/token", token=floe.organizer)
    page = contexts.page()
    page.goto(f"{floe.url}/tournaments/{tournament_id}#token={old}")
    expect(page.locator("#message")).to_contain_text("ask the organizer for a new one")
    expect(page.get_by_test_id("me")).to_be_hidden()
    stored = page.evaluate(f"localStorage.getItem('floe:tournament:{tournament_id}')")
    assert stored is None
