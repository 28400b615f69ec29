"""A player on Floe's live socket in a few lines: connect, say hello, play the first legal
action each time the server offers some, print every event, stop once the game is over.

    python docs/examples/socket_client.py http://localhost:8000 <game_id> [<seat token>]

Without a token it watches as a spectator. Python's standard library has no WebSocket client,
so this uses simple-websocket, the library under Floe's own socket route (``pip install
simple-websocket``). What every message means: docs/guide/live-socket.md.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

Message = dict[str, Any]


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
    """What to answer to each server message. It does no I/O, so it is tested on its own."""

    def __init__(self) -> None:
        self.version = 0  # the last event received: where a new connection resumes
        self.over = False
        self.seat: int | None = None  # as the welcome says: None for a spectator

    def receive(self, message: Message) -> Message | None:
        """The message to send back, if any."""
        kind = message["type"]
        if kind == "welcome":  # the hello was accepted: the events after ours come next
            self.seat = message["seat"]
        elif kind == "event":
            self.version = message["event"]["version"]
            self.over = message["event"]["type"] == "game_over"
        elif kind == "legal_actions" and message["version"] == self.version and not self.over:
            # The command_id is derived from the version: sent again after a reconnection,
            # the same action is the same command, and the service writes it only once.
            version = message["version"]
            return action(message["actions"][0], version, f"move-{version}")
        elif kind == "refused" and message["error"]["code"] != "version_conflict":
            raise RuntimeError(f"refused {message['status']}: {message['error']['message']}")
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

    player = Player()
    while not player.over:
        socket = Client.connect(socket_url(base, game_id))
        try:
            socket.send(json.dumps(hello(token, player.version)))
            while not player.over:
                text = socket.receive(timeout=wait)
                if text is None:
                    raise TimeoutError(f"nothing from the server in {wait} s")
                message = json.loads(text)
                if message["type"] == "event":
                    event = message["event"]
                    show(f"{event['version']:>4} {event['type']} by {event['actor']}")
                answer = player.receive(message)
                if answer is not None:
                    socket.send(json.dumps(answer))
        except ConnectionClosed:
            # Not the end: the player stops at game_over, before the server's final close
            # (1000). Any close before it (1001, 1011, a drop) is resumed after the last
            # event received: nothing lost, nothing twice.
            continue
        finally:
            if socket.connected:
                socket.close()
    return player.version


if __name__ == "__main__":
    base, game_id, *token = sys.argv[1:]
    play(base, game_id, token[0] if token else None)
