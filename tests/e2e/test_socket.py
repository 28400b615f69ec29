"""``GET /v1/games/{id}/socket`` against a real ``floe run``: whole games of each game played
over two seats' sockets; every refusal the socket gives equal to what ``POST …/actions``
gives for the same action; the welcome first, with the game's version and the viewer's seat;
a spectator's socket showing what ``GET …/events`` shows; a dropped socket resumed with
``after``; a command id sent twice; no token in a URL; the hello deadline; 200 idle sockets
beside a prompt ``/v1/health``; and close codes that say whether the end is final (1000 for a
finished game, 1001 when the socket's time is up, 1008 for a refused hello or a flood, 1011
when the store does not answer a hello or the follower, after which a socket reopened with
``after`` loses nothing); a tournament token reissued under an open socket refused 401 and
closed 1008; the rate limit before a malformed hello's 400; a message over ``max_body_bytes``
bytes refused 413 as HTTP refuses such a body; a keyed seat's refusals and an action on a
finished game (403) equal to POST's; ``MAX_WAITING_MESSAGES`` + 1 messages in one write all
answered; a frame over ``max_body_bytes`` characters closed 1009; and every write to the
connection whole (the ping and send deadlines: ``test_socket_limits.py``)."""

from __future__ import annotations

import http.client
import json
import queue
import random
import shutil
import socket as sockets
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from wsproto.events import TextMessage

from domain.engine.signing import action_message
from replay.ed25519 import new_private_key, public_key_of, sign
from service.api.socket import MAX_WAITING_MESSAGES, SerialWrites
from service.run.redis_server import RedisServer
from service.run.supervisor import start_embedded_redis
from tests.support.api import ORGANIZER
from tests.support.floe_run import FloeRun, call, floe_run
from tests.support.redis_binary import redis_server_binary
from tests.support.socket_client import Message, Socket
from tests.support.waiting import PROMPTLY, wait_for

pytestmark = pytest.mark.processes

#: The hello deadline of the served app: short, so the test of it is quick (every other
#: test says hello at once).
HELLO_SECONDS = 2
IDLE_SOCKETS = 200
#: A ``?wait=`` for the HTTP calls that may cause a draw.
WAIT = 30


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FloeRun]:
    env = {
        "FLOE_CONNECTIONS_PER_ADDRESS": "0",  # 200 sockets from one address
        "FLOE_LONG_REQUESTS_PER_ADDRESS": str(IDLE_SOCKETS + 50),
        "FLOE_SOCKET_HELLO_SECONDS": str(HELLO_SECONDS),
        "FLOE_ORGANIZER_TOKEN": ORGANIZER,  # tournaments, for their players' tokens
    }
    with floe_run(Path(tmp_path_factory.mktemp("socket")), env) as served:
        yield served


def create(run: FloeRun, game: str, options: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    body = {"game": game, "players": [{"name": "a"}, {"name": "b"}], "options": options or {}}
    status, created, _ = call(
        run.port, "POST", f"/v1/games?wait={WAIT}", body, timeout=WAIT + PROMPTLY
    )
    assert status == 201, created
    return created["id"], [seat["token"] for seat in created["seats"]]


def events_of(run: FloeRun, game_id: str, token: str | None = None) -> list[Message]:
    status, page, _ = call(run.port, "GET", f"/v1/games/{game_id}/events?limit=10000", token=token)
    assert status == 200, page
    events: list[Message] = page["events"]
    return events


def view_of(run: FloeRun, game_id: str) -> Message:
    status, view, _ = call(run.port, "GET", f"/v1/games/{game_id}")
    assert status == 200, view
    shown: Message = view
    return shown


def without_receipts(events: list[Message]) -> list[Message]:
    return [{k: v for k, v in e.items() if k != "receipt"} for e in events]


def post_raw(run: FloeRun, game_id: str, raw: bytes, token: str | None) -> tuple[int, str]:
    """``POST …/actions`` with ``raw`` as the body: its status and error code."""
    status, error = post_error(run, game_id, raw, token)
    return status, error["code"]


def post_error(
    run: FloeRun, game_id: str, raw: bytes, token: str | None
) -> tuple[int, dict[str, Any]]:
    """``POST …/actions`` with ``raw`` as the body: its status and whole error."""
    connection = http.client.HTTPConnection("127.0.0.1", run.port, timeout=PROMPTLY)
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        connection.request("POST", f"/v1/games/{game_id}/actions", raw, headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())["error"]
    finally:
        connection.close()


def upgrade(run: FloeRun, path: str) -> tuple[int, Any]:
    """A WebSocket upgrade request as HTTP: the status and JSON body of a refusal."""
    connection = http.client.HTTPConnection("127.0.0.1", run.port, timeout=PROMPTLY)
    headers = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
    }
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


# ----- whole games --------------------------------------------------------------------------

