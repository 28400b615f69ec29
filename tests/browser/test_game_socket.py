"""The game page live over a WebSocket (``GET /v1/games/{id}/socket``), in a real browser.

A seat's page plays a short Arktia game over the socket, signing its moves and keeping every
receipt, with no request per move; without WebSocket the same page falls back to the event
stream and posts; a refusal reads the same over either; a spectator's page follows a game
with a bot to its end; a socket dropped with an action unanswered is reopened from the
last version the page had, the action sent again and written once; a welcomed socket closed
1001 (its time up) is reopened at once, however often; and sockets closed without their
welcome fail, three of them sending the page to the stream. The page's sockets are
watched frame by frame (``page.on("websocket")``) or, where a test must hold or drop them,
routed through Playwright to the real server (``page.route_web_socket``). Every wait is an
expectation on the page or the API.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import BrowserContext, Page, Request, WebSocket, WebSocketRoute, expect

from domain.engine.signing import action_message, receipt_mark, receipt_message
from replay.ed25519 import new_private_key, public_key_of, signature_is_valid
from tests.support.browser import Contexts, Floe
from tests.support.waiting import PROMPTLY, wait_for

#: Arktia of three turns: a whole game is a handful of moves.
SHORT = {"game": "arktia", "options": {"turn_limit": 3}}
#: Removes WebSocket before the page's script runs (an init script: outside the page's CSP).
NO_WEBSOCKET = "delete window.WebSocket;"


Message = dict[str, Any]


@dataclass
class SocketLog:
    """One of the page's sockets: every message each way, and whether it closed."""

    sent: list[Message] = field(default_factory=list)
    received: list[Message] = field(default_factory=list)
    closed: bool = False
    ws: WebSocket | None = None  # as the browser saw it, when watched

    def events(self) -> list[Message]:
        return [m["event"] for m in self.received if m["type"] == "event"]

    def wait_closed(self) -> None:
        """Until the browser saw the socket close (Playwright's own wait, so its events come)."""
        assert self.ws is not None
        if not self.ws.is_closed():
            self.ws.wait_for_event("close")


def watch_sockets(page: Page) -> list[SocketLog]:
    """The page's sockets, in the order it opened them, as seen by the browser."""
    logs: list[SocketLog] = []

    def opened(ws: WebSocket) -> None:
        log = SocketLog(ws=ws)
        logs.append(log)
        ws.on("framesent", lambda payload: log.sent.append(json.loads(payload)))
        ws.on("framereceived", lambda payload: log.received.append(json.loads(payload)))

    page.on("websocket", opened)
    return logs


def new_game(floe: Floe, ada: dict[str, Any] | None = None) -> tuple[str, str, str]:
    """A short game of Ada (seat 0) and Bo: its id and the two seats' tokens."""
    players = [{"name": "Ada", **(ada or {})}, {"name": "Bo"}]
    created = floe.ok("POST", "/v1/games?wait=30", {**SHORT, "players": players})
    return created["id"], created["seats"][0]["token"], created["seats"][1]["token"]


def seat_acts_or_over(floe: Floe, game_id: str, seat: int) -> dict[str, Any]:
    """The game's view once ``seat`` is to act or it is over (a bot's move, a draw, done)."""
    view: dict[str, Any] = wait_for(
        lambda: floe.ok("GET", f"/v1/games/{game_id}"),
        lambda view: seat in view["to_act"] or view["status"] == "over",
        PROMPTLY,
        f"seat {seat} to act in {game_id}",
    )
    return view


def offered_at(page: Page, version: int) -> Any:
    return page.locator(f'#actions[data-version="{version}"] [data-testid=legal-action]')


def play_out(floe: Floe, page: Page, game_id: str, bo: str) -> dict[str, Any]:
    """Ada clicks her first offered action on ``page`` (at the version the API says), Bo
    plays through the API, to the end: the page must learn of Bo's moves by itself."""
    for _ in range(100):
        view: dict[str, Any] = floe.settled(game_id)
        if view["status"] == "over":
            return view
        if 0 in view["to_act"]:
            offered_at(page, view["version"]).first.click()
            page.wait_for_function(
                "v => Number(document.querySelector('[data-testid=version]').textContent) > v",
                arg=view["version"],
            )
        else:
            floe.play_first(game_id, bo)
    raise AssertionError("the game did not end in 100 moves")


