"""The v1 HTTP routes: thin. Parse with marshmallow, call a handler or a query, render.

Checks run in the order the API promises (401, 404, 400, 409, 403, 422): the viewer first,
then the game, then the body; the handlers do the rest.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

from flask import Blueprint, Response, request

from domain.engine.canonical import canonical_json
from service.api.errors import store_unavailable
from service.api.http import (
    MAX_VERSION,
    current_floe,
    current_viewer,
    int_arg,
    json_body,
    last_event_id,
    only_query,
    render,
    render_built,
)
from service.api.playing import play_action
from service.api.schemas import games as schemas
from service.bootstrap import Floe
from service.errors import organizer_only
from service.games.catalog import GameMeta
from service.games.commands import Accepted, CreateGame, NewPlayer
from service.games.search import GameSearch
from service.redis.durability import read_safety

v1 = Blueprint("v1", __name__, url_prefix="/v1")

MAX_EVENTS_PAGE = 10_000
MAX_WAIT_SECONDS = 30


def _game(game_id: str) -> GameMeta:
    """The game the route names, or 404 ``game_not_found``."""
    return current_floe().repository.meta(game_id)


@v1.post("/games")
def create_game() -> Response:
    viewer = current_viewer()
    only_query("wait")
    wait = int_arg("wait", 0, high=MAX_WAIT_SECONDS)
    data = schemas.load(schemas.CREATE_GAME, json_body())
    command = CreateGame(
        game=data["game"],
        players=tuple(NewPlayer(p["name"], p["bot"], p["public_key"]) for p in data["players"]),
        options=data["options"],
        seed_hex=data["seed"],
        clock=data["clock"],
        wait_seconds=wait,
        # The per-creator quotas count by the TCP peer: behind a proxy, the proxy's address.
        creator=request.remote_addr or "unknown",
    )
    with _waiting(wait):
        created = current_floe().commands.create(command, viewer).to_json()
    response = render(schemas.GAME_CREATED, created, 201)
    response.headers["Location"] = f"/v1/games/{created['id']}"
    return response


@v1.get("/games")
def list_games() -> Response:
    """Games live and archived, a page at a time (``service.games.search``)."""
    only_query(*schemas.GAME_SEARCH_QUERY.fields)
    limit = int_arg("limit", schemas.SEARCH_LIMIT_DEFAULT, low=1, high=schemas.SEARCH_LIMIT_MAX)
    args = request.args.to_dict(flat=False)
    query = schemas.load_query(schemas.GAME_SEARCH_QUERY, args, limit=limit)
    floe = current_floe()
    page = GameSearch(floe.store, floe.archive).search(
        query["filters"], limit=limit, cursor=query["cursor"]
    )
    answer = {"games": [game.to_json() for game in page.games], "cursor": page.cursor}
    return render(schemas.GAME_LIST, {**answer, "limit": limit})


@v1.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    viewer = current_viewer()
    meta = _game(game_id)
    only_query()
    return render(schemas.GAME_VIEW, current_floe().queries.view(meta, viewer))


@v1.get("/games/<game_id>/state")
def get_state(game_id: str) -> Response:
    viewer = current_viewer()
    meta = _game(game_id)
    only_query("version")
    version = int_arg("version", None, low=1)
    return render(schemas.GAME_VIEW, current_floe().queries.view(meta, viewer, version))


@v1.get("/games/<game_id>/board.svg")
def board_svg(game_id: str) -> Response:
    """A picture of the board at ``?version=N`` (default: now), as the caller may see it."""
    viewer = current_viewer()
    meta = _game(game_id)
    only_query("version")
    version = request.args.get("version")
    at = None if version is None else int_arg("version", None, low=1)
    svg = current_floe().queries.picture(meta, viewer, at)
    return Response(svg, mimetype="image/svg+xml")


@v1.get("/games/<game_id>/legal-actions")
def get_legal_actions(game_id: str) -> Response:
    viewer = current_viewer()
    viewer.require_token()  # 401 before 404
    meta = _game(game_id)
    only_query()
    legal = current_floe().queries.legal_actions(meta, viewer)
    return render(schemas.LEGAL_ACTIONS, legal)


@v1.post("/games/<game_id>/actions")
def post_action(game_id: str) -> Response:
    """HTTP's own steps (401, 404, the query, the body), then the path every action takes
    (``service/api/playing.py``), shared with the socket's ``action`` message."""
    viewer = current_viewer()
    viewer.require_token()  # 401, then 404, before the body is even read (400)
    meta = _game(game_id)
    only_query("wait")
    wait = int_arg("wait", 0, high=MAX_WAIT_SECONDS)
    body = json_body()
    accepted = play_action(
        current_floe(), meta, viewer, body, wait_seconds=wait, address=request.remote_addr
    )
    return _accepted(accepted)


