"""What ``POST /v1/replays`` answers about an export file: the CPU work, run in a child.

The audit (``replay.verify``, or ``replay.tournament`` for a tournament export), the
timeline of the versions it passed and the boards asked for. It takes seconds for a long
game, so the API never runs it on its event loop: ``service.uploads.child`` runs this in a
process of its own and hands the JSON back as bytes (``service.uploads.pool``).

Bot moves are not made again (``bot_replay=False``): re-deriving a search bot's moves costs
what it thought, minutes of CPU for a long game, which an unauthenticated upload must not be
able to ask for; ``floe replay verify`` does it.

Bounds, so that what an upload costs and what it answers follow from its size:

- ``MAX_LINES``: a file of more lines is refused before any is parsed (the route counts
  them); a line that is JSON but no stored event ends the audit's reading at once.
- ``MAX_BOARD_BYTES``: boards are drawn from ``from`` on until the next would take their SVG
  past it (the first is always drawn); ``next_board`` then names the first left out, to ask
  for next. Everything else in the answer is the file's own events and a few words per
  version, so the answer is at most about the upload's size, twice, plus the boards.
"""

from __future__ import annotations

import json
from typing import Any

from domain.games import GAMES
from replay.timeline import Timeline, TimelineError, from_events
from replay.tournament.audit import audit_tournament, is_manifest_line
from replay.verify import audit_lines

#: The most lines (blank ones included) an uploaded file may have: the events a game may
#: reach by default (``FLOE_EVENTS_PER_GAME``, 10,000), plus a tournament export's manifest
#: line. A real export holds about 300 bytes an event, so 2 MiB of it is never near this:
#: only a file of tiny lines is, and it is refused without reading them.
MAX_LINES = 10_000 + 1
#: The SVG bytes of the boards of one answer (the first board asked for is always drawn).
MAX_BOARD_BYTES = 1024 * 1024


def line_count(raw: bytes) -> int:
    """The lines of a body as ``floe replay`` splits a file (on ``\\n``; a last, empty one
    after a final newline is no line), counted without decoding or parsing any."""
    return raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)


def lines_of(raw: bytes) -> list[str]:
    """As ``floe replay`` reads a file: split on ``\\n`` only, bad UTF-8 kept (as lone
    surrogates) for the audit to name."""
    lines = raw.decode("utf-8", errors="surrogateescape").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def answer(raw: bytes, first: int, count: int) -> bytes:
    """The answer's JSON for an export file ``raw`` (non-empty), with the boards of at most
    ``count`` versions from ``first`` on."""
    lines = lines_of(raw)
    if is_manifest_line(lines[0]):
        return _encode(_tournament(lines))
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
        "next_board": None,
    }
    try:
        timeline = from_events(events, verdict, size=size)
    except TimelineError as error:
        body["banner"] = [str(error)]
    else:
        body.update(_steps(timeline, first, count))
    return _encode(body)


def _encode(body: dict[str, Any]) -> bytes:
    try:
        return json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate quoted in a reason: escaped, still JSON
        return json.dumps(body).encode("ascii")


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
    boards, next_board = _boards(timeline, first, min(timeline.last, first + count - 1))
    return {
        "game": timeline.game,
        "game_id": timeline.game_id,
        "seats": [seat.to_json() for seat in timeline.seats],
        "last": timeline.last,
        "banner": list(timeline.banner),
        "versions": versions,
        "boards": boards,
        "next_board": next_board,
    }


def _boards(timeline: Timeline, first: int, last: int) -> tuple[list[dict[str, Any]], int | None]:
    """The boards of versions ``first`` to ``last`` that fit in ``MAX_BOARD_BYTES`` (the
    first always does), and the first version left out for the budget (None: none was)."""
    draw = GAMES[timeline.game].svg
    boards: list[dict[str, Any]] = []
    spent = 0
    for version in range(first, last + 1):
        svg = draw(timeline.scene(version, f"{timeline.game_id} v{version}/{timeline.last}"))
        spent += len(svg.encode("utf-8", errors="surrogatepass"))
        if boards and spent > MAX_BOARD_BYTES:
            return boards, version
        boards.append({"version": version, "svg": svg})
    return boards, None
