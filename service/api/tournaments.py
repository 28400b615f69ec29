"""The ``/v1/tournaments`` routes: create one, list them, read it, follow it, export it; a
player's own view and the standings as CSV; and the director's routes (the organizer's):
start a round, take a decision, reissue a player's token.

Checks run in the API's order: 401 for an ``Authorization`` header that names nobody, 404 for
an unknown tournament (or player), 400 for the query; on the director's routes then 401/403
for anyone but the organizer, then the body (413, 415, 400), then 409 for what the tournament
as it stands refuses. Creating one checks its body before who asks, as it always has.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, request

from domain.engine.canonical import canonical_json
from service.api.http import (
    RECORD_ID,
    bad_request,
    current_floe,
    current_viewer,
    int_arg,
    json_body,
    last_event_id,
    only_query,
    render,
)
from service.api.schemas import tournaments as schemas
from service.api.schemas.names import check_entered_name
from service.bootstrap import Floe
from service.errors import organizer_only
from service.games.access import Viewer
from service.games.commands import NewPlayer
from service.tournaments.running import CreateTournament, settled, tournament_not_found
from service.tournaments.store import STATUSES, TournamentStatus, tournament_key

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
        players=tuple(NewPlayer(p["name"], p["bot"], p["public_key"]) for p in data["players"]),
        max_players=data["max_players"],
        tiebreaks=None if data["tiebreaks"] is None else tuple(data["tiebreaks"]),
        ratings=_ratings(data["players"]),
        table_size=data["table_size"],
        rounds=data["rounds"],
        options=data["options"],
        clock=data["clock"],
        round_start=data["round_start"],
    )
    created = current_floe().tournaments.create(command, viewer)
    response = render(schemas.TOURNAMENT_CREATED, created.to_json(), 201)
    response.headers["Location"] = f"/v1/tournaments/{created.document['id']}"
    return response


def _ratings(players: list[dict[str, Any]]) -> tuple[int, ...] | None:
    """Every player's rating, or None when none has one; 400 for some but not all."""
    given = [p["rating"] for p in players]
    if all(r is None for r in given):
        return None
    if any(r is None for r in given):
        raise bad_request("invalid_tournament", "players: give every player a rating, or none")
    return tuple(given)


@tournaments_v1.get("")
def list_tournaments() -> Response:
    """Tournaments, newest first (``?status=`` keeps one status), a page at a time."""
    only_query("status", "offset", "limit")
    status = _status_arg()
    offset = int_arg("offset", 0)
    limit = int_arg("limit", 50, low=1, high=500)
    listed = current_floe().tournaments.listing(offset=offset, limit=limit, status=status)
    return render(schemas.TOURNAMENT_LIST, listed)


def _status_arg() -> TournamentStatus | None:
    raw = request.args.get("status")
    if raw is None:
        return None
    for status in STATUSES:
        if raw == status:
            return status
    raise bad_request("invalid_query", f"status is one of {', '.join(STATUSES)}")


@tournaments_v1.get("/<tournament_id>")
def get_tournament(tournament_id: str) -> Response:
    current_viewer()
    body = current_floe().tournaments.get(_checked(tournament_id))
    only_query()
    return render(schemas.TOURNAMENT, body)


@tournaments_v1.get("/<tournament_id>/me")
def get_me(tournament_id: str) -> Response:
    """A player's own view: their game now, their next, their results (their token)."""
    viewer = current_viewer()
    tournaments = current_floe().tournaments
    tournaments.check(_checked(tournament_id))  # 404 before 400
    only_query()
    return render(schemas.TOURNAMENT_ME, tournaments.me(tournament_id, viewer))


@tournaments_v1.get("/<tournament_id>/standings.csv")
def standings_csv(tournament_id: str) -> Response:
    """The standings as CSV (anyone), to publish or open in a spreadsheet."""
    current_viewer()
    tournaments = current_floe().tournaments
    tournaments.check(_checked(tournament_id))  # 404 before 400
    only_query()
    response = Response(tournaments.standings_csv(tournament_id), mimetype="text/csv")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="tournament-{tournament_id}-standings.csv"'
    )
    return response


def _organizer(tournament_id: str, what: str) -> tuple[Viewer, str]:
    """The director's routes' first checks: 401, 404, 400 (query), then 403."""
    viewer = current_viewer()
    viewer.require_token()
    current_floe().tournaments.check(_checked(tournament_id))
    only_query()
    if not viewer.organizer:
        raise organizer_only(what, anonymous=False)
    return viewer, tournament_id


@tournaments_v1.post("/<tournament_id>/rounds")
def start_round(tournament_id: str) -> Response:
    """The organizer makes the next round of a tournament whose rounds start by hand."""
    _, tournament_id = _organizer(tournament_id, "starting a round")
    started = current_floe().tournaments.start_round(tournament_id)
    return render(schemas.TOURNAMENT, started, 201)


@tournaments_v1.post("/<tournament_id>/decisions")
def post_decision(tournament_id: str) -> Response:
    """The organizer's decision: withdraw, enter, correct, pause, resume or cancel."""
    viewer, tournament_id = _organizer(tournament_id, "a decision on a tournament")
    body = json_body()
    check_entered_name(body)  # an entrant's name follows the rules of every name (400)
    decided = current_floe().tournaments.decide(tournament_id, body, viewer)
    return render(schemas.TOURNAMENT_DECIDED, decided, 201)


@tournaments_v1.post("/<tournament_id>/players/<player>/token")
def reissue_token(tournament_id: str, player: str) -> Response:
    """The organizer gives a person a new token; the old one names nobody from now on."""
    viewer = current_viewer()
    viewer.require_token()
    tournaments = current_floe().tournaments
    tournaments.check_player(_checked(tournament_id), player)  # 404, 404
    only_query()
    if not viewer.organizer:
        raise organizer_only("reissuing a token", anonymous=False)
    issued = tournaments.reissue_token(tournament_id, player, viewer)
    return render(schemas.PLAYER_TOKEN, issued, 201)


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
    every change (a game ended, a round began, a decision, it finished); ``id`` counts the
    changes, and ``Last-Event-ID`` skips the first when nothing changed since. It ends once
    the tournament is settled (finished, or cancelled with every game over)."""
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
    """Send the tournament whenever it changed; stop once it is settled and sent."""
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
                if settled(document):
                    return
            else:
                yield ": keep-alive\n\n"
            remaining = deadline - time.monotonic()
            watch.wait(min(settings.sse_heartbeat_seconds, max(0.001, remaining)))
