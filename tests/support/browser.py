"""The browser tests' harness: Debian's Chromium through Playwright, a served Floe, and the
screen sizes every page is checked at; and what the tournament pages' tests share: making a
tournament and playing its rounds through the API, the organizer's decisions, waiting for the
page to draw what the stream brought, and comparing what the server drew with the script's."""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from tests.support.waiting import PROMPTLY, wait_for

CHROMIUM = Path(os.environ.get("FLOE_CHROMIUM", "/usr/bin/chromium"))


ORGANIZER = "organizer-token-for-the-browser-tests"


DESKTOP = {"width": 1280, "height": 800}


PHONE = {"width": 390, "height": 844}


#: Each game as the page tests and the screenshots set it up: its people (names only; a test
#: may make them bots) and options (Ice Breakers' introductory game, its first for most people).
SETUPS: dict[str, dict[str, Any]] = {
    "iceberg": {"players": [{"name": "Ann"}, {"name": "Ben"}]},
    "arktia": {"players": [{"name": "Ann"}, {"name": "Ben"}]},
    "ice-breakers": {
        "players": [{"name": "Ann"}, {"name": "Ben"}, {"name": "Cat"}],
        "options": {"intro": True},
    },
}


#: How long a Playwright expectation waits for the page to show what it expects (it returns
#: as soon as the page does): generous for Chromium beside the tests on a busy machine.
EXPECT_MS = int(PROMPTLY * 1000)


@dataclass
class Floe:
    """The running service, and a small client for what the tests set up through the API."""

    port: int
    organizer: str = ORGANIZER

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def raw(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        data: bytes | None = None,
        content_type: str = "application/json",
    ) -> tuple[int, bytes]:
        headers = {"Content-Type": content_type}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        payload = data if data is not None else None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=payload, method=method, headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=PROMPTLY) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def call(
        self, method: str, path: str, body: Any = None, *, token: str | None = None
    ) -> tuple[int, Any]:
        status, raw = self.raw(method, path, body, token=token)
        return status, json.loads(raw) if raw else None

    def ok(self, method: str, path: str, body: Any = None, *, token: str | None = None) -> Any:
        status, answer = self.call(method, path, body, token=token)
        assert 200 <= status < 300, (method, path, status, answer)
        return answer

    def settled(self, game_id: str) -> dict[str, Any]:
        """The game's view once no draw is pending (a seat is to act, or it is over)."""
        view: dict[str, Any] = wait_for(
            lambda: self.ok("GET", f"/v1/games/{game_id}"),
            lambda view: bool(view["to_act"]) or view["status"] == "over",
            PROMPTLY,
            f"game {game_id} to deal",
        )
        return view

    def play_first(self, game_id: str, token: str, *, wait: int = 30) -> Any:
        """Post the seat's first legal action (with ``?wait=`` for any draw it causes)."""
        legal = self.ok("GET", f"/v1/games/{game_id}/legal-actions", token=token)
        body = {
            "action": legal["actions"][0],
            "expected_version": legal["version"],
            "command_id": f"t-{legal['version']}",
        }
        return self.ok("POST", f"/v1/games/{game_id}/actions?wait={wait}", body, token=token)

    def play_out(self, game_id: str, tokens: list[str]) -> Any:
        """Play the game to its end, each seat to act posting its first legal action."""
        while (view := self.ok("GET", f"/v1/games/{game_id}"))["status"] != "over":
            assert view["to_act"], view  # every draw was awaited by the ?wait= that caused it
            self.play_first(game_id, tokens[view["to_act"][0]])
        return view


@dataclass
class Contexts:
    """New browser contexts (each a separate browser: its own localStorage), offline but
    for Floe: every request elsewhere is refused and recorded in ``offsite``."""

    browser: Browser
    floe: Floe
    opened: list[BrowserContext] = field(default_factory=list)
    offsite: list[str] = field(default_factory=list)

    def new(
        self,
        viewport: dict[str, int] | None = None,
        *,
        javascript: bool = True,
        base_url: str | None = None,
    ) -> BrowserContext:
        """A context offline but for Floe (or ``base_url``: a relay in front of it)."""
        context = self.browser.new_context(
            viewport=viewport or DESKTOP,  # type: ignore[arg-type]
            java_script_enabled=javascript,
        )
        context.set_default_timeout(EXPECT_MS)
        here = re.compile(rf"^{re.escape(base_url or self.floe.url)}/")

        def elsewhere(route: Route) -> None:
            self.offsite.append(route.request.url)
            route.abort()

        context.route(lambda url: not here.match(url), elsewhere)
        self.opened.append(context)
        return context

    def page(self, viewport: dict[str, int] | None = None, *, javascript: bool = True) -> Page:
        return self.new(viewport, javascript=javascript).new_page()


# ----- tournaments -----------------------------------------------------------------------------

#: The page's elements as a tree (tag, attributes, children; whitespace collapsed and
#: whitespace between elements dropped), to compare the server's drawing with the script's.
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


