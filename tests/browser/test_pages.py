"""The web pages in a real browser, against a real ``floe run``.

Two browsers open and join a table from the lobby and play Arktia to the end by clicking;
a spectator watches an Iceberg game with a bot live; a replay is stepped with the keys and
the slider and restored from a ``#v=N`` link; an export file is uploaded and judged; and a
spectator's page is checked, response by response, for Iceberg's secrets. Every wait is one
of Playwright's expectations (or ``?wait=`` on the API), never a sleep.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Response, expect

from tests.support.browser import PHONE, Contexts, Floe, fits_the_screen
from tests.support.tournament_exports import build

ARKTIA_SHORT = {"turn_limit": 3}


def version_of(page: Page) -> int:
    return int(page.get_by_test_id("version").inner_text())


def wait_version_above(page: Page, version: int) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('[data-testid=version]').textContent) > v",
        arg=version,
    )


def events_match_version(page: Page) -> None:
    """Every event up to the version shown is listed, once."""
    page.wait_for_function(
        """() => {
            const shown = Number(document.querySelector('[data-testid=version]').textContent);
            const listed = [...document.querySelectorAll('[data-testid=event]')]
                .map(e => Number(e.dataset.version));
            return shown > 0 && listed.length === shown && listed.every((v, i) => v === i + 1);
        }"""
    )


@pytest.fixture(scope="module")
def finished(floe: Floe) -> Iterator[dict[str, Any]]:
    """A short Arktia game played to its end through the API."""
    players = [{"name": "Ada"}, {"name": "Bo"}]
    created = floe.ok(
        "POST", "/v1/games", {"game": "arktia", "players": players, "options": ARKTIA_SHORT}
    )
    tokens = [seat["token"] for seat in created["seats"]]
    view = floe.play_out(created["id"], tokens)
    yield {"id": created["id"], "last": view["version"]}


# ----- (a) the lobby, two browsers, a whole game --------------------------------------------


def test_two_browsers_open_and_join_a_table_then_play_arktia_to_the_end(
    floe: Floe, contexts: Contexts
) -> None:
    ann = contexts.page()
    bo = contexts.page(PHONE)
    ann.goto(floe.url + "/")
    expect(ann.get_by_role("link", name="API docs").first).to_have_attribute("href", "/docs")
    ann.get_by_label("seat 0: name").fill("Ann")
    expect(ann.get_by_label("seat 1: who")).to_have_value("open")
    ann.get_by_label("turn limit").fill(str(ARKTIA_SHORT["turn_limit"]))
    ann.get_by_role("button", name="Open the table").click()
    expect(ann.locator("#my-table")).to_contain_text("waiting for every open seat")
    table_id = ann.evaluate("JSON.parse(localStorage.getItem('floe:my-tables'))[0]")

    bo.goto(floe.url + "/")
    assert fits_the_screen(bo), "the lobby is wider than a phone"
    bo.get_by_label("Your name").fill("Bo")
    bo.locator(f'[data-testid=join][data-table="{table_id}"]').click()
    game_page = re.compile(r"/games/[0-9a-f]+$")
    bo.wait_for_url(game_page)
    ann.wait_for_url(game_page)
    game_id = ann.url.rsplit("/", 1)[1]
    assert bo.url.endswith(f"/games/{game_id}")
    assert "token" not in ann.url + bo.url
    expect(ann.locator("#you")).to_contain_text("Ann (seat 0)")
    expect(bo.locator("#you")).to_contain_text("Bo (seat 1)")

    seats = {0: ann, 1: bo}
    for _ in range(200):
        view = floe.ok("GET", f"/v1/games/{game_id}")
        if view["status"] == "over":
            break
        version = view["version"]
        page = seats[view["to_act"][0]]
        offered = page.locator(f'#actions[data-version="{version}"] [data-testid=legal-action]')
        action = json.loads(offered.first.get_attribute("data-action") or "null")
        assert (
            action
            in floe.ok("GET", f"/v1/games/{game_id}/legal-actions", token=token_of(page, game_id))[
                "actions"
            ]
        )
        offered.first.click()
        wait_version_above(page, version)
    else:
        raise AssertionError("the game did not end in 200 moves")
    for page in (ann, bo):
        expect(page.get_by_test_id("status")).to_have_text("over")
        expect(page.get_by_test_id("outcome")).to_contain_text("winners")
        expect(page.get_by_test_id("version")).to_have_text(str(view["version"]))
        events_match_version(page)
        expect(page.locator("#play")).to_be_hidden()
    assert fits_the_screen(bo), "the game page is wider than a phone"


def lobby_lists(page: Page, ids: list[str]) -> None:
    """Wait until the lobby's games list shows exactly ``ids``, in order."""
    page.wait_for_function(
        """ids => [...document.querySelectorAll('[data-testid=listed-game]')]
            .map(e => e.dataset.game).join() === ids.join()""",
        arg=ids,
    )


