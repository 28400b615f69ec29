"""A test's client of ``GET /v1/games/{id}/socket``: JSON in and out, and reads that wait on
what arrives (a message, or the socket closing), never on a clock."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from collections.abc import Callable
from typing import Any

from simple_websocket import Client, ConnectionClosed

from tests.support.waiting import PROMPTLY

Message = dict[str, Any]


class Socket:
    """One open socket; ``seen`` keeps every message received, in order. A reader thread
    takes each as it comes into ``inbox`` (and, tagged, into a shared ``sink``); ``None``
    there says the server closed the socket."""

    def __init__(
        self,
        port: int,
        game_id: str,
        query: str = "",
        *,
        sink: queue.Queue[tuple[Any, Message | None]] | None = None,
        tag: Any = None,
    ) -> None:
        url = f"ws://127.0.0.1:{port}/v1/games/{game_id}/socket{query}"
        self.ws = Client.connect(url)
        self.seen: list[Message] = []
        self.inbox: queue.Queue[Message | None] = queue.Queue()
        self.closed = threading.Event()
        self._sink, self._tag = sink, tag
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                raw = self.ws.receive()
                if raw is None:
                    break
                message: Message = json.loads(raw)
                self.seen.append(message)
                self.inbox.put(message)
                if self._sink is not None:
                    self._sink.put((self._tag, message))
        except ConnectionClosed:
            pass
        self.closed.set()
        self.inbox.put(None)
        if self._sink is not None:
            self._sink.put((self._tag, None))

    def send(self, message: Any) -> None:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def hello(self, token: str | None = None, after: int | None = None) -> None:
        message: Message = {"type": "hello"}
        if token is not None:
            message["token"] = token
        if after is not None:
            message["after"] = after
        self.send(message)

    def act(self, action: Any, version: Any, command_id: Any, **more: Any) -> None:
        self.send(
            {
                "type": "action",
                "action": action,
                "expected_version": version,
                "command_id": command_id,
                **more,
            }
        )

    def next(self, timeout: float = PROMPTLY) -> Message:
        """The next message (waiting up to ``timeout`` for it); fails if the socket closed."""
        try:
            message = self.inbox.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message within {timeout}s") from None
        if message is None:
            self.inbox.put(None)
            raise AssertionError(f"the server closed the socket; seen: {self.seen[-3:]}")
        return message

    def until(self, holds: Callable[[Message], bool], timeout: float = PROMPTLY) -> Message:
        """Read on to the first message that ``holds``."""
        while True:
            message = self.next(timeout)
            if holds(message):
                return message

    def welcomed(self) -> Message:
        """The welcome, which must be the first message of an accepted hello."""
        welcome = self.next()
        assert welcome["type"] == "welcome", f"the first message is not a welcome: {welcome}"
        return welcome

    def answer(self, command_id: str) -> Message:
        """The ``accepted`` or ``refused`` of ``command_id``."""
        return self.until(
            lambda m: m["type"] in ("accepted", "refused") and m.get("command_id") == command_id
        )

    def events(self) -> list[Message]:
        return [m["event"] for m in self.seen if m["type"] == "event"]

    def closed_by_server(self, timeout: float = PROMPTLY) -> bool:
        """Whether the server closes the socket within ``timeout``."""
        return self.closed.wait(timeout)

    def close_code(self, timeout: float = PROMPTLY) -> int:
        """The code the server closed the socket with, once it has (within ``timeout``)."""
        assert self.closed.wait(timeout), f"the server did not close the socket in {timeout}s"
        return int(self.ws.close_reason)

    def close(self) -> None:
        # OSError: the server closed first (a finished game's socket) and reset the connection
        with contextlib.suppress(ConnectionClosed, OSError):
            self.ws.close()
