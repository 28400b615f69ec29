"""The game page live over a WebSocket (``GET /v1/games/{id}/socket``), in a real browser.

A seat's page plays a short Arktia game over the socket, signing its moves and keeping every
receipt, with no request per move; without WebSocket the same page falls back to the event
stream and posts; a refusal reads the same over either; a spectator's page follows a game
with a bot to its end; a socket dropped with an action unanswered is reopened from the
last version the page had, the action sent again and written once; a welcomed socket closed
1001 (its time up) is reopened at once, however often; and sockets closed without their
welcome fail, three of them sending the page to the stream. The page's sockets are
watched frame by frame (``page.on("websocket")``) or, where a test must hold or drop them,
routed through Playwright to the real server (``page.route_web_socket``). Through a real TCP
relay of the test's own, standing where a proxy stands: a close 1000 mid-game is a drop,
reopened at once (the server's 1000 is final only after the game_over); a proxy closing
every socket 1000 at once sends the page to the stream; and a peer that takes the upgrade
and never answers is given up after the welcome's 10 s. Every wait is an expectation on the
page, the API or the relay.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from socket import SHUT_RDWR, create_connection, create_server
from socket import socket as Socket
from typing import Any, BinaryIO

import pytest
from playwright.sync_api import (
    BrowserContext,
    Locator,
    Page,
    Request,
    WebSocket,
    WebSocketRoute,
    expect,
)

from domain.engine.signing import action_message, receipt_mark, receipt_message
from replay.ed25519 import new_private_key, public_key_of, signature_is_valid
from tests.support.browser import Contexts, Floe
from tests.support.waiting import PROMPTLY, wait_for, wait_until

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


# ----- (7) through a real proxy: its close 1000 mid-game, and a peer that never answers ------


#: RFC 6455's key suffix: the relay answers an upgrade itself when it plays a silent peer.
WEBSOCKET_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#: A close frame with code 1000, as a proxy sends it (server to client: unmasked).
PROXY_CLOSE = bytes([0x88, 2 + 15]) + struct.pack("!H", 1000) + b"closed by proxy"
CLOSE, TEXT, CONTINUATION = 0x8, 0x1, 0x0


@dataclass
class Frame:
    """One WebSocket frame as the relay read it."""

    raw: bytes  # as read: forwarded unchanged
    opcode: int
    fin: bool
    payload: bytes  # unmasked


def read_frame(reader: BinaryIO) -> Frame | None:
    """The connection's next WebSocket frame; None once it ended (or was cut)."""
    try:
        head = reader.read(2)
        if len(head) < 2:
            return None
        length, extra = head[1] & 0x7F, b""
        if length in (126, 127):
            extra = reader.read(2 if length == 126 else 8)
            length = int.from_bytes(extra, "big")
        mask = reader.read(4) if head[1] & 0x80 else b""
        payload = reader.read(length)
    except (OSError, ValueError):
        return None
    if len(payload) < length:
        return None
    plain = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if mask else payload
    return Frame(head + extra + mask + payload, head[0] & 0x0F, bool(head[0] & 0x80), plain)


def read_head(reader: BinaryIO) -> bytes | None:
    """An HTTP request's or response's head, through its blank line; None at the end."""
    head, line = b"", b""
    with contextlib.suppress(OSError, ValueError):  # cut by the relay's close
        while (line := reader.readline()) not in (b"\r\n", b""):
            head += line
    return head + b"\r\n" if head and line == b"\r\n" else None


def header(head: bytes, name: bytes) -> bytes:
    """The value of the header ``name`` (lower case) in an HTTP head."""
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip()
    raise AssertionError(f"no {name!r} in {head!r}")


def shut(*connections: Socket) -> None:
    """Close each connection, waking whatever thread still reads it."""
    for connection in connections:
        with contextlib.suppress(OSError):
            connection.shutdown(SHUT_RDWR)
        connection.close()


@dataclass
class Relayed:
    """A socket the page opened through the relay: its messages each way, the close code
    the page sent (its echo of a close it was sent, or its own), and when (monotonic)."""

    sent: list[Message] = field(default_factory=list)
    received: list[Message] = field(default_factory=list)
    hello_at: float | None = None
    page_closed: int | None = None
    page_closed_at: float | None = None
    cut: bool = False

    def events(self) -> list[Message]:
        return [m["event"] for m in self.received if m["type"] == "event"]

    def page_said(self, frame: Frame) -> None:
        if frame.opcode == CLOSE:
            self.page_closed = int.from_bytes(frame.payload[:2], "big")
            self.page_closed_at = time.monotonic()
        elif frame.opcode == TEXT:
            self.sent.append(json.loads(frame.payload))
            if self.hello_at is None:
                self.hello_at = time.monotonic()


