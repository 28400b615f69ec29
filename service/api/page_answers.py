"""A page as an answer: the headers every page carries, and the 404 page a person gets.

Kept apart from ``pages.py`` (the routes) so the API's error handler can answer a browser's
404 with the page without importing the routes, which import the API's request helpers.
"""

from __future__ import annotations

from typing import Any

from flask import Response, render_template, request

#: Everything the pages load comes from Floe itself; nothing runs inline.
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)


def page(name: str, **context: Any) -> Response:
    """A page: its template (which extends ``base.html``, the frame every page shares)."""
    response = Response(render_template(name, **context), mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


#: Where every answer is the API's (JSON, even a 404): never a page.
API_PREFIXES = ("/v1/", "/docs", "/openapi.", "/web/")


def wants_a_page() -> bool:
    """Whether this request's 404 should be the page rather than the API's JSON: a path of
    the pages' (not the API's), asked for by a client preferring HTML to JSON, as browsers
    do. No ``Accept`` (or ``*/*``) prefers neither: JSON, as ever."""
    if request.path == "/v1" or request.path.startswith(API_PREFIXES):
        return False
    accepted = request.accept_mimetypes
    return accepted.quality("text/html") > accepted.quality("application/json")


def not_found_page() -> Response:
    """The 404 page: what was asked for does not exist here, and the way back."""
    response = page("not_found.html", path=request.path)
    response.status_code = 404
    return response
