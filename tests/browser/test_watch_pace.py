"""Watching a game of bots at a pace people can follow: the spectator's page draws one version
at a time (a second apart at "1 move/s"), catches up on request, and at "Live" shows the last
version at once; the game itself is never slowed, and a seat's own page is never paced."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from playwright.sync_api import Page, expect

from tests.support.browser import PHONE, Contexts, Floe, fits_the_screen
from tests.support.waiting import AT_LENGTH, wait_for

#: Records every version the page draws, with when, from before its script runs (an init
#: script: Playwright adds it outside the page's content security policy).
RECORD_VERSIONS = """
window.versionsShown = [];
document.addEventListener("DOMContentLoaded", () => {
  const version = document.querySelector("[data-testid=version]");
  new MutationObserver(() => {
    const shown = Number(version.textContent);
    const seen = window.versionsShown;
    if (shown && (!seen.length || seen[seen.length - 1][0] !== shown)) {
      seen.push([shown, performance.now()]);
    }
  }).observe(version, { childList: true, characterData: true, subtree: true });
});
"""
#: Versions drawn in turn at "1 move/s" before the test catches up.
STEPS = 5
#: Where the spectator starts watching (``#v=``): far enough behind for every step.
START = 3


def bots_game(floe: Floe) -> str:
    players = [{"name": "Robo", "bot": "random"}, {"name": "Droid", "bot": "random"}]
    created = floe.ok("POST", "/v1/games?wait=30", {"game": "iceberg", "players": players})
    game_id: str = created["id"]
    return game_id


def played_out(floe: Floe, game_id: str) -> dict[str, Any]:
    view: dict[str, Any] = wait_for(
        lambda: floe.ok("GET", f"/v1/games/{game_id}"),
        lambda view: view["status"] == "over",
        AT_LENGTH,
        f"the bots to end game {game_id}",
    )
    return view


def shown(page: Page) -> int:
    return int(page.get_by_test_id("version").inner_text())


def events_up_to_the_version_shown(page: Page) -> None:
    """The events listed are those up to the version drawn, each once."""
    page.wait_for_function(
        """() => {
            const shown = Number(document.querySelector('[data-testid=version]').textContent);
            const listed = [...document.querySelectorAll('[data-testid=event]')]
                .map(e => Number(e.dataset.version));
            return shown > 0 && listed.length === shown && listed.every((v, i) => v === i + 1);
        }"""
    )


def test_a_game_of_bots_is_watched_a_move_a_second_then_caught_up(
    floe: Floe, contexts: Contexts
) -> None:
    game_id = bots_game(floe)
    last = played_out(floe, game_id)["version"]
    assert last > START + STEPS, f"a game too short to watch paced: {last} versions"
    context = contexts.new()
    context.add_init_script(RECORD_VERSIONS)
    page = context.new_page()
    page.goto(f"{floe.url}/games/{game_id}#v={START}")

    pace = page.get_by_test_id("pace")
    expect(pace).to_be_visible()
    expect(pace).to_have_value("1s")  # every seat is a bot: paced by default
    page.wait_for_function("n => window.versionsShown.length >= n", arg=STEPS)
    drawn = page.evaluate("() => window.versionsShown")[:STEPS]
    versions = [version for version, _ in drawn]
    assert versions == list(range(START, START + STEPS)), versions  # one at a time, in turn
    assert all(version < last for version in versions)  # the game was ahead all along
    gaps = [later - earlier for (_, earlier), (_, later) in pairwise(drawn)]
    assert all(gap >= 500 for gap in gaps), f"drawn faster than 1 move/s: {gaps} ms"
    board = page.get_by_test_id("board")
    expect(board.locator("svg")).to_be_visible()
    events_up_to_the_version_shown(page)
    expect(page.get_by_test_id("pace-note")).to_contain_text(f"the game is at {last}")
    assert shown(page) < last

    page.get_by_test_id("catch-up").click()
    expect(page.get_by_test_id("version")).to_have_text(str(last))
    expect(pace).to_have_value("live")
    expect(page.get_by_test_id("catch-up")).to_be_disabled()
    expect(page.get_by_test_id("outcome")).to_contain_text("Game over")
    events_up_to_the_version_shown(page)
    assert floe.ok("GET", f"/v1/games/{game_id}")["version"] == last  # the game is as it was


def test_live_shows_the_last_version_at_once_and_the_choice_is_remembered(
    floe: Floe, contexts: Contexts
) -> None:
    game_id = bots_game(floe)
    context = contexts.new()
    context.add_init_script(RECORD_VERSIONS)
    page = context.new_page()
    page.goto(f"{floe.url}/games/{game_id}#v=2")
    pace = page.get_by_test_id("pace")
    expect(pace).to_have_value("1s")
    pace.select_option("paused")
    last = played_out(floe, game_id)["version"]
    expect(page.get_by_test_id("pace-note")).to_contain_text(f"the game is at {last}")
    paused_at = shown(page)
    assert paused_at < last

    pace.select_option("live")
    expect(page.get_by_test_id("version")).to_have_text(str(last))
    events_up_to_the_version_shown(page)
    versions = [version for version, _ in page.evaluate("() => window.versionsShown")]
    # one at a time until paused, nothing more while paused, then straight to the last
    assert versions == [*range(2, paused_at + 1), last], versions

    page.goto(f"{floe.url}/games/{game_id}#v=2")  # this browser remembers "Live" for bots
    expect(pace).to_have_value("live")
    expect(page.get_by_test_id("version")).to_have_text(str(last))


def test_a_seat_is_never_paced_and_a_game_of_people_is_watched_live(
    floe: Floe, contexts: Contexts
) -> None:
    players = [{"name": "Ann"}, {"name": "Robo", "bot": "random"}]
    created = floe.ok("POST", "/v1/games?wait=30", {"game": "iceberg", "players": players})
    game_id, ann = created["id"], created["seats"][0]["token"]

    seat = contexts.page()
    seat.goto(f"{floe.url}/games/{game_id}#token={ann}")
    expect(seat.locator("#you")).to_contain_text("You play Ann")
    expect(seat.get_by_test_id("pace-box")).to_be_hidden()

    watcher = contexts.page(PHONE)
    watcher.goto(f"{floe.url}/games/{game_id}")
    expect(watcher.locator("#you")).to_have_text("You are watching.")
    expect(watcher.get_by_test_id("pace")).to_have_value("live")  # people play: live
    assert fits_the_screen(watcher)
    before = shown(watcher)
    floe.play_first(game_id, ann)
    watcher.wait_for_function(
        "v => Number(document.querySelector('[data-testid=version]').textContent) > v",
        arg=before,
    )
    expect(seat.get_by_test_id("pace-box")).to_be_hidden()
