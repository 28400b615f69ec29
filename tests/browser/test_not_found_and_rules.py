"""A lost visitor and a curious one, in Chromium at phone size: an address that is no page
of Floe's shows a page (not JSON) whose link leads back to the lobby; every hosted game's
rules page shows its heading, its tables scrolling in their own box, and fits the phone."""

from __future__ import annotations

from playwright.sync_api import expect

from domain.games import GAMES
from tests.support.browser import PHONE, Contexts, Floe, fits_the_screen


def test_an_unknown_page_on_a_phone_leads_back_to_the_lobby(floe: Floe, contexts: Contexts) -> None:
    page = contexts.page(PHONE)
    answer = page.goto(f"{floe.url}/no/such/page/{'long-' * 30}")
    assert answer is not None and answer.status == 404
    assert answer.header_value("content-type") == "text/html; charset=utf-8"
    expect(page.get_by_role("heading", level=1)).to_have_text("No such page here")
    assert fits_the_screen(page)
    page.get_by_role("link", name="Go to the lobby").click()
    expect(page).to_have_url(f"{floe.url}/")
    expect(page.locator('script[src="/web/lobby.js"]')).to_have_count(1)  # the lobby itself
    assert contexts.offsite == []


def test_an_unknown_tournament_is_the_same_page(floe: Floe, contexts: Contexts) -> None:
    page = contexts.page(PHONE)
    answer = page.goto(f"{floe.url}/tournaments/0123456789abcdef")
    assert answer is not None and answer.status == 404
    expect(page.get_by_test_id("not-found")).to_be_visible()
    expect(page.get_by_role("link", name="The API docs")).to_have_attribute("href", "/docs")
    assert fits_the_screen(page)


def test_every_hosted_games_rules_fit_a_phone(floe: Floe, contexts: Contexts) -> None:
    page = contexts.page(PHONE)
    page.goto(f"{floe.url}/rules")
    listed = page.get_by_test_id("rules-games").get_by_role("link")
    expect(listed).to_have_count(len(GAMES))
    assert fits_the_screen(page)
    for name, game in GAMES.items():
        page.get_by_test_id("rules-games").get_by_role("link", name=game.info.title).click()
        expect(page).to_have_url(f"{floe.url}/rules/{name}")
        rules = page.get_by_test_id("rules")
        expect(rules.get_by_role("heading", level=1)).to_contain_text(game.info.title)
        expect(rules.locator("table").first).to_be_visible()
        assert fits_the_screen(page), name
        # A table wider than the phone scrolls inside its own box, within the screen.
        widths = rules.locator("table").evaluate_all(
            "tables => tables.map(t => [t.getBoundingClientRect().right, t.scrollWidth])"
        )
        assert all(right <= PHONE["width"] + 1 for right, _ in widths), (name, widths)
        # A link within the document lands on its heading.
        inner = rules.locator('a[href^="#"]').first
        target = str(inner.get_attribute("href"))[1:]
        inner.click()
        expect(page).to_have_url(f"{floe.url}/rules/{name}#{target}")
        expect(page.locator(f"[id='{target}']")).to_be_in_viewport()
    assert contexts.offsite == []


def test_a_game_the_api_does_not_know_says_so_with_the_way_back(
    floe: Floe, contexts: Contexts
) -> None:
    page = contexts.page(PHONE)
    for address in ("/games/0123456789abcdef", "/games/0123456789abcdef/replay"):
        page.goto(floe.url + address)
        told = page.get_by_test_id("not-found")
        expect(told).to_contain_text("No game 0123456789abcdef here.")
        assert fits_the_screen(page), address
        told.get_by_role("link", name="Back to the lobby").click()
        expect(page).to_have_url(f"{floe.url}/")