def at_the_end(page: Page, view: dict[str, Any]) -> None:
    """The page shows the finished game: its last version, and every event once."""
    expect(page.get_by_test_id("status")).to_have_text("over")
    expect(page.get_by_test_id("version")).to_have_text(str(view["version"]))
    expect(page.get_by_test_id("event")).to_have_count(view["version"])
    listed = page.get_by_test_id("event").evaluate_all("es => es.map(e => e.dataset.version)")
    assert listed == [str(v) for v in range(1, view["version"] + 1)]
    expect(page.locator("#play")).to_be_hidden()


def adas_moves(floe: Floe, game_id: str) -> list[Message]:
    """Seat 0's moves as stored: what the API says was appended."""
    events: list[Message] = floe.ok("GET", f"/v1/games/{game_id}/events")["events"]
    return [e for e in events if e["actor"] == 0 and "action" in e["data"]]


def exported(floe: Floe, game_id: str) -> list[Message]:
    status, raw = floe.raw("GET", f"/v1/games/{game_id}/export")
    assert status == 200
    return [json.loads(line) for line in raw.decode().splitlines()]


def kept_receipts(floe: Floe, page: Page, game_id: str, first: int) -> list[Message]:
    """The receipts the page kept, once it says so: one for every version after ``first``
    (the version it opened at), and the earlier ones where the events it read carry them."""
    kept: list[Message] = page.evaluate(
        "id => JSON.parse(localStorage.getItem(`floe:receipts:${id}`) || '[]')", game_id
    )
    expect(page.get_by_test_id("download-receipts")).to_have_attribute("data-count", str(len(kept)))
    read = floe.ok("GET", f"/v1/games/{game_id}/events?after=0&limit=1")["events"][0]
    since = 1 if "receipt" in read else first + 1
    last = floe.ok("GET", f"/v1/games/{game_id}")["version"]
    assert [r["version"] for r in kept] == list(range(since, last + 1))
    return kept


def holding_key(context: BrowserContext, private: str) -> None:
    """The browser holds Ada's key, as one that made it (or imported it) would."""
    pair = json.dumps({"public_key": public_key_of(private), "private_key": private})
    context.add_init_script(
        f"try {{ localStorage.setItem('floe:key:{public_key_of(private)}', {json.dumps(pair)}); }}"
        " catch (_) { /* about:blank has no storage */ }"
    )


# ----- (1) a seat plays a whole game over the socket ---------------------------------------


def test_a_seat_plays_a_whole_game_over_the_socket_signed_with_every_receipt_kept(
    floe: Floe, contexts: Contexts
) -> None:
    private = new_private_key()
    public = public_key_of(private)
    game_id, ada, bo = new_game(floe, {"public_key": public})
    context = contexts.new()
    holding_key(context, private)
    page = context.new_page()
    sockets = watch_sockets(page)
    posts: list[Request] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{floe.url}/games/{game_id}#token={ada}")
    live = page.get_by_test_id("live")
    expect(live).to_have_attribute("data-transport", "socket")
    expect(live).to_have_text("live over a socket")
    expect(page.get_by_test_id("signing-status")).to_have_attribute("data-state", "signing")
    first = int(page.get_by_test_id("version").inner_text())

    view = play_out(floe, page, game_id, bo)
    at_the_end(page, view)
    expect(live).to_have_attribute("data-state", "ended")
    sockets[0].wait_closed()

    # One socket for the whole game, and not one request per move.
    assert len(sockets) == 1 and posts == []
    sent = sockets[0].sent
    assert sent[0] == {"type": "hello", "token": ada, "after": first}
    assert sockets[0].received[0] == {"type": "welcome", "version": first, "seat": 0}
    actions = sent[1:]
    moves = adas_moves(floe, game_id)
    assert moves and len(actions) == len(moves)
    for message, event in zip(actions, moves, strict=True):
        # Each move the page sent was appended as sent, signed with the browser's key.
        assert message["type"] == "action" and message["expected_version"] == event["version"] - 1
        assert event["command_id"] == message["command_id"]
        assert event["data"] == {"action": message["action"], "signature": message["signature"]}
        signed = action_message(game_id, message["expected_version"], message["action"])
        assert signature_is_valid(public, signed, message["signature"])
    answers = [m for m in sockets[0].received if m["type"] in ("accepted", "refused")]
    assert [(m["type"], m["command_id"]) for m in answers] == [
        ("accepted", m["command_id"]) for m in actions
    ]
    legal = [m for m in sockets[0].received if m["type"] == "legal_actions"]
    assert {m["version"] for m in legal} >= {m["expected_version"] for m in actions}

    # Every event after the one the page opened at came on the socket, once, with its receipt,
    # the last being the seed's; the page kept each of those receipts (and the earlier ones,
    # where the events it read first carry them).
    streamed = sockets[0].events()
    assert [e["version"] for e in streamed] == list(range(first + 1, view["version"] + 1))
    assert streamed[-1]["type"] == "seed_revealed"
    kept = kept_receipts(floe, page, game_id, first)
    by_version = {r["version"]: r for r in kept}
    assert all(by_version[e["version"]] == e["receipt"] for e in streamed)
    events = exported(floe, game_id)
    seed = bytes.fromhex(events[-1]["data"]["seed"])
    service_key = floe.ok("GET", "/v1/keys")["keys"][0]["public_key"]
    for receipt in kept:
        version, mark = receipt["version"], receipt["mark"]
        assert mark == receipt_mark(seed, events[version - 1]["hash"]), receipt
        signed = receipt_message(game_id, version, mark)
        assert signature_is_valid(service_key, signed, receipt["signature"]), receipt


