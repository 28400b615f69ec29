"""The tournament page in a real browser, against a real ``floe run`` and its workers.

A Swiss tournament of bots is followed from its page until it is finished: round 2 and the
end arrive by the tournament's stream (the page is never reloaded) and its standings end equal
to the API's (places, points, a column per tie-break, and the line saying which tie-breaks
order equal points); what the server draws (read without JavaScript) and what the script
redraws from the stream are the same elements; its game and replay links open the right
games. A tournament of the first rules (version 1) shows Buchholz alone. A name with HTML in
it is shown as text by both. Every wait is one of Playwright's expectations, never a sleep.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask, render_template
from playwright.sync_api import Page, Route, expect

from domain.tournament import v1
from domain.tournament.standings import GameResult, as_json_number
from service.api.page_answers import POLICY
from service.api.pages import pages
from tests.support.browser import (
    PHONE,
    Contexts,
    Floe,
    create_tournament,
    directed_tournament,
    drawn_alike,
    fits_the_screen,
    play_round,
    standings_of,
    standings_shown,
    start_round,
)
from tests.support.waiting import AT_LENGTH

BOTS = ("random", "greedy")
#: A whole tournament of bots takes a few seconds on the workers; this is plenty, even on a
#: busy machine (the expectation is met as soon as the page says "finished").
FINISH_MS = int(AT_LENGTH * 1000)
#: The standings' columns and the line under them, for the default tie-breaks.
DEFAULT_COLUMNS = [
    "Place",
    "Player",
    "Points",
    "Buchholz cut 1",
    "Sonneborn-Berger",
    "Direct encounter",
    "Wins",
]
DEFAULT_RULE = (
    "A win is worth 1 point (shared by joint winners), a bye 1. Equal points are ordered by"
    " Buchholz cut 1, then Sonneborn-Berger, then Direct encounter, then Wins (more is"
    " better); players equal on all of them share a place. Names never decide."
)
#: What the server and the script both draw from the document, compared element by element.
DRAWN = (
    "#standings-head",
    "#standings",
    "#tiebreak-rule",
    "#players-count",
    "#rounds",
    "#status",
    "#rounds-made",
)


def bots(count: int) -> list[dict[str, Any]]:
    return [{"name": f"bot{i}", "bot": BOTS[i % 2]} for i in range(count)]


def create(floe: Floe, players: list[dict[str, Any]], rounds: int) -> dict[str, Any]:
    """A Swiss tournament of Iceberg at tables of two."""
    return create_tournament(floe, "iceberg", players, rounds, table_size=2)


def games_shown(page: Page) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = page.get_by_test_id("tournament-game").evaluate_all(
        """games => games.map((game) => ({
            game_id: game.dataset.game,
            status: game.dataset.status,
            players: [...game.querySelectorAll(".seated .player-name")].map((n) => n.textContent),
            outcome: (game.querySelector("[data-testid=game-outcome]") || {}).textContent || null,
        }))"""
    )
    return games


def winners(document: dict[str, Any], game: dict[str, Any]) -> list[str]:
    """The names of a finished game's winners (its outcome names seats)."""
    return [
        document["players"][game["players"][seat]]["name"] for seat in game["outcome"]["winners"]
    ]


def winners_words(document: dict[str, Any], game: dict[str, Any]) -> str:
    return f"won by {', '.join(winners(document, game)) or 'nobody'}"


def shows_the_winners(page: Page, document: dict[str, Any], game: dict[str, Any]) -> None:
    """The game page (or its replay) names the same winners, each with its seat."""
    outcome = page.get_by_test_id("outcome")
    expect(outcome).to_contain_text("winners: ")
    for seat in game["outcome"]["winners"] or [None]:
        if seat is None:
            expect(outcome).to_contain_text("winners: nobody")
        else:
            player = document["players"][game["players"][seat]]
            expect(outcome).to_contain_text(f"{player['name']} (seat {seat}")


