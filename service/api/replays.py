"""``POST /v1/replays``: audit an uploaded export file and answer what a replay page steps.

The body is an export file as ``GET /v1/games/{id}/export`` gives it (NDJSON, one stored
event per line), at most ``MAX_REPLAY_BYTES`` (413 beyond). The answer is the verdict of
``floe replay verify`` on it (``replay.verify``: ``ok``, ``incomplete`` or ``failed``, with the
version and reason of the first failure), what ``floe replay show`` warns about it (the
banner), and for every version the audit passed: the stored event that made it, the
status, who is to act and the outcome. The boards (the game's own SVG picture of each
version, as a spectator sees it: everything in an uploaded file is public already) come for
at most ``MAX_BOARDS`` versions per request, from ``?from=N`` on (``?count=``): drawing every
version of a long game at once would cost seconds and tens of megabytes, so the page asks
for the boards near the version it shows.

Bot moves are not made again here (``bot_replay=False``): re-deriving a search bot's moves
costs what it thought, minutes of CPU for a long game, which an unauthenticated upload must
not be able to ask of the API; ``floe replay verify`` does it. So the verdict is that of
``floe replay verify --no-bot-replay``.

A tournament export (line 1 ``{"tournament": {...}}``) is judged as a set, as ``floe replay
verify --no-bot-replay`` judges it (``replay.tournament``): the answer is ``kind``
``tournament`` and that verdict, with no steps (a board shows one game; ``floe replay show
--game`` steps one). A single game's answer is ``kind`` ``game``.

Nothing is stored: the same file answers the same, whoever sends it. The file is untrusted
input: the audit never raises on what it holds, and nothing of it is folded past the first
failure.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, request

from domain.games import GAMES
from replay.timeline import Timeline, TimelineError, from_events
from replay.tournament.audit import audit_tournament, is_manifest_line
from replay.verify import audit_lines
from service.api.http import int_arg, only_query, require_content_type
from service.errors import InvalidRequest

replays = Blueprint("replays", __name__, url_prefix="/v1")

#: The largest export file accepted (413 ``body_too_large`` beyond).
MAX_REPLAY_BYTES = 2 * 1024 * 1024
#: Boards drawn per request (``?count=``), and the default.
MAX_BOARDS = 100
DEFAULT_BOARDS = 20
#: The content types an export file may be sent as: one is required, so that no visitor's
#: browser can be made to upload (a cross-site request without a type is not asked first).
NDJSON_TYPES = frozenset({"application/octet-stream", "application/x-ndjson", "application/jsonl"})


def _lines() -> list[str]:
    """The body's lines: 415 unless declared NDJSON, 413 over the limit, 400
    ``empty_body`` for nothing at all (an empty file is no export file)."""
    require_content_type(NDJSON_TYPES.__contains__, "application/x-ndjson")
    request.max_content_length = MAX_REPLAY_BYTES
    raw = request.get_data(cache=False)  # 413 (werkzeug) when over MAX_REPLAY_BYTES
    if not raw:
        raise InvalidRequest("empty_body", "the body is empty; send an export file")
    # As `floe replay` reads a file: split on \n only, bad UTF-8 kept for the audit to name.
    text = raw.decode("utf-8", errors="surrogateescape")
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


@replays.post("/replays")
def post_replay() -> Response:
    only_query("from", "count")
    first = int_arg("from", 1, low=1, high=2**53)
    count = int_arg("count", DEFAULT_BOARDS, low=1, high=MAX_BOARDS)
    lines = _lines()
    if is_manifest_line(lines[0]):
        return _json(_tournament(lines))
    verdict, events = audit_lines(lines, bot_replay=False)
    size = sum(1 for line in lines if line.strip())
    body: dict[str, Any] = {
        "kind": "game",
        "verdict": {k: v for k, v in verdict.to_json().items() if k not in ("file", "bot_replay")},
        "game": None,
        "game_id": verdict.game_id,
        "seats": [],
        "size": size,
        "last": 0,
        "banner": [],
        "versions": [],
        "boards": [],
    }
    try:
        timeline = from_events(events, verdict, size=size)
    except TimelineError as error:
        body["banner"] = [str(error)]
    else:
        body.update(_steps(timeline, first, count))
    return _json(body)


def _json(body: dict[str, Any]) -> Response:
    payload = json.dumps(body, ensure_ascii=False)
    return current_app.response_class(payload, 200, mimetype="application/json")


def _tournament(lines: list[str]) -> dict[str, Any]:
    """The tournament audit's verdict on the set (its bots' moves not made again)."""
    verdict = audit_tournament(lines, bot_replay=False).to_json()
    return {"kind": "tournament", "verdict": {k: v for k, v in verdict.items() if k != "file"}}


def _steps(timeline: Timeline, first: int, count: int) -> dict[str, Any]:
    versions = []
    for version in range(1, timeline.last + 1):
        outcome = timeline.state(version).outcome
        versions.append(
            {
                "version": version,
                "event": dict(timeline.event(version)),
                "status": timeline.status(version),
                "to_act": list(timeline.to_act(version)),
                "outcome": None if outcome is None else outcome.to_json(),
            }
        )
    draw = GAMES[timeline.game].svg
    last = min(timeline.last, first + count - 1)
    boards = [
        {
            "version": version,
            "svg": draw(timeline.scene(version, f"{timeline.game_id} v{version}/{timeline.last}")),
        }
        for version in range(first, last + 1)
    ]
    return {
        "game": timeline.game,
        "game_id": timeline.game_id,
        "seats": [seat.to_json() for seat in timeline.seats],
        "last": timeline.last,
        "banner": list(timeline.banner),
        "versions": versions,
        "boards": boards,
    }
