"""The tournaments' request and response bodies (``make spec`` writes ``openapi.yaml`` from
them)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from domain.tournament.plan import FORMATS, MAX_PLAYERS
from domain.tournament.standings import DEFAULT_TIEBREAKS, TIEBREAKS
from service.api.schemas.games import HostedGameRequest, PlayerSchema, StrictInt, load, ref
from service.tournaments.running import check_round_start
from service.tournaments.store import STATUSES

__all__ = ["load"]

#: The results a crosstable and a player's own view name (``service.tournaments.views``).
RESULTS = ("won", "shared", "lost", "bye", "playing", "absent")


def _round_start(value: Any) -> None:
    try:
        check_round_start(value)
    except ValueError as error:
        raise ValidationError(str(error)) from None


class TournamentEntrantSchema(PlayerSchema):
    rating = StrictInt(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=9999),
        metadata={
            "description": "A swiss's seeding: round 1 pairs by rating, highest first (equal "
            "ratings by entry order). Give every player one, or none (entry order)."
        },
    )


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
        fields.Nested(TournamentEntrantSchema),
        required=True,
        validate=validate.Length(min=2, max=MAX_PLAYERS),
        metadata={
            "description": "Numbered from 0 in this order; every name differs.",
            "uniqueItems": True,
        },
    )
    max_players = StrictInt(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=2, max=MAX_PLAYERS),
        metadata={
            "description": "A swiss's most players with late entries (`enter` decisions): "
            "the seeds of their games are committed now. Default: the players listed (no "
            "late entry)."
        },
    )
    tiebreaks = fields.List(
        fields.String(validate=validate.OneOf(TIEBREAKS)),
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=1, max=len(TIEBREAKS)),
        metadata={
            "description": "What orders players equal on points, in order (each once). "
            f"Default: {', '.join(DEFAULT_TIEBREAKS)}. Players equal on all of them share "
            "a place.",
            "uniqueItems": True,
        },
    )
    round_start = fields.Raw(
        load_default="auto",
        validate=_round_start,
        metadata=ref(
            "RoundStart",
            "When each next round is made (default `auto`): as soon as the round before is "
            'over (`"auto"`), N seconds after it ended (`{"after_s": N}`), or when the '
            'organizer starts it (`"manual"`: round 1 too).',
        ),
    )


class TournamentPlayerSchema(Schema):
    """A player: those listed at creation, then those entered late, numbered in that order."""

    player = fields.Integer(required=True, metadata=ref("PlayerNumber"))
    name = fields.String(required=True)
    bot = fields.String(
        allow_none=True,
        required=True,
        metadata=ref("BotStrength", "The bot playing this player's seats; null for a person."),
    )
    public_key = fields.String(
        allow_none=True,
        required=True,
        metadata=ref(
            "PublicKey",
            "The person's Ed25519 public key, given at creation or by their `enter` decision: "
            "their seat in each of their games carries it, and they sign every move there. "
            "Null: none.",
        ),
    )
    rating = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The rating given at creation; null: none."},
    )
    withdrawn = fields.Boolean(
        required=True,
        metadata={"description": "Withdrawn by the organizer: paired no more."},
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
    correction = fields.Nested(
        "CorrectionSchema",
        required=True,
        allow_none=True,
        metadata={
            "description": "The winning seats the organizer's `correct` decision counts for "
            "this game (standings, crosstable, pairings), in place of its outcome's; null "
            "when uncorrected. The game's log and outcome stay as played."
        },
    )


class CorrectionSchema(Schema):
    winners = fields.List(
        fields.Integer(validate=validate.Range(min=0, max=3)),
        required=True,
        metadata={"description": "The winning seats counted (seat i is the game's players[i])."},
    )
    decision = fields.Integer(
        required=True, metadata={"description": "The `seq` of the decision that set it."}
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
    place = fields.String(
        required=True,
        metadata={
            "pattern": "^[1-9][0-9]*(-[1-9][0-9]*)?$",
            "description": 'The place: `"3"`, or `"3-4"` shared by players equal on points '
            "and every tie-break (names never decide).",
        },
    )
    points = fields.String(required=True, metadata=ref("Points"))
    buchholz = fields.String(
        required=True,
        metadata=ref(
            "Points",
            "Every opponent's points; at rules version 2 a bye counts as an opponent with the "
            "player's own points, at version 1 it does not count.",
        ),
    )
    tiebreaks = fields.Dict(
        keys=fields.String(validate=validate.OneOf(TIEBREAKS)),
        values=fields.String(metadata=ref("Points")),
        required=True,
        metadata={"description": "Each of the tournament's `tiebreaks` by name."},
    )


def _nullable_integer(description: str, **extra: Any) -> fields.Integer:
    return fields.Integer(
        required=True, allow_none=True, metadata={"description": description, **extra}
    )


class CrosstableEntrySchema(Schema):
    """One player's round: where they sat (null for a bye or a round they were not in),
    whom they met, and how it went: `won` (the sole winner), `shared` (one of several
    winners), `lost`, `bye` (1 point), `playing` (not over yet) or `absent`."""

    round = fields.Integer(required=True, validate=validate.Range(min=1, max=99))
    game_id = fields.String(required=True, allow_none=True, metadata={"pattern": "^[0-9a-f]{16}$"})
    table = _nullable_integer("The table, from 1.", minimum=1, maximum=49)
    seat = _nullable_integer("The player's seat at it, from 0.", minimum=0, maximum=3)
    opponents = fields.List(
        fields.Integer(metadata=ref("PlayerNumber")),
        required=True,
        metadata={"description": "The other players at the table, in seat order."},
    )
    result = fields.String(required=True, validate=validate.OneOf(RESULTS))
    points = fields.String(
        required=True,
        allow_none=True,
        metadata=ref("Points", "What the round gave the player; null while it is played."),
    )


class CrosstableRowSchema(Schema):
    player = fields.Integer(required=True, metadata=ref("PlayerNumber"))
    name = fields.String(required=True)
    points = fields.String(required=True, metadata=ref("Points"))
    rounds = fields.List(
        fields.Nested(CrosstableEntrySchema),
        required=True,
        metadata={"description": "One entry per round made, from round 1."},
    )


class TournamentSchema(Schema):
    """A tournament as everyone may see it. A game gives 1 point to a sole winner, ``1/k`` to
    each of ``k`` winners (as a ``correction`` counts it, when the organizer made one); a bye
    is worth 1. ``standings``: by points, then the ``tiebreaks`` in order (most first),
    players equal on all of them sharing a ``place``; at rules version 1, by points,
    Buchholz (every opponent's points, byes not counted), then name, then number.
    ``commitment``: the SHA-256 hex of the ``seed_commitments`` written one after another;
    ``roster_commitment``: the SHA-256 hex of the players listed at creation."""

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
    round_start = fields.Raw(
        required=True,
        metadata=ref("RoundStart", "When each next round is made, as created."),
    )
    max_players = fields.Integer(
        required=True,
        validate=validate.Range(min=2, max=MAX_PLAYERS),
        metadata={"description": "The most players late entries may bring it to."},
    )
    tiebreaks = fields.List(
        fields.String(validate=validate.OneOf(TIEBREAKS)),
        required=True,
        metadata={
            "description": "What orders players equal on points, in order (none at rules "
            "version 1: Buchholz, then name)."
        },
    )
    rules_version = fields.String(
        required=True,
        metadata={
            "description": "The tournament rules its pairings and standings follow, fixed at "
            'creation: `"2"` for a new tournament, `"1"` for one made before rules had '
            "versions (docs/guide/tournaments.md)."
        },
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(STATUSES),
        metadata={
            "description": "`open`: its rounds start by hand and round 1 is not started yet; "
            "`running`; `finished`: every round played; `cancelled` by the organizer."
        },
    )
    paused = fields.Boolean(
        required=True,
        metadata={
            "description": "Paused by the organizer: no new round is made until it is "
            "resumed (games in progress go on)."
        },
    )
    next_round_at = fields.String(
        required=True,
        allow_none=True,
        metadata=ref(
            "Timestamp",
            'With `{"after_s": N}`: when the next round is made, once the round before is '
            "over (and the tournament not paused); null otherwise.",
        ),
    )
    created_at = fields.String(required=True, metadata=ref("Timestamp"))
    commitment = fields.String(required=True, metadata=ref("Hex64"))
    roster_commitment = fields.String(
        required=True,
        allow_none=True,
        metadata=ref(
            "Hex64",
            "The SHA-256 hex of the canonical JSON of the players listed at creation, in entry "
            'order, each `{"name", "bot", "public_key"}` (null where absent): published at '
            "creation, so no player can be renamed, swapped, added, dropped or given another "
            "key unseen (docs/guide/tournaments.md). A player entered later is not in it: "
            "their `enter` decision names them. Null for a tournament made before rosters "
            "were committed.",
        ),
    )
    seed_commitments = fields.List(
        fields.String(metadata=ref("Hex64")),
        required=True,
        validate=validate.Length(min=1, max=2048),
        metadata={
            "description": "One per (round, table) slot, in slot order: each round has "
            "`max_players // table_size` slots, its tables using the first ones in table "
            "order, so round r's table t is slot `(r - 1) * (max_players // table_size) + "
            "t - 1`."
        },
    )
    players = fields.List(
        fields.Nested(TournamentPlayerSchema),
        required=True,
        validate=validate.Length(min=2, max=MAX_PLAYERS),
    )
    rounds = fields.List(
        fields.Nested(TournamentRoundSchema),
        required=True,
        validate=validate.Length(min=0, max=99),
        metadata={"description": "The rounds made so far, from round 1 (none while `open`)."},
    )
    standings = fields.List(
        fields.Nested(StandingSchema),
        required=True,
        metadata={"description": "Every player, best first."},
    )
    decisions = fields.List(
        fields.Dict(metadata=ref("TournamentDecisionRecord")),
        required=True,
        metadata={"description": "The organizer's decisions, in the order they were taken."},
    )
    crosstable = fields.List(
        fields.Nested(CrosstableRowSchema),
        required=True,
        metadata={"description": "Every player by number, and their every round."},
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
    """A new tournament (``running``, or ``open`` when its rounds start by hand), with each
    person's token."""

    status = fields.String(required=True, validate=validate.OneOf(["running", "open"]))
    players = fields.List(
        fields.Nested(CreatedPlayerSchema),
        required=True,
        validate=validate.Length(min=2, max=MAX_PLAYERS),
    )


class EnteredSchema(Schema):
    player = fields.Integer(required=True, metadata=ref("PlayerNumber"))
    token = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The person's token (shown only now); null for a bot."},
    )


