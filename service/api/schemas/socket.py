"""The live socket's hello (``GET /v1/games/{id}/socket``, ``service/api/socket.py``), loaded as
every request body is: a refused hello is a 400 ``invalid_body`` whose message says why in
the same sentences (``service.api.schemas.words``). Its spec is ``SocketHello`` in
service/api/spec/schemas.yaml (hand-written: OpenAPI has no words for a socket's frames).
"""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, fields, validate

from service.api.schemas.games import MAX_INT, StrictInt, load
from service.errors import InvalidRequest


class SocketHelloSchema(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(required=True, validate=validate.Equal("hello"))
    #: A seat's or the organizer's token, as an ``Authorization`` header would carry it;
    #: absent or null for a spectator.
    token = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1))
    #: The last version the client holds: the events after it are sent.
    after = StrictInt(load_default=0, validate=validate.Range(min=0, max=MAX_INT))


SOCKET_HELLO = SocketHelloSchema()


def load_hello(message: Any) -> tuple[str | None, int]:
    """The hello's token and ``after``: 400 ``hello_expected`` for a message that is not a
    hello at all, 400 ``invalid_body`` for a hello the schema refuses."""
    if not isinstance(message, dict) or message.get("type") != "hello":
        raise InvalidRequest("hello_expected", "the first message must be the hello")
    hello = load(SOCKET_HELLO, message)
    return hello["token"], hello["after"]
