"""The Flask application factory: settings and dependencies in, nothing connected at import.

``create_app()`` with no arguments is what gunicorn serves (``floe run``): it builds Floe
from the environment through ``service.bootstrap``. Tests pass their own settings, Redis
client or clock, or a ready-built ``Floe``.
"""

from __future__ import annotations

import redis
from flask import Flask, Response, request

from service.api.docs import docs
from service.api.errors import register_error_handlers
from service.api.games import v1
from service.api.keys import keys_v1
from service.api.pages import pages
from service.api.proxies import ForwardedClient
from service.api.replays import replays
from service.api.socket import socket_v1
from service.api.tables import tables_v1
from service.api.tournaments import tournaments_v1
from service.bootstrap import Floe, build
from service.clock import Clock, utc_now
from service.limits.addresses import TrustedProxies
from service.settings import Settings

#: The policy of every answer that sets none of its own (JSON, SVG, NDJSON, CSV, files): an
#: answer opened as a document of its own (an SVG, say) may load and run nothing, nor be
#: framed. The pages and ``/docs`` set theirs.
STRICT_POLICY = "default-src 'none'; frame-ancestors 'none'"


def create_app(
    settings: Settings | None = None,
    *,
    floe: Floe | None = None,
    redis_client: redis.Redis | None = None,
    clock: Clock = utc_now,
) -> Flask:
    """Build the app around ``floe`` (default: built from ``settings`` and the rest)."""
    if floe is None:
        floe = build(settings, redis_client=redis_client, clock=clock)
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = floe.settings.max_body_bytes
    app.config["FLOE_SETTINGS"] = floe.settings
    app.extensions["floe"] = floe
    limiter = floe.rate_limiter

    @app.before_request
    def rate_limit() -> None:
        """Every ``/v1`` request counts against its address and token (429 when over)."""
        if request.path == "/v1" or request.path.startswith("/v1/"):
            limiter.check(request.remote_addr, request.headers.get("Authorization"))

    @app.after_request
    def no_sniffing(response: Response) -> Response:
        """Every answer is what its type says (``nosniff``), and runs nothing by default."""
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers.setdefault("Content-Security-Policy", STRICT_POLICY)
        return response

    app.register_blueprint(v1)
    app.register_blueprint(socket_v1)
    app.register_blueprint(tables_v1)
    app.register_blueprint(tournaments_v1)
    app.register_blueprint(keys_v1)
    app.register_blueprint(docs)
    app.register_blueprint(replays)
    app.register_blueprint(pages)
    if floe.settings.bench_routes:
        from service.api.bench_routes import bench

        app.register_blueprint(bench)
    register_error_handlers(app)
    if floe.settings.trusted_proxies:  # REMOTE_ADDR: the client a trusted proxy names
        proxies = TrustedProxies.parse(floe.settings.trusted_proxies)
        app.wsgi_app = ForwardedClient(app.wsgi_app, proxies)  # type: ignore[method-assign]
    return app
