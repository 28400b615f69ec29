"""Bare routes for ``make bench``: one plain XADD behind the same stack, the ceilings.

``POST /bench/xadd`` is the HTTP move path's ceiling; ``GET /bench/socket`` is the socket
path's: a WebSocket (simple-websocket, as ``GET /v1/games/{id}/socket``) that answers each
message with one XADD to the same Redis, with the same arguments, so the same durability
(``appendfsync always``) as ``bare_xadd``. No token, no game, no JSON parsed: what is left
of a socket message's cost is the server's and the library's.

Registered only when ``FLOE_BENCH_ROUTES=1``; never in a normal deployment.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from simple_websocket import ConnectionClosed, Server

from service.api.socket import Handled

bench = Blueprint("bench", __name__, url_prefix="/bench")
STREAM = "floe:bench:bare"
#: The one answer the bare socket sends per message (the HTTP route's body, as text).
OK = '{"ok": true}'


def _xadd() -> None:
    """The one write both bare routes make per request or message."""
    client = current_app.extensions["floe"].redis
    client.xadd(STREAM, {"e": "{}"}, maxlen=10_000, approximate=True)


@bench.post("/xadd")
def bare_xadd() -> Response:
    _xadd()
    return jsonify({"ok": True})


#: ``websocket=True``: werkzeug matches an upgrade request only to a rule that says so (400).
@bench.get("/socket", websocket=True)
def bare_socket() -> Response:
    """Each message in, one XADD, one answer out, until the client closes."""
    ws: Any = Server.accept(request.environ)
    try:
        while ws.receive() is not None:
            _xadd()
            ws.send(OK)
        ws.close()
    except ConnectionClosed:
        pass  # the client closed it: nothing left to send
    return Handled(ws.mode)