def test_a_bot_tournament_is_followed_from_its_page_until_it_is_finished(
    floe: Floe, contexts: Contexts
) -> None:
    created = create(floe, bots(5), rounds=2)
    tournament_id = created["id"]
    url = f"{floe.url}/tournaments/{tournament_id}"
    page = contexts.page()
    response = page.goto(url)
    assert response is not None and response.status == 200
    assert 'data-status="running"' in response.text(), "it finished before its page opened"
    page.evaluate("window.floeLoadedOnce = true")

    # at once: the title, the commitments, the standings and round 1 (player 4 has the bye)
    expect(page.locator("#title")).to_have_text(
        re.compile(r"^Iceberg · Swiss tournament (running|finished)$")
    )
    expect(page.get_by_test_id("commitment")).to_have_text(created["commitment"])
    expect(page.get_by_test_id("roster-commitment")).to_have_text(created["roster_commitment"])
    expect(page.get_by_test_id("seed-commitment")).to_have_text(created["seed_commitments"])
    expect(page.get_by_test_id("standing")).to_have_count(5)
    expect(page.locator("#standings-head th")).to_have_text(DEFAULT_COLUMNS)
    expect(page.get_by_test_id("tiebreak-rule")).to_have_text(DEFAULT_RULE)
    expect(page.get_by_test_id("players-count")).to_have_text("5")
    first = page.locator('[data-testid=round][data-round="1"]')
    expect(first).to_be_visible()
    expect(first.get_by_test_id("tournament-game")).to_have_count(2)
    assert [g["game_id"] for g in games_shown(page)[:2]] == [
        g["game_id"] for g in created["rounds"][0]["games"]
    ]
    expect(first.get_by_test_id("byes")).to_have_text("Bye (1 point): bot4 (random bot)")
    expect(page.get_by_test_id("export")).to_be_hidden()

    # then, fed by the stream alone: round 2, every game over, and the end
    expect(page.get_by_test_id("status")).to_have_text("finished", timeout=FINISH_MS)
    expect(page.get_by_test_id("tournament")).to_have_attribute("data-change", re.compile(r"^\d+$"))
    expect(page.get_by_test_id("round")).to_have_count(2)
    expect(page.get_by_test_id("rounds-made")).to_have_text("2 of 2")
    expect(page.get_by_test_id("tournament-game")).to_have_count(4)
    expect(page.locator("[data-testid=tournament-game]:not([data-status=over])")).to_have_count(0)
    expect(page.get_by_test_id("export")).to_have_attribute(
        "href", f"/v1/tournaments/{tournament_id}/export"
    )
    expect(page.locator("#live")).to_have_text("")
    assert page.evaluate("window.floeLoadedOnce") is True, "the page was reloaded"

    final = floe.ok("GET", f"/v1/tournaments/{tournament_id}")
    assert final["status"] == "finished"
    assert final["tiebreaks"] == ["buchholz_cut1", "sonneborn_berger", "direct_encounter", "wins"]
    assert standings_shown(page) == standings_of(final)
    assert games_shown(page) == [
        {
            "game_id": g["game_id"],
            "status": "over",
            "players": [final["players"][p]["name"] for p in g["players"]],
            "outcome": winners_words(final, g),
        }
        for r in final["rounds"]
        for g in r["games"]
    ]

    # what the server draws is what the script drew from the stream
    still = contexts.page(javascript=False)
    still.goto(url)
    expect(still.get_by_test_id("status")).to_have_text("finished")
    drawn_alike(still, page, DRAWN)
    expect(still.locator("#standings-head th")).to_have_text(DEFAULT_COLUMNS)
    expect(still.get_by_test_id("export")).to_be_visible()

    # the links open the right games
    game = final["rounds"][1]["games"][0]
    page.get_by_role("link", name="Game of round 2, table 1", exact=True).click()
    page.wait_for_url(f"{floe.url}/games/{game['game_id']}")
    expect(page.locator("#title")).to_contain_text(game["game_id"])
    expect(page.get_by_test_id("status")).to_have_text("over")
    shows_the_winners(page, final, game)
    page.go_back()
    expect(page.get_by_test_id("status")).to_have_text("finished")
    game = final["rounds"][0]["games"][1]
    page.get_by_role("link", name="Replay of round 1, table 2", exact=True).click()
    page.wait_for_url(f"{floe.url}/games/{game['game_id']}/replay")
    expect(page.locator("#title")).to_contain_text(game["game_id"])
    shows_the_winners(page, final, game)


def test_a_name_with_html_is_shown_as_text(floe: Floe, contexts: Contexts) -> None:
    """By the server (read without JavaScript) and by the script (from the stream)."""
    name = "<b>x</b>"
    created = create(floe, [{"name": name}, *bots(3)], rounds=1)
    url = f"{floe.url}/tournaments/{created['id']}"
    status, html = floe.raw("GET", f"/tournaments/{created['id']}")
    assert status == 200
    assert "&lt;b&gt;x&lt;/b&gt;" in html.decode() and name not in html.decode()
    bots_game = created["rounds"][0]["games"][1]["game_id"]  # bot2 against bot3: it ends

    still = contexts.page(javascript=False)
    still.goto(url)
    live = contexts.page()
    live.goto(url)
    tournament = live.get_by_test_id("tournament")
    expect(tournament).to_have_attribute("data-change", re.compile(r"^\d+$"))  # drawn by the script
    expect(live.locator(f'[data-game="{bots_game}"]')).to_have_attribute("data-status", "over")
    expect(live.get_by_test_id("status")).to_have_text("running")  # nobody plays for <b>x</b>
    for page in (still, live):
        expect(page.locator('[data-testid=standing][data-player="0"] .player-name')).to_have_text(
            name
        )
        seated = page.get_by_test_id("tournament-game").first.locator(".player-name").first
        expect(seated).to_have_text(name)
        expect(page.locator("main b").filter(has_text=re.compile(r"^x$"))).to_have_count(0)


