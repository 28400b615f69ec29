"""The tournaments' request and response bodies (mirrored by ``openapi.yaml``)."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from domain.tournament.plan import FORMATS, MAX_PLAYERS
from service.api.schemas.games import PlayerSchema, StrictInt, hosted_game, load

__all__ = ["load"]


class CreateTournamentSchema(Schema):
    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=hosted_game)
    format = fields.String(
        required=True,
        validate=validate.OneOf(FORMATS, error="format is 'round_robin' or 'swiss'"),
    )
    table_size = StrictInt(load_default=2, validate=validate.Range(min=2, max=4))
    rounds = StrictInt(load_default=None, allow_none=True, validate=validate.Range(min=1, max=99))
    players = fields.List(
        fields.Nested(PlayerSchema),
        required=True,
        validate=validate.Length(min=2, max=MAX_PLAYERS),
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)


class TournamentPlayerSchema(Schema):
    player = fields.Integer(required=True)
    name = fields.String(required=True)
    bot = fields.String(allow_none=True, required=True)


class TournamentGameSchema(Schema):
    game_id = fields.String(required=True)
    table = fields.Integer(required=True)
    players = fields.List(fields.Integer(), required=True)
    status = fields.String(required=True)
    outcome = fields.Dict(allow_none=True, required=True)


class TournamentRoundSchema(Schema):
    round = fields.Integer(required=True)
    byes = fields.List(fields.Integer(), required=True)
    games = fields.List(fields.Nested(TournamentGameSchema), required=True)


class StandingSchema(Schema):
    player = fields.Integer(required=True)
    name = fields.String(required=True)
    points = fields.String(required=True)
    buchholz = fields.String(required=True)


class TournamentSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    format = fields.String(required=True)
    table_size = fields.Integer(required=True)
    planned_rounds = fields.Integer(required=True)
    options = fields.Dict(required=True)
    status = fields.String(required=True)
    created_at = fields.String(required=True)
    commitment = fields.String(required=True)
    seed_commitments = fields.List(fields.String(), required=True)
    players = fields.List(fields.Nested(TournamentPlayerSchema), required=True)
    rounds = fields.List(fields.Nested(TournamentRoundSchema), required=True)
    standings = fields.List(fields.Nested(StandingSchema), required=True)


class CreatedPlayerSchema(TournamentPlayerSchema):
    token = fields.String(allow_none=True, required=True)


class TournamentCreatedSchema(TournamentSchema):
    players = fields.List(fields.Nested(CreatedPlayerSchema), required=True)


CREATE_TOURNAMENT = CreateTournamentSchema()
TOURNAMENT = TournamentSchema()
TOURNAMENT_CREATED = TournamentCreatedSchema()
