"""The browser tests' world: a real ``floe run`` (gunicorn, workers, its own Redis) and
Debian's Chromium driven by Playwright.

Chromium is the system's (``/usr/bin/chromium``, installed by ``make test``): Playwright's own
browser downloads are never used. A missing browser fails these tests, never skips them.
Every page runs in a context that refuses any request to another host, so a page that
needs the network (a CDN, a font) fails its test.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from tests.support.browser import (
    CHROMIUM,
    EXPECT_MS,
    ORGANIZER,
    Contexts,
    Floe,
)
from tests.support.floe_run import floe_run


@pytest.fixture(scope="session")
def floe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floe]:
    env = {
        "FLOE_BOT_GAMES_PER_CREATOR": "0",
        "FLOE_LIVE_GAMES_PER_CREATOR": "0",
        "FLOE_STORED_BYTES_PER_CREATOR": "0",
        "FLOE_ORGANIZER_TOKEN": ORGANIZER,
        "FLOE_JOB_WORKERS": "2",
    }
    with floe_run(tmp_path_factory.mktemp("floe-web"), env) as run:
        yield Floe(run.port)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    assert CHROMIUM.exists(), (
        f"the browser tests need Chromium at {CHROMIUM}: `make test` installs Debian's "
        "`chromium` package (apt-get install -y chromium)"
    )
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
    yield browser
    browser.close()


@pytest.fixture
def contexts(browser: Browser, floe: Floe) -> Iterator[Contexts]:
    made = Contexts(browser, floe)
    yield made
    for context in made.opened:
        context.close()
    assert made.offsite == [], "a page asked for something from another host"


@pytest.fixture(autouse=True)
def _expect_timeout() -> None:
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_MS)
