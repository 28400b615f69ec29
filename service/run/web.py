"""The app as ``floe run`` serves it: the Flask app behind a deadline for request bodies.

gunicorn's gevent workers read each request's headers under ``FLOE_HEADER_TIMEOUT_SECONDS``
(``gevent_worker.py``), but leave the body to the app, which would read it whenever a route
asks: a client trickling a byte every few seconds would hold its greenlet and socket for as
long as it liked. Here every body is read in full, within ``FLOE_BODY_TIMEOUT_SECONDS``,
before Flask sees the request; a body that does not arrive in time is refused with 408
``request_timeout`` and the connection closed.

What is read ahead is bounded per route (``BodyLimits``): ``POST /v1/replays`` takes an
export file of up to ``MAX_REPLAY_BYTES``, every other route at most ``max_body_bytes``, and
a GET, HEAD or DELETE no body at all. A declared ``Content-Length`` over the route's limit is
refused with 413 ``body_too_large`` before a byte of it is read, and a chunked body as soon
as it passes the limit; the connection is then closed, its rest unread. So a request costs
the memory its route may need, never the largest any route takes: 300 requests to
``/v1/health`` each declaring 2 MiB cost nothing. Nothing here runs under the test client: it
is the server's edge, not the API.

Uploads are admitted per client address (``LargeBodies``), so behind a trusted reverse proxy
(``FLOE_TRUSTED_PROXIES``) the client it names must be known out here, not only inside the
app: ``ForwardedClient`` is the outermost layer, and the app's own then leaves the environ as
it found it. (The per-address cap on connections, at accept, counts the TCP peer: it caps
connections, and a trusted proxy is exempt from it.)
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import gevent

from service.api.app import STRICT_POLICY, create_app
from service.api.proxies import ForwardedClient
from service.api.replays import MAX_REPLAY_BYTES
from service.limits.addresses import TrustedProxies
from service.log_level import configure_logging
from service.redis.durability import check_at_start
from service.settings import Settings

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


log = logging.getLogger(__name__)


def create_web_app(settings: Settings | None = None) -> WSGIApplication:
    """What gunicorn serves: ``create_app`` with the body deadline in front, and in front of
    that the client a trusted proxy names."""
    settings = settings or Settings.from_env()
    configure_logging(settings.log_level)
    if settings.service_key_file is None:  # floe run always names one
        log.warning(
            "neither FLOE_SERVICE_KEY_FILE nor FLOE_DATA_DIR is set: this process signs "
            "receipts with a key of its own, held in memory; give every API process one file"
        )
    app = create_app(settings)
    check_at_start(app.extensions["floe"].redis, settings, log.warning)  # may lose games?
    served: WSGIApplication = BodyDeadline(
        app.wsgi_app,
        settings.body_timeout_seconds,
        body_limits(settings),
        LargeBodies(
            at_once=settings.upload_workers * 3,  # as many as the upload pool audits and queues
            per_address=settings.uploads_per_address,
        ),
    )
    if settings.trusted_proxies:  # LargeBodies counts the client, not the proxy
        served = ForwardedClient(served, TrustedProxies.parse(settings.trusted_proxies))
    app.wsgi_app = served  # type: ignore[method-assign,assignment]
    return app


def body_limits(settings: Settings) -> BodyLimits:
    """What each route may be sent: an export file to ``POST /v1/replays``, a JSON body of
    ``max_body_bytes`` anywhere else."""
    return BodyLimits(settings.max_body_bytes, {("POST", "/v1/replays"): MAX_REPLAY_BYTES})


#: Methods whose requests carry no body here: none is read, and a declared one is refused.
BODILESS_METHODS = frozenset({"GET", "HEAD", "DELETE", "OPTIONS", "TRACE"})


@dataclass(frozen=True, slots=True)
class BodyLimits:
    """The largest body each route takes: ``routes`` by method and path, else ``default``
    (0 for the methods that take none)."""

    default: int
    routes: Mapping[tuple[str, str], int] = field(default_factory=dict)

    def of(self, method: str, path: str) -> int:
        if method in BODILESS_METHODS:
            return 0
        return self.routes.get((method, path), self.default)


class LargeBodies:
    """Admission for bodies over the default limit (uploads), before a byte is read.

    An upload's body is held in memory from its first byte until the route has answered, so
    what the upload pool allows (``service.uploads.pool``) must be decided before reading,
    not after: else 300 clients each sending 2 MiB cost 600 MiB however few are audited.
    ``at_once`` large bodies per process, ``per_address`` per client address (0: no cap);
    the next is refused unread with the pool's own codes."""

    def __init__(self, *, at_once: int, per_address: int) -> None:
        self._at_once = at_once
        self._per_address = per_address
        self._total = 0
        self._by_address: dict[str, int] = {}

    def admit(self, address: str) -> tuple[str, str, str] | None:
        """Take a place for ``address``; a refusal (status, code, message) when none."""
        held = self._by_address.get(address, 0)
        if self._per_address and held >= self._per_address:
            return (
                "429 Too Many Requests",
                "upload_in_flight",
                f"this address already has {held} upload(s) in flight, the most it may have "
                "at once (FLOE_UPLOADS_PER_ADDRESS); wait for its answer",
            )
        if self._total >= self._at_once:
            return (
                "503 Service Unavailable",
                "uploads_busy",
                f"{self._total} uploads are being received or audited by this process, the "
                "most it takes at once; retry after Retry-After",
            )
        self._total += 1
        self._by_address[address] = held + 1
        return None

    def release(self, address: str) -> None:
        self._total -= 1
        left = self._by_address.get(address, 1) - 1
        if left > 0:
            self._by_address[address] = left
        else:
            self._by_address.pop(address, None)


