"""The browser tests' harness: Debian's Chromium through Playwright, a served Floe, and the
screen sizes every page is checked at."""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, Route

from tests.support.waiting import PROMPTLY

CHROMIUM = Path(os.environ.get("FLOE_CHROMIUM", "/usr/bin/chromium"))


ORGANIZER = "organizer-token-for-the-browser-tests"


DESKTOP = {"width": 1280, "height": 800}


PHONE = {"width": 390, "height": 844}


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
        self, viewport: dict[str, int] | None = None, *, javascript: bool = True
    ) -> BrowserContext:
        context = self.browser.new_context(
            viewport=viewport or DESKTOP,  # type: ignore[arg-type]
            java_script_enabled=javascript,
        )
        context.set_default_timeout(EXPECT_MS)
        here = re.compile(rf"^{re.escape(self.floe.url)}/")

        def elsewhere(route: Route) -> None:
            self.offsite.append(route.request.url)
            route.abort()

        context.route(lambda url: not here.match(url), elsewhere)
        self.opened.append(context)
        return context

    def page(self, viewport: dict[str, int] | None = None, *, javascript: bool = True) -> Page:
        return self.new(viewport, javascript=javascript).new_page()