GAMES = [
    ("arktia", {"turn_limit": 6}),
    ("iceberg", {}),
    ("ice-breakers", {"intro": True}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
def test_a_whole_game_is_played_over_two_seats_sockets(
    run: FloeRun, game: str, options: dict[str, Any]
) -> None:
    game_id, tokens = create(run, game, options)
    inbox: queue.Queue[tuple[Any, Message | None]] = queue.Queue()
    sockets = [Socket(run.port, game_id, sink=inbox, tag=seat) for seat in (0, 1)]
    for seat, socket in enumerate(sockets):
        socket.hello(tokens[seat])
    rng = random.Random(game)
    over_seen: set[int] = set()
    moves = 0
    while len(over_seen) < 2:
        seat, message = inbox.get(timeout=PROMPTLY)
        if message is None:  # the server closes a seat's socket once its stream has ended
            assert seat in over_seen, f"seat {seat}'s socket closed before the game_over"
            continue
        if message["type"] == "event" and message["event"]["type"] == "game_over":
            over_seen.add(seat)
        elif message["type"] == "legal_actions" and message["actions"]:
            action = rng.choice(message["actions"])
            sockets[seat].act(action, message["version"], f"{seat}-{message['version']}")
            moves += 1
        elif message["type"] == "refused":
            # two seats to act at once: the one that moves second moved on a stale version
            assert message["error"]["code"] == "version_conflict", message
    view = view_of(run, game_id)
    assert view["status"] == "over" and moves > 0
    stored = events_of(run, game_id)
    for socket in sockets:
        seen = socket.events()
        versions = [e["version"] for e in seen]
        assert versions == list(range(1, len(seen) + 1)), "every event once, in order"
        assert [e["type"] for e in seen] == [e["type"] for e in stored[: len(seen)]]
        assert all("receipt" in e for e in seen)
        socket.close()


# ----- refusals -----------------------------------------------------------------------------


def test_every_refusal_equals_what_post_actions_answers(run: FloeRun) -> None:
    game_id, tokens = create(run, "arktia")
    movers = [Socket(run.port, game_id) for _ in (0, 1)]
    for seat, socket in enumerate(movers):
        socket.hello(tokens[seat])
    legal = movers[0].until(lambda m: m["type"] == "legal_actions")
    version, good = legal["version"], legal["actions"][0]
    mover = 0
    assert mover in view_of(run, game_id)["to_act"]
    cases: list[tuple[int, Any]] = [
        (0, {"action": good, "expected_version": version + 5}),  # stale: 409
        (1, {"action": good, "expected_version": version}),  # not this seat's turn: 403
        (0, {"action": {**good, "tile": [40, 40]}, "expected_version": version}),  # illegal
        (0, {"action": {"type": "place"}, "expected_version": version}),  # fields missing
        (0, {"action": {"type": "fly"}, "expected_version": version}),  # no such action
        (0, {"action": good, "expected_version": "one"}),  # schema: 400
        (0, {"action": good}),  # schema: no version
        (0, {"action": good, "expected_version": version, "signature": "ab" * 64}),  # 400
    ]
    expected_statuses = set()
    for n, (seat, fields) in enumerate(cases):
        command_id = f"bad-{n}"
        body = {**fields, "command_id": command_id}
        movers[seat].send({"type": "action", **body})
        answer = movers[seat].answer(command_id)
        over_http = post_raw(run, game_id, json.dumps(body).encode(), tokens[seat])
        assert answer["type"] == "refused", (fields, answer)
        assert (answer["status"], answer["error"]["code"]) == over_http, fields
        expected_statuses.add(answer["status"])
    assert {400, 403, 409, 422} <= expected_statuses

    # Not JSON: 400 malformed_json either way.
    movers[0].send("{not json")
    malformed = movers[0].until(lambda m: m["type"] == "refused")
    assert (malformed["status"], malformed["error"]["code"]) == post_raw(
        run, game_id, b"{not json", tokens[0]
    )
    # A message of no known type: 400 invalid_body.
    movers[0].send({"type": "dance", "command_id": "dance"})
    assert movers[0].answer("dance")["error"]["code"] == "invalid_body"

    # A spectator's socket acting: 401 missing_token, as a POST without a token.
    spectator = Socket(run.port, game_id)
    spectator.hello()
    spectator.act(good, version, "anon")
    anon = spectator.answer("anon")
    assert (anon["status"], anon["error"]["code"]) == post_raw(
        run,
        game_id,
        json.dumps({"action": good, "expected_version": version, "command_id": "anon"}).encode(),
        None,
    )
    assert anon["status"] == 401

    # An unknown token: refused as HTTP refuses it, and the socket is closed.
    stranger = Socket(run.port, game_id)
    stranger.hello(f"{game_id}.0.not-the-secret")
    unknown = stranger.next()
    body = {"action": good, "expected_version": version, "command_id": "x"}
    assert (unknown["status"], unknown["error"]["code"]) == post_raw(
        run, game_id, json.dumps(body).encode(), f"{game_id}.0.not-the-secret"
    )
    assert unknown["status"] == 401 and stranger.close_code() == 1008  # not final, not 1000
    assert [m["type"] for m in stranger.seen] == ["refused"]  # no welcome

    # Nothing refused was written: the game is where it was.
    assert view_of(run, game_id)["version"] == version
    for socket in (*movers, spectator):
        socket.close()


def test_an_action_on_a_finished_game_is_refused_403_game_over_as_over_http(
    run: FloeRun,
) -> None:
    """The game over (a seat resigned over HTTP), a socket says hello from the start and acts
    in the same write, so the action is read while the finished game's events are still
    being sent: it is refused as POST refuses it (403 ``game_over``), and only then is the
    socket closed 1000 (the close waits for an answer under way)."""
    game_id, tokens = create(run, "arktia")
    version = view_of(run, game_id)["version"]
    path = f"/v1/games/{game_id}/actions"
    body = {"action": {"type": "resign"}, "expected_version": version, "command_id": "bye"}
    status, _, _ = call(run.port, "POST", path, body, token=tokens[0])
    assert status == 201
    stored = wait_for(
        partial(events_of, run, game_id),
        lambda events: events[-1]["type"] == "seed_revealed",
        PROMPTLY,
        "the finished game's last event",
    )
    last = stored[-1]["version"]
    late = {"action": {"type": "resign"}, "expected_version": last, "command_id": "late"}
    socket = Socket(run.port, game_id)
    hello = {"type": "hello", "token": tokens[1], "after": 0}
    frames = [
        socket.ws.ws.send(TextMessage(data=json.dumps(m)))
        for m in (hello, {"type": "action", **late})
    ]
    socket.ws.sock.sendall(b"".join(frames))
    assert socket.welcomed() == {"type": "welcome", "version": last, "seat": 1}
    refused = socket.answer("late")
    over_http = post_error(run, game_id, json.dumps(late).encode(), tokens[1])
    assert refused["type"] == "refused"
    assert (refused["status"], refused["error"]) == over_http
    assert over_http[0] == 403 and over_http[1]["code"] == "game_over"
    assert socket.close_code() == 1000
    assert [e["version"] for e in socket.events()] == list(range(1, last + 1))
    assert len(events_of(run, game_id)) == last, "nothing was appended"


def test_a_keyed_seats_refusals_equal_what_post_actions_answers(run: FloeRun) -> None:
    """Seats with public keys: an action unsigned, signed badly, by another key, or over
    another version is 401 ``bad_signature`` (before a 400 of the body's schema), and a
    well-signed one out of turn, stale or illegal is 403, 409 or 422: each equal to what
    POST answers for the same body and token. A well-signed legal action is accepted."""
    keys = [new_private_key() for _ in (0, 1)]
    players = [
        {"name": name, "public_key": public_key_of(key)}
        for name, key in zip("ab", keys, strict=True)
    ]
    body = {"game": "arktia", "players": players, "options": {}}
    status, created, _ = call(
        run.port, "POST", f"/v1/games?wait={WAIT}", body, timeout=WAIT + PROMPTLY
    )
    assert status == 201, created
    game_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    seat = view_of(run, game_id)["to_act"][0]
    other = 1 - seat
    sockets_ = [Socket(run.port, game_id) for _ in (0, 1)]
    for n, socket in enumerate(sockets_):
        socket.hello(tokens[n])
    legal = sockets_[seat].until(lambda m: m["type"] == "legal_actions")
    version, good = legal["version"], legal["actions"][0]

    def signed(key: str, at: int, action: Any) -> str:
        return sign(key, action_message(game_id, at, action))

    illegal = {**good, "tile": [40, 40]}
    cases: list[tuple[int, dict[str, Any]]] = [
        (seat, {"action": good, "expected_version": version}),  # unsigned: 401
        (seat, {"action": good, "expected_version": version, "signature": "zz"}),  # 401
        (
            seat,
            {
                "action": good,
                "expected_version": version,
                "signature": signed(keys[other], version, good),
            },
        ),
        (
            seat,
            {
                "action": good,
                "expected_version": version,
                "signature": signed(keys[seat], version + 1, good),
            },
        ),
        (
            seat,
            {
                "action": good,
                "expected_version": "one",
                "signature": signed(keys[seat], version, good),
            },
        ),
        (
            other,
            {
                "action": good,
                "expected_version": version,
                "signature": signed(keys[other], version, good),
            },
        ),
        (
            seat,
            {
                "action": good,
                "expected_version": version + 5,
                "signature": signed(keys[seat], version + 5, good),
            },
        ),
        (
            seat,
            {
                "action": illegal,
                "expected_version": version,
                "signature": signed(keys[seat], version, illegal),
            },
        ),
    ]
    answered = []
    for n, (by, fields) in enumerate(cases):
        command_id = f"keyed-{n}"
        message = {**fields, "command_id": command_id}
        sockets_[by].send({"type": "action", **message})
        answer = sockets_[by].answer(command_id)
        over_http = post_error(run, game_id, json.dumps(message).encode(), tokens[by])
        assert answer["type"] == "refused", (fields, answer)
        assert (answer["status"], answer["error"]) == over_http, fields
        answered.append((answer["status"], answer["error"]["code"]))
    assert [code for _, code in answered[:5]] == ["bad_signature"] * 5
    assert [status for status, _ in answered] == [401] * 5 + [403, 409, 422]
    assert answered[5][1] == "not_your_turn"
    assert view_of(run, game_id)["version"] == version, "nothing refused was written"
    sockets_[seat].act(good, version, "keyed-ok", signature=signed(keys[seat], version, good))
    assert sockets_[seat].answer("keyed-ok") == {
        "type": "accepted",
        "command_id": "keyed-ok",
        "version": version + 1,
    }
    for socket in sockets_:
        socket.close()


def test_the_same_command_id_twice_is_answered_the_same_and_appended_once(run: FloeRun) -> None:
    game_id, tokens = create(run, "arktia")
    socket = Socket(run.port, game_id)
    socket.hello(tokens[0])
    legal = socket.until(lambda m: m["type"] == "legal_actions")
    for _ in range(2):
        socket.act(legal["actions"][0], legal["version"], "once")
    first, second = socket.answer("once"), socket.answer("once")
    assert (
        first
        == second
        == {"type": "accepted", "command_id": "once", "version": legal["version"] + 1}
    )
    # A different request under the same id: 422 command_id_reused, as over HTTP.
    socket.act(legal["actions"][1], legal["version"], "once")
    reused = socket.answer("once")
    assert (reused["status"], reused["error"]["code"]) == (422, "command_id_reused")
    stored = events_of(run, game_id)
    assert [e["command_id"] for e in stored].count("once") == 1
    socket.close()


# ----- the welcome --------------------------------------------------------------------------


def test_an_accepted_hello_is_welcomed_first_with_the_version_and_the_viewers_seat(
    run: FloeRun,
) -> None:
    """Before any event: the game's version as the hello was accepted, and the token's seat
    (null for a spectator), whatever ``after`` says."""
    game_id, tokens = create(run, "arktia")
    version = view_of(run, game_id)["version"]
    viewers = [(tokens[0], 0), (tokens[1], 1), (None, None)]
    sockets = [Socket(run.port, game_id) for _ in viewers]
    for socket, (token, _) in zip(sockets, viewers, strict=True):
        socket.hello(token)
    for socket, (_, seat) in zip(sockets, viewers, strict=True):
        assert socket.next() == {"type": "welcome", "version": version, "seat": seat}
        assert socket.next()["type"] == "event"  # then the log, from its first event
    # A move later, a socket resuming at that move is welcomed at the new version.
    mover = view_of(run, game_id)["to_act"][0]
    legal = sockets[mover].until(lambda m: m["type"] == "legal_actions")
    sockets[mover].act(legal["actions"][0], legal["version"], "m")
    assert sockets[mover].answer("m") == {
        "type": "accepted",
        "command_id": "m",
        "version": version + 1,
    }
    resumed = Socket(run.port, game_id)
    resumed.hello(tokens[1 - mover], after=version + 1)
    assert resumed.next() == {"type": "welcome", "version": version + 1, "seat": 1 - mover}
    for socket in (*sockets, resumed):
        socket.close()


# ----- what a socket shows ------------------------------------------------------------------


def test_a_spectators_socket_shows_what_get_events_shows_them(run: FloeRun) -> None:
    """Iceberg's face-down tiles are hidden from spectators before the end."""
    game_id, tokens = create(run, "iceberg")
    players = [Socket(run.port, game_id) for _ in (0, 1)]
    for seat, socket in enumerate(players):
        socket.hello(tokens[seat])
    rng = random.Random(3)
    for _ in range(6):  # a few moves, the game far from over
        view = view_of(run, game_id)
        if not view["to_act"]:
            break
        seat, version = view["to_act"][0], view["version"]
        legal = players[seat].until(
            lambda m, v=version: m["type"] == "legal_actions" and m["version"] >= v
        )
        players[seat].act(rng.choice(legal["actions"]), legal["version"], f"m{legal['version']}")
        assert players[seat].answer(f"m{legal['version']}")["type"] == "accepted"
    view = view_of(run, game_id)
    assert view["status"] != "over"
    spectator = Socket(run.port, game_id)
    spectator.hello()
    spectator.until(lambda m: m["type"] == "event" and m["event"]["version"] == view["version"])
    shown = events_of(run, game_id)
    assert without_receipts(spectator.events()) == shown[: view["version"]]
    hidden = [
        e for e in spectator.events() if e["type"] == "random" and e["data"]["label"] == "tiles"
    ]
    assert hidden and all(e["data"]["outcome"] is None for e in hidden), "face-down tiles masked"
    # A seat's socket shows it the same events (the log's masks are every viewer's).
    assert (
        without_receipts(players[0].events())
        == events_of(run, game_id, tokens[0])[: len(players[0].events())]
    )
    for socket in (*players, spectator):
        socket.close()


def test_a_dropped_socket_resumed_with_after_loses_nothing_and_doubles_nothing(
    run: FloeRun,
) -> None:
    game_id, tokens = create(run, "arktia")
    first = Socket(run.port, game_id)
    first.hello(tokens[0])
    legal = first.until(lambda m: m["type"] == "legal_actions")
    first.act(legal["actions"][0], legal["version"], "before")
    assert first.answer("before")["type"] == "accepted"
    first.until(lambda m: m["type"] == "event" and m["event"]["version"] == legal["version"] + 1)
    first.close()  # dropped
    had = first.events()
    # Moves go on meanwhile, over HTTP.
    rng = random.Random(5)
    for _ in range(4):
        view = view_of(run, game_id)
        seat = view["to_act"][0]
        _, options, _ = call(
            run.port, "GET", f"/v1/games/{game_id}/legal-actions", token=tokens[seat]
        )
        body = {
            "action": rng.choice(options["actions"]),
            "expected_version": options["version"],
            "command_id": f"h{options['version']}",
        }
        status, answer, _ = call(
            run.port, "POST", f"/v1/games/{game_id}/actions", body, token=tokens[seat]
        )
        assert status == 201, answer
    now = view_of(run, game_id)["version"]
    again = Socket(run.port, game_id)
    again.hello(tokens[0], after=had[-1]["version"])
    again.until(lambda m: m["type"] == "event" and m["event"]["version"] == now)
    resumed = again.events()
    assert [e["version"] for e in resumed] == list(range(had[-1]["version"] + 1, now + 1))
    assert without_receipts(had + resumed) == events_of(run, game_id, tokens[0])
    again.close()


# ----- the socket's edges -------------------------------------------------------------------


def test_a_token_in_the_url_is_refused_before_the_upgrade(run: FloeRun) -> None:
    game_id, tokens = create(run, "arktia")
    status, body = upgrade(run, f"/v1/games/{game_id}/socket?token={tokens[0]}")
    assert (status, body["error"]["code"]) == (400, "token_in_url")
    status, body = upgrade(run, f"/v1/games/{game_id}/socket?after=3")
    assert (status, body["error"]["code"]) == (400, "invalid_query")
    status, body = upgrade(run, "/v1/games/0000000000000000/socket")
    assert (status, body["error"]["code"]) == (404, "game_not_found")
    status, _ = upgrade(run, f"/v1/games/{game_id}/socket")
    assert status == 101


def test_a_socket_that_says_no_hello_is_refused_and_closed(run: FloeRun) -> None:
    game_id, _ = create(run, "arktia")
    silent = Socket(run.port, game_id)
    refused = silent.next()  # the server's deadline, not the test's
    assert refused == {
        "type": "refused",
        "command_id": None,
        "status": 408,
        "error": {"code": "hello_timeout", "message": refused["error"]["message"]},
    }
    assert silent.close_code() == 1008
    late = Socket(run.port, game_id)
    late.act({"type": "pass"}, 1, "first")  # an action before the hello
    assert late.next()["error"]["code"] == "hello_expected"
    assert late.close_code() == 1008


def test_idle_sockets_do_not_stop_health_answering(run: FloeRun) -> None:
    game_id, _ = create(run, "arktia")
    idle = []
    for _ in range(IDLE_SOCKETS):
        idle.append(Socket(run.port, game_id))
        idle[-1].hello()  # at once: the hello deadline here is short
    for socket in idle:  # each is open and caught up: it has the game's first event
        socket.until(lambda m: m["type"] == "event")
    status, health, _ = call(run.port, "GET", "/v1/health")
    assert status == 200 and health["status"] == "ok"
    for socket in idle:
        socket.close()


def test_a_socket_holds_a_long_request_and_each_message_is_charged(tmp_path: Path) -> None:
    """One long request per address: a second socket is 429 ``too_many_streams`` before the
    upgrade. Five requests per token: the hello and each action count, as HTTP's do."""
    env = {
        "FLOE_LONG_REQUESTS_PER_ADDRESS": "1",
        "FLOE_RATE_LIMIT_PER_TOKEN": "5",
        "FLOE_RATE_LIMIT_WINDOW_SECONDS": "3600",
    }
    with floe_run(tmp_path, env) as served:
        game_id, tokens = create(served, "arktia")
        socket = Socket(served.port, game_id)
        socket.hello(tokens[0])  # 1
        status, body = upgrade(served, f"/v1/games/{game_id}/socket")
        assert (status, body["error"]["code"]) == (429, "too_many_streams")
        answers = []
        for n in range(5):  # 2..5 are refused as unknown; the 6th is over the limit
            socket.act({"type": "pass"}, 999, f"c{n}")
            answers.append(socket.answer(f"c{n}"))
        assert [a["status"] for a in answers] == [400, 400, 400, 400, 429]
        assert answers[-1]["error"]["code"] == "rate_limited"
        assert post_raw(served, game_id, b"{}", tokens[0]) == (429, "rate_limited")
        socket.close()
        status, _ = upgrade(served, f"/v1/games/{game_id}/socket")
        assert status in (101, 429)  # the slot comes back once the server sees the close


def test_a_socket_whose_time_is_up_is_closed_1001_and_resumes_with_after(tmp_path: Path) -> None:
    """``FLOE_SOCKET_MAX_SECONDS`` passed: closed 1001 (going away), not 1000, since the game
    goes on; a socket reopened with ``after`` is welcomed at the same version."""
    with floe_run(tmp_path, {"FLOE_SOCKET_MAX_SECONDS": "1"}) as served:
        game_id, tokens = create(served, "arktia")
        version = view_of(served, game_id)["version"]
        socket = Socket(served.port, game_id)
        socket.hello(tokens[0])
        assert socket.welcomed()["version"] == version
        assert socket.close_code() == 1001
        assert view_of(served, game_id)["status"] != "over"
        again = Socket(served.port, game_id)
        again.hello(tokens[0], after=socket.events()[-1]["version"])
        assert again.welcomed() == {"type": "welcome", "version": version, "seat": 0}
        assert again.close_code() == 1001


def test_a_finished_games_socket_is_closed_after_its_last_event(run: FloeRun) -> None:
    """Where the SSE stream ends (after ``seed_revealed``), the server closes the socket,
    1000, rather than hold it open: for the seat whose move ended the game (answered first),
    for a socket opened on the finished game, and for one that has every event already."""
    game_id, tokens = create(run, "arktia")
    version = view_of(run, game_id)["version"]
    seat = Socket(run.port, game_id)
    seat.hello(tokens[0])
    seat.act({"type": "resign"}, version, "resign")  # the other seat wins at once
    assert seat.welcomed() == {"type": "welcome", "version": version, "seat": 0}
    assert seat.answer("resign")["type"] == "accepted"
    assert seat.close_code() == 1000
    events = seat.events()
    assert events[-1]["type"] == "seed_revealed"
    stored = events_of(run, game_id, tokens[0])
    assert [(e["version"], e["type"]) for e in events] == [
        (e["version"], e["type"]) for e in stored
    ]  # (shown while live: without the hashes a finished game's events carry)
    last = events[-1]["version"]
    late = Socket(run.port, game_id)
    late.hello()
    assert late.close_code() == 1000
    assert late.seen[0] == {"type": "welcome", "version": last, "seat": None}
    assert without_receipts(late.events()) == events_of(run, game_id)
    caught_up = Socket(run.port, game_id)
    caught_up.hello(tokens[1], after=last)
    assert caught_up.close_code() == 1000
    assert caught_up.seen == [{"type": "welcome", "version": last, "seat": 1}]  # and no more


# ----- hardening ----------------------------------------------------------------------------


def test_a_spectators_message_that_is_not_json_is_401_first_as_over_http(run: FloeRun) -> None:
    """HTTP's order: 401 ``missing_token`` outranks the 400 of a body that is not JSON."""
    game_id, _ = create(run, "arktia")
    spectator = Socket(run.port, game_id)
    spectator.hello()
    spectator.send("{not json")
    refused = spectator.until(lambda m: m["type"] == "refused")
    over_http = post_raw(run, game_id, b"{not json", None)
    assert (refused["status"], refused["error"]["code"]) == over_http == (401, "missing_token")
    spectator.close()


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-WebSocket-Version": "13"},  # no Sec-WebSocket-Key
        {"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "8"},
    ],
    ids=["no-key", "bad-version"],
)
def test_a_malformed_upgrade_is_400_not_500(run: FloeRun, headers: dict[str, str]) -> None:
    game_id, _ = create(run, "arktia")
    connection = http.client.HTTPConnection("127.0.0.1", run.port, timeout=PROMPTLY)
    try:
        connection.request(
            "GET",
            f"/v1/games/{game_id}/socket",
            headers={"Connection": "Upgrade", "Upgrade": "websocket", **headers},
        )
        response = connection.getresponse()
        status, body = response.status, json.loads(response.read())
    finally:
        connection.close()
    assert (status, body["error"]["code"]) == (400, "http_error"), body
    # The slot it held came back, and the server still answers.
    assert call(run.port, "GET", "/v1/health")[0] == 200


def test_a_flood_of_messages_closes_the_socket_1008(run: FloeRun) -> None:
    """Messages arriving faster than they are answered: past ``MAX_WAITING_MESSAGES`` waiting,
    the socket is closed (policy violation) rather than buffer them without bound."""
    game_id, _ = create(run, "arktia")
    flooder = Socket(run.port, game_id)
    flooder.hello()
    flooder.until(lambda m: m["type"] == "event")
    frame = flooder.ws.ws.send(TextMessage(data="x"))
    flooder.ws.sock.sendall(frame * 500)  # one write: the server reads them at once
    assert flooder.closed_by_server()
    assert flooder.ws.close_reason == 1008


def test_messages_up_to_max_waiting_messages_in_one_write_are_all_answered(
    run: FloeRun,
) -> None:
    """``MAX_WAITING_MESSAGES`` + 1 messages in one write (one waits while the first is
    answered: never more than the cap) are each answered and the socket stays open; a few
    more than that in one write close it 1008 before any is answered."""
    game_id, tokens = create(run, "arktia")
    socket = Socket(run.port, game_id)
    socket.hello(tokens[0])
    socket.until(lambda m: m["type"] == "legal_actions")

    def burst(prefix: str, count: int) -> list[str]:
        ids = [f"{prefix}{n}" for n in range(count)]
        frames = (
            socket.ws.ws.send(TextMessage(data=json.dumps({"type": "action", "command_id": c})))
            for c in ids
        )
        socket.ws.sock.sendall(b"".join(frames))  # one write: the server reads them at once
        return ids

    kept = burst("k", MAX_WAITING_MESSAGES + 1)
    answers = [socket.answer(command_id) for command_id in kept]
    assert {(a["status"], a["error"]["code"]) for a in answers} == {(400, "invalid_body")}
    flooded = burst("f", MAX_WAITING_MESSAGES + 8)
    assert socket.close_code() == 1008
    assert socket.ws.close_message == "too many messages waiting"
    assert not [m for m in socket.seen if m.get("command_id") in flooded], "none answered"


def test_a_frame_over_max_body_bytes_characters_is_closed_1009(run: FloeRun) -> None:
    """A frame of ``max_body_bytes`` characters is read (and refused, as a body that is not
    JSON); one character more is cut off by simple-websocket and the socket closed 1009,
    after the hello as before it."""
    limit = 64 * 1024  # Settings.max_body_bytes, fixed in code
    game_id, tokens = create(run, "arktia")
    socket = Socket(run.port, game_id)
    socket.hello(tokens[0])
    socket.until(lambda m: m["type"] == "legal_actions")
    socket.send("x" * limit)
    at_cap = socket.until(lambda m: m["type"] == "refused")
    assert (at_cap["status"], at_cap["error"]["code"]) == (400, "malformed_json")
    socket.send("x" * (limit + 1))
    assert socket.close_code() == 1009
    assert [m["type"] for m in socket.seen].count("refused") == 1, "the large one unanswered"
    before_hello = Socket(run.port, game_id)
    before_hello.send(json.dumps({"type": "hello", "pad": "x" * limit}))
    assert before_hello.close_code() == 1009
    assert before_hello.seen == []


# ----- the store away -----------------------------------------------------------------------


@dataclass(frozen=True)
class OwnRedis:
    """A ``floe run`` on a Redis of the test's own (``REDIS_URL``), which the test stops and
    starts again on the same data while the API runs: how a store that does not answer is
    met by a real server."""

    run: FloeRun
    store: RedisServer


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnRedis]:
    # A short directory: a unix socket's path is limited to ~100 bytes.
    redis_dir = Path(tempfile.mkdtemp(prefix="floe-socket-"))
    store = start_embedded_redis(redis_dir, executable=redis_server_binary())
    env = {
        "REDIS_URL": store.url,
        "FLOE_JOB_WORKERS": "1",
        "FLOE_SOCKET_HELLO_SECONDS": str(PROMPTLY),  # the hello waits for Redis to stop
    }
    try:
        with floe_run(Path(tmp_path_factory.mktemp("socket-own-redis")), env) as served:
            yield OwnRedis(served, store)
    finally:
        store.stop()
        shutil.rmtree(redis_dir, ignore_errors=True)