class TournamentDecidedSchema(TournamentSchema):
    """The tournament after a decision; after an `enter`, the player entered and their
    token (shown only now)."""

    entered = fields.Nested(EnteredSchema, required=True, allow_none=True)


class TournamentSummarySchema(Schema):
    id = fields.String(required=True, metadata=ref("TournamentId"))
    game = fields.String(required=True, metadata=ref("GameName"))
    format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    table_size = fields.Integer(required=True, validate=validate.Range(min=2, max=4))
    planned_rounds = fields.Integer(required=True, validate=validate.Range(min=1, max=99))
    rounds_made = fields.Integer(required=True, validate=validate.Range(min=0, max=99))
    players = fields.Integer(
        required=True,
        validate=validate.Range(min=2, max=MAX_PLAYERS),
        metadata={"description": "How many players it listed at creation."},
    )
    round_start = fields.Raw(required=True, metadata=ref("RoundStart"))
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    paused = fields.Boolean(required=True)
    created_at = fields.String(required=True, metadata=ref("Timestamp"))


class TournamentListSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentSummarySchema), required=True)
    total = fields.Integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={"description": "How many there are (of the `status` asked, if any)."},
    )
    offset = fields.Integer(required=True, validate=validate.Range(min=0))
    limit = fields.Integer(required=True, validate=validate.Range(min=1, max=500))


