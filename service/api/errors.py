"""Refusals as HTTP: one table from error to status, one handler per family.

Every refusal leaves as ``{"error": {"code", "message"}}`` with a stable code. Domain errors
(``GameError``) get their status from their kind; service errors (``ServiceError``) from
their class; the few refusals only HTTP has (a body too large, a content type that is not
JSON) are ``HttpError``s raised here in the API.
"""

from __future__ import annotations

import logging

import redis
from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from domain.engine.errors import GameError
from service.api.page_answers import not_found_page, wants_a_page
from service.errors import (
    CommandReused,
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    NotReplicated,
    OpenTableQuota,
    OutOfTime,
    QuotaExceeded,
    RateLimited,
    ServiceError,
    StorageQuotaExceeded,
    StreamsFull,
    TooManyStreams,
    Unauthenticated,
    VersionConflict,
)
from service.redis.refusals import UNAVAILABLE, refused_for_memory

log = logging.getLogger(__name__)

#: Domain errors by kind: malformed and unusable input is 400, a seat that may not act 403,
#: a move the rules refuse 422.
#: (``out_of_time`` never leaves the service as a GameError: the timeouts are recorded and an
#: ``OutOfTime`` or ``VersionConflict`` goes out instead.)
GAME_ERROR_STATUS = {
    "malformed": 400,
    "invalid_setup": 400,
    "out_of_time": 409,
    "not_allowed": 403,
    "illegal": 422,
}

#: Service errors by class.
SERVICE_ERROR_STATUS: dict[type[ServiceError], int] = {
    InvalidRequest: 400,
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    VersionConflict: 409,
    OutOfTime: 409,
    Conflict: 409,
    CommandReused: 422,
    RateLimited: 429,
    TooManyStreams: 429,
    OpenTableQuota: 429,
    QuotaExceeded: 429,
    StorageQuotaExceeded: 429,
    NotReplicated: 503,
    StreamsFull: 503,
}

#: Werkzeug's own refusals, under stable codes.
_HTTP_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


class HttpError(Exception):
    """A refusal that only exists in HTTP (say, 415 for a body that is not JSON)."""

    def __init__(
        self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    response = jsonify({"error": {"code": code, "message": message}})
    response.status_code = status
    response.headers.update(headers or {})
    return response


def service_error_response(error: ServiceError) -> Response:
    status = next(SERVICE_ERROR_STATUS[k] for k in type(error).__mro__ if k in SERVICE_ERROR_STATUS)
    headers: dict[str, str] = {}
    if isinstance(error, Unauthenticated):
        headers["WWW-Authenticate"] = "Bearer"
    if isinstance(error, RateLimited | TooManyStreams | StreamsFull):
        headers["Retry-After"] = str(error.retry_after)
    if isinstance(error, NotReplicated):
        headers["Retry-After"] = "1"
    return error_response(status, error.code, error.message, headers)


def store_unavailable(message: str = "the event store is unavailable; retry shortly") -> Response:
    return error_response(503, "store_unavailable", message, {"Retry-After": "1"})


#: A full store frees no memory by itself (``noeviction``): someone must raise ``maxmemory``
#: or make room, so clients are asked to come back in a minute, not to hammer it.
STORE_FULL_RETRY_SECONDS = 60


def store_full() -> Response:
    message = (
        "the event store is full (Redis maxmemory) and refuses writes; nothing was written. "
        "Reads still work; retry later"
    )
    headers = {"Retry-After": str(STORE_FULL_RETRY_SECONDS)}
    return error_response(503, "store_full", message, headers)


def register_error_handlers(app: Flask) -> None:
    """One handler per family."""

    @app.errorhandler(ServiceError)
    def service_error(error: ServiceError) -> Response:
        return service_error_response(error)

    @app.errorhandler(GameError)
    def game_error(error: GameError) -> Response:
        return error_response(GAME_ERROR_STATUS[error.kind], error.code, error.message)

    @app.errorhandler(HttpError)
    def http_only_error(error: HttpError) -> Response:
        return error_response(error.status, error.code, error.message, error.headers)

    @app.errorhandler(HTTPException)
    def werkzeug_error(error: HTTPException) -> Response:
        status = error.code or 500
        if status == 404 and wants_a_page():
            return not_found_page()  # a person at a browser: a page with the way back
        code = _HTTP_CODES.get(status, "http_error")
        # Keep the exception's own headers (405's ``Allow``), not its HTML content type.
        headers = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
        return error_response(status, code, error.description or error.name, headers)

    def store_down(error: Exception) -> Response:
        """Redis away, a cluster failing over or a slot being moved: retry shortly."""
        log.warning("redis unavailable during %s %s: %s", request.method, request.path, error)
        return store_unavailable()

    for unavailable in UNAVAILABLE:
        app.register_error_handler(unavailable, store_down)

    @app.errorhandler(redis.ResponseError)
    def store_refused(error: redis.ResponseError) -> Response:
        """Redis at ``maxmemory`` (``noeviction``) refuses writes with OOM: 503, never 500.
        Every write script checks before its first write, so nothing was half-written."""
        if not refused_for_memory(error):
            return unexpected(error)
        log.warning("redis full during %s %s: %s", request.method, request.path, error)
        return store_full()

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(500, "internal_error", "an unexpected error occurred")
