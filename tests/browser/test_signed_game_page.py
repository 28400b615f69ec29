"""Signed moves and kept receipts, from the pages, in a real browser.

Two browsers open and join a table from the lobby with "Sign my moves" on: each makes its
own Ed25519 key with WebCrypto and keeps it, each seat gets that public key, and every move
clicked on the game page carries the seat's signature, so the export passes the audit with no
unsigned seat. The receipts the page kept (from the actions' answers and the stream) are
downloaded and checked against the service's key and the export's hashes. A page for a keyed
seat in a browser without the key says so and posts nothing, until the key is imported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Request, expect

from domain.engine.signing import (
    action_message,
    is_public_key,
    receipt_mark,
    receipt_message,
)
from replay.ed25519 import new_private_key, public_key_of, signature_is_valid
from replay.verify import verify_lines
from tests.support.browser import Contexts, Floe

TURN_LIMIT = 3
GAME_PAGE = re.compile(r"/games/[0-9a-f]+$")


def wait_version_above(page: Page, version: int) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('[data-testid=version]').textContent) > v",
        arg=version,
    )


def held_key(page: Page, public_key: str) -> Any:
    """What this browser keeps under ``public_key`` (None when it holds no such key)."""
    return page.evaluate("k => JSON.parse(localStorage.getItem(`floe:key:${k}`))", public_key)


def keys_held(page: Page) -> list[str]:
    found: list[str] = page.evaluate(
        "Object.keys(localStorage).filter(k => k.startsWith('floe:key:')).map(k => k.slice(9))"
    )
    return found


def service_key(floe: Floe) -> str:
    """The key ``GET /v1/keys`` says new receipts are signed with (listed first)."""
    listed = floe.ok("GET", "/v1/keys")["keys"]
    assert listed and listed[0]["current"] is True, listed
    key: str = listed[0]["public_key"]
    assert is_public_key(key), listed
    return key


def play_out_by_clicking(floe: Floe, game_id: str, pages: dict[int, Page]) -> dict[str, Any]:
    """Each seat to act clicks its first offered action on its own page, to the end."""
    for _ in range(200):
        view: dict[str, Any] = floe.ok("GET", f"/v1/games/{game_id}")
        if view["status"] == "over":
            return view
        version = view["version"]
        page = pages[view["to_act"][0]]
        offered = page.locator(f'#actions[data-version="{version}"] [data-testid=legal-action]')
        offered.first.click()
        wait_version_above(page, version)
    raise AssertionError("the game did not end in 200 moves")


def download(page: Page, hook: str, into: Path) -> Path:
    with page.expect_download() as saving:
        page.get_by_test_id(hook).click()
    saving.value.save_as(into)
    return into


def test_a_table_opened_and_joined_with_keys_signs_every_move_and_keeps_the_receipts(
    floe: Floe, contexts: Contexts, tmp_path: Path
) -> None:
    ann, bo = contexts.page(), contexts.page()
    ann.goto(floe.url + "/")
    expect(ann.get_by_test_id("sign-moves")).to_be_checked()
    ann.get_by_label("seat 0: name").fill("Ann")
    expect(ann.get_by_label("seat 1: who")).to_have_value("open")
    ann.get_by_label("turn limit").fill(str(TURN_LIMIT))
    ann.get_by_role("button", name="Open the table").click()
    expect(ann.locator("#my-table")).to_contain_text("waiting for every open seat")
    table_id = ann.evaluate("JSON.parse(localStorage.getItem('floe:my-tables'))[0]")

    bo.goto(floe.url + "/")
    expect(bo.get_by_test_id("sign-join")).to_be_checked()
    bo.get_by_label("Your name").fill("Bo")
    bo.locator(f'[data-testid=join][data-table="{table_id}"]').click()
    bo.wait_for_url(GAME_PAGE)
    ann.wait_for_url(GAME_PAGE)
    game_id = ann.url.rsplit("/", 1)[1]

    seats = floe.ok("GET", f"/v1/games/{game_id}")["seats"]
    keys = {seat["seat"]: seat.get("public_key") for seat in seats}
    assert all(is_public_key(key) for key in keys.values()), seats
    assert keys[0] != keys[1]
    pages = {0: ann, 1: bo}
    for seat, page in pages.items():
        # Each browser holds its own seat's key, and only that one.
        assert keys_held(page) == [keys[seat]]
        kept = held_key(page, keys[seat])
        assert public_key_of(kept["private_key"]) == keys[seat]
        signing = page.get_by_test_id("signing-status")
        expect(signing).to_have_attribute("data-state", "signing")
        expect(signing).to_contain_text(keys[seat][:16])
        expect(page.get_by_test_id("import-key")).to_be_hidden()
        expect(page.get_by_test_id("version")).to_have_text("1")

    view = play_out_by_clicking(floe, game_id, pages)
    last = view["version"]
    for page in pages.values():
        expect(page.get_by_test_id("status")).to_have_text("over")

    # The key downloads as a file any browser (or replay.player_key) takes back.
    saved = json.loads(download(ann, "download-key", tmp_path / "ann-key.json").read_text())
    assert saved["public_key"] == keys[0]
    assert public_key_of(saved["private_key"]) == keys[0]

    status, raw = floe.raw("GET", f"/v1/games/{game_id}/export")
    assert status == 200
    lines = raw.decode().splitlines()
    events = [json.loads(line) for line in lines]
    moves = [e for e in events if isinstance(e["actor"], int) and "action" in e["data"]]
    assert {e["actor"] for e in moves} == {0, 1}
    for event in moves:
        data = event["data"]
        assert set(data) == {"action", "signature"}, event
        message = action_message(game_id, event["version"] - 1, data["action"])
        assert signature_is_valid(keys[event["actor"]], message, data["signature"]), event
    verdict = verify_lines(lines)
    assert verdict.status == "ok", str(verdict)
    assert verdict.to_json()["unsigned_seats"] == [], str(verdict)

    # Receipts: every event after version 1 (the page opened then) came with one, in an
    # action's answer or on the stream; version 1's too where the events pages the page read
    # first carry them. Each page kept each once and saves them by version.
    first_read = floe.ok("GET", f"/v1/games/{game_id}/events?after=0&limit=1")["events"][0]
    first = 1 if "receipt" in first_read else 2
    seed = bytes.fromhex(events[-1]["data"]["seed"])
    signer = service_key(floe)
    for name, page in (("ann", ann), ("bo", bo)):
        expect(page.get_by_test_id("download-receipts")).to_have_attribute(
            "data-count", str(last - first + 1)
        )
        path = download(page, "download-receipts", tmp_path / f"{name}-receipts.jsonl")
        receipts = [json.loads(line) for line in path.read_text().splitlines()]
        assert [r["version"] for r in receipts] == list(range(first, last + 1))
        for receipt in receipts:
            assert set(receipt) == {"game_id", "version", "mark", "signature"}
            assert receipt["game_id"] == game_id
            version, mark = receipt["version"], receipt["mark"]
            assert mark == receipt_mark(seed, events[version - 1]["hash"]), receipt
            signed = receipt_message(game_id, version, mark)
            assert signature_is_valid(signer, signed, receipt["signature"]), receipt


def test_a_keyed_seat_without_its_key_here_says_so_and_posts_nothing_until_imported(
    floe: Floe, contexts: Contexts
) -> None:
    private = new_private_key()
    public = public_key_of(private)
    players = [{"name": "Ada", "public_key": public}, {"name": "Bo"}]
    created = floe.ok("POST", "/v1/games", {"game": "arktia", "players": players})
    game_id, (ada, bo) = created["id"], [s["token"] for s in created["seats"]]

    page = contexts.page()
    page.add_init_script("delete window.WebSocket;")  # posts (the socket: test_game_socket.py)
    posts: list[Request] = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.goto(f"{floe.url}/games/{game_id}#token={ada}")
    expect(page.locator("#you")).to_contain_text("Ada (seat 0)")
    status = page.get_by_test_id("signing-status")
    expect(status).to_have_attribute("data-state", "missing")
    expect(status).to_contain_text("this browser does not hold it")
    expect(page.get_by_test_id("no-key")).to_be_visible()
    expect(page.get_by_test_id("legal-action")).to_have_count(0)
    expect(page.get_by_test_id("resign")).to_be_hidden()
    expect(page.get_by_test_id("download-key")).to_be_hidden()
    expect(page.get_by_test_id("import-key")).to_be_visible()
    assert posts == []

    # Another seat's key (or anything else) is refused, and still nothing is posted.
    page.get_by_test_id("import-key-text").fill(new_private_key())
    page.get_by_test_id("import-key").click()
    expect(page.locator("#message")).to_contain_text("not this seat's")
    expect(status).to_have_attribute("data-state", "missing")
    assert keys_held(page) == []

    key_file = {"kind": "floe-ed25519-key", "public_key": public, "private_key": private}
    page.get_by_test_id("import-key-text").fill(json.dumps(key_file))
    page.get_by_test_id("import-key").click()
    expect(status).to_have_attribute("data-state", "signing")
    expect(page.get_by_test_id("download-key")).to_be_visible()
    assert keys_held(page) == [public]
    offered = page.locator('#actions[data-version="1"] [data-testid=legal-action]')
    with page.expect_request(lambda r: r.method == "POST" and "/actions" in r.url) as sent:
        offered.first.click()
    body = sent.value.post_data_json
    assert isinstance(body, dict), body
    assert signature_is_valid(
        public, action_message(game_id, 1, body["action"]), body["signature"]
    ), body
    expect(page.get_by_test_id("version")).to_have_text("2")
    stored = floe.ok("GET", f"/v1/games/{game_id}/events?after=1&limit=1", token=ada)["events"]
    assert stored[0]["data"] == {"action": body["action"], "signature": body["signature"]}

    # The unkeyed seat's page says its moves are not signed, and posts them as they are.
    other = contexts.page()
    other.goto(f"{floe.url}/games/{game_id}#token={bo}")
    expect(other.get_by_test_id("signing-status")).to_have_attribute("data-state", "unsigned")
    expect(other.get_by_test_id("import-key")).to_be_hidden()