def test_the_lobby_lists_games_a_page_at_a_time(floe: Floe, contexts: Contexts) -> None:
    """The lobby shows the first page of ``GET /v1/games``; "More games" adds the next one,
    asked for with the first page's cursor."""
    body = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
    while floe.ok("GET", "/v1/games?limit=20")["cursor"] is None:  # more than a page
        floe.ok("POST", "/v1/games", body)
    first = floe.ok("GET", "/v1/games?limit=20")
    page = contexts.page()
    page.goto(floe.url + "/")
    lobby_lists(page, [game["id"] for game in first["games"]])
    more = page.get_by_role("button", name="More games")
    more.click()
    second = floe.ok("GET", f"/v1/games?limit=20&cursor={first['cursor']}")
    lobby_lists(page, list(dict.fromkeys(g["id"] for g in first["games"] + second["games"])))
    expect(more).to_be_visible(visible=second["cursor"] is not None)


def token_of(page: Page, game_id: str) -> str:
    token = page.evaluate(f"localStorage.getItem('floe:game:{game_id}')")
    assert isinstance(token, str) and token
    return token


def test_a_refused_move_says_why_and_a_stale_one_refreshes(floe: Floe, contexts: Contexts) -> None:
    """A token from a ``#token=`` link is kept and wiped from the address; a 409 refreshes."""
    created = floe.ok(
        "POST",
        "/v1/games",
        {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]},
    )
    game_id, (ada, bo) = created["id"], [s["token"] for s in created["seats"]]
    page = contexts.page()
    page.add_init_script("delete window.WebSocket;")  # posts (the socket: test_game_socket.py)
    page.route("**/events/stream*", lambda route: route.abort())  # no live news: it goes stale
    page.goto(f"{floe.url}/games/{game_id}#token={ada}")
    expect(page.locator("#you")).to_contain_text("Ada (seat 0)")
    assert "token" not in page.url
    assert token_of(page, game_id) == ada
    offered = page.locator('#actions[data-version="1"] [data-testid=legal-action]')
    expect(offered.first).to_be_visible()
    floe.play_first(game_id, ada)  # the same seat moves elsewhere: the page's version is stale
    offered.first.click()
    expect(page.locator("#message")).to_contain_text("moved on")
    expect(page.get_by_test_id("version")).to_have_text("2")
    bo_page = contexts.page()
    bo_page.goto(f"{floe.url}/games/{game_id}#token={bo}")
    expect(
        bo_page.locator('#actions[data-version="2"] [data-testid=legal-action]').first
    ).to_be_visible()
    expect(page.locator('#actions[data-version="2"]')).to_contain_text("Not your turn")


# ----- (b) a spectator, live ------------------------------------------------------------------


def test_a_spectator_watches_an_iceberg_game_with_a_bot_live(
    floe: Floe, contexts: Contexts
) -> None:
    players = [{"name": "Ann"}, {"name": "Robo", "bot": "random"}]
    created = floe.ok("POST", "/v1/games?wait=30", {"game": "iceberg", "players": players})
    game_id, ann = created["id"], created["seats"][0]["token"]
    page = contexts.page()
    page.goto(f"{floe.url}/games/{game_id}")
    expect(page.locator("#you")).to_have_text("You are watching.")
    expect(page.get_by_test_id("board").locator("svg")).to_be_visible()
    page.evaluate("window.floeLoadedOnce = true")
    for _ in range(4):
        expect(page.get_by_test_id("to-act")).to_contain_text("Ann (seat 0)")
        shown = version_of(page)
        floe.play_first(game_id, ann)
        wait_version_above(page, shown)
        events_match_version(page)
    assert page.evaluate("window.floeLoadedOnce") is True, "the page was reloaded"
    expect(page.locator("#play")).to_be_hidden()


# ----- (c) the replay of a game -----------------------------------------------------------------