class BodyDeadline:
    """WSGI middleware: read the whole body, within the route's limit, in ``seconds``, or
    answer 413 (too large) or 408 (too slow) and close the connection."""

    def __init__(
        self,
        app: WSGIApplication,
        seconds: float,
        limits: BodyLimits,
        large: LargeBodies | None = None,
    ) -> None:
        self._app = app
        self._seconds = seconds
        self._limits = limits
        self._large = large

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        limit = self._limits.of(
            str(environ.get("REQUEST_METHOD", "")), environ.get("PATH_INFO", "")
        )
        declared = _declared_length(environ)
        chunked = "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower()
        if declared is not None and declared > limit:
            return self._too_large(start_response, limit)  # not a byte of it read
        if declared is None and not chunked:
            return self._app(environ, start_response)  # no body
        # A declared length is read whole; a chunked body up to one byte past the limit, to
        # tell one that fits from one that does not.
        wanted = declared if declared is not None else limit + 1
        if self._large is not None and wanted > self._limits.default:
            return self._read_large(environ, start_response, wanted, limit)
        return self._read(environ, start_response, wanted, limit)

    def _read_large(
        self, environ: WSGIEnvironment, start_response: StartResponse, wanted: int, limit: int
    ) -> Iterable[bytes]:
        """``_read`` within a place ``LargeBodies`` gives, kept until the route answered."""
        assert self._large is not None
        address = str(environ.get("REMOTE_ADDR") or "unknown")
        refused = self._large.admit(address)
        if refused is not None:
            status, code, message = refused
            return _refuse(start_response, status, {"code": code, "message": message}, 5)
        try:
            answer = self._read(environ, start_response, wanted, limit)
            try:
                return list(answer)  # the body and its answer both held till here
            finally:
                close = getattr(answer, "close", None)
                if close is not None:
                    close()
        finally:
            self._large.release(address)

    def _read(
        self, environ: WSGIEnvironment, start_response: StartResponse, wanted: int, limit: int
    ) -> Iterable[bytes]:
        if wanted:
            try:
                with gevent.Timeout(self._seconds):
                    body = environ["wsgi.input"].read(wanted)
            except gevent.Timeout:
                return self._timed_out(start_response)
            if len(body) > limit:
                return self._too_large(start_response, limit)
            environ["wsgi.input"] = io.BytesIO(body)
        return self._app(environ, start_response)

    def _too_large(self, start_response: StartResponse, limit: int) -> list[bytes]:
        message = (
            f"the body is over this route's limit of {limit} bytes"
            if limit
            else "this route takes no request body"
        )
        return _refuse(
            start_response, "413 Content Too Large", {"code": "body_too_large", "message": message}
        )

    def _timed_out(self, start_response: StartResponse) -> list[bytes]:
        message = f"the request body did not arrive within {self._seconds:g} s"
        return _refuse(
            start_response, "408 Request Timeout", {"code": "request_timeout", "message": message}
        )


def _declared_length(environ: WSGIEnvironment) -> int | None:
    """The body's declared ``Content-Length``; None when none is (or it is no number: the
    server has refused those already)."""
    length = str(environ.get("CONTENT_LENGTH") or "").strip()
    return int(length) if length.isascii() and length.isdigit() else None


def _refuse(
    start_response: StartResponse,
    status: str,
    error: dict[str, str],
    retry_after: int | None = None,
) -> list[bytes]:
    """An error answer of the API's shape that closes the connection (the body, or its rest,
    is left unread: ``gevent_worker`` makes gunicorn honour the ``Connection: close``)."""
    body = json.dumps({"error": error}).encode()
    headers = [
        ("Content-Type", "application/json"),
        ("Content-Length", str(len(body))),
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", STRICT_POLICY),
        ("Connection", "close"),
    ]
    if retry_after is not None:
        headers.append(("Retry-After", str(retry_after)))
    start_response(status, headers)
    return [body]
