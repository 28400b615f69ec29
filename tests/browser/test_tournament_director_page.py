"""The tournament page of a directed tournament, in a real browser against a real ``floe run``.

A player opens the page with their token in its address (``#token=…``, which never reaches a
server): "Your games" shows their game (``my-game``), whose link opens the game page as their
seat; that page links back to its tournament. When their game is over and the organizer
starts the next round, the stream alone brings the new ``my-game``. The crosstable and the
organizer's decisions are drawn by the server (read without JavaScript) and by the script
(from the stream) alike; the page fits a phone.

The organizer corrects a finished game, withdraws a player and enters one late while the
page is open: the stream brings each (the correction beside the game, the withdrawn player
marked, the new player in the standings, every decision in words), and a page opened
afterwards (with and without JavaScript) shows the same. Every wait is one of Playwright's
expectations, armed before the change it waits for, never a sleep.
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.support.browser import (
    PHONE,
    Contexts,
    Floe,
    decide,
    directed_tournament,
    drawn_alike,
    fits_the_screen,
    play_round,
    redrawn,
    standings_of,
    standings_shown,
    start_round,
)

NAMES = ["Ada", "Bo", "Cy", "Di"]


def compact(value: Any) -> str:
    """JSON as the page writes it in its attributes (``JSON.stringify``)."""
    return json.dumps(value, separators=(",", ":"))


def test_a_player_follows_their_games_from_the_tournament_page(
    floe: Floe, contexts: Contexts
) -> None:
    created = directed_tournament(floe, NAMES)
    tournament_id = created["id"]
    tokens = [p["token"] for p in created["players"]]
    first = start_round(floe, tournament_id)
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
    second = start_round(floe, tournament_id)
    [later] = [g for g in second["rounds"][1]["games"] if 0 in g["players"]]
    expect(page.get_by_test_id("my-game")).to_have_attribute("data-game", later["game_id"])
    expect(page.get_by_test_id("my-game")).to_have_attribute("data-round", "2")

    # a decision and the crosstable: drawn alike by the server and by the script
    pause = {"decision": "pause", "reason": "Tea."}
    decide(floe, tournament_id, pause)
    expect(page.get_by_test_id("paused")).to_be_visible()
    expect(page.get_by_test_id("decision")).to_have_text(
        re.compile(r"^1\. pause after round 2, .* UTC: Tea\.$")
    )
    expect(page.locator("#me-now")).to_contain_text("Your game: round 2")
    expect(page.get_by_test_id("cross")).to_have_count(8)
    still = contexts.page(javascript=False)
    still.goto(f"{floe.url}/tournaments/{tournament_id}")
    expect(still.get_by_test_id("paused")).to_be_visible()
    drawn_alike(
        still, page, ("#crosstable", "#decisions", "#status", "#round-start", "#rounds-made")
    )
    expect(still.get_by_test_id("me")).to_be_hidden()  # the server never sees the token

    phone = contexts.page(PHONE)
    phone.goto(f"{floe.url}/tournaments/{tournament_id}#token={tokens[1]}")
    expect(phone.get_by_test_id("my-game")).to_be_visible()
    assert fits_the_screen(phone), "the tournament page is wider than a phone"


def test_a_player_on_a_phone_plays_their_game_from_the_tournament_page(
    floe: Floe, contexts: Contexts
) -> None:
    """From the tournament page to a move: the player to act taps "Your game", taps a place
    on the board, picks the move the board narrowed the list to, and the game moves on."""
    created = directed_tournament(floe, NAMES)
    tokens = [p["token"] for p in created["players"]]
    first = start_round(floe, created["id"])
    game = first["rounds"][0]["games"][0]
    view = floe.ok("GET", f"/v1/games/{game['game_id']}")
    player = game["players"][view["to_act"][0]]
    legal = floe.ok("GET", f"/v1/games/{game['game_id']}/legal-actions", token=tokens[player])
    action = legal["actions"][0]

    phone = contexts.page(PHONE)
    phone.goto(f"{floe.url}/tournaments/{created['id']}#token={tokens[player]}")
    with phone.expect_navigation(url=re.compile(rf"/games/{game['game_id']}")):
        phone.get_by_test_id("my-game").click()
    expect(phone.locator("#you")).to_contain_text(f"You play {NAMES[player]}")
    expect(phone.get_by_test_id("version")).to_have_text(str(view["version"]))
    phone.locator(f"#board [data-pick='{compact(action['tile'])}']").first.click()
    expect(phone.locator("#board")).to_have_attribute("data-picked", "1")
    listed = phone.locator(f"[data-testid=legal-action][data-action='{compact(action)}']")
    listed.click()
    expect(phone.get_by_test_id("version")).to_have_text(str(view["version"] + 1))
    moved = floe.ok("GET", f"/v1/games/{game['game_id']}/events?after={view['version']}")
    assert moved["events"][0]["data"]["action"] == action
    assert fits_the_screen(phone)


def test_a_refused_token_is_said_and_forgotten(floe: Floe, contexts: Contexts) -> None:
    created = directed_tournament(floe, NAMES)
    tournament_id = created["id"]
    old = created["players"][2]["token"]
    floe.ok("POST", f"/v1/tournaments/{tournament_id}/players/2/token", token=floe.organizer)
    page = contexts.page()
    page.goto(f"{floe.url}/tournaments/{tournament_id}#token={old}")
    expect(page.locator("#message")).to_contain_text("ask the organizer for a new one")
    expect(page.get_by_test_id("me")).to_be_hidden()
    stored = page.evaluate(f"localStorage.getItem('floe:tournament:{tournament_id}')")
    assert stored is None


def decision_lines(document: dict[str, Any]) -> list[re.Pattern[str]]:
    """Each decision's line as the page words it (its time aside)."""
    players = document["players"]
    lines = []
    for d in document["decisions"]:
        if d["decision"] == "withdraw":
            what = f"{players[d['player']]['name']} (player {d['player']})"
        elif d["decision"] == "enter":
            what = f"{d['name']} as player {d['player']}"
        else:
            assert d["decision"] == "correct", d
            seated = document["rounds"][d["round"] - 1]["games"][d["table"] - 1]["players"]
            [seat] = d["winners"]
            name = players[seated[seat]]["name"]
            what = f"round {d['round']}, table {d['table']}: seat {seat} wins ({name})"
        head = f"{d['seq']}. {d['decision']} {what} after round {d['rounds_paired']}, "
        lines.append(re.compile(rf"^{re.escape(head)}.* UTC: {re.escape(d['reason'])}$"))
    return lines


