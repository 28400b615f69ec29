"""Connections an attacker holds open: idle streams, headers that trickle, bodies that stop
just short of their declared length.

Each holder keeps ``count`` connections from one loopback address, a thread per hundred,
all non-blocking: it sends each connection's opening bytes as the server takes them, then
trickles more (if asked), reads whatever comes back, and reconnects a connection the server
closes (at most once a second each), as a persistent attacker would. It counts what the
attacker got: the status of each answer, connections closed unanswered, connects refused.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

#: A pass over a thread's connections, this often (sending, reading, reconnecting).
TICK = 0.05
RECONNECT_AFTER = 1.0
CONNECT_TIMEOUT = 2.0
PER_THREAD = 100


@dataclass
class _Slot:
    sock: socket.socket | None = None
    pending: memoryview = field(default_factory=lambda: memoryview(b""))
    head: bytes = b""
    retry_at: float = 0.0
    next_trickle: float = 0.0
    tried: bool = False


class Holder:
    """``count`` connections from ``source`` to ``port``, each opened with ``opening``,
    then sent ``trickle`` every ``every`` seconds (nothing if empty), until ``close``."""

    def __init__(
        self,
        port: int,
        source: str,
        count: int,
        opening: bytes,
        *,
        trickle: bytes = b"",
        every: float = 1.0,
    ) -> None:
        self.port, self.source, self.opening = port, source, opening
        self.trickle, self.every = trickle, every
        self.got: Counter[str] = Counter()
        self.connects = 0
        self._slots = [_Slot() for _ in range(count)]
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._hold, args=(self._slots[n : n + PER_THREAD],))
            for n in range(0, count, PER_THREAD)
        ]
        for thread in self._threads:
            thread.daemon = True
            thread.start()

    def ramped(self) -> bool:
        """Every connection has been tried once: opened and its opening sent, or refused."""
        return all(slot.tried for slot in self._slots)

    def answered_now(self) -> int:
        """Connections held that the server has begun to answer (a stream's head, say)."""
        return sum(1 for slot in self._slots if slot.sock is not None and slot.head)

    def open_now(self) -> int:
        return sum(1 for slot in self._slots if slot.sock is not None)

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)
        for slot in self._slots:
            if slot.sock is not None:
                slot.sock.close()

    def _count(self, what: str) -> None:
        with self._lock:
            self.got[what] += 1

    def _hold(self, slots: list[_Slot]) -> None:
        while not self._stop.is_set():
            now = time.monotonic()
            for slot in slots:
                if self._stop.is_set():
                    return
                if slot.sock is None and now >= slot.retry_at:
                    self._connect(slot)
                if slot.sock is not None:
                    self._send(slot, now)
                if slot.sock is not None:
                    self._read(slot)
            self._stop.wait(TICK)

    def _connect(self, slot: _Slot) -> None:
        try:
            sock = socket.create_connection(
                ("127.0.0.1", self.port), timeout=CONNECT_TIMEOUT, source_address=(self.source, 0)
            )
        except OSError:
            self._count("connect failed")
            slot.retry_at = time.monotonic() + RECONNECT_AFTER
            slot.tried = True
            return
        sock.setblocking(False)
        with self._lock:
            self.connects += 1
        slot.sock, slot.pending, slot.head = sock, memoryview(self.opening), b""
        slot.next_trickle = time.monotonic() + self.every

    def _send(self, slot: _Slot, now: float) -> None:
        assert slot.sock is not None
        try:
            if slot.pending:
                sent = slot.sock.send(slot.pending[: 256 * 1024])
                slot.pending = slot.pending[sent:]
                slot.tried = slot.tried or not slot.pending
            elif self.trickle and now >= slot.next_trickle:
                slot.sock.send(self.trickle)
                slot.next_trickle = now + self.every
        except BlockingIOError:
            pass  # the server is not reading: still held
        except OSError:
            self._closed(slot)

    def _read(self, slot: _Slot) -> None:
        assert slot.sock is not None
        try:
            data = slot.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._closed(slot)
        elif not slot.head:
            slot.head = data[:32]
            self._count(_status(slot.head))

    def _closed(self, slot: _Slot) -> None:
        """The server closed the connection (or reset it): reconnect a second later."""
        if not slot.head:
            self._count("closed unanswered")
        assert slot.sock is not None
        with contextlib.suppress(OSError):
            slot.sock.close()
        slot.sock, slot.pending, slot.tried = None, memoryview(b""), True
        slot.retry_at = time.monotonic() + RECONNECT_AFTER


def _status(head: bytes) -> str:
    parts = head.split(b" ", 2)
    return parts[1].decode(errors="replace") if len(parts) > 1 else "garbled"


def summary(holders: list[Holder]) -> str:
    """What the attacker got, all addresses together."""
    got: Counter[str] = Counter()
    for holder in holders:
        got += holder.got
    connects = sum(holder.connects for holder in holders)
    held = sum(holder.open_now() for holder in holders)
    answers = ", ".join(f"{what} x{n}" for what, n in sorted(got.items())) or "nothing"
    return f"{connects} connections opened, {held} held at the end; got: {answers}"
