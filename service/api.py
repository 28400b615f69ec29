"""The v1 HTTP routes: thin — parse, call the GameService, render through a schema."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request
from marshmallow import Schema

from domain.engine.canonical import canonical_json
from domain.engine.types import GAME_OVER, SEED_REVEALED
from replay.render import svg
from service import schemas
from service.access import Viewer
from service.errors import ApiError, bad_request
from service.games import GameService, NewPlayer

v1 = Blueprint("v1", __name__, url_prefix="/v1")

MAX_EVENTS_PAGE = 10_000
MAX_WAIT_SECONDS = 30
MAX_VERSION = 2**53
#: Deeper JSON than any valid request needs is refused before any schema sees it.
MAX_JSON_DEPTH = 32


def _service() -> GameService:
    service: GameService = current_app.extensions["floe"]
    return service


def _viewer() -> Viewer:
    return _service().viewer(request.headers.get("Authorization"))


def _json_body() -> Any:
    """The request body as JSON: 413 over the size limit, 415 for a declared non-JSON type,
    400 ``malformed_json`` when it is not (interoperable) JSON.

    A body without ``Content-Type`` is read as JSON. Refused as malformed besides bad syntax:
    invalid UTF-8, the ``NaN``/``Infinity`` literals, integers of more than 4300 digits,
    nesting deeper than ``MAX_JSON_DEPTH`` and lone surrogates (``"\\ud800"``), which no
    UTF-8 store or hash can hold.
    """
    raw = request.get_data(cache=True)  # 413 (werkzeug) before anything is parsed
    mimetype = request.mimetype
    is_json = mimetype == "application/json" or (
        mimetype.startswith("application/") and mimetype.endswith("+json")
    )
    if request.content_type is not None and not is_json:
        raise ApiError(
            415,
            "unsupported_media_type",
            f"send the body as application/json, not {mimetype or 'an empty content type'!r}",
        )
    if not raw.strip():
        raise bad_request("malformed_json", "the request body is empty; send a JSON object")
    try:
        body = json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        raise bad_request("malformed_json", f"the request body is not JSON: {error}") from None
    _check_json_tree(body)
    return body


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_json_tree(body: Any) -> None:
    """400 for nesting deeper than ``MAX_JSON_DEPTH`` or a string no UTF-8 can encode."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            _check_text(node)
            continue
        if not isinstance(node, dict | list):
            continue
        if depth > MAX_JSON_DEPTH:
            raise bad_request(
                "malformed_json", f"the request body is nested deeper than {MAX_JSON_DEPTH} levels"
            )
        if isinstance(node, dict):
            for key, value in node.items():
                _check_text(key)
                stack.append((value, depth + 1))
        else:
            stack.extend((item, depth + 1) for item in node)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise bad_request(
            "malformed_json", "the request body has a lone surrogate (e.g. \\ud800) in a string"
        ) from None


def _int_arg(name: str, default: int | None, *, low: int = 0, high: int = MAX_VERSION) -> int:
    raw = request.args.get(name)
    if raw is None:
        if default is None:
            raise bad_request("invalid_query", f"the query parameter {name!r} is required")
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 20) or not low <= int(raw) <= high:
        raise bad_request("invalid_query", f"{name} must be an integer {low}..{high}")
    return int(raw)


def _render(schema: Schema, body: dict[str, Any], status: int = 200) -> Response:
    return current_app.response_class(
        json.dumps(schema.dump(body), ensure_ascii=False), status, mimetype="application/json"
    )


@v1.post("/games")
def create_game() -> Response:
    viewer = _viewer()
    wait = _int_arg("wait", 0, high=MAX_WAIT_SECONDS)
    data = schemas.load(schemas.CREATE_GAME, _json_body())
    created = _service().create(
        data["game"],
        [NewPlayer(p["name"], p["bot"]) for p in data["players"]],
        data["options"],
        data["seed"],
        viewer,
        wait_seconds=wait,
    )
    response = _render(schemas.GAME_CREATED, created, 201)
    response.headers["Location"] = f"/v1/games/{created['id']}"
    return response


@v1.get("/games")
def list_games() -> Response:
    offset = _int_arg("offset", 0)
    limit = _int_arg("limit", 50, low=1, high=500)
    return _render(schemas.GAME_LIST, _service().list_games(offset=offset, limit=limit))


@v1.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    return _render(schemas.GAME_VIEW, _service().view(game_id, _viewer()))


@v1.get("/games/<game_id>/state")
def get_state(game_id: str) -> Response:
    viewer = _viewer()
    version = _int_arg("version", None, low=1)
    return _render(schemas.GAME_VIEW, _service().view(game_id, viewer, version))


