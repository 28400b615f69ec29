"""The v1 HTTP routes: thin. Parse with marshmallow, call a handler or a query, render.

Checks run in the order the API promises (401, 404, 400, 409, 403, 422): the viewer first,
then the game, then the body; the handlers do the rest.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request
from marshmallow import Schema

from domain.engine.canonical import canonical_json, unencodable
from domain.engine.game import Scene
from domain.engine.types import GAME_OVER, SEED_REVEALED
from service.access import Viewer
from service.api import schemas
from service.api.errors import HttpError, store_unavailable
from service.bootstrap import Floe
from service.catalog import GameMeta
from service.commands import Accepted, CreateGame, NewPlayer, PlayAction, request_fingerprint
from service.errors import InvalidRequest

v1 = Blueprint("v1", __name__, url_prefix="/v1")

MAX_EVENTS_PAGE = 10_000
MAX_WAIT_SECONDS = 30
MAX_VERSION = 2**53
#: A game's status as ``board.svg`` titles say it.
STATUS_WORDS = {"active": "in play", "awaiting_random": "waiting for a draw", "over": "over"}
#: Deeper JSON than any valid request needs is refused before any schema sees it.
MAX_JSON_DEPTH = 32


def _floe() -> Floe:
    floe: Floe = current_app.extensions["floe"]
    return floe


def _viewer() -> Viewer:
    return _floe().viewer(request.headers.get("Authorization"))


def _game(game_id: str) -> GameMeta:
    """The game the route names, or 404 ``game_not_found``."""
    return _floe().repository.meta(game_id)


def bad_request(code: str, message: str) -> InvalidRequest:
    return InvalidRequest(code, message)


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
        raise HttpError(
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
    problem = unencodable(body, MAX_JSON_DEPTH)
    if problem == "depth":
        raise bad_request(
            "malformed_json", f"the request body is nested deeper than {MAX_JSON_DEPTH} levels"
        )
    if problem == "surrogate":
        raise bad_request(
            "malformed_json", "the request body has a lone surrogate (e.g. \\ud800) in a string"
        )


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
    command = CreateGame(
        game=data["game"],
        players=tuple(NewPlayer(p["name"], p["bot"]) for p in data["players"]),
        options=data["options"],
        seed_hex=data["seed"],
        wait_seconds=wait,
    )
    created = _floe().commands.create(command, viewer).to_json()
    response = _render(schemas.GAME_CREATED, created, 201)
    response.headers["Location"] = f"/v1/games/{created['id']}"
    return response


@v1.get("/games")
def list_games() -> Response:
    offset = _int_arg("offset", 0)
    limit = _int_arg("limit", 50, low=1, high=500)
    return _render(schemas.GAME_LIST, _floe().queries.list_games(offset=offset, limit=limit))


@v1.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    viewer = _viewer()
    return _render(schemas.GAME_VIEW, _floe().queries.view(_game(game_id), viewer))


@v1.get("/games/<game_id>/state")
def get_state(game_id: str) -> Response:
    viewer = _viewer()
    meta = _game(game_id)
    version = _int_arg("version", None, low=1)
    return _render(schemas.GAME_VIEW, _floe().queries.view(meta, viewer, version))


@v1.get("/games/<game_id>/board.svg")
def board_svg(game_id: str) -> Response:
    """A picture of the board at ``?version=N`` (default: now), as the caller may see it."""
    viewer = _viewer()
    meta = _game(game_id)
    version = request.args.get("version")
    at = None if version is None else _int_arg("version", None, low=1)
    floe = _floe()
    shown = floe.queries.view(meta, viewer, at)
    v = shown["version"]
    # the event that made this version, as this viewer may see it (a revealed seed: game over)
    made = floe.repository.read(game_id, after=v - 1, upto=v)
    events = floe.queries.shown(meta, made, game_over=shown["seed"] is not None)
    status = STATUS_WORDS.get(shown["status"], str(shown["status"]).replace("_", " "))
    scene = Scene.of(
        shown["state"],
        names=[seat["name"] for seat in shown["seats"]],
        event=events[-1] if events else None,
        outcome=shown["outcome"],
        title=f"{shown['game']} {shown['id']} v{v} ({status})",
    )
    return Response(meta.bundle.svg(scene), mimetype="image/svg+xml")


@v1.get("/games/<game_id>/legal-actions")
def get_legal_actions(game_id: str) -> Response:
    viewer = _viewer()
    viewer.require_token()  # 401 before 404
    legal = _floe().queries.legal_actions(_game(game_id), viewer)
    return _render(schemas.LEGAL_ACTIONS, legal)


@v1.post("/games/<game_id>/actions")
def post_action(game_id: str) -> Response:
    viewer = _viewer()
    viewer.require_token()  # 401, then 404, before the body is even read (400)
    meta = _game(game_id)
    wait = _int_arg("wait", 0, high=MAX_WAIT_SECONDS)
    body = _json_body()
    try:
        data = schemas.load(schemas.POST_ACTION, body)
    except InvalidRequest:
        earlier = _earlier_answer(meta, viewer, body)  # a used command id outranks a 400
        if earlier is None:
            raise
        return _accepted(earlier)
    command = PlayAction(
        seat=viewer.seat_in(game_id),
        action=data["action"],
        expected_version=data["expected_version"],
        command_id=data["command_id"],
        wait_seconds=wait,
    )
    return _accepted(_floe().commands.play(meta, command))


def _accepted(accepted: Accepted) -> Response:
    status = 202 if accepted.awaiting_random else 201
    return _render(schemas.ACTION_ACCEPTED, accepted.to_json(), status)


def _earlier_answer(meta: GameMeta, viewer: Viewer, body: Any) -> Accepted | None:
    """The answer to a command id this seat already used, for a body that fails its schema."""
    command_id = body.get("command_id") if isinstance(body, dict) else None
    if not isinstance(command_id, str):
        return None
    fingerprint = request_fingerprint(body.get("action"), body.get("expected_version"))
    return _floe().commands.earlier_answer(
        meta, viewer.seat_in(meta.game_id), command_id, fingerprint
    )


@v1.get("/games/<game_id>/events")
def get_events(game_id: str) -> Response:
    viewer = _viewer()
    meta = _game(game_id)
    after = _int_arg("after", 0)
    limit = _int_arg("limit", 1000, low=1, high=MAX_EVENTS_PAGE)
    return _render(
        schemas.EVENTS_PAGE, _floe().queries.events(meta, viewer, after=after, limit=limit)
    )


@v1.get("/games/<game_id>/events/stream")
def stream_events(game_id: str) -> Response:
    """Server-Sent Events, resumable: ``Last-Event-ID`` (or ``?after=N``) is a version."""
    viewer = _viewer()
    floe = _floe()
    meta = _game(game_id)
    viewer.reader_seat(game_id)
    last_id = request.headers.get("Last-Event-ID", "").strip()
    if last_id.isdigit() and last_id.isascii():
        if len(last_id) > 20 or int(last_id) > MAX_VERSION:
            raise bad_request("invalid_query", f"Last-Event-ID must be an integer 0..{MAX_VERSION}")
        after = int(last_id)
    else:
        after = _int_arg("after", 0)
    settings = floe.settings
    latest = floe.repository.latest(meta)
    if latest.over and after >= latest.version:  # nothing more will ever come
        return Response("retry: 2000\n\n", mimetype="text/event-stream")
    return Response(
        _sse(
            floe,
            meta,
            after,
            latest.over,
            settings.sse_max_seconds,
            settings.sse_heartbeat_seconds,
        ),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _sse(
    floe: Floe,
    meta: GameMeta,
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
        batch = floe.queries.follow(meta, after, block)
        if not batch:
            if over:
                return
            yield ": keep-alive\n\n"
            continue
        over = over or any(e.type == GAME_OVER for e in batch)
        for event, shown in zip(
            batch, floe.queries.shown(meta, batch, game_over=over), strict=True
        ):
            payload = canonical_json(shown)
            yield f"id: {event.version}\nevent: {event.type}\ndata: {payload}\n\n"
            after = event.version
        if batch[-1].type == SEED_REVEALED:
            return


@v1.get("/games/<game_id>/export")
def export_game(game_id: str) -> Response:
    viewer = _viewer()
    events = _floe().queries.export(_game(game_id), viewer)
    body = "".join(canonical_json(e.to_json()) + "\n" for e in events)
    response = Response(body, mimetype="application/x-ndjson")
    response.headers["Content-Disposition"] = f'attachment; filename="{game_id}.jsonl"'
    return response


@v1.get("/health")
def health() -> Response:
    try:
        _floe().redis.ping()
    except Exception as error:
        return store_unavailable(f"redis does not answer: {type(error).__name__}")
    return _render(schemas.HEALTH, {"status": "ok", "redis": "ok"})
