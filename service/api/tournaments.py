"""The ``/v1/tournaments`` routes: create one, read it, follow it, export it.

Checks run in the API's order: 401 for an ``Authorization`` header that names nobody, 404 for
an unknown tournament, 400 for the body, 403 for what only the organizer may do.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from flask import Blueprint, Response, request

from domain.engine.canonical import canonical_json
from service.api.http import (
    RECORD_ID,
    current_floe,
    current_viewer,
    json_body,
    last_event_id,
    only_query,
    render,
)
from service.api.schemas import tournaments as schemas
from service.bootstrap import Floe
from service.games.commands import NewPlayer
from service.tournaments.running import CreateTournament, tournament_not_found
from service.tournaments.store import tournament_key

tournaments_v1 = Blueprint("tournaments_v1", __name__, url_prefix="/v1/tournaments")

#: The largest change count a ``Last-Event-ID`` may name (15 digits).
MAX_CHANGES = 10**15 - 1


def _checked(tournament_id: str) -> str:
    if RECORD_ID.fullmatch(tournament_id) is None:
        raise tournament_not_found(tournament_id)
    return tournament_id


@tournaments_v1.post("")
def create_tournament() -> Response:
    viewer = current_viewer()
    only_query()
    data = schemas.load(schemas.CREATE_TOURNAMENT, json_body())
    command = CreateTournament(
        game=data["game"],
        format=data["format"],
        players=tuple(NewPlayer(p["name"], p["bot"]) for p in data["players"]),
        table_size=data["table_size"],
        rounds=data["rounds"],
        options=data["options"],
        clock=data["clock"],
    )
    created = current_floe().tournaments.create(command, viewer)
    response = render(schemas.TOURNAMENT_CREATED, created.to_json(), 201)
    response.headers["Location"] = f"/v1/tournaments/{created.document['id']}"
    return response


@tournaments_v1.get("/<tournament_id>")
def get_tournament(tournament_id: str) -> Response:
    current_viewer()
    body = current_floe().tournaments.get(_checked(tournament_id))
    only_query()
    return render(schemas.TOURNAMENT, body)


@tournaments_v1.get("/<tournament_id>/export")
def export_tournament(tournament_id: str) -> Response:
    viewer = current_viewer()
    tournaments = current_floe().tournaments
    if request.args:  # 404 outranks a query refusal (400)
        tournaments.changes(_checked(tournament_id))
        only_query()
    lines = tournaments.export_lines(_checked(tournament_id), viewer)
    first = next(lines)  # refusals (403) are raised here, before the answer starts
    response = Response(_chain(first, lines), mimetype="application/x-ndjson")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="tournament-{tournament_id}.jsonl"'
    )
    return response


def _chain(first: str, rest: Iterator[str]) -> Iterator[str]:
    yield first
    yield from rest


@tournaments_v1.get("/<tournament_id>/stream")
def stream_tournament(tournament_id: str) -> Response:
    """Server-Sent Events: the whole tournament (``event: tournament``) at once and after
    every change (a game ended, a round began, it finished); ``id`` counts the changes, and
    ``Last-Event-ID`` skips the first when nothing changed since."""
    current_viewer()
    floe = current_floe()
    tournaments = floe.tournaments
    tournament_id = _checked(tournament_id)
    changes, finished = tournaments.changes(tournament_id)  # 404 before the stream starts
    only_query()
    seen = last_event_id(MAX_CHANGES)
    if finished and seen == changes:  # nothing more will ever come
        return Response("retry: 2000\n\n", mimetype="text/event-stream")
    settings = floe.settings
    hold = floe.long_requests.acquire(request.remote_addr, settings.sse_max_seconds)
    response = Response(
        _sse(floe, tournament_id, changes if seen == changes else None),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    if hold is not None:
        response.call_on_close(hold.release)
    return response


def _sse(floe: Floe, tournament_id: str, sent: int | None) -> Iterator[str]:
    """Send the tournament whenever it changed; stop once it is finished and sent."""
    settings = floe.settings
    deadline = time.monotonic() + settings.sse_max_seconds
    yield "retry: 2000\n\n"
    with floe.signals.watch(tournament_key(tournament_id)) as watch:
        while time.monotonic() < deadline:
            changes, _ = floe.tournaments.changes(tournament_id)
            if changes != sent:
                changes, document = floe.tournaments.followed(tournament_id)
                payload = canonical_json(schemas.TOURNAMENT.dump(document))
                yield f"id: {changes}\nevent: tournament\ndata: {payload}\n\n"
                sent = changes
                if document["status"] == "finished":
                    return
            else:
                yield ": keep-alive\n\n"
            remaining = deadline - time.monotonic()
            watch.wait(min(settings.sse_heartbeat_seconds, max(0.001, remaining)))