@contextmanager
def store_stopped(store: RedisServer) -> Iterator[None]:
    """Redis stopped (SIGTERM: what it acknowledged is on disk) for the ``with`` body, and
    started again on the same data and socket after it, whatever the body did."""
    store.stop()
    try:
        yield
    finally:
        store.start()


def served(request: Callable[[], tuple[int, Any, dict[str, str]]]) -> Any:
    """The body of ``request``'s answer once the API is served by the Redis started again:
    a 503 ``store_unavailable`` (a pooled connection from before the restart) is retried."""
    status, body, _ = wait_for(
        request,
        lambda reply: reply[0] != 503 or reply[1]["error"]["code"] != "store_unavailable",
        PROMPTLY,
        "the API to be served by Redis again",
    )
    assert status in (200, 201), body
    return body


def welcomed_again(port: int, game_id: str, token: str, after: int) -> Socket:
    """A socket reopened with ``after`` as a client reopens one closed 1011: at once, and
    again while its hello is refused 503 (``store_unavailable``) and closed 1011."""

    def reopen() -> tuple[Socket, Message | None]:
        socket = Socket(port, game_id)
        socket.hello(token, after=after)
        first = socket.next()
        if first["type"] == "welcome":
            return socket, first
        assert (first["status"], first["error"]["code"]) == (503, "store_unavailable"), first
        assert socket.close_code() == 1011
        return socket, None

    socket, _ = wait_for(reopen, lambda opened: opened[1] is not None, PROMPTLY, "a welcome")
    return socket


