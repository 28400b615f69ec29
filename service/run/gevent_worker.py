"""gunicorn's gevent worker with two limits of its own: connections per address, and a
deadline on every request's line and headers.

A gevent worker serves up to ``FLOE_WEB_CONNECTIONS`` connections at once, and when they are
all taken it stops accepting: one client that opens that many (and sends a header byte now
and then, or nothing at all) locks every other client out until the header deadline cuts
them. So each process counts the connections it holds per peer address and answers the one
over ``FLOE_CONNECTIONS_PER_ADDRESS`` with a fixed 429 ``too_many_connections`` the moment it
is accepted, before reading a byte of it, and closes it. Trusted reverse proxies
(``FLOE_TRUSTED_PROXIES``) are exempt: every client behind one shares its address.

gunicorn reads each request's line and headers under ``timeout_ctx``, the first request's as
every kept-alive one's, and closes the connection without an answer when it fires (it is also
how long an idle kept-alive connection waits). gunicorn's own takes ``--keep-alive``, whole
seconds; here it is ``FLOE_HEADER_TIMEOUT_SECONDS`` as given, so a client sending a byte now
and then is cut when the time is up, however steadily it sends.
"""

from __future__ import annotations

import json
import socket
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import gevent
from gunicorn.workers.ggevent import GeventWorker

from service.limits.addresses import TrustedProxies
from service.run.collector import tune_for_server
from service.run.open_files import raise_open_files
from service.settings import Settings

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

#: What a refused client is told to wait before connecting again.
RETRY_AFTER_SECONDS = 5


@dataclass
class ConnectionCounts:
    """Connections open per peer address in this process, at most ``per_address`` each
    (``0``: no cap); addresses ``exempt`` trusts are never counted."""

    per_address: int
    exempt: TrustedProxies = field(default_factory=TrustedProxies)
    open: Counter[str] = field(default_factory=Counter)

    def admit(self, address: str | None) -> bool:
        """Count a new connection from ``address``; False (and nothing counted): over the cap."""
        if address is None or self.per_address <= 0 or self.exempt.trusts(address):
            return True
        if self.open[address] >= self.per_address:
            return False
        self.open[address] += 1
        return True

    def release(self, address: str | None) -> None:
        """A connection ``admit`` counted has closed."""
        if address is None or address not in self.open:
            return
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


def refusal(per_address: int) -> bytes:
    """The whole answer to a connection over the cap: a 429 that closes the connection."""
    body = json.dumps(
        {
            "error": {
                "code": "too_many_connections",
                "message": f"this address already has {per_address} connections open to this "
                "server; close one and try again",
            }
        }
    ).encode()
    head = (
        "HTTP/1.1 429 Too Many Requests\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"Retry-After: {RETRY_AFTER_SECONDS}\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


def peer_address(addr: Any) -> str | None:
    """The IP address of a peer as the server hands it (``(host, port, ...)`` for TCP; None
    for a unix socket, which has no client address to count)."""
    if isinstance(addr, tuple) and addr and isinstance(addr[0], str) and addr[0]:
        return addr[0]
    return None


class ClosingConnections:
    """Closes the connection after an answer that says ``Connection: close``.

    gunicorn drops an app's hop-by-hop headers and keeps the connection open, then reads the
    next request after whatever is left of this one's body. An answer given with the body
    unread (a 413 before a byte of it, a 408) must end the connection instead, or the server
    would read the unwanted body after all; ``force_close`` of gunicorn's response (the
    ``start_response`` it hands the app is that response's method) does so, and says so in
    the answer's own ``Connection`` header.
    """

    def __init__(self, app: WSGIApplication) -> None:
        self._app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        force_close = getattr(getattr(start_response, "__self__", None), "force_close", None)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            closing = any(
                name.lower() == "connection" and value.strip().lower() == "close"
                for name, value in headers
            )
            if closing and callable(force_close):
                force_close()
            return start_response(status, headers, exc_info)

        return self._app(environ, start)


class CappedGeventWorker(GeventWorker):  # type: ignore[misc]  # gunicorn is untyped
    """``--worker-class service.run.gevent_worker.CappedGeventWorker`` (``floe run``)."""

    wsgi: WSGIApplication
    counts: ConnectionCounts
    header_seconds: float
    refused: bytes

    def init_process(self) -> None:
        """Read the limits in the worker, after the fork (gunicorn then runs the worker)."""
        settings = Settings.from_env()
        raise_open_files(settings.web_connections)
        proxies = TrustedProxies.parse(settings.trusted_proxies)
        self.counts = ConnectionCounts(settings.connections_per_address, proxies)
        self.header_seconds = settings.header_timeout_seconds
        self.refused = refusal(settings.connections_per_address)
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = ClosingConnections(self.wsgi)
        tune_for_server()  # the app is loaded: what is here now lives as long as the worker

    def timeout_ctx(self) -> gevent.Timeout:
        """The deadline of one request's line and headers (silent: gunicorn then closes)."""
        return gevent.Timeout(self.header_seconds, False)

    def handle(self, listener: socket.socket, client: socket.socket, addr: Any) -> None:
        address = peer_address(addr)
        if not self.counts.admit(address):
            self._refuse(client)
            return
        try:
            super().handle(listener, client, addr)
        finally:
            self.counts.release(address)

    def _refuse(self, client: socket.socket) -> None:
        """Answer the fixed 429 without reading the request, and close: the answer fits a
        fresh socket's send buffer, so this never waits on the client."""
        try:
            client.setblocking(False)
            client.send(self.refused)
        except OSError:
            pass
        finally:
            client.close()
