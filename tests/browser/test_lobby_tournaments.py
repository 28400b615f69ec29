"""The lobby lists tournaments (``GET /v1/tournaments``), newest first, a page at a time.

A tournament the organizer creates through the API shows in the lobby with its game, format,
status and round, and a link that opens its page; at a phone's size and a desktop's, the lobby
still fits the screen. Its round and status follow the tournament as the lobby refreshes, and
"More tournaments" adds the next page, as ``GET /v1/tournaments`` pages them.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import (
    DESKTOP,
    PHONE,
    Contexts,
    Floe,
    directed_tournament,
    fits_the_screen,
    start_round,
    sticking_out,
)

#: The lobby's page of tournaments (lobby.js asks for this many at a time).
PAGE = 10


def lobby_lists(page: Page, ids: list[str]) -> None:
    """Wait until the lobby's tournaments list shows exactly ``ids``, in order."""
    page.wait_for_function(
        """ids => [...document.querySelectorAll('[data-testid=tournament]')]
            .map(e => e.dataset.tournament).join() === ids.join()""",
        arg=ids,
    )


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_new_tournament_shows_in_the_lobby_with_a_link_to_its_page(
    floe: Floe, contexts: Contexts, viewport: dict[str, int]
) -> None:
    created = directed_tournament(floe, ["Ada", "Bo", "Cy", "Di"], rounds=2)
    page = contexts.page(viewport)
    page.goto(floe.url + "/")
    row = page.locator(f'[data-testid=tournament][data-tournament="{created["id"]}"]')
    expect(row).to_be_visible()
    expect(page.get_by_test_id("tournament").first).to_have_attribute(
        "data-tournament", created["id"]
    )  # newest first
    expect(row).to_contain_text("Arktia · Swiss tournament")
    expect(row.get_by_test_id("tournament-status")).to_have_text("waiting for its first round")
    expect(row).to_contain_text("round 0 of 2")
    expect(row).to_contain_text("4 players")
    assert fits_the_screen(page), f"the lobby is too wide: {sticking_out(page)}"
    rect = row.get_by_role("link").bounding_box()
    assert rect and rect["x"] + rect["width"] <= viewport["width"], "the link is off the screen"

    start_round(floe, created["id"])  # the lobby's next refresh shows it
    expect(row.get_by_test_id("tournament-status")).to_have_text("in play")
    expect(row).to_contain_text("round 1 of 2")

    row.get_by_role("link", name=re.compile("^Follow")).click()
    expect(page).to_have_url(f"{floe.url}/tournaments/{created['id']}")
    expect(page.get_by_test_id("status")).to_have_text("running")
    assert fits_the_screen(page), f"the tournament page is too wide: {sticking_out(page)}"


def test_the_lobby_lists_tournaments_a_page_at_a_time(floe: Floe, contexts: Contexts) -> None:
    """The first page of ``GET /v1/tournaments``; "More tournaments" adds the next one."""
    while floe.ok("GET", "/v1/tournaments?limit=1")["total"] <= PAGE:  # more than a page
        directed_tournament(floe, ["Ada", "Bo"], rounds=1)
    first = floe.ok("GET", f"/v1/tournaments?limit={PAGE}")
    page = contexts.page(PHONE)
    page.goto(floe.url + "/")
    lobby_lists(page, [t["id"] for t in first["tournaments"]])
    more = page.get_by_role("button", name="More tournaments")
    expect(more).to_be_visible()
    more.click()
    second = floe.ok("GET", f"/v1/tournaments?limit={PAGE}&offset={PAGE}")
    lobby_lists(page, [t["id"] for t in first["tournaments"] + second["tournaments"]])
    expect(more).to_be_visible(visible=second["total"] > 2 * PAGE)
    assert fits_the_screen(page), "the lobby is wider than a phone"
