"""The one path an action takes once its transport has done its own part, shared by
``POST /v1/games/{id}/actions`` (``service/api/games.py``) and the socket's ``action``
message (``service/api/socket.py``), so the two cannot drift apart in what they check or in
which order.

Each transport first does what only it has: HTTP resolves the token (401), the game (404),
its query and ``?wait=`` and reads the body; the socket resolved its token and game once at
the hello and decodes each message. From there both come here: the signature (a 401
outranks a 400), the body's schema (a command id this seat already used outranks a 400:
the earlier answer, or 422 ``command_id_reused``), then ``commands.play`` (409, 403, 422).
The refusals are the service's errors; the API's error handlers give them their status.
"""

from __future__ import annotations

from typing import Any

from service.api.schemas import games as schemas
from service.bootstrap import Floe
from service.errors import InvalidRequest
from service.games.access import Viewer
from service.games.catalog import GameMeta
from service.games.commands import Accepted, PlayAction, request_fingerprint


def play_action(
    floe: Floe,
    meta: GameMeta,
    viewer: Viewer,
    body: Any,
    *,
    wait_seconds: int = 0,
    address: str | None = None,
) -> Accepted:
    """Play ``body`` (a decoded ``POST …/actions`` body) as ``viewer``'s seat.

    ``wait_seconds`` is HTTP's ``?wait=`` (the socket passes 0): waiting for a draw holds
    one of ``address``'s long-request slots (429 ``too_many_streams``), taken only once the
    action has passed every check before ``play``, as it always was."""
    seat = viewer.seat_in(meta.game_id)
    signature = floe.commands.signature(meta, seat, body)  # a 401 outranks a 400
    try:
        data = schemas.load_post_action(body)
    except InvalidRequest:
        earlier = earlier_answer(floe, meta, seat, body)  # a used command id outranks a 400
        if earlier is None:
            raise
        return earlier
    command = PlayAction(
        seat=seat,
        action=data["action"],
        expected_version=data["expected_version"],
        command_id=data["command_id"],
        wait_seconds=wait_seconds,
        signature=signature,
    )
    with floe.long_requests.holding(address, wait_seconds):
        return floe.commands.play(meta, command)


def earlier_answer(floe: Floe, meta: GameMeta, seat: int | None, body: Any) -> Accepted | None:
    """The answer to a command id this seat already used, for a body that fails its schema:
    a retry must get its first answer even if the body it repeats was never valid."""
    command_id = body.get("command_id") if isinstance(body, dict) else None
    if not isinstance(command_id, str):
        return None
    fingerprint = request_fingerprint(body.get("action"), body.get("expected_version"))
    return floe.commands.earlier_answer(meta, seat, command_id, fingerprint)
