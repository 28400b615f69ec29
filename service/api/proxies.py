"""The client's address behind a trusted reverse proxy, set once for every route and log.

Every route that counts a client (the rate limits, the quotas, the long requests) reads
``request.remote_addr``, and the access log reads ``REMOTE_ADDR``. So rather than teach each
of them about proxies, this middleware rewrites ``REMOTE_ADDR`` in the WSGI environ itself,
before Flask sees the request: to the client a trusted proxy names in ``X-Forwarded-For``
(``service.limits.addresses``), and only when the peer is one of ``FLOE_TRUSTED_PROXIES``.
The environ is the server's own dict, so gunicorn's access log, written after the answer,
names the client too. The peer the connection came from is kept under ``PEER_KEY``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from service.limits.addresses import TrustedProxies

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

#: Where the connection's own peer is kept once ``REMOTE_ADDR`` names the client.
PEER_KEY = "floe.peer"


class ForwardedClient:
    """WSGI middleware: ``REMOTE_ADDR`` becomes the client a trusted proxy forwarded."""

    def __init__(self, app: WSGIApplication, proxies: TrustedProxies) -> None:
        self._app = app
        self._proxies = proxies

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if PEER_KEY in environ:  # an outer layer resolved it (``floe run``: service.run.web)
            return self._app(environ, start_response)
        peer = environ.get("REMOTE_ADDR")
        forwarded = environ.get("HTTP_X_FORWARDED_FOR")
        environ[PEER_KEY] = peer
        if forwarded:
            client = self._proxies.client(peer, forwarded)
            if client is not None:
                environ["REMOTE_ADDR"] = client
        return self._app(environ, start_response)