def test_an_unknown_tournament_is_404_and_the_page_fits_a_phone(
    floe: Floe, contexts: Contexts
) -> None:
    for path in (
        "/tournaments/0123456789abcdef",  # no such tournament
        "/tournaments/0123456789ABCDEF",  # not an id at all
        "/tournaments/0123",
        "/tournaments/0123456789abcdef0",
    ):
        status, _ = floe.raw("GET", path)
        assert status == 404, path
    created = create(floe, bots(4), rounds=1)
    page = contexts.page(PHONE)
    response = page.goto(f"{floe.url}/tournaments/{created['id']}")
    assert response is not None and response.status == 200
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'self'" in policy
    expect(page.get_by_test_id("standing")).to_have_count(4)
    expect(page.locator('a[href="/docs"]').first).to_be_visible()
    page.locator("summary", has_text="Seed commitments").click()  # the <details> opens
    expect(page.get_by_test_id("seed-commitment").first).to_be_visible()
    assert fits_the_screen(page), "the tournament page is wider than a phone"


def as_first_rules(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` as the service gives it for a tournament stored before rules had versions
    (rules version 1): no tie-breaks, no late entries, no ratings, no roster committed;
    standings by points, then Buchholz, then name, every place its own
    (``domain.tournament.v1``)."""
    names = [p["name"] for p in document["players"]]
    results = [
        GameResult(tuple(g["players"]), tuple(g["outcome"]["winners"]))
        for r in document["rounds"]
        for g in r["games"]
        if g["outcome"] is not None
    ]
    byes = [p for r in document["rounds"] for p in r["byes"]]
    standings = [
        {
            "player": s.player,
            "name": s.name,
            "place": str(place),
            "points": as_json_number(s.points),
            "buchholz": as_json_number(s.buchholz),
            "tiebreaks": {},
        }
        for place, s in enumerate(v1.standings(names, results, byes), start=1)
    ]
    return {
        **document,
        "rules_version": "1",
        "tiebreaks": [],
        "max_players": len(names),
        "roster_commitment": None,
        "players": [{**p, "rating": None} for p in document["players"]],
        "standings": standings,
    }


def serve(page: Page, floe: Floe, shown: dict[str, Any], streamed: dict[str, Any]) -> None:
    """``page`` gets the tournament's page drawn by the service's own template from
    ``shown``, and its stream sends ``streamed`` (then nothing for ten minutes)."""
    app = Flask(__name__)
    app.register_blueprint(pages)
    with app.app_context():
        html = render_template("tournament.html", t=shown)

    def send_page(route: Route) -> None:
        headers = {"Content-Security-Policy": POLICY}
        route.fulfill(content_type="text/html; charset=utf-8", headers=headers, body=html)

    def send_stream(route: Route) -> None:
        body = f"retry: 600000\n\nid: 1\nevent: tournament\ndata: {json.dumps(streamed)}\n\n"
        route.fulfill(content_type="text/event-stream", body=body)

    here = f"{floe.url}/tournaments/{shown['id']}"
    page.route(here, send_page)
    page.route(f"{floe.url}/v1/tournaments/{shown['id']}/stream", send_stream)


def test_a_tournament_of_the_first_rules_shows_buchholz_alone(
    floe: Floe, contexts: Contexts
) -> None:
    """No tournament of rules version 1 can be made any more: the page of a real one is
    drawn (by the template, then by the script from the stream) from its documents made as
    the service makes them for a tournament stored before rules had versions."""
    created = directed_tournament(floe, ["Di", "Cy", "Bo", "Ada"], rounds=1)
    tokens = [p["token"] for p in created["players"]]
    started = start_round(floe, created["id"])
    play_round(floe, started, tokens)
    played = as_first_rules(floe.ok("GET", f"/v1/tournaments/{created['id']}"))
    url = f"{floe.url}/tournaments/{created['id']}"

    still = contexts.page(javascript=False)
    serve(still, floe, played, played)
    still.goto(url)
    live = contexts.page()
    serve(live, floe, as_first_rules(started), played)
    live.goto(url)
    expect(live.get_by_test_id("tournament")).to_have_attribute("data-change", "1")
    for page in (still, live):
        expect(page.locator("#standings-head th")).to_have_text(
            ["Place", "Player", "Points", "Buchholz"]
        )
        expect(page.get_by_test_id("tiebreak-rule")).to_have_text(
            "A win is worth 1 point (shared by joint winners), a bye 1. Equal points go to the"
            " higher Buchholz (the sum of each opponent's points), then to the name: this"
            " tournament keeps the first rules (version 1)."
        )
        expect(page.get_by_test_id("players-count")).to_have_text("4")
        expect(page.get_by_test_id("roster-commitment")).to_have_text(
            "The players listed were not committed: the tournament was made before rosters were."
        )
        assert standings_shown(page) == standings_of(played)
    drawn_alike(still, live, DRAWN)
