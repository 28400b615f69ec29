"""Live play over one socket: ``GET /v1/games/{id}/socket``, a WebSocket per player or
spectator on the same Flask app and gevent server as every other route.

**The library: simple-websocket** (on wsproto), used directly. It is maintained (the author
of Flask-SocketIO; 1.1 in 2024), takes the socket gunicorn hands the app
(``environ["gunicorn.socket"]``), and under gunicorn's gevent worker (``CappedGeventWorker``,
which patches threads) its reader is a greenlet: an idle socket costs that greenlet, the
route's and ``_follow``'s, no thread and no Redis connection (waits ring on the process's
one subscription, ``service/store/appends.py``). A message costs wsproto's frame parsing, a
few microseconds, and no WSGI or routing at all: the route runs once per socket. flask-sock
(the same author's wrapper) upgrades before the route runs, so the refusals that must come
as HTTP (404, ``token_in_url``, 429 ``too_many_streams``) could not; here the route checks
them, then upgrades. Measured beside gevent-websocket (2017, Python masking: 19x the CPU of
a 10 KB message), wsproto and websockets' sans-I/O core each in a loop of our own:
BENCHMARKS.md, "WebSocket libraries".

**Messages** (docs/guide/live-socket.md): the client's first is ``{"type": "hello", "token"?,
"after"?}`` within ``FLOE_SOCKET_HELLO_SECONDS``; its token is resolved as HTTP resolves
an ``Authorization`` header: a game's seat token once (it never changes), a tournament
player's again before each action and each ``legal_actions`` (the organizer may reissue it,
and the old one then names nobody: the action is refused 401 ``unknown_token``, as POST
refuses it, and the socket closed 1008; the follower closes it 1008 instead of pushing).
An accepted hello is answered ``{"type": "welcome",
"version", "seat"}`` before anything else, so a client tells a socket that was accepted from
one with nothing newer to send. Then every event after ``after`` as the viewer may see it,
with its receipt, live ones as they come (``queries.live``, the SSE stream's loop: the
append's signal carries the events, so a move costs it no read), and to a seat in ``to_act``
its ``legal_actions`` after each, in the same write. An ``action`` message takes the path
``POST …/actions`` takes (``service/api/playing.py``, one function for both) and is answered
``accepted`` or ``refused`` with the status and code that POST would get, through the app's
own error handlers.

**Close codes** say whether the end is final, so a client need not guess. 1000 only once a
finished game's stream has ended where the SSE stream ends it (after ``seed_revealed``, or
when a finished game has nothing more to send): nothing more will ever come. Not final, the
client reopens at once with ``after``: 1001 when ``FLOE_SOCKET_MAX_SECONDS`` pass, 1011 when
following the game failed (or a hello could not be served: its ``refused`` is a 5xx). 1008
after any other refused hello (its ``refused`` says why), a tournament token reissued
meanwhile, or too many waiting messages; 1009 for a frame over ``max_body_bytes``
characters. A close the client starts is answered with its own code.

**Limits** as HTTP's: the socket holds one of its address's long requests
(``FLOE_LONG_REQUESTS_PER_ADDRESS``, 429 ``too_many_streams``) for at most
``FLOE_SOCKET_MAX_SECONDS``; a message may be as large as a request body (``max_body_bytes``
bytes of UTF-8): a larger one is refused 413 ``body_too_large`` in HTTP's words, before
anything else and uncharged, and the socket stays open (a frame of more than
``max_body_bytes`` characters, larger still, is cut off by simple-websocket, which closes
the socket 1009); every other message is charged to the rate limits as one request, before
it is read further (the hello's token is read leniently for that); a socket that answers no
ping within ``FLOE_SOCKET_PING_SECONDS`` is closed (1008, by simple-websocket). A client
that stops reading is dropped once a send has waited ``SEND_SECONDS``; one that sends
faster than it is answered, once ``MAX_WAITING_MESSAGES`` wait (1008).

**Writes**: simple-websocket's reader writes its pongs, pings and close frames with a bare
``sock.send``, which under gevent may write part of a buffer, or meet a send of ours waiting
on the same socket (``ConcurrentObjectUseError``). So the connection's socket is wrapped
(``SerialWrites``): every write, ours and the reader's, is whole and one at a time.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from flask import Blueprint, Response, current_app, request
from simple_websocket import ConnectionClosed, Server
from simple_websocket import ConnectionError as HandshakeFailed
from werkzeug.exceptions import BadRequest
from wsproto.events import TextMessage
from wsproto.frame_protocol import CloseReason
from wsproto.utilities import ProtocolError

from domain.engine import play
from service.api.errors import HttpError
from service.api.http import bad_request, current_floe, decode_json, only_query
from service.api.playing import play_action
from service.api.schemas.socket import load_hello
from service.bootstrap import Floe
from service.errors import Forbidden, InvalidRequest, Unauthenticated, not_a_seat
from service.games.access import Viewer
from service.games.catalog import GameMeta
from service.games.state_cache import Head
from service.store import codec as json_codec

log = logging.getLogger(__name__)

socket_v1 = Blueprint("socket_v1", __name__, url_prefix="/v1")

#: How often a follower looks up from its wait to see whether its socket is still open.
FOLLOW_BLOCK_MS = 5_000
#: How long one send may wait for the client to read: the gunicorn socket has no timeout of
#: its own, and a client that stops reading would otherwise pin the socket (and its
#: long-request slot) forever once the TCP buffer fills. Past it, the client is dropped.
SEND_SECONDS = 5.0
#: Messages the reader may hold unanswered (simple-websocket's buffer has no cap of its
#: own); past it the socket is closed 1008, so a flood cannot grow memory without bound.
MAX_WAITING_MESSAGES = 32
#: How long the route waits for its follower to end once the socket is done (a follower
#: in its wait for events ends at its next look-up, sending nothing: the socket is closed).
JOIN_SECONDS = 1.0
#: The reason of the one final close (1000): nothing more will ever come.
GAME_OVER = "the game is over"
#: The reason of the close once a tournament token has been reissued (1008).
TOKEN_REISSUED = "the token names nobody now: say hello with the new one"


class SerialWrites:
    """The connection's socket with every write whole and one at a time: ``send`` writes
    all of its buffer, as ``sendall`` does, under the same lock. simple-websocket's reader
    looks ``ws.sock`` up at each call, so its pongs, pings and close frames come here too
    and never land inside a frame being written. Everything else is the socket's own."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._write = threading.Lock()

    def send(self, data: bytes, flags: int = 0) -> int:
        self.sendall(data, flags)
        return len(data)

    def sendall(self, data: bytes, flags: int = 0) -> None:
        with self._write:
            self._sock.sendall(data, flags)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class Handled(Response):
    """The WSGI answer of a socket that has been served and closed: nothing more to write.

    Under gunicorn the connection is the socket's, so the worker is told to drop it
    (``StopIteration``, as flask-sock does: 'already handled, close'); Werkzeug's dev
    server is given an empty answer; any other server, an empty body.
    """

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def __call__(self, environ: Any, start_response: Any) -> Iterable[bytes]:
        if self.mode == "gunicorn":
            raise StopIteration
        if self.mode == "werkzeug":
            return super().__call__(environ, start_response)
        return []


