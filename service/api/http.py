"""What every route needs from a request: the Floe it serves, the viewer, the body as
JSON, a numeric query parameter, and rendering through a schema. Shared by the blueprints."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flask import Response, current_app, request
from marshmallow import Schema

from domain.engine.canonical import unencodable
from service.api.errors import HttpError
from service.bootstrap import Floe
from service.errors import InvalidRequest
from service.games.access import Viewer
from service.store import codec as json_codec

MAX_VERSION = 2**53
#: Table and tournament ids are 16 hex digits: anything else names nothing, and a route
#: answers 404 before it asks Redis.
RECORD_ID = re.compile(r"[0-9a-f]{16}")
#: Deeper JSON than any valid request needs is refused before any schema sees it.
MAX_JSON_DEPTH = 32
#: Where a body may hold a number with a fraction or an exponent (``164.0``, ``1e2``).
_FRACTION = re.compile(rb"[0-9][.eE]")
#: An integer as a query parameter or header: decimal digits, and a zero fraction at most
#: (``164.0`` is the integer 164, as JSON Schema has it); no sign, no exponent.
_INTEGER = re.compile(r"([0-9]{1,20})(?:\.0{1,20})?")


def current_floe() -> Floe:
    floe: Floe = current_app.extensions["floe"]
    return floe


def current_viewer() -> Viewer:
    return current_floe().viewer(request.headers.get("Authorization"))


def bad_request(code: str, message: str) -> InvalidRequest:
    return InvalidRequest(code, message)


def json_body() -> Any:
    """The request body as JSON: 413 over the size limit, 415 unless it is declared JSON, 400
    ``malformed_json`` when it is not (interoperable) UTF-8 JSON.

    A body must come as ``application/json`` (or ``application/*+json``), with no charset or
    ``utf-8``: a browser sends a cross-site request without asking first only with no type
    or a form's or ``text/plain``, so no visitor's browser can be made to post here. Only an
    empty body may come without a type (it is 400 all the same). A number of zero
    fraction (``164.0``) is the integer it is. Refused as malformed besides bad syntax: a
    body that is not UTF-8 (UTF-16 and -32 included, which a JSON parser would otherwise
    guess), the ``NaN``/``Infinity`` literals, integers of more than 4300 digits, nesting
    deeper than ``MAX_JSON_DEPTH`` and lone surrogates (``"\\ud800"``), which no UTF-8 store
    or hash can hold.
    """
    raw = request.get_data(cache=True)  # 413 (werkzeug) before anything is parsed
    if raw or request.content_type is not None:
        require_content_type(is_json_type, "application/json")
    if not raw.strip():
        raise bad_request("malformed_json", "the request body is empty; send a JSON object")
    return decode_json(raw)


def decode_json(raw: bytes) -> Any:
    """``raw`` as JSON, read the one way every body and socket message is read: 400
    ``malformed_json`` unless it is UTF-8 JSON no deeper than ``MAX_JSON_DEPTH`` and with no
    lone surrogate; a number of zero fraction (``164.0``) comes back as its integer."""
    check_utf8(raw)
    try:
        body = json_codec.decode(raw)
    except (ValueError, RecursionError) as error:
        raise bad_request("malformed_json", f"the request body is not JSON: {error}") from None
    if not _plainly_fine(raw):
        _check_json_tree(body)
    if _FRACTION.search(raw):
        body = _integral(body)
    return body


def require_content_type(accepted: Callable[[str], bool], wanted: str) -> None:
    """415 ``unsupported_media_type`` unless the request declares a type ``accepted`` takes,
    with no charset or ``utf-8``: a missing ``Content-Type`` is refused too (see
    ``json_body``). Every route that reads a body asks this first."""
    if request.content_type is None or not request.mimetype:
        raise HttpError(
            415, "unsupported_media_type", f"declare the body's type: Content-Type: {wanted}"
        )
    if not accepted(request.mimetype):
        raise HttpError(
            415, "unsupported_media_type", f"send the body as {wanted}, not {request.mimetype!r}"
        )
    charset = request.mimetype_params.get("charset")
    if charset is not None and charset.lower() != "utf-8":
        raise HttpError(
            415, "unsupported_media_type", f"bodies are UTF-8: charset={charset!r} is not read"
        )


def is_json_type(mimetype: str) -> bool:
    """``application/json`` and the ``+json`` types (``application/merge-patch+json``)."""
    return mimetype == "application/json" or (
        mimetype.startswith("application/") and mimetype.endswith("+json")
    )


def check_utf8(raw: bytes) -> None:
    """400 ``malformed_json`` for a body that is not UTF-8: JSON parsers guess UTF-16 and -32
    from NULs or a byte order mark, and Floe reads only UTF-8 (RFC 8259)."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        raise bad_request(
            "malformed_json", "the request body starts with a byte order mark: send UTF-8, no BOM"
        )
    if b"\x00" in raw:
        raise bad_request(
            "malformed_json", "the request body holds NUL bytes (UTF-16 or -32?): send UTF-8"
        )
    if raw.isascii():
        return
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise bad_request(
            "malformed_json", f"the request body is not UTF-8 (byte {error.start}): send UTF-8"
        ) from None


def _integral(value: Any) -> Any:
    """``value`` with every number of zero fraction (``164.0``) as the integer it is: JSON
    (and JSON Schema, which the spec is written in) has one kind of number, so ``164.0`` is
    the integer 164 wherever an integer is asked for, and is recorded as ``164``."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


def _plainly_fine(raw: bytes) -> bool:
    """Whether ``raw`` can hold neither a lone surrogate nor deep nesting, so the walk over
    its tree can be skipped (most bodies): ASCII UTF-8 (no NUL, which only UTF-16 or -32
    would have) makes a surrogate only with a ``\\u`` escape, and nests no deeper than
    it has brackets."""
    return (
        raw.isascii()
        and b"\\u" not in raw
        and b"\x00" not in raw
        and raw.count(b"[") + raw.count(b"{") <= MAX_JSON_DEPTH
    )


def _check_json_tree(body: Any) -> None:
    """400 for nesting deeper than ``MAX_JSON_DEPTH`` or a string no UTF-8 can encode."""
    problem = unencodable(body, MAX_JSON_DEPTH)
    if problem == "depth":
        raise bad_request(
            "malformed_json", f"the request body is nested deeper than {MAX_JSON_DEPTH} levels"
        )
    if problem == "surrogate":
        raise bad_request(
            "malformed_json", "the request body has a lone surrogate (e.g. \\ud800) in a string"
        )


def only_query(*allowed: str) -> None:
    """400 ``invalid_query`` for a query parameter the route does not take: never ignored, so
    a misspelt one cannot fall back to a default. Called where the route's other query checks
    run, after the 401 and 404 checks that outrank a 400."""
    unknown = [name for name in request.args if name not in allowed]
    if unknown:
        takes = ", ".join(allowed) if allowed else "none"
        raise bad_request(
            "invalid_query", f"unknown query parameter {unknown[0]!r} (this route takes: {takes})"
        )


def _integer(raw: str, low: int, high: int) -> int | None:
    """``raw`` as an integer in ``low..high`` (``_INTEGER``), else None."""
    found = _INTEGER.fullmatch(raw) if raw.isascii() else None
    if found is None or not low <= int(found.group(1)) <= high:
        return None
    return int(found.group(1))


def last_event_id(high: int) -> int | None:
    """The ``Last-Event-ID`` header as an integer 0..``high``, None without one; 400
    ``invalid_query`` for anything else (an empty one too: an EventSource sends none)."""
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return None
    value = _integer(raw.strip(), 0, high)
    if value is None:
        raise bad_request("invalid_query", f"Last-Event-ID must be an integer 0..{high}")
    return value


def int_arg(name: str, default: int | None, *, low: int = 0, high: int = MAX_VERSION) -> int:
    raw = request.args.get(name)
    if raw is None:
        if default is None:
            raise bad_request("invalid_query", f"the query parameter {name!r} is required")
        return default
    value = _integer(raw, low, high)
    if value is None:
        raise bad_request("invalid_query", f"{name} must be an integer {low}..{high}")
    return value


def render(schema: Schema, body: dict[str, Any], status: int = 200) -> Response:
    return render_built(schema.dump(body), status)


def render_built(body: dict[str, Any], status: int = 200) -> Response:
    """``render`` for an answer the service builds in its schema's shape already, where the
    schema's dump would copy it unchanged: on the move path that copy is a tenth of the
    API's own work. ``tests/e2e/test_openapi.py`` checks every answer against the spec."""
    return current_app.response_class(json_codec.encode(body), status, mimetype="application/json")
