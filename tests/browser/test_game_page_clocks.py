"""The game page of a game played against a clock, a resignation and an organizer's decisions,
in a real browser against a real ``floe run`` (its workers record the timeouts).

A seat to act has its clock counting down from its deadline, the others show what they have
left; a seat's resign button asks first, and only the confirmation posts the resignation;
timeouts and decisions appear in the event list in words, and the seats they take out are
shown as such. Every wait is one of Playwright's expectations or a ``wait_for_function``
on the page, never a sleep.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

from playwright.sync_api import Page, Request, expect

from tests.support.browser import PHONE, Contexts, Floe, fits_the_screen

PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


def create(floe: Floe, seats: int, clock: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    """An Arktia game (no draws to wait for) of the first ``seats`` players."""
    body: dict[str, Any] = {"game": "arktia", "players": PLAYERS[:seats]}
    if clock is not None:
        body["clock"] = clock
    created = floe.ok("POST", "/v1/games", body)
    return created["id"], [seat["token"] for seat in created["seats"]]


def seconds_of(text: str) -> int:
    """``1:02:03``, ``9:58`` or ``0:07`` as seconds."""
    total = 0
    for part in text.strip().split(":"):
        total = total * 60 + int(part)
    return total


def epoch(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).replace(tzinfo=UTC).timestamp()


def clock_of(page: Page, seat: int) -> Any:
    return page.locator(f'[data-testid=clock][data-seat="{seat}"]')


def event_saying(page: Page, words: str) -> Any:
    return page.get_by_test_id("event").filter(has_text=words)


# ----- the countdown -------------------------------------------------------------------------


def test_the_seat_to_act_has_its_clock_counting_down_to_its_deadline(
    floe: Floe, contexts: Contexts
) -> None:
    game_id, tokens = create(floe, 2, {"kind": "fischer", "initial_s": 600, "increment_s": 5})
    view = floe.ok("GET", f"/v1/games/{game_id}")
    [acting] = view["to_act"]
    waiting = 1 - acting
    deadline = epoch(view["clock"][str(acting)]["deadline"])
    page = contexts.page()
    # The page computes deadline - now at some moment after it loads (it redraws every
    # 250 ms, but a busy machine may delay a redraw by seconds): bound that moment by the
    # time before loading and the time after reading, never by a fixed lag.
    before = time.time()
    page.goto(f"{floe.url}/games/{game_id}#token={tokens[waiting]}")
    expect(page.get_by_test_id("clock-kind")).to_have_text("Clock: 10:00 + 5 s a move (Fischer)")
    expect(page.get_by_test_id("clock")).to_have_count(2)
    running, idle = clock_of(page, acting), clock_of(page, waiting)
    expect(running).to_have_attribute("data-running", "true")
    expect(idle).to_have_attribute("data-running", "false")
    expect(idle).to_have_text("10:00")  # not to act: what it has, standing still

    shown = seconds_of(running.inner_text())
    after = time.time()
    # deadline - now, in whole seconds, for a moment between loading and reading
    assert deadline - after - 1 <= shown <= deadline - before + 1, (shown, deadline - before)
    assert 0 < shown <= 600
    page.wait_for_function(  # it counts down, second by second, by itself
        """([seat, from]) => {
            const clock = document.querySelector(`[data-testid=clock][data-seat="${seat}"]`);
            const [m, s] = clock.textContent.split(":").map(Number);
            return m * 60 + s < from;
        }""",
        arg=[acting, shown],
    )
    later = seconds_of(running.inner_text())
    assert deadline - time.time() - 1 <= later < shown  # down, never ahead of real time
    expect(idle).to_have_text("10:00")

    # The seat moves: its clock stops (charged, plus the increment), the other's starts.
    floe.play_first(game_id, tokens[acting])
    expect(running).to_have_attribute("data-running", "false")
    expect(idle).to_have_attribute("data-running", "true")
    moved = floe.ok("GET", f"/v1/games/{game_id}")["clock"]
    expect(running).to_have_text(
        f"{moved[str(acting)]['remaining_s'] // 60}:{moved[str(acting)]['remaining_s'] % 60:02}"
    )
    assert seconds_of(idle.inner_text()) <= 600
    expect(page.get_by_test_id("seat").nth(waiting).get_by_test_id("seat-status")).to_have_text(
        "to act (you)"
    )


def test_a_game_without_a_clock_shows_no_clock(floe: Floe, contexts: Contexts) -> None:
    game_id, _ = create(floe, 2)
    page = contexts.page()
    page.goto(f"{floe.url}/games/{game_id}")
    expect(page.get_by_test_id("seat")).to_have_count(2)
    expect(page.get_by_test_id("clock")).to_have_count(0)
    expect(page.get_by_test_id("clock-kind")).to_be_hidden()


# ----- resigning -----------------------------------------------------------------------------


def test_resigning_asks_first_cancel_does_nothing_and_confirm_ends_the_game(
    floe: Floe, contexts: Contexts
) -> None:
    game_id, tokens = create(floe, 2)
    view = floe.ok("GET", f"/v1/games/{game_id}")
    seat = 1 - view["to_act"][0]  # a seat may resign out of turn
    name = PLAYERS[seat]["name"]
    page = contexts.page(PHONE)
    posted: list[Request] = []
    page.on("request", lambda r: posted.append(r) if r.method == "POST" else None)
    sent: list[Any] = []  # the page sends its actions on its socket (test_game_socket.py)
    page.on("websocket", lambda ws: ws.on("framesent", lambda m: sent.append(json.loads(m))))
    page.goto(f"{floe.url}/games/{game_id}#token={tokens[seat]}")
    expect(page.locator("#you")).to_contain_text(f"{name} (seat {seat})")
    resign = page.get_by_test_id("resign")
    confirm = page.get_by_test_id("resign-confirm")
    cancel = page.get_by_test_id("resign-cancel")
    question = page.get_by_test_id("resign-question")
    expect(resign).to_be_visible()
    expect(question).to_be_hidden()

    resign.click()
    expect(question).to_have_text("Really resign? Your part in this game ends.")
    expect(confirm).to_be_focused()
    expect(resign).to_be_hidden()
    cancel.click()
    expect(question).to_be_hidden()
    expect(resign).to_be_visible()
    expect(resign).to_be_focused()
    assert posted == [] and [m for m in sent if m["type"] == "action"] == []
    assert floe.ok("GET", f"/v1/games/{game_id}")["version"] == view["version"]
    expect(page.get_by_test_id("status")).to_have_text("in play")

    resign.click()
    confirm.click()
    expect(page.get_by_test_id("status")).to_have_text("over")
    winner = PLAYERS[1 - seat]["name"]
    expect(page.get_by_test_id("outcome")).to_contain_text(f"winners: {winner} (seat {1 - seat})")
    expect(event_saying(page, f"{name} (seat {seat}) resigned")).to_have_count(1)
    expect(page.locator(f'[data-testid=seat][data-seat="{seat}"]')).to_have_attribute(
        "data-left", "resigned"
    )
    expect(page.locator("#you")).to_contain_text("(resigned)")
    expect(page.locator("#play")).to_be_hidden()
    assert posted == []
    [body] = [m for m in sent if m["type"] == "action"]
    assert body["action"] == {"type": "resign"}
    assert body["expected_version"] == view["version"] and body["command_id"]
    final = floe.ok("GET", f"/v1/games/{game_id}")
    assert final["left"] == [seat] and final["outcome"]["winners"] == [1 - seat]
    assert fits_the_screen(page)


def test_a_spectator_is_offered_no_resign_button(floe: Floe, contexts: Contexts) -> None:
    game_id, _ = create(floe, 2)
    page = contexts.page()
    page.goto(f"{floe.url}/games/{game_id}")
    expect(page.locator("#you")).to_have_text("You are watching.")
    expect(page.get_by_test_id("seat")).to_have_count(2)
    expect(page.get_by_test_id("resign")).to_be_hidden()


# ----- timeouts and decisions in the event list ------------------------------------------------


def test_a_timeout_recorded_by_a_worker_is_told_in_words(floe: Floe, contexts: Contexts) -> None:
    game_id, _ = create(floe, 2, {"kind": "per_move", "move_s": 1})
    page = contexts.page()
    page.goto(f"{floe.url}/games/{game_id}")
    expect(page.get_by_test_id("status")).to_have_text("over")  # the worker's timeout ends it
    status, raw = floe.raw("GET", f"/v1/games/{game_id}/export")
    assert status == 200
    [timeout] = [e for e in map(json.loads, raw.decode().splitlines()) if e["type"] == "timeout"]
    seat = timeout["data"]["seat"]
    name = PLAYERS[seat]["name"]
    expect(event_saying(page, f"{name} (seat {seat}) timed out")).to_have_count(1)
    expect(page.locator(f'[data-testid=seat][data-seat="{seat}"]')).to_have_attribute(
        "data-left", "timed out"
    )
    expect(clock_of(page, seat)).to_have_text("0:00")
    expect(page.get_by_test_id("clock")).to_have_count(2)
    expect(page.locator("[data-testid=clock][data-running=true]")).to_have_count(0)
    expect(page.get_by_test_id("outcome")).to_contain_text(f"winners: {PLAYERS[1 - seat]['name']}")


def test_the_organizers_decisions_are_told_in_words_live(floe: Floe, contexts: Contexts) -> None:
    game_id, _ = create(floe, 3)
    page = contexts.page()
    page.goto(f"{floe.url}/games/{game_id}")
    expect(page.get_by_test_id("version")).to_have_text("1")
    decisions = f"/v1/games/{game_id}/decisions"
    forfeit = {"decision": "forfeit", "seat": 2, "reason": "did not show up"}
    floe.ok("POST", decisions, forfeit, token=floe.organizer)
    expect(
        event_saying(page, "the organizer forfeited Cy (seat 2): did not show up")
    ).to_have_count(1)
    expect(page.locator('[data-testid=seat][data-seat="2"]')).to_have_attribute(
        "data-left", "forfeited"
    )
    expect(page.get_by_test_id("status")).to_have_text("in play")

    result = {"decision": "result", "winners": [0], "reason": "adjudicated"}
    floe.ok("POST", decisions, result, token=floe.organizer)
    expect(
        event_saying(page, "the organizer decided the result: Ada (seat 0) wins (adjudicated)")
    ).to_have_count(1)
    expect(page.get_by_test_id("status")).to_have_text("over")
    expect(page.get_by_test_id("outcome")).to_contain_text("winners: Ada (seat 0)")