def shows_the_decisions(page: Page, document: dict[str, Any], corrected: dict[str, Any]) -> None:
    """The page shows the correction of ``corrected`` (a game), the withdrawn player marked,
    the entered one in the standings, every decision in words, and the standings as the
    ``document`` has them (places, points, tie-breaks)."""
    correction = corrected["correction"]
    [seat] = correction["winners"]
    winner = document["players"][corrected["players"][seat]]["name"]
    game = page.locator(f'[data-testid=tournament-game][data-game="{corrected["game_id"]}"]')
    expect(game.get_by_test_id("correction")).to_have_text(
        f"corrected by decision {correction['decision']}: seat {seat} wins ({winner})"
    )
    expect(page.get_by_test_id("correction")).to_have_count(1)
    expect(page.get_by_test_id("decision")).to_have_text(decision_lines(document))
    gone = [p for p in document["players"] if p["withdrawn"]]
    expect(page.locator("[data-testid=standing][data-withdrawn=true]")).to_have_count(len(gone))
    for p in gone:
        row = page.locator(f'[data-testid=standing][data-player="{p["player"]}"]')
        expect(row).to_have_attribute("data-withdrawn", "true")
        expect(row.locator("th")).to_have_text(f"{p['name']} (withdrawn)")
    for p in document["players"]:
        if not p["withdrawn"]:
            row = page.locator(f'[data-testid=standing][data-player="{p["player"]}"]')
            expect(row.locator("th")).to_have_text(p["name"])
    expect(page.get_by_test_id("standing")).to_have_count(len(document["players"]))
    assert standings_shown(page) == standings_of(document)


