"""Screenshots of every page, for docs/guide/web.md: ``python -m tests.browser.screenshots``.

Starts a real ``floe run``, sets the scene through the API (an open table, a game in play seen
by one of its seats, a finished game, a tournament of bots), then photographs the lobby, the
game page, a replay, ``/replay`` with a verdict and the tournament once it is finished, at
desktop (1280x800) and phone (390x844) size, into ``docs/screenshots/`` (or the directory
given).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

from tests.support.browser import CHROMIUM, DESKTOP, ORGANIZER, PHONE, Floe
from tests.support.floe_run import floe_run
from tests.support.waiting import AT_LENGTH

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"desktop": DESKTOP, "phone": PHONE}
#: The tournament's players, all bots.
BOTS = ("Ada", "Bo", "Cy", "Di", "Ed")


def scene(floe: Floe, export_to: Path) -> dict[str, str]:
    """The games and tables the pictures show; returns the URLs to photograph."""
    floe.ok(
        "POST",
        "/v1/tables",
        {
            "game": "iceberg",
            "seats": [{"name": "Ada"}, {"name": "Robo", "bot": "greedy"}, {"open": True}],
        },
    )
    floe.ok("POST", "/v1/tables", {"game": "arktia", "seats": [{"name": "Bo"}, {"open": True}]})
    players = [{"name": "Ada"}, {"name": "Bo"}]
    live = floe.ok("POST", "/v1/games", {"game": "arktia", "players": players})
    tokens = [s["token"] for s in live["seats"]]
    for _ in range(5):
        view = floe.ok("GET", f"/v1/games/{live['id']}")
        floe.play_first(live["id"], tokens[view["to_act"][0]])
    done = floe.ok(
        "POST", "/v1/games", {"game": "arktia", "players": players, "options": {"turn_limit": 4}}
    )
    floe.play_out(done["id"], [s["token"] for s in done["seats"]])
    _, export = floe.raw("GET", f"/v1/games/{done['id']}/export")
    export_to.write_bytes(export)
    view = floe.ok("GET", f"/v1/games/{live['id']}")
    seat = view["to_act"][0]
    bots = [{"name": name, "bot": ("random", "greedy")[i % 2]} for i, name in enumerate(BOTS)]
    tournament = {"game": "iceberg", "format": "swiss", "rounds": 2, "players": bots}
    swiss = floe.ok("POST", "/v1/tournaments", tournament, token=floe.organizer)
    return {
        "lobby": "/",
        "game": f"/games/{live['id']}#token={tokens[seat]}",
        "replay": f"/games/{done['id']}/replay#v=6",
        "tournament": f"/tournaments/{swiss['id']}",
    }


def shoot(page: Page, url: str, name: str, out: Path, size: str) -> None:
    page.goto(url)
    if name == "game":
        expect(page.get_by_test_id("legal-action").first).to_be_visible()
    elif name == "replay":
        expect(page.get_by_test_id("version")).to_have_text("6")
    elif name == "tournament":
        expect(page.get_by_test_id("status")).to_have_text("finished", timeout=AT_LENGTH * 1000)
    else:
        expect(page.get_by_test_id("join").first).to_be_visible()
    page.screenshot(path=str(out / f"{name}-{size}.png"), full_page=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.browser.screenshots")
    parser.add_argument("out", nargs="?", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    env = {"FLOE_ORGANIZER_TOKEN": ORGANIZER}
    with (
        tempfile.TemporaryDirectory(prefix="floe-shots-") as tmp,
        floe_run(Path(tmp), env) as run,
        sync_playwright() as driver,
    ):
        floe = Floe(run.port)
        export = Path(tmp) / "game.jsonl"
        urls = scene(floe, export)
        browser = driver.chromium.launch(executable_path=str(CHROMIUM))
        for size, viewport in SIZES.items():
            context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
            page = context.new_page()
            for name, path in urls.items():
                shoot(page, floe.url + path, name, args.out, size)
            page.goto(floe.url + "/replay")
            page.locator("#file").set_input_files(str(export))
            expect(page.get_by_test_id("verdict")).to_have_text("ok")
            page.keyboard.press("End")
            page.screenshot(path=str(args.out / f"upload-{size}.png"), full_page=False)
            context.close()
        browser.close()
    print(f"screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
