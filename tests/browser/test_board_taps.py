"""Every game played by tapping its board, on a phone and on a desktop.

Each game's picture marks the places a person may tap (``data-pick``, the rule is at the top
of ``service/web/static/board.js``). Two seats' pages are open, each in its own browser; ten
moves are played by tapping: for each, a legal action that names a marked place is chosen
(from the API), and the places it names are tapped on the board at a point where the page
finds them, until the page plays it (or lists it, with the board's choices narrowed, when
its places alone do not tell it from the others). A move that names no place (a roll) is
played from the button list. Along the way: the places a seat may tap are marked, a first tap
outlines where the move may go, the page fits its screen, and the board's smallest text is
readable. Every wait is a condition (Playwright's, or ``?wait=`` on the API).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import DESKTOP, PHONE, Contexts, Floe, fits_the_screen

MOVES = 10
READABLE_PX = 9
#: Options that keep each game going for at least MOVES moves, and no longer than needed.
GAMES: dict[str, dict[str, Any]] = {"iceberg": {}, "arktia": {"turn_limit": 12}, "ice-breakers": {}}

#: For each action, how many distinct places marked on the page's board it names.
PLACES_JS = """async (actions) => {
    const board = await import('/web/board.js');
    const marks = board.marks(document.querySelector('#board svg'));
    return actions.map((a) => new Set(
        marks.filter((m) => board.namesPlace(a, m.place)).map((m) => m.text)).size);
}"""

#: Where to tap next for `action`: a point on a marked place it names (not tapped yet), in the
#: order its places appear in it, scrolled into view, where the page's own spot holds it.
NEXT_TAP_JS = """async ([action, tapped]) => {
    const board = await import('/web/board.js');
    const box = document.querySelector('#board');
    const svg = box.querySelector('svg');
    const text = JSON.stringify(action);
    const first = (m) => {
        const value = JSON.stringify(Array.isArray(m.place) ? m.place : Object.values(m.place)[0]);
        const at = text.indexOf(value);
        return at < 0 ? text.length : at;
    };
    const marks = board.marks(svg)
        .filter((m) => board.namesPlace(action, m.place) && !tapped.includes(m.text))
        .sort((a, b) => first(a) - first(b));
    const steps = [0.5, 0.35, 0.65, 0.2, 0.8];
    for (const mark of marks) {
        mark.element.scrollIntoView({ block: 'center', inline: 'center' });
        const r = mark.element.getBoundingClientRect();
        const b = box.getBoundingClientRect();
        for (const fy of steps) for (const fx of steps) {
            const x = r.left + r.width * fx;
            const y = r.top + r.height * fy;
            const inside = x > Math.max(b.left, 0) + 1 && x < Math.min(b.right, innerWidth) - 1
                && y > Math.max(b.top, 0) + 1 && y < Math.min(b.bottom, innerHeight) - 1;
            if (!inside) continue;
            const spot = board.spotAt(svg, { clientX: x, clientY: y });
            if (spot.some((p) => p.text === mark.text)) return { x, y, text: mark.text };
        }
    }
    return null;
}"""

#: A place several legal actions name, some of which name other places too (a piece that may
#: go to several places): where to tap it, or null when the board has none.
CHOICE_JS = """async (actions) => {
    const board = await import('/web/board.js');
    const box = document.querySelector('#board');
    const svg = box.querySelector('svg');
    const marks = board.marks(svg);
    for (const mark of marks) {
        mark.element.scrollIntoView({ block: 'center', inline: 'center' });
        const r = mark.element.getBoundingClientRect();
        const x = r.left + r.width / 2;
        const y = r.top + r.height / 2;
        const spot = board.spotAt(svg, { clientX: x, clientY: y });
        const here = new Set(spot.map((p) => p.text));
        const naming = actions.filter((a) => board.namesSpot(a, spot));
        const onward = naming.filter((a) => marks.some(
            (m) => !here.has(m.text) && board.namesPlace(a, m.place)));
        if (naming.length >= 2 && onward.length) return { x, y };
    }
    return null;
}"""

#: The smallest visible button's height, in CSS pixels.
SHORTEST_BUTTON_JS = """() => Math.min(...[...document.querySelectorAll('button')]
    .map((b) => b.getBoundingClientRect().height).filter((h) => h > 0))"""

SMALLEST_TEXT_JS = """async () => {
    const board = await import('/web/board.js');
    return board.smallestText(document.querySelector('#board svg'));
}"""


def version_of(page: Page) -> int:
    return int(page.get_by_test_id("version").inner_text() or 0)


def wait_version_above(page: Page, version: int) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('[data-testid=version]').textContent) > v",
        arg=version,
    )


def ready(page: Page, version: int) -> None:
    """The page shows `version` with its legal actions (and its board drawn for them)."""
    expect(page.locator(f'#actions[data-version="{version}"]')).to_be_attached()
    expect(page.get_by_test_id("version")).to_have_text(str(version))


def tap_a_choice(page: Page, point: dict[str, Any]) -> None:
    """Tap a place several moves start from: it is selected, said in words, and the places
    those moves go to are outlined; then drop the selection."""
    page.mouse.click(point["x"], point["y"])
    expect(page.locator("#board")).to_have_attribute("data-picked", "1")
    expect(page.get_by_test_id("board-note")).to_contain_text("selected:")
    assert "{" not in page.get_by_test_id("board-note").inner_text(), "words, not JSON"
    expect(page.locator("[data-highlight=picked]").first).to_be_attached()
    expect(page.locator("[data-highlight=target]").first).to_be_attached()
    assert page.locator("[data-highlight=hint]").count() == 0
    page.get_by_test_id("drop-selection").click()
    expect(page.locator("#board")).to_have_attribute("data-picked", "0")
    expect(page.locator("[data-highlight=target]")).to_have_count(0)
    expect(page.locator("[data-highlight=hint]").first).to_be_attached()


def tap_move(page: Page, action: dict[str, Any], version: int) -> None:
    """Tap the places `action` names until the page plays a move; after a first tap that
    selects, the places the move may go on to are outlined."""
    tapped: list[str] = []
    while (point := page.evaluate(NEXT_TAP_JS, [action, tapped])) is not None:
        page.mouse.click(point["x"], point["y"])
        tapped.append(point["text"])
        page.wait_for_function(
            """([v, n]) => Number(document.querySelector('[data-testid=version]').textContent) > v
                || document.querySelector('#board').dataset.picked === String(n)""",
            arg=[version, len(tapped)],
        )
        if version_of(page) > version:
            return
        expect(page.locator("#tile-words")).to_contain_text("selected")
        if len(tapped) == 1 and page.evaluate(NEXT_TAP_JS, [action, tapped]) is not None:
            expect(page.locator("[data-highlight=target]").first).to_be_attached()
    # Its places name other actions too: the page lists the ones left, this one among them.
    data = page.evaluate("a => JSON.stringify(a)", action)
    expect(page.locator("[data-testid=legal-action]")).not_to_have_count(0)
    page.locator(f"[data-testid=legal-action][data-action='{data}']").click()
    wait_version_above(page, version)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_ten_moves_are_played_by_tapping_the_board(
    floe: Floe, contexts: Contexts, game: str, viewport: dict[str, int]
) -> None:
    players = [{"name": "Ann"}, {"name": "Bo"}]
    created = floe.ok(
        "POST", "/v1/games", {"game": game, "players": players, "options": GAMES[game]}
    )
    game_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    pages = {}
    for seat, token in enumerate(tokens):
        page = contexts.page(viewport)
        page.goto(f"{floe.url}/games/{game_id}#token={token}")
        expect(page.locator("#you")).to_contain_text(f"(seat {seat})")
        pages[seat] = page
    chooser = random.Random(f"{game}-{viewport['width']}")
    tapped_moves = 0
    choices = 0  # places tapped that several moves start from
    for _ in range(MOVES):
        view = floe.ok("GET", f"/v1/games/{game_id}")
        if view["status"] == "over":
            break
        version = view["version"]
        seat = view["to_act"][0]
        page = pages[seat]
        ready(page, version)
        legal = floe.ok("GET", f"/v1/games/{game_id}/legal-actions", token=tokens[seat])["actions"]
        places = page.evaluate(PLACES_JS, legal)
        if not any(places):  # a roll, an end of turn: the button list
            page.locator("[data-testid=legal-action]").first.click()
            wait_version_above(page, version)
            continue
        expect(page.locator("[data-highlight=hint]").first).to_be_attached()
        if not choices and (point := page.evaluate(CHOICE_JS, legal)) is not None:
            tap_a_choice(page, point)
            choices += 1
        journey = [i for i, n in enumerate(places) if n >= 2]
        chosen = chooser.choice(journey or [i for i, n in enumerate(places) if n])
        tap_move(page, legal[chosen], version)
        tapped_moves += 1
    assert tapped_moves >= MOVES // 2, "most moves name a place on the board"
    if game != "ice-breakers":  # its ships' moves are rarely more than one at a time
        assert choices, "a place several moves start from was tapped"
    final = floe.ok("GET", f"/v1/games/{game_id}")["version"]
    for page in pages.values():
        expect(page.get_by_test_id("version")).to_have_text(str(final))
        assert fits_the_screen(page), f"the {game} page is wider than its screen"
        smallest = page.evaluate(SMALLEST_TEXT_JS)
        assert smallest >= READABLE_PX - 0.05, f"the {game} board's text renders at {smallest} px"
    if viewport == PHONE:
        shortest = pages[0].evaluate(SHORTEST_BUTTON_JS)
        assert shortest >= 40, f"a button a finger must hit is {shortest} px tall"
    rules = pages[0].get_by_test_id("rules-link")
    expect(rules).to_have_attribute("href", f"/rules/{game}")
    expect(rules).to_contain_text("Rules of ")
    # The replay page: the same board, as readable, on the same screen.
    replay = pages[0]
    replay.goto(f"{floe.url}/games/{game_id}/replay")
    expect(replay.get_by_test_id("version")).to_have_text(str(final))
    expect(replay.get_by_test_id("rules-link")).to_have_attribute("href", f"/rules/{game}")
    expect(replay.get_by_test_id("board-zoom")).to_be_visible()
    replay.keyboard.press("Home")
    expect(replay.get_by_test_id("version")).to_have_text("1")
    replay.keyboard.press("End")
    expect(replay.get_by_test_id("version")).to_have_text(str(final))
    assert fits_the_screen(replay), f"the {game} replay is wider than its screen"
    smallest = replay.evaluate(SMALLEST_TEXT_JS)
    assert smallest >= READABLE_PX - 0.05, f"the {game} replay's text renders at {smallest} px"


def test_the_protocol_names_places_as_it_says(floe: Floe, contexts: Contexts) -> None:
    """board.js's rule, on the protocol's own examples."""
    page = contexts.page()
    page.goto(floe.url + "/")
    answers = page.evaluate(
        """async () => {
            const b = await import('/web/board.js');
            const move = { type: 'move', from: { square: [3, 3] }, to: { tile: [1, 2] } };
            return [
                b.namesPlace({ type: 'clear', cell: [3, 4] }, [3, 4]),
                b.namesPlace({ type: 'sail', path: [[3, 3], [3, 4]] }, [3, 4]),
                b.namesPlace({ type: 'go', to: { square: [3, 4] } }, [3, 4]),
                b.namesPlace({ type: 'clear', cell: [3, 4] }, [4, 3]),
                b.namesPlace({ type: 'give', card: 'c01', to: 1 }, { card: 'c01' }),
                b.namesPlace(move, { square: [3, 3] }),
                b.namesPlace(move, { tile: [1, 2] }),
                b.namesPlace(move, { square: [1, 2] }),
                b.namesPlace({ type: 'discard', card: ['c01', 'c02'] }, { card: 'c02' }),
                b.namesPlace({ type: 'play', ship: 7, card: 'c03' }, { ship: 7, card: 'c01' }),
                b.namesSpot({ type: 'x', ship: 7 }, [{ place: [0, 0] }, { place: { ship: 7 } }]),
                b.placeWords({ ship: 7 }),
                b.placeWords({ square: [3, 3] }),
            ];
        }"""
    )
    assert answers == [
        True,
        True,
        True,
        False,
        True,
        True,
        True,
        False,
        True,
        False,
        True,
        "Ship 7",
        "Square 3,3",
    ]