def test_the_organizers_decisions_are_shown_live_and_on_first_load(
    floe: Floe, contexts: Contexts
) -> None:
    tiebreaks = ["buchholz", "median_buchholz", "direct_encounter"]
    created = directed_tournament(floe, NAMES, max_players=5, tiebreaks=tiebreaks)
    tournament_id = created["id"]
    url = f"{floe.url}/tournaments/{tournament_id}"
    tokens = [p["token"] for p in created["players"]]
    first = start_round(floe, tournament_id)
    play_round(floe, first, tokens)

    page = contexts.page()
    page.goto(url)
    page.evaluate("window.floeLoadedOnce = true")
    expect(page.locator("#standings-head th")).to_have_text(
        ["Place", "Player", "Points", "Buchholz", "Median Buchholz", "Direct encounter"]
    )
    expect(page.get_by_test_id("tiebreak-rule")).to_have_text(
        "A win is worth 1 point (shared by joint winners), a bye 1. Equal points are ordered"
        " by Buchholz, then Median Buchholz, then Direct encounter (more is better); players"
        " equal on all of them share a place. Names never decide."
    )
    expect(page.get_by_test_id("players-count")).to_have_text("4 of at most 5")
    expect(page.get_by_test_id("decision")).to_have_count(0)

    # live: table 1 of round 1 corrected (seat 1 its sole winner), as the stream brings it
    game = first["rounds"][0]["games"][0]
    winner, loser = game["players"][1], game["players"][0]
    correct = {
        "decision": "correct",
        "game_id": game["game_id"],
        "winners": [1],
        "reason": "Scoring slip.",
    }
    with redrawn(page):
        decide(floe, tournament_id, correct)
    li = page.locator(f'[data-testid=tournament-game][data-game="{game["game_id"]}"]')
    expect(li.get_by_test_id("correction")).to_have_text(
        f"corrected by decision 1: seat 1 wins ({NAMES[winner]})"
    )
    expect(li.get_by_test_id("game-outcome")).to_have_text(re.compile(r"^won by "))  # as played
    expect(page.get_by_test_id("decision")).to_have_text(
        [re.compile(rf"^1\. correct round 1, table 1: seat 1 wins \({NAMES[winner]}\) after")]
    )
    for player, result in ((winner, "won"), (loser, "lost")):
        cell = page.locator(f'[data-testid=cross-row][data-player="{player}"] [data-round="1"]')
        expect(cell).to_have_attribute("data-result", result)

    # live: Bo withdrawn, marked in the standings
    with redrawn(page):
        decide(floe, tournament_id, {"decision": "withdraw", "player": 1, "reason": "Ill."})
    bo = page.locator('[data-testid=standing][data-player="1"]')
    expect(bo).to_have_attribute("data-withdrawn", "true")
    expect(bo.locator("th")).to_have_text("Bo (withdrawn)")
    expect(page.get_by_test_id("decision").nth(1)).to_have_text(
        re.compile(r"^2\. withdraw Bo \(player 1\) after round 1, .* UTC: Ill\.$")
    )
    expect(page.get_by_test_id("players-count")).to_have_text("4 of at most 5, 1 withdrawn")

    # live: Eve entered late, player 4
    with redrawn(page):
        answer = decide(
            floe, tournament_id, {"decision": "enter", "name": "Eve", "reason": "Late."}
        )
    entered = answer["entered"]
    assert entered["player"] == 4
    eve = page.locator('[data-testid=standing][data-player="4"]')
    expect(eve.locator("th")).to_have_text("Eve")
    expect(page.get_by_test_id("decision").nth(2)).to_have_text(
        re.compile(r"^3\. enter Eve as player 4 after round 1, .* UTC: Late\.$")
    )
    expect(page.get_by_test_id("players-count")).to_have_text("5, 1 withdrawn")

    document = floe.ok("GET", f"/v1/tournaments/{tournament_id}")
    [corrected] = [g for g in document["rounds"][0]["games"] if g["game_id"] == game["game_id"]]
    assert corrected["correction"] == {"winners": [1], "decision": 1}
    shows_the_decisions(page, document, corrected)
    assert page.evaluate("window.floeLoadedOnce") is True, "the page was reloaded"

    # first load: drawn by the server (no JavaScript) and by the script, the same
    still = contexts.page(javascript=False)
    still.goto(url)
    again = contexts.page()
    again.goto(url)
    expect(again.get_by_test_id("tournament")).to_have_attribute(
        "data-change", re.compile(r"^\d+$")
    )
    for shown in (still, again):
        shows_the_decisions(shown, document, corrected)
        expect(shown.get_by_test_id("players-count")).to_have_text("5, 1 withdrawn")
    parts = (
        "#standings-head",
        "#standings",
        "#tiebreak-rule",
        "#players-count",
        "#decisions",
        "#rounds",
        "#crosstable",
    )
    drawn_alike(still, page, parts)
    drawn_alike(still, again, parts)

    # round 2, live: Eve is paired, Bo is not; each of them is told so on their own page
    with redrawn(page):
        second = start_round(floe, tournament_id)
    seated = [p for g in second["rounds"][1]["games"] for p in g["players"]]
    assert 4 in seated and 1 not in seated, second["rounds"][1]
    [eves] = [g for g in second["rounds"][1]["games"] if 4 in g["players"]]
    expect(page.locator('[data-testid=round][data-round="2"] .player-name')).to_contain_text(
        ["Eve"]
    )
    expect(bo).to_have_attribute("data-withdrawn", "true")
    mine = contexts.page()
    mine.goto(f"{url}#token={entered['token']}")
    expect(mine.locator("#me-who")).to_have_text("You are Eve (player 4).")
    expect(mine.get_by_test_id("my-game")).to_have_attribute("data-game", eves["game_id"])
    theirs = contexts.page()
    theirs.goto(f"{url}#token={tokens[1]}")
    expect(theirs.locator("#me-now")).to_have_text(
        "The organizer withdrew you: no new game is paired for you."
    )
