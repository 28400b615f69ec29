"""Screenshots of every page, for docs/guide/web.md: ``python -m tests.browser.screenshots``.

Starts a real ``floe run``, sets the scene through the API (open tables, a game of each game in
play seen by the seat to act, a game of each played out by bots, a tournament of bots), then
photographs the lobby, the game page, a replay, ``/replay`` with a verdict and the tournament
once it is finished, at desktop (1280x800) and phone (390x844) size; and, on a phone, each
game's page as its seat to act sees it (``<game>-phone.png``) and each game's replay
(``<game>-replay-phone.png``). Into ``docs/screenshots/`` (or the directory given).
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.support.browser import CHROMIUM, DESKTOP, ORGANIZER, PHONE, SETUPS, Floe
from tests.support.floe_run import floe_run
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_for

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"desktop": DESKTOP, "phone": PHONE}
#: The tournament's players, all bots.
BOTS = ("Ada", "Bo", "Cy", "Di", "Ed")
#: Moves played into each game shown in play, so its board has a story.
MOVES = 5


@dataclass
class Shot:
    """A page to photograph: its address, and what shows it is drawn (``ready``)."""

    path: str
    ready: str  # "lobby", "game", "replay <version>" or "tournament"


def in_play(floe: Floe, game: str) -> str:
    """A game of people after a few moves: its page as the seat to act sees it."""
    created = floe.ok("POST", "/v1/games?wait=30", {"game": game, **SETUPS[game]})
    tokens = [s["token"] for s in created["seats"]]
    view = floe.settled(created["id"])
    for _ in range(MOVES):
        floe.play_first(created["id"], tokens[view["to_act"][0]])
        view = floe.settled(created["id"])
    return f"/games/{created['id']}#token={tokens[view['to_act'][0]]}"


def bots_game(floe: Floe, game: str) -> str:
    """A game of bots, started: its id (``replay_of`` waits for its end)."""
    players = [{**p, "bot": "random"} for p in SETUPS[game]["players"]]
    body = {"game": game, **SETUPS[game], "players": players}
    created: dict[str, Any] = floe.ok("POST", "/v1/games", body)
    return str(created["id"])


def replay_of(floe: Floe, game_id: str) -> Shot:
    """The replay of a bots' game at its middle version, once the bots have ended it."""
    view = wait_for(
        lambda: floe.ok("GET", f"/v1/games/{game_id}"),
        lambda view: view["status"] == "over",
        AT_LENGTH,
        f"the bots to end game {game_id}",
    )
    middle = max(1, view["version"] // 2)
    return Shot(f"/games/{game_id}/replay#v={middle}", f"replay {middle}")


def scene(floe: Floe, export_to: Path) -> tuple[dict[str, Shot], dict[str, Shot]]:
    """The games and tables the pictures show: the pages shot at every size, and those shot
    on a phone only."""
    replays = {game: bots_game(floe, game) for game in SETUPS}  # they play while we set up
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
    done = floe.ok(
        "POST", "/v1/games", {"game": "arktia", "players": players, "options": {"turn_limit": 4}}
    )
    floe.play_out(done["id"], [s["token"] for s in done["seats"]])
    _, export = floe.raw("GET", f"/v1/games/{done['id']}/export")
    export_to.write_bytes(export)
    bots = [{"name": name, "bot": ("random", "greedy")[i % 2]} for i, name in enumerate(BOTS)]
    tournament = {"game": "iceberg", "format": "swiss", "rounds": 2, "players": bots}
    swiss = floe.ok("POST", "/v1/tournaments", tournament, token=floe.organizer)
    playing = {game: in_play(floe, game) for game in SETUPS}
    everywhere = {
        "lobby": Shot("/", "lobby"),
        "game": Shot(playing["arktia"], "game"),
        "replay": Shot(f"/games/{done['id']}/replay#v=6", "replay 6"),
        "tournament": Shot(f"/tournaments/{swiss['id']}", "tournament"),
    }
    phone = {f"{game}-phone": Shot(path, "game") for game, path in playing.items()}
    for game, game_id in replays.items():
        phone[f"{game}-replay-phone"] = replay_of(floe, game_id)
    return everywhere, phone


def shoot(page: Page, url: str, ready: str, path: Path) -> None:
    page.goto("about:blank")  # a page differing only in its #fragment is loaded anew
    page.goto(url)
    if ready == "game":
        expect(page.get_by_test_id("board").locator("svg")).to_be_visible()
        expect(page.get_by_test_id("legal-action").first).to_be_attached()
        page.evaluate("window.scrollTo(0, 0)")  # the page's top: whose game, whose turn
    elif ready.startswith("replay"):
        expect(page.get_by_test_id("version")).to_have_text(ready.split()[1])
        expect(page.get_by_test_id("board").locator("svg")).to_be_visible()
    elif ready == "tournament":
        expect(page.get_by_test_id("status")).to_have_text("finished", timeout=AT_LENGTH * 1000)
    else:
        expect(page.get_by_test_id("join").first).to_be_visible()
    page.screenshot(path=str(path), full_page=False)


def photograph(
    browser: Browser, floe: Floe, shots: dict[str, dict[str, Shot]], export: Path, out: Path
) -> None:
    everywhere, phone = shots["everywhere"], shots["phone"]
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
        context.set_default_timeout(PROMPTLY * 1000)
        page = context.new_page()
        for name, shot in everywhere.items():
            shoot(page, floe.url + shot.path, shot.ready, out / f"{name}-{size}.png")
        if size == "phone":
            for name, shot in phone.items():
                page.evaluate("localStorage.clear()")  # each seat's page as it first opens
                shoot(page, floe.url + shot.path, shot.ready, out / f"{name}.png")
        page.goto(floe.url + "/replay")
        page.locator("#file").set_input_files(str(export))
        expect(page.get_by_test_id("verdict")).to_have_text("ok")
        page.keyboard.press("End")
        page.screenshot(path=str(out / f"upload-{size}.png"), full_page=False)
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.browser.screenshots")
    parser.add_argument("out", nargs="?", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    env = {
        "FLOE_ORGANIZER_TOKEN": ORGANIZER,
        "FLOE_BOT_GAMES_PER_CREATOR": "0",  # no quota: the scene starts several bots' games
        "FLOE_LIVE_GAMES_PER_CREATOR": "0",
    }
    with (
        tempfile.TemporaryDirectory(prefix="floe-shots-") as tmp,
        floe_run(Path(tmp), env) as run,
        sync_playwright() as driver,
    ):
        floe = Floe(run.port)
        export = Path(tmp) / "game.jsonl"
        everywhere, phone = scene(floe, export)
        browser = driver.chromium.launch(executable_path=str(CHROMIUM))
        photograph(browser, floe, {"everywhere": everywhere, "phone": phone}, export, args.out)
        browser.close()
    print(f"screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