@v1.post("/games/<game_id>/decisions")
def post_decision(game_id: str) -> Response:
    """The organizer decides a live game: a seat forfeits, or the game ends with a result."""
    viewer = current_viewer()
    viewer.require_token()  # 401, then 404, then the organizer alone (403), then the body
    meta = _game(game_id)
    only_query()
    if not viewer.organizer:
        raise organizer_only("deciding a game", anonymous=False)
    accepted = current_floe().commands.decide(meta, json_body(), viewer)
    return render_built(_with_receipts(accepted), 201)


def _waiting(seconds: int) -> AbstractContextManager[None]:
    """A long-request slot for a ``?wait=`` that may wait (429 ``too_many_streams``)."""
    return current_floe().long_requests.holding(request.remote_addr, seconds)


def _accepted(accepted: Accepted) -> Response:
    status = 202 if accepted.awaiting_random else 201
    return render_built(_with_receipts(accepted), status)  # built in ACTION_ACCEPTED's shape


def _with_receipts(accepted: Accepted) -> dict[str, Any]:
    """The answer to an accepted command: its events and the service's receipt for each."""
    floe = current_floe()
    body = accepted.to_json()
    body["receipts"] = [
        floe.receipts.receipt(str(shown["game_id"]), int(shown["version"]), event_hash)
        for shown, event_hash in zip(accepted.events, accepted.hashes, strict=True)
    ]
    return body


@v1.get("/games/<game_id>/events")
def get_events(game_id: str) -> Response:
    viewer = current_viewer()
    meta = _game(game_id)
    only_query("after", "limit")
    after = int_arg("after", 0)
    limit = int_arg("limit", 1000, low=1, high=MAX_EVENTS_PAGE)
    return render(
        schemas.EVENTS_PAGE, current_floe().queries.events(meta, viewer, after=after, limit=limit)
    )


@v1.get("/games/<game_id>/events/stream")
def stream_events(game_id: str) -> Response:
    """Server-Sent Events, resumable: ``Last-Event-ID`` (or ``?after=N``) is a version."""
    viewer = current_viewer()
    floe = current_floe()
    meta = _game(game_id)
    viewer.reader_seat(game_id)
    only_query("after")
    after = int_arg("after", 0)
    resume = last_event_id(MAX_VERSION)  # outranks ``after`` (checked all the same)
    after = after if resume is None else resume
    settings = floe.settings
    latest = floe.repository.latest(meta)
    if latest.over and after >= latest.version:  # nothing more will ever come
        return Response("retry: 2000\n\n", mimetype="text/event-stream")
    hold = floe.long_requests.acquire(request.remote_addr, settings.sse_max_seconds)
    response = Response(
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
    if hold is not None:
        response.call_on_close(hold.release)  # also when the stream never started
    return response


def _sse(
    floe: Floe,
    meta: GameMeta,
    after: int,
    over: bool,
    max_seconds: float,
    heartbeat: float,
) -> Iterator[str]:
    """Send events as they arrive, each with the service's receipt (``queries.live``, the
    socket's loop too), a keep-alive each ``heartbeat`` with nothing new; stop after the last
    event of a finished game, or at ``max_seconds``."""
    deadline = time.monotonic() + max_seconds

    def block_ms() -> int:
        return int(1000 * min(heartbeat, max(0.001, deadline - time.monotonic())))

    yield "retry: 2000\n\n"
    live = floe.queries.live(
        meta, after, over=over, sign=floe.receipts.of_stored, block_ms=block_ms
    )
    with contextlib.closing(live):  # its doorbell is given back once the stream ends
        for batch in live:
            if batch is None:
                yield ": keep-alive\n\n"
            else:
                for event, shown in zip(batch.stored, batch.shown, strict=True):
                    payload = canonical_json(shown)
                    yield f"id: {event.version}\nevent: {event.type}\ndata: {payload}\n\n"
            if time.monotonic() >= deadline:
                return


@v1.get("/games/<game_id>/export")
def export_game(game_id: str) -> Response:
    viewer = current_viewer()
    meta = _game(game_id)
    only_query()
    events = current_floe().queries.export(meta, viewer)
    body = "".join(canonical_json(e.to_json()) + "\n" for e in events)
    response = Response(body, mimetype="application/x-ndjson")
    response.headers["Content-Disposition"] = f'attachment; filename="{game_id}.jsonl"'
    return response


@v1.get("/health")
def health() -> Response:
    only_query()
    floe = current_floe()
    try:
        floe.redis.ping()
        bot_failures = floe.queries.bot_failures()
        store = read_safety(floe.redis).to_json()  # what may lose games: redis/durability.py
    except Exception as error:
        return store_unavailable(f"redis does not answer: {type(error).__name__}")
    answer = {"status": "ok", "redis": "ok", "bot_failures": bot_failures, "store": store}
    return render(schemas.HEALTH, answer)
