"""Requests an attacker repeats as fast as it is answered (or at a pace): uploads, pictures.

Each flooder is a thread per (address, request maker), looping until stopped, each request
on a fresh connection from its address; it counts the statuses it got (and the requests
that failed outright), which is what the attacker gets.
"""

from __future__ import annotations

import http.client
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

#: An attacker waits this long for an answer before it gives up and sends the next.
ATTACKER_TIMEOUT = 60.0


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: bytes | None = None
    content_type: str = "application/json"


class Flooder:
    """Threads sending ``make()``'s requests from their ``sources`` until ``close``, each at
    most one request every ``pace`` seconds (0: back to back)."""

    def __init__(
        self, port: int, sources: list[str], make: Callable[[], Request], pace: float = 0.0
    ) -> None:
        self.port, self.make, self.pace = port, make, pace
        self.got: Counter[str] = Counter()
        self.bytes_answered = 0
        #: Requests begun (an answer may take long: this says the flood is on).
        self.sent = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._flood, args=(source,), daemon=True) for source in sources
        ]
        for thread in self._threads:
            thread.start()

    def requests(self) -> int:
        with self._lock:
            return sum(self.got.values())

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=ATTACKER_TIMEOUT + 10)

    def _flood(self, source: str) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            with self._lock:
                self.sent += 1
            what, size = self._send(source, self.make())
            with self._lock:
                self.got[what] += 1
                self.bytes_answered += size
            self._stop.wait(max(0.0, self.pace - (time.monotonic() - started)))

    def _send(self, source: str, request: Request) -> tuple[str, int]:
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=ATTACKER_TIMEOUT, source_address=(source, 0)
        )
        headers = {"Content-Type": request.content_type}
        try:
            connection.request(request.method, request.path, request.body, headers)
            response = connection.getresponse()
            return str(response.status), len(response.read())
        except (OSError, http.client.HTTPException) as error:
            return type(error).__name__, 0
        finally:
            connection.close()


def summary(flooders: list[Flooder]) -> str:
    got: Counter[str] = Counter()
    for flooder in flooders:
        got += flooder.got
    answered = sum(flooder.bytes_answered for flooder in flooders)
    statuses = ", ".join(f"{what} x{n}" for what, n in sorted(got.items())) or "nothing"
    return f"{sum(got.values())} requests; got: {statuses}; {answered / 1e6:.1f} MB answered"