class MyGameSchema(Schema):
    """A game of the player's: where, their seat, and whom they meet."""

    game_id = fields.String(required=True, metadata={"pattern": "^[0-9a-f]{16}$"})
    round = fields.Integer(required=True, validate=validate.Range(min=1, max=99))
    table = fields.Integer(required=True, validate=validate.Range(min=1, max=49))
    seat = fields.Integer(required=True, validate=validate.Range(min=0, max=3))
    status = fields.String(
        required=True,
        metadata={"enum": ["pending", "awaiting_random", "active", "over"]},
    )
    opponents = fields.List(fields.Integer(metadata=ref("PlayerNumber")), required=True)


class MyNextSchema(Schema):
    """The player's part in the newest round: a game (as in `current`), or a bye."""

    game_id = fields.String(required=True, allow_none=True, metadata={"pattern": "^[0-9a-f]{16}$"})
    round = fields.Integer(required=True, validate=validate.Range(min=1, max=99))
    table = _nullable_integer("The table; null for a bye.", minimum=1, maximum=49)
    seat = _nullable_integer("The seat; null for a bye.", minimum=0, maximum=3)
    status = fields.String(
        required=True,
        allow_none=True,
        metadata={"enum": ["pending", "awaiting_random", "active", "over", None]},
    )
    opponents = fields.List(fields.Integer(metadata=ref("PlayerNumber")), required=True)
    bye = fields.Boolean(required=True)