def test_a_hello_the_store_cannot_serve_is_refused_503_and_closed_1011(
    own_redis: OwnRedis,
) -> None:
    """Redis stopped after the upgrade, before the hello: the hello is refused as HTTP
    refuses any request then (503 ``store_unavailable``, never 500), and the close is 1011
    (not final: reopen), never 1000 nor 1008. Once Redis is back a hello is welcomed."""
    run = own_redis.run
    game_id, tokens = create(run, "arktia")
    version = view_of(run, game_id)["version"]
    socket = Socket(run.port, game_id)  # upgraded: the route has read the game's meta
    with store_stopped(own_redis.store):
        socket.hello(tokens[0])
        refused = socket.next()
        assert refused == {
            "type": "refused",
            "command_id": None,
            "status": 503,
            "error": {"code": "store_unavailable", "message": refused["error"]["message"]},
        }
        assert socket.close_code() == 1011
        assert socket.seen == [refused], "no welcome, no event"
        status, down, _ = call(run.port, "GET", f"/v1/games/{game_id}")
        assert (status, down["error"]["code"]) == (503, "store_unavailable"), "as over HTTP"
    again = welcomed_again(run.port, game_id, tokens[0], after=0)
    assert again.seen[-1] == {"type": "welcome", "version": version, "seat": 0}
    again.until(lambda m: m["type"] == "event" and m["event"]["version"] == version)
    again.close()