# ----- (2) no WebSocket: the stream and posts -----------------------------------------------


def test_without_websocket_the_page_falls_back_to_the_stream_and_posts(
    floe: Floe, contexts: Contexts
) -> None:
    game_id, ada, bo = new_game(floe)
    context = contexts.new()
    context.add_init_script(NO_WEBSOCKET)
    page = context.new_page()
    sockets = watch_sockets(page)
    posted: list[Any] = []
    page.on(
        "request",
        lambda r: posted.append(r.post_data_json) if r.method == "POST" else None,
    )
    page.goto(f"{floe.url}/games/{game_id}#token={ada}")
    live = page.get_by_test_id("live")
    expect(live).to_have_attribute("data-transport", "sse")
    expect(live).to_have_text("live over a stream")
    first = int(page.get_by_test_id("version").inner_text())

    view = play_out(floe, page, game_id, bo)
    at_the_end(page, view)
    assert sockets == []
    moves = adas_moves(floe, game_id)
    assert moves and [(m["command_id"], m["data"]["action"]) for m in moves] == [
        (body["command_id"], body["action"]) for body in posted
    ]
    kept_receipts(floe, page, game_id, first)


# ----- (3) a refusal reads the same over the socket as over a post ---------------------------


class Held:
    """Routes the page's socket to the server, holding back what the server sends while
    ``holding`` (released in order), and rewriting each action the page sends with
    ``rewrite``: so a test decides what the page knows when it acts."""

    def __init__(self, rewrite: dict[str, Any] | None = None) -> None:
        self.rewrite = rewrite or {}
        self.holding = False
        self.held: list[str | bytes] = []
        self.route: WebSocketRoute | None = None

    def __call__(self, route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        self.route = route

        def to_server(message: str | bytes) -> None:
            parsed = json.loads(message)
            if parsed["type"] == "action":
                message = json.dumps({**parsed, **self.rewrite})
            server.send(message)

        def to_page(message: str | bytes) -> None:
            if self.holding:
                self.held.append(message)
            else:
                route.send(message)

        route.on_message(to_server)
        server.on_message(to_page)

    def release(self) -> None:
        assert self.route is not None
        self.holding = False
        for message in self.held:
            self.route.send(message)
        self.held.clear()


def refusal_shown(floe: Floe, contexts: Contexts, *, socket: bool, kind: str) -> str:
    """What Ada's page says when its move is refused, sent over a socket or posted.

    ``stale``: Ada moves from elsewhere while the page does not hear of it (the socket's news
    held back; the stream refused), so the page's move is a version behind: 409. ``unknown``:
    the page's move goes out as an action the game does not have: 400."""
    game_id, ada, _ = new_game(floe)
    context = contexts.new()
    if not socket:
        context.add_init_script(NO_WEBSOCKET)
    page = context.new_page()
    held = Held({"action": {"type": "fly"}} if kind == "unknown" else {})
    if socket:
        page.route_web_socket("**/socket", held)
    else:
        page.route("**/events/stream*", lambda route: route.abort())
        page.route(
            "**/actions*",
            lambda route: route.continue_(
                post_data=json.dumps({**(route.request.post_data_json or {}), **held.rewrite})
            ),
        )
    page.goto(f"{floe.url}/games/{game_id}#token={ada}")
    expect(page.get_by_test_id("live")).to_have_attribute(
        "data-transport", "socket" if socket else "sse"
    )
    version = floe.settled(game_id)["version"]
    offered = offered_at(page, version)
    expect(offered.first).to_be_visible()
    if kind == "stale":
        held.holding = socket  # the stream is refused anyway
        floe.play_first(game_id, ada)
    offered.first.click()  # sent at once, at the version the page was offered: stale
    if held.holding:
        held.release()
    message = page.locator("#message")
    expect(message).to_have_class("error")
    expect(page.get_by_test_id("version")).to_have_text(str(floe.settled(game_id)["version"]))
    words = message.inner_text()
    stored = [m["command_id"] for m in adas_moves(floe, game_id)]
    assert stored == (["t-1"] if kind == "stale" else [])  # the move from elsewhere, or none
    return words


def test_a_refused_move_reads_the_same_over_the_socket_as_over_a_post(
    floe: Floe, contexts: Contexts
) -> None:
    stale = refusal_shown(floe, contexts, socket=True, kind="stale")
    assert stale.startswith("The game moved on before your move arrived"), stale
    assert stale == refusal_shown(floe, contexts, socket=False, kind="stale")
    unknown = refusal_shown(floe, contexts, socket=True, kind="unknown")
    assert unknown.startswith("Refused: ") and "fly" in unknown, unknown
    assert unknown == refusal_shown(floe, contexts, socket=False, kind="unknown")


# ----- (4) a spectator follows a game with a bot to its end ---------------------------------


def test_a_spectator_follows_a_game_with_a_bot_over_the_socket_to_its_end(
    floe: Floe, contexts: Contexts
) -> None:
    players = [{"name": "Ann"}, {"name": "Robo", "bot": "random"}]
    created = floe.ok("POST", "/v1/games?wait=30", {**SHORT, "players": players})
    game_id, ann = created["id"], created["seats"][0]["token"]
    page = contexts.page()
    sockets = watch_sockets(page)
    page.goto(f"{floe.url}/games/{game_id}")
    expect(page.locator("#you")).to_have_text("You are watching.")
    expect(page.get_by_test_id("live")).to_have_attribute("data-transport", "socket")
    first = int(page.get_by_test_id("version").inner_text())
    while (view := seat_acts_or_over(floe, game_id, 0))["status"] != "over":
        floe.play_first(game_id, ann)
    at_the_end(page, view)
    expect(page.get_by_test_id("live")).to_have_attribute("data-state", "ended")
    sockets[0].wait_closed()

    assert len(sockets) == 1
    assert sockets[0].sent == [{"type": "hello", "after": first}]  # no token: a spectator
    welcome, *rest = sockets[0].received
    assert welcome == {"type": "welcome", "version": first, "seat": None}
    assert not [m for m in rest if m["type"] != "event"]  # no legal actions
    streamed = sockets[0].events()
    assert [e["version"] for e in streamed] == list(range(first + 1, view["version"] + 1))
    assert {e["actor"] for e in streamed} >= {0, 1, "system"}  # Ann's, the bot's, the end
    assert streamed[-1]["type"] == "seed_revealed" and all("receipt" in e for e in streamed)


# ----- (5) a drop: reopened from the last version, the unanswered action sent again -----------


class Dropping:
    """Routes the page's sockets to the server; the first is dropped (both ways) once the
    server has accepted the page's first action, before the page hears the answer."""

    def __init__(self) -> None:
        self.logs: list[SocketLog] = []
        self.unheard: Message | None = None  # the answer the page never got

    def __call__(self, route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        log = SocketLog()
        self.logs.append(log)
        first = len(self.logs) == 1

        def to_server(message: str | bytes) -> None:
            log.sent.append(json.loads(message))
            server.send(message)

        def to_page(message: str | bytes) -> None:
            parsed = json.loads(message)
            if log.closed:
                return
            if first and parsed["type"] == "accepted":
                self.unheard, log.closed = parsed, True
                route.close(code=4000, reason="dropped by the test")
                server.close()
                return
            log.received.append(parsed)
            route.send(message)

        route.on_message(to_server)
        server.on_message(to_page)


def test_a_dropped_socket_resumes_from_the_last_version_and_resends_the_unanswered_move(
    floe: Floe, contexts: Contexts
) -> None:
    game_id, ada, bo = new_game(floe)
    page = contexts.page()
    dropping = Dropping()
    page.route_web_socket("**/socket", dropping)
    page.goto(f"{floe.url}/games/{game_id}#token={ada}")
    expect(page.get_by_test_id("live")).to_have_attribute("data-transport", "socket")

    view = play_out(floe, page, game_id, bo)
    at_the_end(page, view)
    first, second = dropping.logs[:2]
    assert len(dropping.logs) == 2, "one drop, one reopening"
    dropped = [m for m in first.sent if m["type"] == "action"]
    assert len(dropped) == 1
    before = first.events()
    # The second socket starts after the last event the first delivered, and resends the move.
    after = before[-1]["version"] if before else first.sent[0]["after"]
    assert second.sent[0] == {"type": "hello", "token": ada, "after": after}
    assert second.sent[1] == dropped[0]
    # Sent again, it gets the answer it got the first time, and is written once.
    answer = next(m for m in second.received if m.get("command_id") == dropped[0]["command_id"])
    assert answer == dropping.unheard
    # Nothing lost, nothing twice: the two sockets' events are every version after the first.
    versions = [e["version"] for e in before + second.events()]
    assert versions == list(range(first.sent[0]["after"] + 1, view["version"] + 1))
    moves = adas_moves(floe, game_id)
    assert [m["command_id"] for m in moves].count(dropped[0]["command_id"]) == 1


# ----- (6) close codes and the welcome: what counts as a failure -----------------------------


class Closing:
    """Routes the page's sockets to the server; the first ``times`` are closed by the
    server's side with ``code`` as soon as its welcome comes, the welcome forwarded to the
    page or not (``forward``); later ones are left alone."""

    def __init__(self, times: int, code: int, *, forward: bool) -> None:
        self.times, self.code, self.forward = times, code, forward
        self.logs: list[SocketLog] = []

    def __call__(self, route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        log = SocketLog()
        self.logs.append(log)
        closing = len(self.logs) <= self.times

        def to_server(message: str | bytes) -> None:
            log.sent.append(json.loads(message))
            server.send(message)

        def to_page(message: str | bytes) -> None:
            parsed = json.loads(message)
            if log.closed:
                return
            if closing and parsed["type"] == "welcome":
                if self.forward:
                    log.received.append(parsed)
                    route.send(message)
                log.closed = True
                route.close(code=self.code, reason="closed by the test")
                server.close()
                return
            log.received.append(parsed)
            route.send(message)

        route.on_message(to_server)
        server.on_message(to_page)


def test_a_welcomed_socket_closed_1001_is_reopened_at_once_however_often(
    floe: Floe, contexts: Contexts
) -> None:
    """Its time up is no failure: more of them in a row than the page gives failing sockets
    before it leaves for the stream, and it stays on the socket, each hello from its version."""
    game_id, ada, bo = new_game(floe)
    page = contexts.page()
    closing = Closing(times=4, code=1001, forward=True)
    page.route_web_socket("**/socket", closing)
    page.goto(f"{floe.url}/games/{game_id}#token={ada}")
    live = page.get_by_test_id("live")
    expect(live).to_have_attribute("data-transport", "socket")

    view = play_out(floe, page, game_id, bo)  # the fifth socket plays the game to its end
    at_the_end(page, view)
    expect(live).to_have_attribute("data-transport", "socket")
    expect(live).to_have_attribute("data-state", "ended")
    assert len(closing.logs) == 5
    # The closed ones brought no event: each reopening resumed where the page was.
    first = closing.logs[0].sent[0]["after"]
    assert [log.sent[0] for log in closing.logs] == [
        {"type": "hello", "token": ada, "after": first}
    ] * 5
    assert [log.received[0]["type"] for log in closing.logs] == ["welcome"] * 5


def test_sockets_closed_before_their_welcome_fail_and_the_page_takes_the_stream(
    floe: Floe, contexts: Contexts
) -> None:
    """Opened, but closed (1011) before the welcome reached the page: each is a failure, and
    after three in a row the page follows the event stream and posts."""
    game_id, ada, bo = new_game(floe)
    page = contexts.page()
    closing = Closing(times=99, code=1011, forward=False)
    page.route_web_socket("**/socket", closing)
    page.goto(f"{floe.url}/games/{game_id}#token={ada}")
    live = page.get_by_test_id("live")
    expect(live).to_have_attribute("data-transport", "sse")
    expect(live).to_have_text("live over a stream")
    assert len(closing.logs) == 3
    assert all(log.received == [] for log in closing.logs)

    view = play_out(floe, page, game_id, bo)  # over the stream and posts
    at_the_end(page, view)
    assert len(closing.logs) == 3
