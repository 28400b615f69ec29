"""The tournaments' request and response bodies (``make spec`` writes ``openapi.yaml`` from
them)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.tournament.plan import FORMATS, MAX_PLAYERS
from service.api.schemas.games import HostedGameRequest, PlayerSchema, StrictInt, load, ref

__all__ = ["load"]


class CreateTournamentSchema(HostedGameRequest):
    format = fields.String(
        required=True,
        validate=validate.OneOf(FORMATS, error="format is 'round_robin' or 'swiss'"),
    )
    table_size = StrictInt(
        load_default=2,
        validate=validate.Range(min=2, max=4),
        metadata={"description": "Seats per table (default 2), at most the players."},
    )
    rounds = StrictInt(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=1, max=99),
        metadata={
            "description": "A swiss's number of rounds (required). A round robin's follows "
            "from its players: absent, null, or exactly that number."
        },
    )
    players = fields.List(
        fields.Nested(PlayerSchema),
        required=True,
        validate=validate.Length(min=2, max=MAX_PLAYERS),
        metadata={
            "description": "Numbered from 0 in this order; every name differs.",
            "uniqueItems": True,
        },
    )


class TournamentPlayerSchema(Schema):
    player = fields.Integer(required=True, metadata=ref("PlayerNumber"))
    name = fields.String(required=True)
    bot = fields.String(
        allow_none=True,
        required=True,
        metadata=ref("BotStrength", "The bot playing this player's seats; null for a person."),
    )


class TournamentGameSchema(Schema):
    game_id = fields.String(
        required=True,
        metadata={"pattern": "^[0-9a-f]{16}$", "description": "The game, made with its slot."},
    )
    table = fields.Integer(required=True, validate=validate.Range(min=1, max=49))
    players = fields.List(
        fields.Integer(metadata=ref("PlayerNumber")),
        required=True,
        validate=validate.Length(min=2, max=4),
        metadata={"description": "The table's players in seat order (seat i is players[i])."},
    )
    status = fields.String(
        required=True,
        metadata={
            "enum": ["pending", "awaiting_random", "active", "over"],
            "description": "The game's status; `pending` while it is not created yet.",
        },
    )
    outcome = fields.Dict(
        allow_none=True,
        required=True,
        metadata=ref("Outcome", "Once over (by seat: seat i is players[i]), else null."),
    )


class TournamentRoundSchema(Schema):
    round = fields.Integer(required=True, validate=validate.Range(min=1, max=99))
    byes = fields.List(
        fields.Integer(metadata=ref("PlayerNumber")),
        required=True,
        metadata={"description": "The players sitting this round out (1 point each)."},
    )
    games = fields.List(fields.Nested(TournamentGameSchema), required=True)


class StandingSchema(Schema):
    player = fields.Integer(required=True, metadata=ref("PlayerNumber"))
    name = fields.String(required=True)
    points = fields.String(required=True, metadata=ref("Points"))
    buchholz = fields.String(required=True, metadata=ref("Points"))


class TournamentSchema(Schema):
    """A tournament as everyone may see it. A game gives 1 point to a sole winner, ``1/k`` to
    each of ``k`` winners; a bye is worth 1. Buchholz: the sum of every opponent's points.
    ``standings``: by points, Buchholz (most first), then name, then number. ``commitment``:
    the SHA-256 hex of the ``seed_commitments`` written one after another."""

    id = fields.String(required=True, metadata=ref("TournamentId"))
    game = fields.String(required=True, metadata=ref("GameName"))
    format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    table_size = fields.Integer(required=True, validate=validate.Range(min=2, max=4))
    planned_rounds = fields.Integer(required=True, validate=validate.Range(min=1, max=99))
    options = fields.Dict(
        required=True, metadata={"description": "The options of every game of the tournament."}
    )
    clock = fields.Dict(
        keys=fields.String(),
        allow_none=True,
        required=True,
        metadata=ref("Clock", "The clock of every game of the tournament; null: no clock."),
    )
    status = fields.String(required=True, validate=validate.OneOf(["running", "finished"]))
    created_at = fields.String(required=True, metadata=ref("Timestamp"))
    commitment = fields.String(required=True, metadata=ref("Hex64"))
    seed_commitments = fields.List(
        fields.String(metadata=ref("Hex64")),
        required=True,
        validate=validate.Length(min=1, max=2048),
        metadata={"description": "One per (round, table) slot, in slot order."},
    )
    players = fields.List(
        fields.Nested(TournamentPlayerSchema),
        required=True,
        validate=validate.Length(min=2, max=MAX_PLAYERS),
    )
    rounds = fields.List(
        fields.Nested(TournamentRoundSchema),
        required=True,
        validate=validate.Length(min=1, max=99),
        metadata={"description": "The rounds made so far, from round 1."},
    )
    standings = fields.List(
        fields.Nested(StandingSchema),
        required=True,
        metadata={"description": "Every player, best first."},
    )


class CreatedPlayerSchema(TournamentPlayerSchema):
    token = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "The person's token (shown only now): their seat token in each of "
            "their games of this tournament. Null for a bot."
        },
    )


class TournamentCreatedSchema(TournamentSchema):
    """A new tournament (always ``running``), with each person's token."""

    status = fields.String(required=True, validate=validate.OneOf(["running"]))
    players = fields.List(
        fields.Nested(CreatedPlayerSchema),
        required=True,
        validate=validate.Length(min=2, max=MAX_PLAYERS),
    )


CREATE_TOURNAMENT = CreateTournamentSchema()
TOURNAMENT = TournamentSchema()
TOURNAMENT_CREATED = TournamentCreatedSchema()
