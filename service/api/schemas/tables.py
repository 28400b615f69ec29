"""The tables' request and response bodies (mirrored by ``openapi.yaml``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from service.api.schemas.games import hosted_game, load, printable_name

__all__ = ["load"]

NAME: list[Callable[[Any], Any]] = [validate.Length(min=1, max=64), printable_name]
BOTS = validate.OneOf(["random", "greedy", "mcts"], error="bot is 'random', 'greedy' or 'mcts'")


class StrictBool(fields.Boolean):
    """``true`` or ``false`` only (not ``1``, ``"yes"`` or ``"true"``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class SeatRequestSchema(Schema):
    """A named person ``{"name"}``, a bot ``{"name", "bot"}`` or an open seat ``{"open": true}``."""

    class Meta:
        unknown = RAISE

    name = fields.String(validate=NAME)
    bot = fields.String(load_default=None, allow_none=True, validate=BOTS)
    open = StrictBool(load_default=False)

    @validates_schema
    def _one_kind(self, data: Mapping[str, Any], **_: Any) -> None:
        if data.get("open"):
            if data.get("name") is not None or data.get("bot") is not None:
                raise ValidationError("an open seat has no name or bot: a stranger brings one")
        elif data.get("name") is None:
            raise ValidationError("a seat needs a name, or 'open': true")


class OpenTableSchema(Schema):
    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=hosted_game)
    seats = fields.List(
        fields.Nested(SeatRequestSchema), required=True, validate=validate.Length(min=1, max=8)
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)


class JoinTableSchema(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(required=True, validate=NAME)


class TableSeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True, required=True)
    bot = fields.String(allow_none=True, required=True)
    open = fields.Boolean(required=True)


class TableSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True)
    seats = fields.List(fields.Nested(TableSeatSchema), required=True)
    options = fields.Dict(required=True)
    created_at = fields.String(required=True)
    expires_at = fields.String(required=True)
    game_id = fields.String(allow_none=True, required=True)


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True)


class TableOpenedSchema(TableSchema):
    host_token = fields.String(required=True)
    tokens = fields.List(fields.Nested(SeatTokenSchema), required=True)


class TableJoinedSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True)
    table = fields.Nested(TableSchema, required=True)


class TableListSchema(Schema):
    tables = fields.List(fields.Nested(TableSchema), required=True)
    total = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)


OPEN_TABLE = OpenTableSchema()
JOIN_TABLE = JoinTableSchema()
TABLE = TableSchema()
TABLE_OPENED = TableOpenedSchema()
TABLE_JOINED = TableJoinedSchema()
TABLE_LIST = TableListSchema()