def test_a_socket_whose_following_fails_is_closed_1011_and_resumes_with_after(
    own_redis: OwnRedis,
) -> None:
    """Redis stopped while a seat's socket follows the game: the follower's read fails, and
    the socket is closed 1011 (following failed: reopen), not 1000 (the game is not over).
    Moves made once Redis is back reach a socket reopened with ``after``: every event once,
    none lost, none doubled."""
    run = own_redis.run
    game_id, tokens = create(run, "arktia")
    version = view_of(run, game_id)["version"]
    first = Socket(run.port, game_id)
    first.hello(tokens[0])
    assert first.welcomed()["version"] == version
    first.until(lambda m: m["type"] == "event" and m["event"]["version"] == version)
    with store_stopped(own_redis.store):
        assert first.close_code() == 1011
        assert first.ws.close_message == "following the game failed: reopen"
    had = first.events()
    assert [e["version"] for e in had] == list(range(1, version + 1))
    rng = random.Random(11)
    for _ in range(3):  # moves go on once Redis is back, over HTTP
        view = served(partial(call, run.port, "GET", f"/v1/games/{game_id}"))
        seat = view["to_act"][0]
        path = f"/v1/games/{game_id}/legal-actions"
        legal = served(partial(call, run.port, "GET", path, token=tokens[seat]))
        body = {
            "action": rng.choice(legal["actions"]),
            "expected_version": legal["version"],
            "command_id": f"back-{legal['version']}",
        }
        path = f"/v1/games/{game_id}/actions"
        served(partial(call, run.port, "POST", path, body, token=tokens[seat]))
    now = view_of(run, game_id)["version"]
    assert now == version + 3 and view_of(run, game_id)["status"] != "over"
    again = welcomed_again(run.port, game_id, tokens[0], after=had[-1]["version"])
    assert again.seen[-1] == {"type": "welcome", "version": now, "seat": 0}
    again.until(lambda m: m["type"] == "event" and m["event"]["version"] == now)
    resumed = again.events()
    assert [e["version"] for e in resumed] == list(range(version + 1, now + 1))
    assert without_receipts(had + resumed) == events_of(run, game_id, tokens[0])
    again.close()