@v1.get("/games/<game_id>/board.svg")
def board_svg(game_id: str) -> Response:
    """A picture of the board at ``?version=N`` (default: now), as the caller may see it."""
    viewer = _viewer()
    version = request.args.get("version")
    at = None if version is None else _int_arg("version", None, low=1)
    shown = _service().view(game_id, viewer, at)
    title = f"{shown['game']} {shown['id']} v{shown['version']} ({shown['status']})"
    picture = svg(shown["game"], shown["state"], title=title)
    return Response(picture, mimetype="image/svg+xml")


@v1.get("/games/<game_id>/legal-actions")
def get_legal_actions(game_id: str) -> Response:
    viewer = _viewer()
    return _render(schemas.LEGAL_ACTIONS, _service().legal_actions(game_id, viewer))


@v1.post("/games/<game_id>/actions")
def post_action(game_id: str) -> Response:
    viewer = _viewer()
    service = _service()
    viewer.require_token()  # 401, then 404, before the body is even read (400)
    service.meta(game_id)
    wait = _int_arg("wait", 0, high=MAX_WAIT_SECONDS)
    accepted = service.play(game_id, viewer, _json_body(), wait_seconds=wait)
    return _render(schemas.ACTION_ACCEPTED, accepted.body, accepted.status)


@v1.get("/games/<game_id>/events")
def get_events(game_id: str) -> Response:
    viewer = _viewer()
    after = _int_arg("after", 0)
    limit = _int_arg("limit", 1000, low=1, high=MAX_EVENTS_PAGE)
    page = _service().events(game_id, viewer, after=after, limit=limit)
    return _render(schemas.EVENTS_PAGE, page)


@v1.get("/games/<game_id>/events/stream")
def stream_events(game_id: str) -> Response:
    """Server-Sent Events, resumable: ``Last-Event-ID`` (or ``?after=N``) is a version."""
    viewer = _viewer()
    service = _service()
    service.meta(game_id)
    viewer.reader_seat(game_id)
    last_id = request.headers.get("Last-Event-ID", "").strip()
    if last_id.isdigit() and last_id.isascii():
        if len(last_id) > 20 or int(last_id) > MAX_VERSION:
            raise bad_request("invalid_query", f"Last-Event-ID must be an integer 0..{MAX_VERSION}")
        after = int(last_id)
    else:
        after = _int_arg("after", 0)
    settings = current_app.config["FLOE_SETTINGS"]
    latest = service.latest(game_id)
    if latest.over and after >= latest.version:  # nothing more will ever come
        return Response("retry: 2000\n\n", mimetype="text/event-stream")
    return Response(
        _sse(
            service,
            game_id,
            after,
            latest.over,
            settings.sse_max_seconds,
            settings.sse_heartbeat_seconds,
        ),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _sse(
    service: GameService,
    game_id: str,
    after: int,
    over: bool,
    max_seconds: float,
    heartbeat: float,
) -> Iterator[str]:
    """Send events as they arrive; stop after the last event of a finished game."""
    deadline = time.monotonic() + max_seconds
    yield "retry: 2000\n\n"
    while time.monotonic() < deadline:
        block = int(1000 * min(heartbeat, max(0.001, deadline - time.monotonic())))
        batch = list(service.follow(game_id, after, block))
        if not batch:
            if over:
                return
            yield ": keep-alive\n\n"
            continue
        over = over or any(e.type == GAME_OVER for e in batch)
        for event in batch:
            [shown] = service.shown(game_id, [event], game_over=over)
            payload = canonical_json(shown)
            yield f"id: {event.version}\nevent: {event.type}\ndata: {payload}\n\n"
            after = event.version
        if batch[-1].type == SEED_REVEALED:
            return


@v1.get("/games/<game_id>/export")
def export_game(game_id: str) -> Response:
    events = _service().export(game_id, _viewer())
    body = "".join(canonical_json(e.to_json()) + "\n" for e in events)
    response = Response(body, mimetype="application/x-ndjson")
    response.headers["Content-Disposition"] = f'attachment; filename="{game_id}.jsonl"'
    return response


@v1.get("/health")
def health() -> Response:
    try:
        _service().ping()
    except Exception as error:
        raise ApiError(
            503,
            "store_unavailable",
            f"redis does not answer: {type(error).__name__}",
            headers={"Retry-After": "1"},
        ) from None
    return _render(schemas.HEALTH, {"status": "ok", "redis": "ok"})