def drawn_alike(still: Page, live: Page, parts: Iterable[str]) -> None:
    """Each of ``parts`` (selectors) is the same tree on both pages: what the server drew
    (``still``, read without JavaScript) and what the script drew from the stream."""
    for part in parts:
        assert still.locator(part).evaluate(TREE) == live.locator(part).evaluate(TREE), part


def fits_the_screen(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


#: The elements sticking out past the window's right edge, outermost first: where to look
#: when the document is too wide (an element inside a box that scrolls is not counted).
STICKING_OUT = """() => {
    const width = window.innerWidth;
    const scrolls = (el) => ["auto", "scroll", "hidden"].includes(getComputedStyle(el).overflowX);
    const out = [];
    for (const el of document.body.querySelectorAll("*")) {
        const box = el.getBoundingClientRect();
        if (box.right <= width + 1 || box.width === 0) continue;
        let up = el.parentElement, inside = false;
        while (up && up !== document.body) { if (scrolls(up)) { inside = true; break; } up = up.parentElement; }
        if (inside) continue;
        const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
            + (el.className && typeof el.className === "string" ? "." + el.className.trim().replace(/\\s+/g, ".") : "");
        out.push(`${name} (right edge at ${Math.round(box.right)} px)`);
        if (out.length === 6) break;
    }
    return out;
}"""


def sticking_out(page: Page) -> list[str]:
    """What makes a page wider than its screen, for a failing test's message."""
    found: list[str] = page.evaluate(STICKING_OUT)
    return found


def create_tournament(
    floe: Floe, game: str, players: Sequence[dict[str, Any]], rounds: int, **fields: Any
) -> dict[str, Any]:
    """A Swiss tournament of ``game``, created with the organizer token (``fields``: any
    other field of the request, e.g. ``table_size``, ``max_players``, ``tiebreaks``)."""
    body = {"game": game, "format": "swiss", "rounds": rounds, "players": list(players), **fields}
    created: dict[str, Any] = floe.ok("POST", "/v1/tournaments", body, token=floe.organizer)
    return created


def directed_tournament(
    floe: Floe, names: Sequence[str], rounds: int = 2, **fields: Any
) -> dict[str, Any]:
    """People (``names``) at Arktia of two turns a game, each round started by the organizer
    (``start_round``) and played out by its people (``play_round``)."""
    players = [{"name": name} for name in names]
    extra = {"options": {"turn_limit": 2}, "round_start": "manual", **fields}
    return create_tournament(floe, "arktia", players, rounds, **extra)


def start_round(floe: Floe, tournament_id: str) -> dict[str, Any]:
    """The organizer starts the next round: the tournament's document with it."""
    document: dict[str, Any] = floe.ok(
        "POST", f"/v1/tournaments/{tournament_id}/rounds", token=floe.organizer
    )
    return document


def play_round(floe: Floe, document: dict[str, Any], tokens: Sequence[str | None]) -> None:
    """Every game of the document's latest round, played out by its people."""
    for game in document["rounds"][-1]["games"]:
        seated = [tokens[p] for p in game["players"]]
        assert all(seated), "a bot plays its own games"
        floe.play_out(game["game_id"], [t for t in seated if t])


def decide(floe: Floe, tournament_id: str, decision: dict[str, Any]) -> dict[str, Any]:
    """The organizer's decision taken (``POST .../decisions``): the tournament's answer."""
    path = f"/v1/tournaments/{tournament_id}/decisions"
    answer: dict[str, Any] = floe.ok("POST", path, decision, token=floe.organizer)
    return answer


@contextmanager
def redrawn(page: Page) -> Iterator[None]:
    """Around what changes a tournament (a decision, a round): once it is done, wait for its
    page to draw a document of the stream newer than the one it showed before (``data-change``
    counts the tournament's changes). The count is read before the change is made, so a
    drawing that came first cannot pass for it."""
    tournament = page.get_by_test_id("tournament")
    expect(tournament).to_have_attribute("data-change", re.compile(r"^\d+$"))  # following
    before = int(tournament.get_attribute("data-change") or 0)
    yield
    page.wait_for_function(
        "before => Number(document.getElementById('tournament').dataset.change) > before",
        arg=before,
    )


def standings_shown(page: Page) -> list[dict[str, Any]]:
    """The standings as the page shows them, in the shape of the document's."""
    rows: list[dict[str, Any]] = page.get_by_test_id("standing").evaluate_all(
        """rows => rows.map((row) => ({
            player: Number(row.dataset.player),
            name: row.querySelector(".player-name").textContent,
            place: row.querySelector("[data-testid=place]").textContent,
            points: row.cells[2].textContent,
            tiebreaks: Object.fromEntries([...row.querySelectorAll("td[data-tiebreak]")]
                .map((cell) => [cell.dataset.tiebreak, cell.textContent])),
        }))"""
    )
    return rows


def standings_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The document's standings as ``standings_shown`` reads them off its page: a column per
    tie-break, or Buchholz alone at rules version 1."""
    first_rules = document["rules_version"] == "1"
    return [
        {
            "player": s["player"],
            "name": s["name"],
            "place": s["place"],
            "points": s["points"],
            "tiebreaks": {"buchholz": s["buchholz"]} if first_rules else s["tiebreaks"],
        }
        for s in document["standings"]
    ]
