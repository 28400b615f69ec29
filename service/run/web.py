"""The app as ``floe run`` serves it: the Flask app behind a deadline for request bodies.

gunicorn's gevent workers read each request's headers under ``--keep-alive`` seconds, but
leave the body to the app, which would read it whenever a route asks: a client trickling a
byte every few seconds would hold its greenlet and socket for as long as it liked. Here every
body is read in full, within ``FLOE_BODY_TIMEOUT_SECONDS``, before Flask sees the request; a
body that does not arrive in time is refused with 408 ``request_timeout`` and the connection
closed. Nothing here runs under the test client: it is the server's edge, not the API.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import gevent

from service.api.app import create_app
from service.api.replays import MAX_REPLAY_BYTES
from service.settings import Settings

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


log = logging.getLogger(__name__)


def create_web_app(settings: Settings | None = None) -> WSGIApplication:
    """What gunicorn serves: ``create_app`` with the body deadline in front."""
    settings = settings or Settings.from_env()
    if settings.service_key_file is None:  # floe run always names one
        log.warning(
            "neither FLOE_SERVICE_KEY_FILE nor FLOE_DATA_DIR is set: this process signs "
            "receipts with a key of its own, held in memory; give every API process one file"
        )
    app = create_app(settings)
    # Read ahead as much as the largest body any route takes (an export uploaded to
    # ``/v1/replays``): bodies the route refuses as too large are never read at all.
    largest = max(settings.max_body_bytes, MAX_REPLAY_BYTES)
    app.wsgi_app = BodyDeadline(  # type: ignore[method-assign]
        app.wsgi_app, settings.body_timeout_seconds, largest
    )
    return app


class BodyDeadline:
    """WSGI middleware: read the whole body within ``seconds`` or answer 408."""

    def __init__(self, app: WSGIApplication, seconds: float, max_bytes: int) -> None:
        self._app = app
        self._seconds = seconds
        self._max_bytes = max_bytes

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        wanted = self._bytes_to_read(environ)
        if wanted:
            try:
                with gevent.Timeout(self._seconds):
                    body = environ["wsgi.input"].read(wanted)
            except gevent.Timeout:
                return self._timed_out(start_response)
            environ["wsgi.input"] = io.BytesIO(body)
        return self._app(environ, start_response)

    def _bytes_to_read(self, environ: WSGIEnvironment) -> int:
        """How much to read ahead: the declared length, or one byte over the limit for a
        chunked body (so the app still sees, and refuses, one that is too large). A declared
        length over the limit is not read at all: the app refuses it with 413 unread."""
        length = str(environ.get("CONTENT_LENGTH") or "").strip()
        if length.isascii() and length.isdigit():
            declared = int(length)
            return declared if declared <= self._max_bytes else 0
        chunked = "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower()
        return self._max_bytes + 1 if chunked else 0

    def _timed_out(self, start_response: StartResponse) -> list[bytes]:
        error: dict[str, Any] = {
            "error": {
                "code": "request_timeout",
                "message": f"the request body did not arrive within {self._seconds:g} s",
            }
        }
        body = json.dumps(error).encode()
        start_response(
            "408 Request Timeout",
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                ("Connection", "close"),
            ],
        )
        return [body]