@socket_v1.route("/games/<game_id>/socket", websocket=True)
def live_socket(game_id: str) -> Response:
    """Refuse over HTTP what can be refused before the upgrade, then serve the socket."""
    floe = current_floe()
    meta = floe.repository.meta(game_id)  # 404 (no token yet to outrank it)
    if "token" in request.args:
        raise bad_request(
            "token_in_url",
            "a socket's token goes in its hello message, never in the URL (URLs are logged)",
        )
    only_query()
    settings = floe.settings
    hold = floe.long_requests.acquire(request.remote_addr, settings.socket_max_seconds)
    try:
        try:
            ws = Server(
                request.environ,
                ping_interval=settings.socket_ping_seconds,
                max_message_size=settings.max_body_bytes,
            )
        except (ProtocolError, HandshakeFailed) as error:  # nothing was written yet
            raise BadRequest(f"not a valid WebSocket upgrade: {error}") from error
        ws.sock = SerialWrites(ws.sock)  # every write from here on, the reader's too
        # Sends only: the reader (pinging, so it selects before each recv) never times out.
        ws.sock.settimeout(SEND_SECONDS)
        LiveSocket(floe, ws, meta, request.remote_addr).serve()
    finally:
        if hold is not None:
            hold.release()
    return Handled(ws.mode)


