"""A player on Floe's live socket in a few lines: connect, say hello, play the first legal
action each time the server offers some, print every event, stop once the game is over.
A dropped socket is reopened where it left off; a refusal that passes (429, 503) is tried
again after a backoff.

    python docs/examples/socket_client.py http://localhost:8000 <game_id> [<seat token>]

Without a token it watches as a spectator. Python's standard library has no WebSocket client,
so this uses simple-websocket, the library under Floe's own socket route (``pip install
simple-websocket``). What every message means: docs/guide/live-socket.md.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

Message = dict[str, Any]

#: The statuses of a refusal that passes (429 ``rate_limited`` or ``too_many_streams``, 503
#: ``store_unavailable`` or ``streams_full``): try again after a backoff.
PASSING = (429, 503)
#: Tries in a row that bring no event before giving up. A socket that dropped after bringing
#: some is reopened at once; otherwise the wait doubles, from half a second to 30 s.
TRIES = 10


class Retry(Exception):
    """Refused for now (``PASSING``): open a new socket after a backoff."""


def socket_url(base: str, game_id: str) -> str:
    """The game's socket from the service's HTTP address (``https`` becomes ``wss``): no
    token in it, ever, since URLs end up in logs."""
    parts = urlsplit(base)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    path = f"{parts.path.rstrip('/')}/v1/games/{game_id}/socket"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


def hello(token: str | None, after: int = 0) -> Message:
    """The first message: who is asking, and the last version already held (to resume)."""
    message: Message = {"type": "hello"}
    if token is not None:
        message["token"] = token
    if after:
        message["after"] = after
    return message


def action(move: Any, version: int, command_id: str) -> Message:
    """An action as ``POST .../actions`` takes it, with the message's ``type``."""
    return {"type": "action", "action": move, "expected_version": version, "command_id": command_id}


class Player:
    """What to answer to each server message. It does no I/O, so it is tested on its own.
    Its ``command_id`` is derived from the version: an action sent again after a
    reconnection is the same command, and the service writes it only once."""

    def __init__(self) -> None:
        self.version = 0  # the last event received: where a new connection resumes
        self.over = False
        self.seat: int | None = None  # as the welcome says: None for a spectator

    def receive(self, message: Message) -> Message | None:
        kind = message["type"]
        if kind == "welcome":  # the hello was accepted: the events after ours come next
            self.seat = message["seat"]
        elif kind == "event":
            self.version = message["event"]["version"]
            self.over = message["event"]["type"] == "game_over"
        elif kind == "legal_actions" and message["version"] == self.version and not self.over:
            version = message["version"]
            return action(message["actions"][0], version, f"move-{version}")
        elif kind == "refused" and message["error"]["code"] != "version_conflict":
            why = f"refused {message['status']}: {message['error']['message']}"
            raise (Retry if message["status"] in PASSING else RuntimeError)(why)
        return None  # `accepted`, or a version conflict: the next legal_actions will come


def play(
    base: str,
    game_id: str,
    token: str | None,
    *,
    wait: float | None = None,
    show: Callable[[str], None] = print,
) -> int:
    """Play (or watch) until the game is over, reconnecting where it left off if the socket
    drops; return the last version seen. ``wait``: give up after that many silent seconds."""
    # Imported here, so that the messages above need only the standard library.
    from simple_websocket import Client, ConnectionClosed
    from simple_websocket import ConnectionError as Refused

    player, fruitless, why = Player(), 0, ""
    while not player.over:
        if fruitless:  # the last try brought no event, or was refused: wait a little first
            if fruitless == TRIES:
                raise RuntimeError(f"gave up after {TRIES} tries: {why}")
            delay = min(30.0, 0.5 * 2 ** (fruitless - 1))
            show(f"{why}: trying again in {delay} s")
            time.sleep(delay)
        resumed = player.version
        try:
            socket = Client.connect(socket_url(base, game_id))
        except Refused as refusal:  # before the upgrade: simple-websocket gives the status
            if refusal.status_code not in PASSING:
                raise
            fruitless, why = fruitless + 1, f"socket refused {refusal.status_code}"
            continue
        except OSError as error:  # no connection at all (the server restarting, say)
            fruitless, why = fruitless + 1, f"cannot connect: {error}"
            continue
        try:
            socket.send(json.dumps(hello(token, player.version)))
            while not player.over:
                text = socket.receive(timeout=wait)
                if text is None:
                    raise RuntimeError(f"nothing from the server in {wait} s")
                message = json.loads(text)
                if message["type"] == "event":
                    event = message["event"]
                    show(f"{event['version']:>4} {event['type']} by {event['actor']}")
                answer = player.receive(message)
                if answer is not None:
                    socket.send(json.dumps(answer))
        except Retry as refusal:  # a 429 or 503, of the hello or of an action
            fruitless, why = fruitless + 1, str(refusal)
        except (ConnectionClosed, OSError) as error:
            # Not the end: the player stops at game_over, before the server's final close
            # (1000). Any close before it (1001, 1011, a drop) is resumed after the last
            # event received: nothing lost, nothing twice. An action left unanswered is
            # offered again (legal_actions) and sent again, unchanged, if it was not written.
            progressed = player.version > resumed
            fruitless, why = (0 if progressed else fruitless + 1), f"socket closed ({error})"
        finally:
            if socket.connected:
                with contextlib.suppress(OSError):  # cut meanwhile: nothing more to close
                    socket.close()
    return player.version


if __name__ == "__main__":
    base, game_id, *token = sys.argv[1:]
    play(base, game_id, token[0] if token else None)