class MyResultSchema(Schema):
    round = fields.Integer(required=True, validate=validate.Range(min=1, max=99))
    table = _nullable_integer("The table; null for a bye.", minimum=1, maximum=49)
    game_id = fields.String(required=True, allow_none=True, metadata={"pattern": "^[0-9a-f]{16}$"})
    seat = _nullable_integer("The seat; null for a bye.", minimum=0, maximum=3)
    opponents = fields.List(fields.Integer(metadata=ref("PlayerNumber")), required=True)
    result = fields.String(required=True, validate=validate.OneOf(["won", "shared", "lost", "bye"]))
    points = fields.String(required=True, metadata=ref("Points"))


class TournamentMeSchema(Schema):
    """A player's own view of their tournament (their token): `current` is their game in the
    latest round until it is over (the game to play now); `next` is their part in the
    newest round once it is paired after their last result (that game while it is played,
    or a bye while the round's games are), null while they wait for a round not paired yet;
    `results` lists every game of theirs that is over, and every bye."""

    tournament_id = fields.String(required=True, metadata=ref("TournamentId"))
    player = fields.Integer(required=True, metadata=ref("PlayerNumber"))
    name = fields.String(required=True)
    bot = fields.String(allow_none=True, required=True, metadata=ref("BotStrength"))
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    paused = fields.Boolean(required=True)
    points = fields.String(required=True, metadata=ref("Points"))
    current = fields.Nested(MyGameSchema, required=True, allow_none=True)
    next = fields.Nested(MyNextSchema, required=True, allow_none=True)
    next_round_at = fields.String(
        required=True,
        allow_none=True,
        metadata=ref("Timestamp", "As the tournament's `next_round_at`."),
    )
    results = fields.List(fields.Nested(MyResultSchema), required=True)


class PlayerTokenSchema(Schema):
    """A person's new token (shown only now): the one before it names nobody any more."""

    player = fields.Integer(required=True, metadata=ref("PlayerNumber"))
    token = fields.String(required=True)


CREATE_TOURNAMENT = CreateTournamentSchema()
TOURNAMENT = TournamentSchema()
TOURNAMENT_CREATED = TournamentCreatedSchema()
TOURNAMENT_DECIDED = TournamentDecidedSchema()
TOURNAMENT_LIST = TournamentListSchema()
TOURNAMENT_ME = TournamentMeSchema()
PLAYER_TOKEN = PlayerTokenSchema()
