"""The socket route (``GET /v1/games/{game_id}/socket``) as the contract tests reach it: the
WebSocket handshake's headers, and a ``CheckedClient`` that finds the route of a handshake as
the app does.

The route's rule is a WebSocket rule, which Werkzeug matches only for a handshake; the plain
``CheckedClient`` binds its URL map for HTTP, so it could not name the operation an answer of
that route came from. A Flask test client cannot complete an upgrade (no socket to hand the
app): what it can check is every refusal before the upgrade and the 503 of a dead store; the
101 and the messages after it are checked on a real ``floe run``
(tests/e2e/test_openapi.py's ``test_the_socket_upgrades_and_speaks_as_documented``,
tests/e2e/test_socket.py).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from werkzeug.routing import WebsocketMismatch

from tests.support.openapi import CheckedClient, flask_template

#: An RFC 6455 opening handshake's headers (the key is the RFC's own example).
UPGRADE: dict[str, str] = {
    "Connection": "Upgrade",
    "Upgrade": "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
}
#: The operation the socket is, as ``documented_operations`` names it.
SOCKET_OPERATION = ("get", "/v1/games/{game_id}/socket")


class SocketAwareClient(CheckedClient):
    """A ``CheckedClient`` that also names the socket route's operation: a path only a
    WebSocket rule matches is matched again as a handshake, whatever headers were sent (a
    plain GET there is the app's 400 ``http_error``, which the spec documents)."""

    def template(self, method: str, path: str) -> str:
        try:
            return super().template(method, path)
        except WebsocketMismatch:
            rule, _ = self.adapter.match(
                urlsplit(path).path, method=method, return_rule=True, websocket=True
            )
            return flask_template(rule.rule)
