"""The Flask application factory: dependencies in, nothing connected at import time."""

from __future__ import annotations

import logging

import redis
from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from service.api import v1
from service.clock import Clock, utc_now
from service.config import Settings
from service.errors import ApiError
from service.games import DrawQueue, GameService
from service.jobs import bot_enqueuer, draw_enqueuer
from service.ratelimit import Limits, RateLimiter
from service.store import EventStore

log = logging.getLogger(__name__)

_HTTP_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


def create_app(
    settings: Settings | None = None,
    *,
    redis_client: redis.Redis | None = None,
    clock: Clock = utc_now,
    enqueue_draw: DrawQueue | None = None,
    enqueue_bot: DrawQueue | None = None,
) -> Flask:
    """Build the app. Tests pass their own Redis and clock; ``floe serve`` passes nothing."""
    settings = settings or Settings.from_env()
    client = redis_client or redis.Redis.from_url(
        settings.redis_url, socket_connect_timeout=2, health_check_interval=10
    )
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.config["FLOE_SETTINGS"] = settings
    app.extensions["floe"] = GameService(
        EventStore(client),
        clock=clock,
        organizer_token=settings.organizer_token,
        enqueue_draw=enqueue_draw or draw_enqueuer(client),
        enqueue_bot=enqueue_bot or bot_enqueuer(client),
        cache_size=settings.state_cache_games,
    )
    limiter = RateLimiter(
        client,
        Limits(
            per_token=settings.rate_limit_per_token,
            per_address=settings.rate_limit_per_address,
            window_seconds=settings.rate_limit_window_seconds,
        ),
        clock,
    )
    app.extensions["floe_rate_limiter"] = limiter

    @app.before_request
    def rate_limit() -> None:
        """Every ``/v1`` request counts against its address and token (429 when over)."""
        if request.path == "/v1" or request.path.startswith("/v1/"):
            limiter.check(request.remote_addr, request.headers.get("Authorization"))

    app.register_blueprint(v1)
    if settings.bench_routes:
        from service.bench_routes import bench

        app.register_blueprint(bench)
    _register_error_handlers(app)
    return app


def _register_error_handlers(app: Flask) -> None:
    """One handler per family: every error leaves as ``{"error": {"code", "message"}}``."""

    @app.errorhandler(ApiError)
    def api_error(error: ApiError) -> Response:
        return _error_response(error)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        status = error.code or 500
        code = _HTTP_CODES.get(status, "http_error")
        # Keep the exception's own headers (405's ``Allow``), not its HTML content type.
        headers = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
        return _error_response(
            ApiError(status, code, error.description or error.name, headers=headers)
        )

    @app.errorhandler(redis.ConnectionError)
    @app.errorhandler(redis.TimeoutError)
    def store_down(error: Exception) -> Response:
        log.warning("redis unavailable during %s %s: %s", request.method, request.path, error)
        return _error_response(
            ApiError(
                503,
                "store_unavailable",
                "the event store is unavailable; retry shortly",
                headers={"Retry-After": "1"},
            )
        )

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return _error_response(ApiError(500, "internal_error", "an unexpected error occurred"))


def _error_response(error: ApiError) -> Response:
    response = jsonify(error.body())
    response.status_code = error.status
    response.headers.update(error.headers)
    return response