# ----- audit: reissued tokens, the rate limit's place, sizes in bytes, whole writes ---------


def move_over_http(run: FloeRun, game_id: str, token: str, command_id: str) -> int:
    """One legal move by ``token``'s seat over HTTP; the version it made."""
    status, legal, _ = call(run.port, "GET", f"/v1/games/{game_id}/legal-actions", token=token)
    assert status == 200, legal
    body = {
        "action": legal["actions"][0],
        "expected_version": legal["version"],
        "command_id": command_id,
    }
    path = f"/v1/games/{game_id}/actions"
    status, answer, _ = call(run.port, "POST", path, body, token=token)
    assert status == 201, answer
    return int(legal["version"]) + 1


def test_a_reissued_tournament_token_stops_working_on_a_socket_opened_before(
    run: FloeRun,
) -> None:
    """The organizer reissues a player's token while the player's sockets are open: an action
    over one is refused as POST refuses the old token (401 ``unknown_token``) and the socket
    closed 1008; the other is closed 1008 when its seat is next to act, with no
    ``legal_actions`` pushed; the game did not move; the new token plays."""
    payload = {
        "game": "arktia",
        "format": "swiss",
        "rounds": 1,
        "players": [{"name": "p0"}, {"name": "p1"}],
        "options": {"turn_limit": 6},
    }
    status, created, _ = call(run.port, "POST", "/v1/tournaments", payload, token=ORGANIZER)
    assert status == 201, created
    [game] = created["rounds"][0]["games"]
    game_id = game["game_id"]
    player_tokens = [p["token"] for p in created["players"]]
    view = view_of(run, game_id)
    seat = view["to_act"][0]
    player = game["players"][seat]
    old = player_tokens[player]
    acting, watching = Socket(run.port, game_id), Socket(run.port, game_id)
    for socket in (acting, watching):
        socket.hello(old)
        assert socket.welcomed()["seat"] == seat
    legal = acting.until(lambda m: m["type"] == "legal_actions")
    watching.until(lambda m: m["type"] == "legal_actions")
    version = legal["version"]

    path = f"/v1/tournaments/{created['id']}/players/{player}/token"
    status, issued, _ = call(run.port, "POST", path, token=ORGANIZER)
    assert status == 201, issued
    new = issued["token"]

    acting.act(legal["actions"][0], version, "stale-token")
    refused = acting.answer("stale-token")
    body = {"action": legal["actions"][0], "expected_version": version, "command_id": "x"}
    over_http = post_error(run, game_id, json.dumps(body).encode(), old)
    assert refused["type"] == "refused"
    assert (refused["status"], refused["error"]) == over_http
    assert over_http[0] == 401 and over_http[1]["code"] == "unknown_token"
    assert acting.close_code() == 1008
    assert view_of(run, game_id)["version"] == version, "the game did not move"

    # The seat moves with its new token, the other seat answers: the old socket that only
    # watched is closed when its seat is to act again, and is pushed no legal actions.
    now = move_over_http(run, game_id, new, "new-token")
    while seat not in view_of(run, game_id)["to_act"]:
        other = game["players"][view_of(run, game_id)["to_act"][0]]
        now = move_over_http(run, game_id, player_tokens[other], f"other-{now}")
    assert watching.close_code() == 1008
    assert watching.ws.close_message == "the token names nobody now: say hello with the new one"
    pushed = [m["version"] for m in watching.seen if m["type"] == "legal_actions"]
    assert pushed == [version], "no legal actions after the reissue"

    # The new token on a new socket: welcomed at its seat, pushed its legal actions.
    again = Socket(run.port, game_id)
    again.hello(new)
    assert again.welcomed() == {"type": "welcome", "version": now, "seat": seat}
    assert again.until(lambda m: m["type"] == "legal_actions")["version"] == now
    again.close()