def decode_message(raw: str | bytes) -> Any:
    """A message as JSON, read as ``json_body`` reads a body (400 ``malformed_json``)."""
    return decode_json(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)


def message_bytes(raw: str | bytes) -> int:
    """A message's size as a body's is counted: its bytes (UTF-8 for a text message)."""
    return len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)


def too_large(limit: int) -> HttpError:
    """413 ``body_too_large`` in the words HTTP answers a body over ``limit`` with
    (``BodyDeadline._too_large``, service/run/web.py)."""
    return HttpError(413, "body_too_large", f"the body is over this route's limit of {limit} bytes")


def refusal(error: Exception) -> tuple[int, dict[str, Any]]:
    """The status and ``{"code", "message"}`` HTTP would answer ``error`` with: the app's own
    error handlers decide (in the route's request context), never a table of this module's."""
    response = current_app.make_response(current_app.handle_user_exception(error))
    body = response.get_json()
    return response.status_code, body["error"]


class LiveSocket:
    """One open socket: the hello, then messages in (the route's greenlet) and events out
    (``_follow``'s), one send at a time."""

    def __init__(self, floe: Floe, ws: Server, meta: GameMeta, address: str | None) -> None:
        self.floe = floe
        self.ws = ws
        self.meta = meta
        self.address = address
        self.viewer = Viewer()
        self.authorization: str | None = None
        self._send_lock = threading.Lock()
        #: Held while a message is answered: the socket is not closed between an action's
        #: append and its ``accepted`` (the last move of a game is answered too).
        self._answering = threading.Lock()
        self._legal_pushed = -1
        #: Set once the viewer's tournament token names nobody (reissued): no more pushes.
        self._revoked = False
        #: Set once the route is done: the follower stops at its next look-up.
        self._done = threading.Event()

    def serve(self) -> None:
        """The hello, then each message until the client closes, the socket is dropped or
        ``FLOE_SOCKET_MAX_SECONDS`` pass; the follower is stopped and joined on the way out."""
        settings = self.floe.settings
        deadline = time.monotonic() + settings.socket_max_seconds
        follower: threading.Thread | None = None
        try:
            raw = self.ws.receive(timeout=settings.socket_hello_seconds)
            if raw is None:
                message = "no hello came in time: send it first"
                self.refuse_hello(408, {"code": "hello_timeout", "message": message})
                return
            hello = self._hello(raw)
            if hello is None:
                return
            after, head = hello
            seat = self.viewer.seat_in(self.meta.game_id)
            self.send({"type": "welcome", "version": head.state.version, "seat": seat})
            follower = threading.Thread(target=self._follow, args=(after, head), daemon=True)
            follower.start()
            while self.ws.connected:
                left = deadline - time.monotonic()
                if left <= 0:  # not final: the client reopens with ``after``
                    self.close(CloseReason.GOING_AWAY, "the socket's time is up: reopen")
                    break
                raw = self.ws.receive(timeout=left)
                if len(self.ws.input_buffer) > MAX_WAITING_MESSAGES:
                    self.close(CloseReason.POLICY_VIOLATION, "too many messages waiting")
                    break
                if raw is not None:
                    with self._answering:
                        self._on_message(raw)
        except (ConnectionClosed, OSError):  # closed, reset, or a send timed out: dropped
            pass
        finally:
            # Every way out above has closed the socket already; one still open here is
            # left by a fault of the server's, and says so (not final: reopen).
            self.close(CloseReason.INTERNAL_ERROR, "the server failed")
            self._done.set()
            self.ws.event.set()
            if follower is not None:
                follower.join(JOIN_SECONDS)

    def close(self, reason: int, message: str) -> None:
        """Close the socket with ``reason`` (its close code: whether the end is final, as
        the module says), between two sends, never amid one. A close frame that cannot be
        written (the client reads nothing) drops the connection."""
        with self._send_lock:
            if not self.ws.connected:
                return
            try:
                self.ws.close(reason, message)
            except (ConnectionClosed, OSError):
                self._drop()

    def _drop(self) -> None:
        """Give up on the connection without a close frame: the shutdown ends the reader
        (its recv sees the end), which closes the socket, and the route is woken."""
        self.ws.connected = False
        with contextlib.suppress(OSError):
            self.ws.sock.shutdown(socket.SHUT_RDWR)
        self.ws.event.set()

    def finish(self, reason: int, message: str) -> None:
        """Close the socket from the follower: 1000 once a finished game's stream has ended,
        rather than hold it (and its long-request slot) open for nothing; 1011 when following
        failed. Not while a message is being answered, nor amid a send; and the route's
        greenlet, waiting for a message, is woken to see the socket closed and return."""
        with self._answering:
            self.close(reason, message)
        self.ws.event.set()

    # ----- client messages -------------------------------------------------------------

    def _hello(self, raw: str | bytes) -> tuple[int, Head] | None:
        """The hello's ``after`` (its viewer kept), and the game's head that the welcome and
        the follower start from; None (refused, closed) for anything else, a store that does
        not answer included (503, as HTTP)."""
        try:
            limit = self.floe.settings.max_body_bytes
            if message_bytes(raw) > limit:  # 413 before anything, as HTTP (not charged)
                raise too_large(limit)
            malformed: InvalidRequest | None = None
            try:
                message = decode_message(raw)
            except InvalidRequest as error:
                message, malformed = None, error
            # The rate limit first, as HTTP: the token read leniently, before the schema.
            token = message.get("token") if isinstance(message, dict) else None
            lenient = f"Bearer {token}" if isinstance(token, str) and token else None
            self.floe.rate_limiter.check(self.address, lenient)  # 429
            if malformed is not None:
                raise malformed
            token, after = load_hello(message)  # 400
            self.authorization = None if token is None else f"Bearer {token}"
            self.viewer = self.floe.viewer(self.authorization)  # 401
            self.viewer.reader_seat(self.meta.game_id)  # 403: another game's seat
            head = self.floe.repository.head(self.meta)
        except Exception as error:
            self.refuse_hello(*refusal(error))
            return None
        return after, head

    def _on_message(self, raw: str | bytes) -> None:
        """An action, answered ``accepted`` or ``refused``; the message is read first only to
        name its command id in the answer: the rate limit still refuses before anything."""
        command_id: Any = None
        revoked = False
        try:
            malformed: InvalidRequest | None = None
            try:
                message = decode_message(raw)  # at most max_body_bytes characters
            except InvalidRequest as error:
                message, malformed = None, error
            if isinstance(message, dict) and isinstance(message.get("command_id"), str):
                command_id = message["command_id"]
            limit = self.floe.settings.max_body_bytes
            if message_bytes(raw) > limit:  # 413 before anything, as HTTP (not charged)
                raise too_large(limit)
            self.floe.rate_limiter.check(self.address, self.authorization)  # 429 first
            try:
                viewer = self.current_viewer()  # 401 once a tournament token is reissued
            except (Unauthenticated, Forbidden):
                revoked = True
                raise
            viewer.require_token()  # 401 before any 400, as HTTP (404: at the upgrade)
            if malformed is not None:
                raise malformed
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "hello":
                raise bad_request("hello_expected", "this socket has said hello already")
            if kind != "action":
                raise bad_request(
                    "invalid_body", 'a message is {"type": "action", ...} after the hello'
                )
            body = {key: value for key, value in message.items() if key != "type"}
            accepted = play_action(self.floe, self.meta, viewer, body)  # no ?wait=
        except Exception as error:
            self.refuse(command_id, *refusal(error))
            if revoked:
                self._revoked = True
                self.close(CloseReason.POLICY_VIOLATION, TOKEN_REISSUED)
            return
        self.send({"type": "accepted", "command_id": command_id, "version": accepted.version})

    def current_viewer(self) -> Viewer:
        """The hello's viewer, as it stands now. A game's seat token never changes, so it
        costs nothing; a tournament player's is resolved again (the organizer may have
        reissued it): 401 ``unknown_token`` once it names nobody, 403 ``not_a_seat`` should
        it no longer seat its holder here (the socket is then closed 1008)."""
        if self.viewer.tournament is None:
            return self.viewer
        game_id = self.meta.game_id
        viewer = self.floe.viewer(self.authorization)
        if viewer.seat_in(game_id) != self.viewer.seat_in(game_id):
            raise not_a_seat()
        return viewer

    # ----- server messages -------------------------------------------------------------

    def send(self, *messages: dict[str, Any]) -> None:
        """Each message whole, in its own frame, and all of them in one write (a batch of
        events and the legal actions after it cost one system call): the route's greenlet
        and the follower's never interleave. The frames are made under the lock too, in the
        order they are written (wsproto's state, a deflate context, follows that order)."""
        if not messages:
            return
        texts = [json_codec.encode(message).decode() for message in messages]
        with self._send_lock:
            if not self.ws.connected:
                raise ConnectionClosed(self.ws.close_reason, self.ws.close_message)
            frames = b"".join(self.ws.ws.send(TextMessage(data=text)) for text in texts)
            try:
                self.ws.sock.sendall(frames)
            except OSError:  # reset, broken pipe, or SEND_SECONDS passed: dropped
                self._drop()
                raise

    def refuse(self, command_id: str | None, status: int, error: dict[str, Any]) -> None:
        self.send({"type": "refused", "command_id": command_id, "status": status, "error": error})

    def refuse_hello(self, status: int, error: dict[str, Any]) -> None:
        """A refused hello, then the close: never 1000, which would say the game is over;
        1011 when the server could not serve it (5xx), else 1008 (the ``refused`` says why)."""
        self.refuse(None, status, error)
        if status >= 500:
            self.close(CloseReason.INTERNAL_ERROR, "the hello could not be served")
        else:
            self.close(CloseReason.POLICY_VIOLATION, "the hello was refused")

    def _follow(self, after: int, head: Head) -> None:
        """Every event after ``after``, then each as it comes (``queries.live``, the SSE
        stream's loop), and the seat's legal actions after each batch while it is to act; the
        socket is closed where the SSE stream ends. ``head``: the game as the welcome said."""
        floe, meta = self.floe, self.meta
        try:
            over = head.state.over
            if over and after >= head.state.version:  # nothing more will ever come
                self.finish(CloseReason.NORMAL_CLOSURE, GAME_OVER)
                return
            self.send(*self._legal(after, lambda: head))

            def block_ms() -> int:
                return FOLLOW_BLOCK_MS

            live = floe.queries.live(
                meta, after, over=over, sign=floe.receipts.of_stored, block_ms=block_ms
            )
            with contextlib.closing(live):  # its doorbell is given back at once
                for batch in live:
                    if not self.ws.connected or self._done.is_set():
                        return
                    if batch is None:
                        continue
                    known = partial(floe.repository.head_through, meta, batch.stored)
                    legal = self._legal(batch.stored[-1].version, known)
                    events = ({"type": "event", "event": event} for event in batch.shown)
                    self.send(*events, *legal)
            self.finish(CloseReason.NORMAL_CLOSURE, GAME_OVER)  # the stream has ended
        except (ConnectionClosed, OSError):  # the client went away: nothing failed
            self.ws.event.set()
        except Exception:
            log.warning("socket of game %s: following failed", meta.game_id, exc_info=True)
            # Closed, the route woken: the client resumes with ``after``.
            self.finish(CloseReason.INTERNAL_ERROR, "following the game failed: reopen")

    def _legal(self, shown: int, known: Callable[[], Head | None]) -> list[dict[str, Any]]:
        """``legal_actions`` (GET legal-actions' answer) for a seat to act, once per version
        and only at the version of the last event sent (a newer one waits for its event).

        ``known()``: the state the events sent lead to, asked only of a seat's socket (None:
        the cache could not tell without a read, so the head is read)."""
        seat = self.viewer.seat_in(self.meta.game_id)
        if seat is None or self._revoked or shown == self._legal_pushed:
            return []
        head = known()
        if head is None or head.state.version != shown:
            head = self.floe.repository.head(self.meta)
            if head.state.version != shown:
                return []
        if seat not in play.to_act(self.meta.rules, head.state):
            return []
        try:
            self.current_viewer()  # a tournament token reissued meanwhile: no more pushes
        except (Unauthenticated, Forbidden):
            self._revoked = True
            self.finish(CloseReason.POLICY_VIOLATION, TOKEN_REISSUED)
            return []
        self._legal_pushed = shown
        return [{"type": "legal_actions", **self.floe.queries.legal_at(self.meta, head, seat)}]
