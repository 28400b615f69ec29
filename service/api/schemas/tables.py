"""The tables' request and response bodies (``make spec`` writes ``openapi.yaml`` from them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from domain.engine.signing import is_public_key
from service.api.schemas.games import BOT_STRENGTHS, HostedGameRequest, load, ref
from service.api.schemas.names import MAX_NAME, NAME_PATTERN, display_name, same_names

__all__ = ["load"]

NAME: list[Callable[[Any], Any]] = [validate.Length(min=1, max=MAX_NAME), display_name]
BOTS = validate.OneOf(BOT_STRENGTHS, error="bot is 'random', 'greedy' or 'mcts'")


def _public_key(value: str) -> None:
    """Exactly 64 lowercase hex digits (a regex's ``$`` would let a final newline through)."""
    if not is_public_key(value):
        raise ValidationError("public_key is 64 lowercase hex digits (an Ed25519 public key)")


def public_key_field(description: str) -> fields.String:
    """A person's Ed25519 public key, optional: with one, their seat signs every move."""
    return fields.String(
        load_default=None,
        allow_none=True,
        validate=_public_key,
        metadata=ref("PublicKey", description),
    )


class StrictBool(fields.Boolean):
    """``true`` or ``false`` only (not ``1``, ``"yes"`` or ``"true"``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class SeatRequestSchema(Schema):
    """A named person ``{"name"}`` (with their ``public_key``, if they sign), a bot ``{"name",
    "bot"}`` or an open seat ``{"open": true}`` (a stranger brings their own key)."""

    class Meta:
        unknown = RAISE

    name = fields.String(
        validate=NAME, metadata={"description": "As a player's name.", "pattern": NAME_PATTERN}
    )
    bot = fields.String(
        load_default=None, allow_none=True, validate=BOTS, metadata=ref("BotStrength")
    )
    open = StrictBool(load_default=False)
    public_key = public_key_field(
        "A named person's Ed25519 public key (64 lowercase hex): their seat signs every "
        "action it posts (docs/guide/fair-play.md). Not for a bot, nor an open seat (its "
        "stranger gives theirs when joining)."
    )

    @validates_schema
    def _one_kind(self, data: Mapping[str, Any], **_: Any) -> None:
        keyed = data.get("public_key") is not None
        if data.get("open"):
            if data.get("name") is not None or data.get("bot") is not None or keyed:
                raise ValidationError(
                    "an open seat has no name, bot or public_key: a stranger brings them"
                )
        elif data.get("name") is None:
            raise ValidationError("a seat needs a name, or 'open': true")
        elif data.get("bot") is not None and keyed:
            raise ValidationError("a bot seat signs nothing: no public_key", "public_key")


class OpenTableSchema(HostedGameRequest):
    seats = fields.List(
        fields.Nested(SeatRequestSchema),
        required=True,
        validate=validate.Length(min=1, max=8),
        metadata={
            "description": "The seats in order; the game bounds the count. No two names "
            "may read the same (case and Unicode normalisation aside)."
        },
    )

    @validates_schema
    def _names_differ(self, data: Mapping[str, Any], **_: Any) -> None:
        named = [seat["name"] for seat in data.get("seats", []) if seat.get("name") is not None]
        twice = same_names(named)
        if twice is not None:
            raise ValidationError(f"two seats are named {twice!r} (case aside)", "seats")


class JoinTableSchema(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(
        required=True,
        validate=NAME,
        metadata={
            "description": "As a player's name; none seated may read the same (case and "
            "Unicode normalisation aside: 409 `name_taken`).",
            "pattern": NAME_PATTERN,
        },
    )
    public_key = public_key_field(
        "The joiner's Ed25519 public key (64 lowercase hex): their seat signs every action "
        "it posts (docs/guide/fair-play.md). Absent or null: their token alone is enough."
    )


class TableSeatSchema(Schema):
    seat = fields.Integer(required=True, metadata=ref("SeatNumber"))
    name = fields.String(
        allow_none=True, required=True, metadata={"description": "Null while the seat is open."}
    )
    bot = fields.String(allow_none=True, required=True, metadata=ref("BotStrength"))
    open = fields.Boolean(
        required=True, metadata={"description": "True while a stranger may take the seat."}
    )
    public_key = fields.String(
        metadata=ref(
            "PublicKey",
            "Present only for a seat whose person signs their actions: the key the game's "
            "seat will carry.",
        )
    )


class TableSchema(Schema):
    """A table: who sits where, which seats are open, and its game once started. Never a
    token."""

    id = fields.String(required=True, metadata={"description": "16 hex digits."})
    game = fields.String(required=True, metadata=ref("GameName"))
    status = fields.String(required=True, metadata={"enum": ["open", "started", "cancelled"]})
    seats = fields.List(fields.Nested(TableSeatSchema), required=True)
    options = fields.Dict(
        required=True, metadata={"description": "The game's options, as the table was opened."}
    )
    clock = fields.Dict(
        keys=fields.String(),
        allow_none=True,
        required=True,
        metadata=ref("Clock", "The game's clock, as the table was opened; null: no clock."),
    )
    created_at = fields.String(required=True, metadata=ref("Timestamp"))
    expires_at = fields.String(
        required=True,
        metadata=ref("Timestamp", "When an open table expires (a started one is kept a day)."),
    )
    game_id = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The game the table made, once started."},
    )


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True, metadata=ref("SeatNumber"))
    token = fields.String(required=True)


class TableOpenedSchema(TableSchema):
    """A table as ``Table`` says, with the tokens handed out when it opened (only now)."""

    host_token = fields.String(
        required=True, metadata={"description": "Cancels the table; shown only here."}
    )
    tokens = fields.List(
        fields.Nested(SeatTokenSchema),
        required=True,
        metadata={"description": "One per named person's seat, shown only here."},
    )


class TableJoinedSchema(Schema):
    seat = fields.Integer(required=True, metadata=ref("SeatNumber"))
    token = fields.String(
        required=True, metadata={"description": "The seat's token, shown only here."}
    )
    table = fields.Nested(TableSchema, required=True)


class TableListSchema(Schema):
    tables = fields.List(fields.Nested(TableSchema), required=True)
    total = fields.Integer(required=True, validate=validate.Range(min=0))
    offset = fields.Integer(required=True, validate=validate.Range(min=0))
    limit = fields.Integer(required=True, validate=validate.Range(min=1, max=500))


OPEN_TABLE = OpenTableSchema()
JOIN_TABLE = JoinTableSchema()
TABLE = TableSchema()
TABLE_OPENED = TableOpenedSchema()
TABLE_JOINED = TableJoinedSchema()
TABLE_LIST = TableListSchema()