class Relay:
    """A real TCP relay on a port of its own, standing between the page and Floe as a proxy
    or load balancer does. HTTP passes through untouched. Each WebSocket to ``…/socket`` is
    relayed frame by frame (so the test reads every message), and closed to the page with a
    1000 of the relay's own right after the server's message that ``cut`` holds of; the first
    ``silent`` ones are not relayed at all: the relay takes the upgrade itself and never says
    a word, not even to a close."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.silent = 0
        self.cut: Callable[[Message], bool] = lambda _: False
        self.sockets: list[Relayed] = []
        self._connections: list[Socket] = []
        self._listener = create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        shut(self._listener, *self._connections)

    def _accept(self) -> None:
        while True:
            try:
                page, _ = self._listener.accept()
            except OSError:
                return  # closed
            self._connections.append(page)
            threading.Thread(target=self._serve, args=(page,), daemon=True).start()

    def _upstream(self) -> Socket:
        server = create_connection(("127.0.0.1", self.upstream))
        self._connections.append(server)
        return server

    def _serve(self, page: Socket) -> None:
        reader = page.makefile("rb")
        head = read_head(reader)
        if head is None:
            shut(page)
            return
        path = head.split(b" ")[1].split(b"?")[0]
        if not (path.endswith(b"/socket") and b"upgrade: websocket" in head.lower()):
            self._pass(page, reader, head)  # this connection's every request, as they come
            return
        relayed = Relayed()
        self.sockets.append(relayed)
        if len(self.sockets) <= self.silent:
            self._say_nothing(page, reader, head, relayed)
        else:
            self._relay(page, reader, head, relayed)

    def _pass(self, page: Socket, reader: BinaryIO, head: bytes) -> None:
        server = self._upstream()
        server.sendall(head)

        def back() -> None:
            with contextlib.suppress(OSError):
                while data := _recv(server):
                    page.sendall(data)
            shut(page, server)

        threading.Thread(target=back, daemon=True).start()
        with contextlib.suppress(OSError, ValueError):
            while data := reader.read1(65536):  # type: ignore[attr-defined]
                server.sendall(data)
        shut(page, server)

    def _say_nothing(self, page: Socket, reader: BinaryIO, head: bytes, relayed: Relayed) -> None:
        accept = base64.b64encode(
            hashlib.sha1(header(head, b"sec-websocket-key") + WEBSOCKET_GUID).digest()
        )
        with contextlib.suppress(OSError):
            page.sendall(
                b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
            )
        while frame := read_frame(reader):
            relayed.page_said(frame)  # and no answer, ever

    def _relay(self, page: Socket, reader: BinaryIO, head: bytes, relayed: Relayed) -> None:
        # Extensions are negotiated hop by hop: none here, so the relay reads plain frames.
        lines = head.split(b"\r\n")
        server = self._upstream()
        server.sendall(
            b"\r\n".join(x for x in lines if not x.lower().startswith(b"sec-websocket-extensions"))
        )
        from_server = server.makefile("rb")
        answer = read_head(from_server)
        assert answer is not None and b" 101 " in answer.split(b"\r\n")[0], answer
        page.sendall(answer)

        def to_server() -> None:
            while frame := read_frame(reader):
                relayed.page_said(frame)
                if relayed.cut:  # the page's answer to the relay's close: the end
                    break
                with contextlib.suppress(OSError):
                    server.sendall(frame.raw)
            shut(page, server)

        threading.Thread(target=to_server, daemon=True).start()
        with contextlib.suppress(OSError):  # the page went away
            self._to_page(page, server, from_server, relayed)

    def _to_page(
        self, page: Socket, server: Socket, from_server: BinaryIO, relayed: Relayed
    ) -> None:
        text = b""
        while frame := read_frame(from_server):
            page.sendall(frame.raw)
            if frame.opcode in (TEXT, CONTINUATION):
                text += frame.payload
                if not frame.fin:
                    continue
                message = json.loads(text)
                text = b""
                relayed.received.append(message)
                if self.cut(message):
                    relayed.cut = True  # before the close: the page's next frame answers it
                    shut(server)
                    page.sendall(PROXY_CLOSE)
                    return  # the page answers; to_server then ends the connection


def _recv(connection: Socket) -> bytes:
    try:
        return connection.recv(65536)
    except OSError:
        return b""


@pytest.fixture
def relay(floe: Floe) -> Iterator[Relay]:
    made = Relay(floe.port)
    yield made
    made.close()


def relayed_page(contexts: Contexts, relay: Relay, game_id: str, token: str) -> Page:
    """The seat's game page on the relay's address (offline but for it)."""
    page = contexts.new(base_url=relay.url).new_page()
    page.goto(f"{relay.url}/games/{game_id}#token={token}")
    return page


def followed_over_the_socket(page: Page) -> Locator:
    """The page's live marker once the page follows the game over a welcomed socket."""
    live = page.get_by_test_id("live")
    expect(live).to_have_attribute("data-state", "live")
    expect(live).to_have_attribute("data-transport", "socket")
    return live


