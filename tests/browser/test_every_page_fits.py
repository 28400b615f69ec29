"""Every page on a phone (390x844) and a desktop (1280x800): none is wider than its screen,
every board's text is readable as drawn, and a phone's buttons are big enough to tap.

The pages: the lobby, ``/replay`` (empty, then judging an uploaded export), each game's page
(seen by a seat and by a spectator, in play and over), each game's replay, a tournament's page
(anonymous and with a player's token), ``/docs``, an unknown address and each game's rules.
One service and one set of games serve them all (made once through the API), and each screen
size has one browser tab that visits the pages one after another.

What "fits" means: the document scrolls no wider than the window (a box the page lets you
pan, like a zoomed board, may be wider inside itself). "Readable": every ``<text>`` of every
inline SVG is drawn at least 9 px tall (its font size times the scale it is drawn at).
"Tappable": on a phone every visible button is at least 40 px tall.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.browser import (
    DESKTOP,
    PHONE,
    SETUPS,
    Contexts,
    Floe,
    directed_tournament,
    fits_the_screen,
    play_round,
    start_round,
    sticking_out,
)
from tests.support.waiting import AT_LENGTH, wait_for

SIZES = {"phone": PHONE, "desktop": DESKTOP}
GAMES = ("iceberg", "arktia", "ice-breakers")
#: Moves played into the games left in play, so their boards and event lists have something.
MOVES_IN_PLAY = 4
SMALLEST_TEXT_PX = 9.0
SMALLEST_BUTTON_PX = 40.0


@dataclass
class Game:
    id: str
    version: int
    tokens: list[str]


@dataclass
class World:
    """What the pages show, made once through the API."""

    playing: dict[str, Game]  # games of people, in play
    over: dict[str, Game]  # games of people ended by resignations
    bots: dict[str, Game]  # games of bots, played to their end
    export: Path
    tournament: str
    player_token: str


def new_game(floe: Floe, game: str, *, bots: bool = False) -> Game:
    body = {"game": game, **SETUPS[game]}
    if bots:
        body["players"] = [{**p, "bot": "random"} for p in body["players"]]
    created = floe.ok("POST", "/v1/games?wait=30", body)
    tokens = [seat["token"] for seat in created["seats"]]
    return Game(created["id"], created["version"], tokens)


def played(floe: Floe, game: Game, moves: int) -> Game:
    """``game`` after ``moves`` moves, each seat to act posting its first legal action."""
    view = floe.settled(game.id)
    for _ in range(moves):
        floe.play_first(game.id, game.tokens[view["to_act"][0]])
        view = floe.settled(game.id)
    return Game(game.id, view["version"], game.tokens)


def resigned(floe: Floe, game: Game) -> Game:
    """``game`` over: the seats after the first resign until it ends (seat 0 wins)."""
    for token in game.tokens[1:]:
        view = floe.settled(game.id)
        if view["status"] == "over":
            break
        body = {
            "action": {"type": "resign"},
            "expected_version": view["version"],
            "command_id": f"resign-{view['version']}",
        }
        floe.ok("POST", f"/v1/games/{game.id}/actions?wait=30", body, token=token)
    view = floe.settled(game.id)
    assert view["status"] == "over", view
    return Game(game.id, view["version"], game.tokens)


def played_out_by_bots(floe: Floe, game: Game) -> Game:
    view = wait_for(
        lambda: floe.ok("GET", f"/v1/games/{game.id}"),
        lambda view: view["status"] == "over",
        AT_LENGTH,
        f"the bots to end game {game.id}",
    )
    return Game(game.id, view["version"], [])


@pytest.fixture(scope="module")
def world(floe: Floe, tmp_path_factory: pytest.TempPathFactory) -> World:
    bots = {g: new_game(floe, g, bots=True) for g in GAMES}  # they play while the rest is made
    playing = {g: played(floe, new_game(floe, g), MOVES_IN_PLAY) for g in GAMES}
    over = {g: resigned(floe, played(floe, new_game(floe, g), MOVES_IN_PLAY)) for g in GAMES}
    bots = {g: played_out_by_bots(floe, game) for g, game in bots.items()}
    export = tmp_path_factory.mktemp("export") / "game.jsonl"
    status, raw = floe.raw("GET", f"/v1/games/{bots['arktia'].id}/export")
    assert status == 200
    export.write_bytes(raw)
    # Five people (so a bye), the first round played, the second in play: each has a game.
    tournament = directed_tournament(floe, ["Ada", "Bo", "Cy", "Di", "Ed"], rounds=2)
    tokens = [p["token"] for p in tournament["players"]]
    play_round(floe, start_round(floe, tournament["id"]), tokens)
    second = start_round(floe, tournament["id"])
    seated = second["rounds"][-1]["games"][0]["players"][0]
    return World(playing, over, bots, export, tournament["id"], tokens[seated])


@pytest.fixture(scope="module")
def tabs(browser: Browser, floe: Floe) -> Iterator[dict[str, Page]]:
    """One tab per screen size, offline but for Floe, reused by every page of the module."""
    made = Contexts(browser, floe)
    yield {size: made.page(viewport) for size, viewport in SIZES.items()}
    for context in made.opened:
        context.close()
    assert made.offsite == [], "a page asked for something from another host"


# ----- the pages, and when each is drawn -----------------------------------------------------


def game_page(which: str, game: str, seat: bool) -> Callable[[Page, Floe, World], None]:
    def visit(page: Page, floe: Floe, world: World) -> None:
        games = world.playing if which == "playing" else world.over if seat else world.bots
        shown = games[game]
        token = f"#token={shown.tokens[0]}" if seat else ""
        page.goto(f"{floe.url}/games/{shown.id}{token}")
        expect(page.get_by_test_id("version")).to_have_text(str(shown.version))
        expect(page.get_by_test_id("board").locator("svg")).to_be_visible()
        you = page.locator("#you")
        if seat:
            expect(you).to_contain_text("(seat 0)")
        else:
            expect(you).to_have_text("You are watching.")
        if which == "over":
            expect(page.get_by_test_id("outcome")).not_to_be_empty()

    return visit


def replay_page(game: str) -> Callable[[Page, Floe, World], None]:
    def visit(page: Page, floe: Floe, world: World) -> None:
        shown = world.bots[game]
        page.goto(f"{floe.url}/games/{shown.id}/replay")
        expect(page.get_by_test_id("version")).to_have_text(str(shown.version))
        expect(page.get_by_test_id("board").locator("svg")).to_be_visible()

    return visit


def rules_page(game: str) -> Callable[[Page, Floe, World], None]:
    def visit(page: Page, floe: Floe, world: World) -> None:
        page.goto(f"{floe.url}/rules/{game}")
        expect(page.locator("h1")).to_be_visible()
        expect(page.locator('a[href="/"]').first).to_be_visible()

    return visit


def lobby(page: Page, floe: Floe, world: World) -> None:
    page.goto(floe.url + "/")
    expect(page.get_by_test_id("listed-game").first).to_be_visible()


def upload_empty(page: Page, floe: Floe, world: World) -> None:
    page.goto(floe.url + "/replay")
    expect(page.locator("#file")).to_be_visible()


def upload_judged(page: Page, floe: Floe, world: World) -> None:
    page.goto(floe.url + "/replay")
    page.locator("#file").set_input_files(str(world.export))
    expect(page.get_by_test_id("verdict")).to_have_text("ok")
    expect(page.get_by_test_id("board").locator("svg")).to_be_visible()
    page.keyboard.press("End")
    expect(page.get_by_test_id("version")).to_have_text(str(world.bots["arktia"].version))


def tournament(page: Page, floe: Floe, world: World) -> None:
    page.goto(f"{floe.url}/tournaments/{world.tournament}")
    expect(page.get_by_test_id("tournament")).to_have_attribute("data-change", re.compile(r"^\d+$"))
    expect(page.get_by_test_id("round")).to_have_count(2)


def tournament_player(page: Page, floe: Floe, world: World) -> None:
    page.goto(f"{floe.url}/tournaments/{world.tournament}#token={world.player_token}")
    expect(page.get_by_test_id("my-game")).to_be_visible()


def docs(page: Page, floe: Floe, world: World) -> None:
    page.goto(floe.url + "/docs")
    expect(page.locator(".opblock-summary-path").first).to_be_visible()


def unknown(page: Page, floe: Floe, world: World) -> None:
    answer = page.goto(floe.url + "/no/such/page")
    assert answer is not None and answer.status == 404
    expect(page.locator('a[href="/"]').first).to_be_visible()


PAGES: dict[str, Callable[[Page, Floe, World], None]] = {
    "lobby": lobby,
    "upload": upload_empty,
    "upload-judged": upload_judged,
    **{
        f"{game}-{which}-{who}": game_page(which, game, who == "seat")
        for game in GAMES
        for which in ("playing", "over")
        for who in ("seat", "spectator")
    },
    **{f"{game}-replay": replay_page(game) for game in GAMES},
    "tournament": tournament,
    "tournament-player": tournament_player,
    "docs": docs,
    "unknown": unknown,
    **{f"rules-{game}": rules_page(game) for game in GAMES},
}
#: Pages not drawn by Floe's stylesheet, whose buttons are not Floe's to size.
FOREIGN = {"docs"}


# ----- what is measured ----------------------------------------------------------------------

#: Every drawn <text> of every inline SVG: its size on screen (the font size, in the SVG's
#: user units, times the scale from those units to screen pixels) and its words.
TEXT_SIZES = """() => [...document.querySelectorAll("svg text")]
    .filter((t) => t.textContent.trim() && t.getClientRects().length > 0
        && getComputedStyle(t).visibility !== "hidden")
    .map((t) => {
        const m = t.getScreenCTM();
        const scale = m ? Math.hypot(m.a, m.b) : 0;
        return [parseFloat(getComputedStyle(t).fontSize) * scale, t.textContent.trim()];
    })"""

#: Every visible button (or link drawn as one): its height on screen and its words.
BUTTONS = """() => [...document.querySelectorAll(
        "button, .button, input[type=button], input[type=submit], input[type=file]")]
    .filter((b) => b.getClientRects().length > 0 && getComputedStyle(b).visibility !== "hidden")
    .map((b) => [b.getBoundingClientRect().height,
                 (b.textContent || b.value || b.id || b.tagName).trim().slice(0, 40)])"""


@pytest.mark.parametrize("name", list(PAGES))
@pytest.mark.parametrize("size", list(SIZES))
def test_the_page_fits_the_screen_with_readable_boards_and_tappable_buttons(
    size: str, name: str, floe: Floe, world: World, tabs: dict[str, Page]
) -> None:
    page = tabs[size]
    if page.url.startswith(floe.url):  # a seat's token kept by a page before is forgotten
        page.evaluate("localStorage.clear()")
    page.goto("about:blank")  # so a page differing only in its #fragment is loaded anew
    PAGES[name](page, floe, world)

    width = page.evaluate("window.innerWidth")
    assert width == SIZES[size]["width"]
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert fits_the_screen(page), (
        f"{name} is {wide} px wide on a {width} px screen: {sticking_out(page)}"
    )

    sizes: list[list[Any]] = page.evaluate(TEXT_SIZES)
    small = sorted((px, words) for px, words in sizes if px < SMALLEST_TEXT_PX)
    assert not small, f"{len(small)} of {len(sizes)} texts of {name}'s board under 9 px: " + (
        json.dumps(small[:8])
    )
    if name.split("-")[-1] in ("seat", "spectator") or name.endswith("replay"):
        assert sizes, f"{name}'s board has no text to read"

    if size == "phone" and name not in FOREIGN:
        buttons: list[list[Any]] = page.evaluate(BUTTONS)
        short = [(round(px, 1), words) for px, words in buttons if px < SMALLEST_BUTTON_PX]
        assert not short, f"{len(short)} of {len(buttons)} buttons of {name} under 40 px: " + (
            json.dumps(short[:8])
        )