def test_a_malformed_hello_over_the_rate_limit_is_429_as_over_http(tmp_path: Path) -> None:
    """HTTP checks the rate limit before it reads the body: a hello over its token's limit
    is refused 429 ``rate_limited`` whatever else is wrong with it, and closed 1008."""
    env = {"FLOE_RATE_LIMIT_PER_TOKEN": "2", "FLOE_RATE_LIMIT_WINDOW_SECONDS": "3600"}
    with floe_run(tmp_path, env) as served:
        game_id, tokens = create(served, "arktia")
        assert post_raw(served, game_id, b"{not json", tokens[0]) == (400, "malformed_json")
        assert post_raw(served, game_id, b"{not json", tokens[0]) == (400, "malformed_json")
        over_http = post_error(served, game_id, b"{not json", tokens[0])
        assert over_http[0] == 429 and over_http[1]["code"] == "rate_limited"
        malformed = [
            {"type": "hello", "token": tokens[0], "after": "one"},  # after: not a number
            {"type": "hello", "token": tokens[0], "colour": "red"},  # an unknown field
            {"token": tokens[0]},  # not a hello at all
        ]
        for hello in malformed:
            socket = Socket(served.port, game_id)
            socket.send(hello)
            refused = socket.next()
            assert refused["type"] == "refused" and refused["command_id"] is None, refused
            assert (refused["status"], refused["error"]["code"]) == (429, "rate_limited"), hello
            assert socket.close_code() == 1008
        # Another token's malformed hello is still 400: the limit is the token's.
        socket = Socket(served.port, game_id)
        socket.send({"type": "hello", "token": tokens[1], "after": "one"})
        refused = socket.next()
        assert (refused["status"], refused["error"]["code"]) == (400, "invalid_body")
        assert socket.close_code() == 1008