def move(floe: Floe, game_id: str, tokens: list[str]) -> int:
    """The seat to act plays its first action (through the API): the game's version after."""
    view = floe.settled(game_id)
    assert view["status"] != "over", view
    floe.play_first(game_id, tokens[view["to_act"][0]])
    return int(floe.settled(game_id)["version"])


def test_a_proxys_close_1000_mid_game_is_a_drop_and_the_page_keeps_following(
    floe: Floe, contexts: Contexts, relay: Relay
) -> None:
    """The server says 1000 only after the game_over; a proxy may say it any time. One that
    does so mid-game, just after an event, is a drop: the page reopens from that event and
    the next move's event still comes on the socket, with no reload and the game not over."""
    game_id, ada, bo = new_game(floe)
    page = relayed_page(contexts, relay, game_id, ada)
    live = followed_over_the_socket(page)
    page.evaluate("window.notReloaded = true")
    before = floe.settled(game_id)["version"]
    relay.cut = lambda m: m["type"] == "event" and m["event"]["version"] == before + 1

    move(floe, game_id, [ada, bo])
    wait_until(
        lambda: len(relay.sockets) == 2 and bool(relay.sockets[1].received),
        PROMPTLY,
        "the page to reopen its socket",
    )
    expect(live).to_have_attribute("data-state", "live")
    later = move(floe, game_id, [ada, bo])
    expect(page.locator(f'[data-testid=event][data-version="{later}"]')).to_have_count(1)
    expect(page.get_by_test_id("version")).to_have_text(str(later))

    view = floe.ok("GET", f"/v1/games/{game_id}")
    assert view["status"] != "over" and view["version"] == later
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", view["status"])
    expect(live).to_have_attribute("data-state", "live")
    expect(live).to_have_text("live over a socket")
    assert page.evaluate("window.notReloaded") is True
    first, second = relay.sockets
    assert first.cut and first.page_closed == 1000  # the page had the proxy's 1000, and echoed it
    assert first.events()[-1]["version"] == before + 1
    # Reopened from the last event it had; the rest after it, once, on the new socket.
    assert second.sent[0] == {"type": "hello", "token": ada, "after": before + 1}
    assert second.received[0]["type"] == "welcome" and not second.cut
    assert [e["version"] for e in second.events()] == list(range(before + 2, later + 1))
    listed = page.get_by_test_id("event").evaluate_all("es => es.map(e => e.dataset.version)")
    assert listed == [str(v) for v in range(1, later + 1)]
    assert len(relay.sockets) == 2


def test_a_proxy_closing_every_socket_1000_at_once_sends_the_page_to_the_stream(
    floe: Floe, contexts: Contexts, relay: Relay
) -> None:
    """A 1000 before the game_over that brought no event is a failure, as a 1011 is: a proxy
    that closes each socket as soon as it is welcomed cannot keep the page reopening."""
    relay.cut = lambda m: m["type"] == "welcome"
    game_id, ada, bo = new_game(floe)
    page = relayed_page(contexts, relay, game_id, ada)
    live = page.get_by_test_id("live")
    expect(live).to_have_attribute("data-transport", "sse")
    expect(live).to_have_text("live over a stream")
    assert len(relay.sockets) == 3
    for relayed in relay.sockets:
        assert [m["type"] for m in relayed.received] == ["welcome"]
        assert relayed.cut and relayed.page_closed == 1000

    view = play_out(floe, page, game_id, bo)  # over the stream and posts, relayed
    at_the_end(page, view)
    assert len(relay.sockets) == 3


def test_a_socket_with_no_welcome_is_given_up_and_another_opened(
    floe: Floe, contexts: Contexts, relay: Relay
) -> None:
    """A peer that takes the upgrade and never answers the hello (nor the close) does not
    hold the page: WELCOME_MS (10 s) after the socket was made the page closes it, and its
    next attempt, on to the server, is welcomed and follows the game."""
    relay.silent = 1
    game_id, ada, bo = new_game(floe)
    page = relayed_page(contexts, relay, game_id, ada)
    followed_over_the_socket(page)

    silent, answered = relay.sockets
    first = silent.sent[0]["after"]
    assert silent.sent == [{"type": "hello", "token": ada, "after": first}]
    assert silent.received == [] and silent.page_closed == 1000  # the page gave it up
    assert silent.hello_at is not None and silent.page_closed_at is not None
    # It waited for the welcome (WELCOME_MS from the socket's making; the upgrade before the
    # hello may take a while on a busy machine, so not the whole of it from the hello).
    assert silent.page_closed_at - silent.hello_at > 5.0
    assert answered.sent[0] == {"type": "hello", "token": ada, "after": first}
    assert answered.received[0]["type"] == "welcome"
    later = move(floe, game_id, [ada, bo])
    expect(page.get_by_test_id("version")).to_have_text(str(later))
    assert answered.events()[-1]["version"] == later
    assert len(relay.sockets) == 2