def test_a_replay_steps_with_the_keys_and_the_slider_and_links_to_a_version(
    floe: Floe, contexts: Contexts, finished: dict[str, Any]
) -> None:
    game_id, last = finished["id"], finished["last"]
    page = contexts.page()
    page.goto(f"{floe.url}/games/{game_id}/replay")
    version = page.get_by_test_id("version")
    expect(version).to_have_text(str(last))
    expect(page.get_by_test_id("outcome")).to_contain_text("winners")
    page.keyboard.press("Home")
    expect(version).to_have_text("1")
    expect(page.get_by_test_id("event")).to_contain_text("game created")
    expect(page.get_by_test_id("outcome")).to_have_text("")
    page.keyboard.press("ArrowRight")
    expect(version).to_have_text("2")
    expect(page.get_by_test_id("event")).to_contain_text("Ada (seat 0)")
    page.keyboard.press("ArrowLeft")
    expect(version).to_have_text("1")
    page.keyboard.press("End")
    expect(version).to_have_text(str(last))
    page.keyboard.press("ArrowLeft")
    expect(version).to_have_text(str(last - 1))
    page.locator("#slider").fill("3")
    expect(version).to_have_text("3")
    expect(page.get_by_test_id("board")).to_contain_text("v3")
    assert page.url.endswith("#v=3")
    link = page.locator("#version-link").get_attribute("href")
    assert link == "#v=3"

    shared = contexts.page(PHONE)
    shared.goto(f"{floe.url}/games/{game_id}/replay#v=2")
    expect(shared.get_by_test_id("version")).to_have_text("2")
    expect(shared.get_by_test_id("event")).to_contain_text("v2")
    assert fits_the_screen(shared)


# ----- (d) the API docs --------------------------------------------------------------------------


def test_the_docs_load_and_every_page_links_to_them(
    floe: Floe, contexts: Contexts, finished: dict[str, Any]
) -> None:
    page = contexts.page()
    for path in ("/", f"/games/{finished['id']}", f"/games/{finished['id']}/replay", "/replay"):
        page.goto(floe.url + path)
        expect(page.locator('a[href="/docs"]').first).to_be_visible()
    page.goto(floe.url + "/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Floe")
    expect(page.locator(".opblock-summary-path").first).to_be_visible()


# ----- (e) an uploaded export ----------------------------------------------------------------------


def test_an_uploaded_export_is_judged_and_stepped(
    floe: Floe, contexts: Contexts, finished: dict[str, Any], tmp_path: Path
) -> None:
    status, export = floe.raw("GET", f"/v1/games/{finished['id']}/export")
    assert status == 200
    good = tmp_path / "game.jsonl"
    good.write_bytes(export)
    lines = export.decode().splitlines()
    third = json.loads(lines[2])
    third["at"] = "2000-01-01T00:00:00Z"  # rewritten history: its hash no longer holds
    lines[2] = json.dumps(third)
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n")

    page = contexts.page()
    page.goto(floe.url + "/replay")
    page.locator("#file").set_input_files(str(good))
    expect(page.get_by_test_id("verdict")).to_have_text("ok")
    expect(page.get_by_test_id("version")).to_have_text("1")
    expect(page.get_by_test_id("board").locator("svg")).to_be_visible()
    page.keyboard.press("End")
    expect(page.get_by_test_id("version")).to_have_text(str(finished["last"]))
    expect(page.get_by_test_id("outcome")).to_contain_text("winners")

    page.locator("#file").set_input_files(str(tampered))
    expect(page.get_by_test_id("verdict")).to_have_text("failed")
    expect(page.locator("#verdict-detail")).to_contain_text("at version 3")
    expect(page.locator("#banner")).to_contain_text("cannot be shown")
    page.keyboard.press("End")
    expect(page.get_by_test_id("version")).to_have_text("2")


def test_an_uploaded_tournament_export_gets_the_verdict_on_the_set(
    floe: Floe, contexts: Contexts, tmp_path: Path
) -> None:
    export = build("iceberg", "swiss", ["Ada", "Bo", "Cy"], rounds=2)
    path = export.write(tmp_path / "tournament.jsonl")
    page = contexts.page()
    page.goto(floe.url + "/replay")
    page.locator("#file").set_input_files(str(path))
    expect(page.get_by_test_id("verdict")).to_have_text("ok")
    expect(page.locator("#verdict-detail")).to_contain_text(f"{len(export.games)} games")
    expect(page.locator("#steps")).to_be_hidden()


# ----- (f) nothing secret reaches a spectator's page ----------------------------------------------


