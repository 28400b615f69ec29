"""The search cursor: the sort key of the last row a page gave, opaque to clients.

Keyset paging (``WHERE (ended_at, game_id) < key``) rather than an offset, so rows archived
while a client pages never shift what the next page starts from."""

from __future__ import annotations

import base64
import binascii
import json

from service.archive.protocol import BadCursor, check_time

_PREFIX = "a1."  # the cursor's format version: a change of sort key gets a new one


def encode_cursor(ended_at: str, game_id: str) -> str:
    """The cursor that resumes after the row (``ended_at``, ``game_id``)."""
    raw = json.dumps([ended_at, game_id], separators=(",", ":")).encode()
    return _PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str]:
    """The (``ended_at``, ``game_id``) a cursor names; ``BadCursor`` for anything else."""
    if not cursor.startswith(_PREFIX):
        raise BadCursor()
    body = cursor[len(_PREFIX) :]
    try:
        key = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        ended_at, game_id = key
        if not isinstance(game_id, str):
            raise ValueError(game_id)
        return check_time(ended_at, "cursor"), game_id
    except (ValueError, TypeError, binascii.Error):
        raise BadCursor() from None
