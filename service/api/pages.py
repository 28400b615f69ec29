"""The web pages: the lobby, a game, its replay and the replay of an uploaded export.

- ``GET /``: the lobby (open tables, games in play, a form to open a table).
- ``GET /games/<id>``: one game, live; a browser holding a seat's token plays it.
- ``GET /games/<id>/replay``: every version of a game, stepped with the keys or a slider.
- ``GET /replay``: upload an export file, see its verdict and step through it.
- ``GET /tournaments/<id>``: one tournament (standings, rounds, games), live.
- ``GET /rules`` and ``GET /rules/<game>``: each hosted game's rules (``service.api.rules``).
- ``GET /web/<file>``: the pages' CSS and JavaScript modules.

A browser asking for a page Floe does not have (outside ``/v1``, ``/docs``, ``/openapi.*`` and
``/web/``) gets ``not_found.html``, a 404 page with the way back to the lobby; a program (any
request that does not prefer HTML to JSON) gets the API's JSON 404 (``service.api.errors``).

The pages are fixed templates and files (``service/web``): the HTML is the same for every game
and viewer, and everything they show comes from the public API under ``/v1``, called from the
browser with the viewer's own token (if any). So no page carries anything the API would not give
that viewer, and none of these routes touches the store: like ``/docs``, they are outside
``/v1``, not rate limited, not in ``openapi.yaml``. docs/guide/web.md describes them.

The one exception is the tournament page: it arrives rendered from ``Tournaments.get`` (the
very document ``GET /v1/tournaments/{id}`` gives anyone, so it still shows nothing the API
would not), readable without JavaScript; its script then follows the tournament's stream.
Since it reads the store, it counts against the address's rate limit like a ``/v1`` request.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from flask import Blueprint, Response, abort, request, send_from_directory
from markupsafe import Markup

from service.api.http import RECORD_ID, current_floe
from service.api.page_answers import page
from service.api.rules import rules_html, rules_titles
from service.errors import NotFound

WEB_DIR = Path(str(files("service.web")))
TEMPLATES = WEB_DIR / "templates"
STATIC = WEB_DIR / "static"

pages = Blueprint("pages", __name__, template_folder=str(TEMPLATES))
#: The pages' own files; nothing else under service/web is served.
ASSETS = frozenset(p.name for p in STATIC.iterdir() if p.suffix in {".css", ".js", ".svg"})
ASSET_MAX_AGE = 300
#: A game id as the API makes them; anything else is 404 before a page is sent.
ID_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")


def _check_id(game_id: str) -> None:
    if not 0 < len(game_id) <= 64 or not set(game_id) <= ID_CHARS:
        abort(404)


@pages.get("/")
def lobby() -> Response:
    return page("lobby.html")


@pages.get("/games/<game_id>")
def game(game_id: str) -> Response:
    _check_id(game_id)
    return page("game.html")


@pages.get("/games/<game_id>/replay")
def game_replay(game_id: str) -> Response:
    _check_id(game_id)
    return page("replay.html")


@pages.get("/replay")
def upload() -> Response:
    return page("upload.html")


@pages.get("/tournaments/<tournament_id>")
def tournament(tournament_id: str) -> Response:
    """Rendered from the store (see above); 404 for a malformed id before any store is read."""
    if RECORD_ID.fullmatch(tournament_id) is None:
        abort(404)
    floe = current_floe()
    floe.rate_limiter.check(request.remote_addr, request.headers.get("Authorization"))
    try:
        document = floe.tournaments.get(tournament_id)
    except NotFound:
        abort(404)
    return page("tournament.html", t=document)


@pages.get("/rules")
def rules_index() -> Response:
    return page("rules.html", games=rules_titles(), game=None, rules=None)


@pages.get("/rules/<game>")
def rules(game: str) -> Response:
    """One game's rules; 404 for a game Floe does not host (or one without a document)."""
    titles = rules_titles()
    html = rules_html(game) if game in titles else None
    if html is None:
        abort(404)
    return page("rules.html", games=titles, game=game, title=titles[game], rules=Markup(html))


@pages.get("/web/<name>")
def asset(name: str) -> Response:
    if name not in ASSETS:
        abort(404)
    response = send_from_directory(STATIC, name, max_age=ASSET_MAX_AGE)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