def test_a_spectators_page_never_receives_iceberg_secrets_before_the_end(
    floe: Floe, contexts: Contexts
) -> None:
    seed = bytes(range(100, 132)).hex()
    body = {"game": "iceberg", "players": [{"name": "Ann"}, {"name": "Bo"}], "seed": seed}
    created = floe.ok("POST", "/v1/games?wait=30", body, token=floe.organizer)
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    page = contexts.page()
    seen: list[Response] = []
    page.on("response", lambda response: seen.append(response))
    page.goto(f"{floe.url}/games/{game_id}")
    for _ in range(6):
        view = floe.ok("GET", f"/v1/games/{game_id}")
        expect(page.get_by_test_id("version")).to_have_text(str(view["version"]))
        floe.play_first(game_id, tokens[view["to_act"][0]])
    view = floe.ok("GET", f"/v1/games/{game_id}")
    assert view["status"] != "over" and view["seed"] is None
    expect(page.get_by_test_id("version")).to_have_text(str(view["version"]))
    events_match_version(page)

    status, raw = floe.raw("GET", f"/v1/games/{game_id}/export", token=floe.organizer)
    assert status == 200
    draws = [json.loads(line) for line in raw.decode().splitlines()]
    secrets = [
        e["data"]["outcome"]
        for e in draws
        if e["type"] == "random" and e["data"]["kind"] == "shuffle"
    ]
    assert secrets, "the deal is a shuffle"
    forbidden = [seed, seed.upper()]
    for outcome in secrets:
        forbidden += [json.dumps(outcome), json.dumps(outcome, separators=(",", ":"))]
    api = [r for r in seen if "/v1/" in r.url]
    kinds = {re.sub(r"\?.*", "", r.url.split(game_id, 1)[-1]) for r in api}
    assert {"", "/board.svg", "/events"} <= kinds, kinds
    checked = 0
    for response in api:
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            continue  # still open; the API tests check the stream's masking
        text = response.body().decode()
        for secret in forbidden:
            assert secret not in text, f"{response.url} leaks {secret[:40]}"
        if response.headers.get("content-type", "").startswith("application/json"):
            assert_nothing_hidden(json.loads(text), response.url)
        checked += 1
    assert checked >= 10


def assert_nothing_hidden(node: Any, where: str) -> None:
    """Face-down tiles carry no value or suit; shuffles (the hidden layout) are masked."""
    if isinstance(node, dict):
        if node.get("state") == "face_down":
            assert not {"value", "suit"} & set(node), f"{where}: {node}"
        data = node.get("data")
        if (
            node.get("type") == "random"
            and isinstance(data, dict)
            and data.get("kind") == "shuffle"
        ):
            assert node["data"].get("outcome") is None, f"{where}: {node}"
        for value in node.values():
            assert_nothing_hidden(value, where)
    elif isinstance(node, list):
        for value in node:
            assert_nothing_hidden(value, where)


def test_each_ice_breakers_seat_sees_its_own_choices(floe: Floe, contexts: Contexts) -> None:
    """Three people, three browsers, each holding its own seat's token from a ``#token=``
    link: each page offers exactly its seat's legal actions (none to a seat not to act), and
    the token leaves the address bar."""
    players = [{"name": name} for name in ("Ann", "Ben", "Cat")]
    body = {"game": "ice-breakers", "players": players, "options": {"intro": True}}
    created = floe.ok("POST", "/v1/games?wait=30", body)
    game_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    view = floe.ok("GET", f"/v1/games/{game_id}")
    to_act = view["to_act"]
    assert to_act, "someone acts first"
    for seat, token in enumerate(tokens):
        page = contexts.page()
        page.goto(f"{floe.url}/games/{game_id}#token={token}")
        expect(page.locator("#you")).to_contain_text(f"(seat {seat})")
        assert "token" not in page.url
        offered = page.get_by_test_id("legal-action")
        if seat not in to_act:
            expect(page.get_by_test_id("version")).to_have_text(str(view["version"]))
            expect(offered).to_have_count(0)
            continue
        legal = floe.ok("GET", f"/v1/games/{game_id}/legal-actions", token=token)["actions"]
        expect(offered).to_have_count(len(legal))
        shown = offered.evaluate_all("buttons => buttons.map(b => b.dataset.action)")
        assert sorted(json.dumps(json.loads(a), sort_keys=True) for a in shown) == sorted(
            json.dumps(a, sort_keys=True) for a in legal
        )