def test_a_message_over_max_body_bytes_in_utf8_is_refused_413_and_the_socket_stays_open(
    run: FloeRun,
) -> None:
    """Sizes count bytes, as a body's do: a message of 2-byte characters over the limit in
    bytes, under it in characters, is refused 413 ``body_too_large`` in HTTP's own words,
    with its command id, and the socket goes on: the next action is accepted."""
    game_id, tokens = create(run, "arktia")
    seat = view_of(run, game_id)["to_act"][0]
    socket = Socket(run.port, game_id)
    socket.hello(tokens[seat])
    legal = socket.until(lambda m: m["type"] == "legal_actions")
    limit = 64 * 1024  # Settings.max_body_bytes, fixed in code
    body = {
        "action": {**legal["actions"][0], "note": "\u00e9" * (limit // 2 + 100)},
        "expected_version": legal["version"],
        "command_id": "big",
    }
    raw = json.dumps(body, ensure_ascii=False)
    assert len(raw) < limit < len(raw.encode())
    socket.send(json.dumps({"type": "action", **body}, ensure_ascii=False))
    refused = socket.answer("big")
    over_http = post_error(run, game_id, raw.encode(), tokens[seat])
    assert refused["type"] == "refused"
    assert (refused["status"], refused["error"]) == over_http
    assert over_http[0] == 413 and over_http[1]["code"] == "body_too_large"
    socket.act(legal["actions"][0], legal["version"], "small")
    assert socket.answer("small") == {
        "type": "accepted",
        "command_id": "small",
        "version": legal["version"] + 1,
    }
    # A hello as large: refused 413 too (and closed 1008, as any refused hello).
    big_hello = Socket(run.port, game_id)
    big_hello.send(
        json.dumps({"type": "hello", "pad": "\u00e9" * (limit // 2 + 100)}, ensure_ascii=False)
    )
    refused = big_hello.next()
    assert (refused["status"], refused["error"]["code"]) == (413, "body_too_large")
    assert big_hello.close_code() == 1008
    socket.close()


def test_serial_writes_writes_each_buffer_whole_and_one_at_a_time() -> None:
    """Two writers (one through ``send``, as simple-websocket's reader writes its pongs, one
    through ``sendall``, as ours) of large buffers to a real socket: each buffer arrives
    whole, never interleaved with the other's, and ``send`` says it wrote all of it."""
    left, right = sockets.socketpair()
    left.settimeout(PROMPTLY)
    writes = SerialWrites(left)
    size, rounds = 1 << 20, 8
    frames = {tag: bytes([tag]) * size for tag in (1, 2)}
    sent: list[int] = []
    errors: list[BaseException] = []

    def write(tag: int) -> None:
        try:
            for _ in range(rounds):
                if tag == 1:
                    sent.append(writes.send(frames[tag]))
                else:
                    writes.sendall(frames[tag])
        except BaseException as error:  # reported below
            errors.append(error)

    writers = [threading.Thread(target=write, args=(tag,)) for tag in frames]
    for writer in writers:
        writer.start()
    received = bytearray()
    right.settimeout(PROMPTLY)
    while len(received) < 2 * rounds * size:
        chunk = right.recv(1 << 16)
        assert chunk, "the writer side closed early"
        received += chunk
    for writer in writers:
        writer.join(PROMPTLY)
    assert not errors, errors
    assert sent == [size] * rounds
    buffers = [bytes(received[i : i + size]) for i in range(0, len(received), size)]
    assert sorted(buffer[0] for buffer in buffers) == [1] * rounds + [2] * rounds
    assert all(buffer == frames[buffer[0]] for buffer in buffers), "a write was interleaved"
    assert writes.fileno() == left.fileno()  # everything else is the socket's own
    writes.close()
    right.close()
