"""Marshmallow schemas for every request and response body.

Requests are loaded (and refused with 400 and the field errors); responses are dumped through
their schemas so the wire shape lives in one place, mirrored by ``openapi.yaml``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from domain.games import GAMES
from service.errors import InvalidRequest

MAX_INT = 2**53


class StrictInt(fields.Integer):
    """An integer that refuses booleans and floats (``true`` is not version 1)."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid", input=value)
        return int(super()._validated(value))


def printable_name(name: str) -> None:
    """A name is text people can read: no control characters, no lone surrogates."""
    if any(unicodedata.category(char) in {"Cc", "Cs"} for char in name):
        raise ValidationError("a name may not contain control characters (NUL, newline, ...)")


def hosted_game(name: str) -> None:
    """A game Floe hosts now (read at load time: games may be registered after import)."""
    if name not in GAMES:
        raise ValidationError(f"Must be one of: {', '.join(sorted(GAMES))}.")


class PlayerSchema(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(required=True, validate=[validate.Length(min=1, max=64), printable_name])
    bot = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(
            ["random", "greedy", "mcts"], error="bot is 'random', 'greedy' or 'mcts'"
        ),
    )


class CreateGameSchema(Schema):
    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=hosted_game)
    players = fields.List(
        fields.Nested(PlayerSchema), required=True, validate=validate.Length(min=1, max=8)
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seed = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Regexp(r"^[0-9a-fA-F]{64}$", error="seed is 32 bytes as 64 hex digits"),
    )


class PostActionSchema(Schema):
    class Meta:
        unknown = RAISE

    action = fields.Dict(keys=fields.String(), required=True)
    expected_version = StrictInt(required=True, validate=validate.Range(min=1, max=MAX_INT))
    command_id = fields.String(required=True, validate=validate.Length(min=1, max=128))

    @validates_schema
    def _action_has_type(self, data: Mapping[str, Any], **_: Any) -> None:
        if not isinstance(data.get("action", {}).get("type"), str):
            raise ValidationError("the action needs a string 'type'", "action")


class ErrorDetailSchema(Schema):
    code = fields.String(required=True)
    message = fields.String(required=True)


class ErrorSchema(Schema):
    error = fields.Nested(ErrorDetailSchema, required=True)


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    bot = fields.String(allow_none=True)


class CreatedSeatSchema(SeatSchema):
    token = fields.String(allow_none=True)


class GameCreatedSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True)
    seed_commitment = fields.String(required=True)


class GameViewSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    to_act = fields.List(fields.Integer(), required=True)
    pending = fields.Dict(allow_none=True)
    state = fields.Dict(required=True)
    outcome = fields.Dict(allow_none=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    viewer = fields.Integer(allow_none=True)
    seed_commitment = fields.String(required=True)
    seed = fields.String(allow_none=True)
    #: The bot move that failed at this version (``BotFailure`` in openapi.yaml), or null.
    bot_failure = fields.Dict(allow_none=True)


class EventSchema(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    data = fields.Dict(required=True)
    actor = fields.Raw(required=True)
    at = fields.String(required=True)
    command_id = fields.String(allow_none=True)
    prev_hash = fields.String()
    hash = fields.String()


class ActionAcceptedSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class EventsPageSchema(ActionAcceptedSchema):
    pass


class LegalActionsSchema(Schema):
    version = fields.Integer(required=True)
    actions = fields.List(fields.Dict(), required=True)


class GameSummarySchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    created_at = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    total = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)


class HealthSchema(Schema):
    status = fields.String(required=True)
    redis = fields.String(required=True)
    #: Bot moves that failed (out of time, or a bug), across all games, ever.
    bot_failures = fields.Integer(required=True)


# One instance of each: building a schema copies its fields, which costs more than using it.
CREATE_GAME = CreateGameSchema()
POST_ACTION = PostActionSchema()
GAME_CREATED = GameCreatedSchema()
GAME_LIST = GameListSchema()
GAME_VIEW = GameViewSchema()
LEGAL_ACTIONS = LegalActionsSchema()
ACTION_ACCEPTED = ActionAcceptedSchema()
EVENTS_PAGE = EventsPageSchema()
HEALTH = HealthSchema()


def load(schema: Schema, body: Any) -> dict[str, Any]:
    """Load a request body, turning every schema failure into one 400 with the details."""
    if not isinstance(body, dict):
        raise InvalidRequest("invalid_body", "the body must be a JSON object")
    try:
        loaded: dict[str, Any] = schema.load(body)
    except ValidationError as error:
        raise InvalidRequest("invalid_body", _describe(error.messages)) from error
    return loaded


def _describe(messages: Any, prefix: str = "") -> str:
    """Flatten marshmallow's nested messages into one readable line."""
    if isinstance(messages, Mapping):
        parts = [_describe(v, f"{prefix}{k}.") for k, v in messages.items()]
        return "; ".join(parts)
    if isinstance(messages, list):
        return f"{prefix.rstrip('.')}: " + " ".join(str(m) for m in messages)
    return f"{prefix.rstrip('.')}: {messages}"


_POST_ACTION_FIELDS = frozenset(PostActionSchema().fields)


def load_post_action(body: Any) -> dict[str, Any]:
    """``load(POST_ACTION, body)``, with a shortcut for the well-formed body (nearly all).

    A move's body is loaded on every move, and marshmallow takes about 40 µs to say what
    these few type checks say; a body that fails any of them goes to the schema, which then
    gives the same 400 it always did. ``tests/unit/test_post_action_shortcut.py`` holds the
    two to the same answers on generated bodies.
    """
    if type(body) is dict and body.keys() == _POST_ACTION_FIELDS:
        action, version, command_id = body["action"], body["expected_version"], body["command_id"]
        if (
            type(action) is dict
            and type(action.get("type")) is str
            and type(version) is int
            and 1 <= version <= MAX_INT
            and type(command_id) is str
            and 1 <= len(command_id) <= 128
        ):
            return {"action": action, "expected_version": version, "command_id": command_id}
    return load(POST_ACTION, body)
