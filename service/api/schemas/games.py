"""Marshmallow schemas for every request and response body.

Requests are loaded (and refused with 400 and the field errors); responses are dumped through
their schemas so the wire shape lives in one place: ``make spec`` (``service.api.spec``)
writes ``openapi.yaml`` from them. A field's ``metadata`` is documentation only:
``description``, and ``x-ref`` for a field whose shape is a named schema of the spec (a
game's own, from its contract, or a shared one such as ``Version``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from marshmallow import (
    RAISE,
    Schema,
    ValidationError,
    fields,
    post_load,
    validate,
    validates_schema,
)

from domain.engine.signing import is_public_key
from domain.engine.status import GameStatus
from domain.games import GAMES
from service.api.schemas.names import MAX_NAME, NAME_PATTERN, NAME_RULES, display_name
from service.api.schemas.words import describe
from service.archive.protocol import check_time
from service.errors import InvalidRequest
from service.games.search import Filters

MAX_INT = 2**53
#: ``GET /v1/games``: a page's games by default, and at most.
SEARCH_LIMIT_DEFAULT = 20
SEARCH_LIMIT_MAX = 100
#: A tournament's id, as the spec states it (see ``PRINTABLE`` on the ending).
RECORD_ID = re.compile(r"[0-9a-f]{16}")
RECORD_PATTERN = "^[0-9a-f]{16}(?![\\s\\S])"
#: A service-clock time (``service.clock``), as the spec states it.
TIME_PATTERN = (
    "^[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]"
    ":[0-5][0-9]Z(?![\\s\\S])"
)
#: The bots a seat may be played by.
BOT_STRENGTHS = ("random", "greedy", "mcts")
SIGNATURE = "^[0-9a-f]{128}$"


def ref(name: str, description: str | None = None) -> dict[str, Any]:
    """A field's documentation: its shape is the spec's schema ``name``."""
    return {"x-ref": name} if description is None else {"x-ref": name, "description": description}


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


#: ``printable_name`` as the spec states it: no character of the category Cc (C0 and C1
#: control characters; a lone surrogate is no JSON the server reads: ``malformed_json``). It
#: ends in ``(?![\\s\\S])``, not ``$``, which Python's ``re`` (and so Python's validators)
#: also matches before a final newline.
PRINTABLE = "^[^\\u0000-\\u001f\\u007f-\\u009f]*(?![\\s\\S])"


def hosted_game(name: str) -> None:
    """A game Floe hosts now (read at load time: games may be registered after import)."""
    if name not in GAMES:
        raise ValidationError(f"Must be one of: {', '.join(sorted(GAMES))}.")


def a_public_key(value: str) -> None:
    """64 lowercase hex digits exactly (a regex ``$`` would let a trailing newline by, and
    such a seat could never sign a move)."""
    if not is_public_key(value):
        raise ValidationError("public_key is 64 lowercase hex digits (an Ed25519 key)")


class PlayerSchema(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=MAX_NAME), display_name],
        metadata={"description": NAME_RULES, "pattern": NAME_PATTERN},
    )
    bot = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(BOT_STRENGTHS, error="bot is 'random', 'greedy' or 'mcts'"),
        metadata=ref(
            "BotStrength",
            "A bot strength, or null (or absent) for a person. `random` plays any legal action; "
            "`greedy` the one whose result looks best from what its seat may see (a co-operative "
            "game's team plan); `mcts` searches worlds sampled from its seat's view. A bot seat "
            "has no token: workers play it.",
        ),
    )
    public_key = fields.String(
        load_default=None,
        allow_none=True,
        validate=a_public_key,
        metadata=ref(
            "PublicKey",
            "An Ed25519 public key, 32 bytes as 64 lowercase hex digits: the seat must sign "
            "every action it posts with the matching private key (docs/guide/fair-play.md). "
            "Absent or null: the seat's token alone is enough. A bot seat has none.",
        ),
    )

    @validates_schema
    def _no_key_for_a_bot(self, data: Mapping[str, Any], **_: Any) -> None:
        if data.get("bot") is not None and data.get("public_key") is not None:
            raise ValidationError("a bot seat signs nothing: no public_key", "public_key")


class HostedGameRequest(Schema):
    """What every request that makes games (a game, a table, a tournament) names first: the
    game, and its options, checked when the request is made."""

    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=hosted_game)
    options = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "The game's options exactly as given; absent: the defaults."},
    )
    clock = fields.Dict(
        keys=fields.String(),
        load_default=None,
        allow_none=True,
        metadata=ref(
            "Clock",
            "The clock the game is played with, recorded in `game_created` exactly as given; "
            "absent or null: no clock (400 `invalid_clock` for one the service cannot run).",
        ),
    )


class CreateGameSchema(HostedGameRequest):
    players = fields.List(
        fields.Nested(PlayerSchema),
        required=True,
        validate=validate.Length(min=1, max=8),
        metadata={"description": "The seats in order, seat 0 first; the game bounds the count."},
    )
    seed = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Regexp(r"^[0-9a-fA-F]{64}$", error="seed is 32 bytes as 64 hex digits"),
        metadata={"description": "The secret seed, 32 bytes as 64 hex digits (organizer only)."},
    )


class PostActionSchema(Schema):
    class Meta:
        unknown = RAISE

    action = fields.Dict(keys=fields.String(), required=True, metadata=ref("GameAction"))
    expected_version = StrictInt(
        required=True,
        validate=validate.Range(min=1, max=MAX_INT),
        metadata={"description": "The version the action was decided against."},
    )
    command_id = fields.String(
        required=True,
        validate=validate.Length(min=1, max=128),
        metadata={
            "description": "Chosen by the client, unique per seat and game (a UUID does): a "
            "repeat of an accepted command_id answers as the first time and writes nothing."
        },
    )
    signature = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Regexp(SIGNATURE, error="signature is 128 lowercase hex digits"),
        metadata={
            "description": "A keyed seat's Ed25519 signature (128 lowercase hex digits) over "
            "the UTF-8 bytes of `floe-action-v1\\n<game_id>\\n<expected_version>\\n` "
            "followed by the action's canonical JSON (docs/reference/format.md); 401 "
            "`bad_signature` when it is missing or wrong. A seat without a key sends none."
        },
    )

    @validates_schema
    def _action_has_type(self, data: Mapping[str, Any], **_: Any) -> None:
        if not isinstance(data.get("action", {}).get("type"), str):
            raise ValidationError("the action needs a string 'type'", "action")


class ErrorDetailSchema(Schema):
    code = fields.String(
        required=True, metadata=ref("ErrorCode", "Stable, for programs: branch on it.")
    )
    message = fields.String(required=True, metadata={"description": "For people; may change."})


class ErrorSchema(Schema):
    """Every refusal: ``{"error": {"code", "message"}}``."""

    error = fields.Nested(ErrorDetailSchema, required=True)


class SeatSchema(Schema):
    seat = fields.Integer(required=True, metadata=ref("SeatNumber"))
    name = fields.String(required=True)
    bot = fields.String(
        allow_none=True,
        required=True,
        metadata=ref("BotStrength", "The bot playing this seat; null for a person."),
    )
    public_key = fields.String(
        metadata=ref("PublicKey", "Present only for a seat that signs its actions.")
    )


class CreatedSeatSchema(SeatSchema):
    token = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The seat's secret token, shown only now; null for a bot."},
    )


class GameCreatedSchema(Schema):
    """The new game, as it was when the answer was made: without setup draws version 1
    and ``active``; with them ``awaiting_random`` until a worker has made them (``?wait=S``
    waits up to S seconds for them)."""

    id = fields.String(required=True, metadata={"description": "The game's id (16 hex digits)."})
    game = fields.String(required=True, metadata=ref("GameName"))
    version = fields.Integer(required=True, metadata=ref("Version"))
    status = fields.String(
        required=True,
        metadata={"enum": ["awaiting_random", "active"], "description": "Never `over`."},
    )
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True)
    seed_commitment = fields.String(required=True, metadata=ref("Hex64"))


class GameViewSchema(Schema):
    """A game as one viewer may see it; ``state``, ``pending`` and ``outcome`` have the
    shapes of the game named by ``game``."""

    id = fields.String(required=True)
    game = fields.String(required=True, metadata=ref("GameName"))
    version = fields.Integer(required=True, metadata=ref("Version"))
    status = fields.String(required=True, metadata=ref("Status"))
    to_act = fields.List(
        fields.Integer(metadata=ref("SeatNumber")),
        required=True,
        metadata={"description": "Seats with a legal action now, ascending (empty unless active)."},
    )
    pending = fields.Dict(
        allow_none=True,
        required=True,
        metadata={"description": "The decision owed now, if any (null once over)."},
    )
    state = fields.Dict(
        required=True, metadata={"description": "The game's board, as this viewer may see it."}
    )
    outcome = fields.Dict(
        allow_none=True, required=True, metadata={"description": "Null until the game ends."}
    )
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    viewer = fields.Integer(
        allow_none=True,
        required=True,
        metadata=ref("SeatNumber", "The caller's seat; null for a spectator or the organizer."),
    )
    seed_commitment = fields.String(required=True, metadata=ref("Hex64"))
    seed = fields.String(
        allow_none=True,
        required=True,
        metadata=ref("Hex64", "The seed once the game is over (in every version's view)."),
    )
    #: The bot move that failed at this version (``BotFailure``), or null.
    bot_failure = fields.Dict(
        allow_none=True,
        required=True,
        metadata=ref(
            "BotFailure",
            "The bot move that failed at the current version, or null: the game "
            "waits there until a worker retries the bot.",
        ),
    )
    clock = fields.Dict(
        allow_none=True,
        required=True,
        metadata=ref(
            "SeatClocks",
            "Each seat's clock (null for a game without one): `remaining_s`, what it had when "
            "its turn started (or after its last action), and `deadline`, the time by which it "
            "must act, null when it is not to act. Both come from the log alone.",
        ),
    )
    left = fields.List(
        fields.Integer(metadata=ref("SeatNumber")),
        required=True,
        metadata={
            "description": "Seats that resigned, timed out or were forfeited, in that order."
        },
    )


class ReceiptSchema(Schema):
    r"""The service's receipt for the event it stored at `version`: `signature` is its
    Ed25519 signature (one of `GET /v1/keys`) over the UTF-8 bytes of
    `floe-receipt-v1\n<game_id>\n<version>\n<mark>\n`, where `mark` is HMAC-SHA256 of the
    event's `hash` (its 64 hex digits as ASCII) keyed by the game's 32 seed bytes, in lowercase
    hex. The mark hides the hash until the seed is revealed; keep receipts, and `floe replay
    verify --receipts` proves any export that contradicts one rewritten
    (docs/guide/replay.md)."""

    version = fields.Integer(required=True, metadata=ref("Version"))
    mark = fields.String(required=True, metadata=ref("Hex64"))
    signature = fields.String(required=True, metadata=ref("Signature"))


class EventSchema(Schema):
    """A stored event as a viewer sees it; ``hash`` and ``prev_hash`` only once the game is
    over. A live stream's events carry the service's ``receipt``."""

    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata=ref("Version"))
    type = fields.String(required=True)
    data = fields.Dict(required=True)
    actor = fields.Raw(required=True)
    at = fields.String(required=True, metadata=ref("Timestamp"))
    command_id = fields.String(allow_none=True, required=True)
    prev_hash = fields.String(metadata=ref("Hex64"))
    hash = fields.String(metadata=ref("Hex64"))
    receipt = fields.Nested(
        ReceiptSchema,
        metadata={"description": "The service's receipt for this event (a live stream's)."},
    )


class ActionAcceptedSchema(Schema):
    """The events an accepted action (or an organizer's decision) appended, oldest first (its
    own, then ``game_over`` and ``seed_revealed`` if it ended the game; after a ``wait``, the
    draws too), the version of the last, and the service's receipt for each."""

    version = fields.Integer(required=True, metadata=ref("Version"))
    events = fields.List(fields.Nested(EventSchema), required=True, validate=validate.Length(min=1))
    receipts = fields.List(
        fields.Nested(ReceiptSchema),
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "The receipt of each of `events`, in the same order."},
    )


class EventsPageSchema(Schema):
    """Events after ``after``, oldest first, and the game's latest ``version``."""

    version = fields.Integer(required=True, metadata=ref("Version"))
    events = fields.List(fields.Nested(EventSchema), required=True)


class LegalActionsSchema(Schema):
    """Every action the seat may take now, each ready to post with ``expected_version`` =
    ``version``."""

    version = fields.Integer(required=True, metadata=ref("Version"))
    actions = fields.List(fields.Dict(metadata=ref("GameAction")), required=True)


class GameSummarySchema(Schema):
    """A game in a listing, the same whether Redis holds it or it is archived: nothing a
    spectator may not see."""

    id = fields.String(required=True)
    game = fields.String(required=True, metadata=ref("GameName"))
    status = fields.String(required=True, metadata=ref("Status"))
    version = fields.Integer(required=True, metadata=ref("Version"))
    created_at = fields.String(required=True, metadata=ref("Timestamp"))
    ended_at = fields.String(
        allow_none=True,
        required=True,
        metadata=ref("Timestamp", "When the game ended (its `game_over`); null unless over."),
    )
    tournament = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The id of the tournament the game is part of, or null."},
    )
    players = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "The seats' names, in seat order."},
    )
    outcome = fields.Dict(
        allow_none=True,
        required=True,
        metadata={"description": "The `game_over` event's data; null unless over."},
    )


class GameListSchema(Schema):
    """A page of a search: the games Redis holds first (newest created first), then the
    archived ones (latest ended first). ``cursor`` asks for the next page; null on the
    last."""

    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    cursor = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Send it as `?cursor=` for the next page; null: no more."},
    )
    limit = fields.Integer(required=True, validate=validate.Range(min=1, max=SEARCH_LIMIT_MAX))


def a_service_time(value: str) -> None:
    """A time as the service clock writes it (``2026-11-22T12:00:00Z``): games' times are
    compared as text, which another form would break."""
    try:
        check_time(value, "a time")
    except ValueError as error:
        raise ValidationError(str(error)) from None


def a_record_id(value: str) -> None:
    """16 lowercase hex digits exactly (a regex ``$`` would let a trailing newline by)."""
    if RECORD_ID.fullmatch(value) is None:
        raise ValidationError("a tournament id is 16 lowercase hex digits")


class GameSearchQuerySchema(Schema):
    """``GET /v1/games``'s query: every filter given must match. (``make spec`` states the
    operation's query parameters from these fields.)"""

    class Meta:
        unknown = RAISE

    player = fields.String(
        validate=[validate.Length(min=1, max=64), printable_name],
        metadata={
            "description": "Only games with a seat of this name (exactly).",
            "pattern": PRINTABLE,
        },
    )
    game = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "Only games of this game (its name, as `game` in a view)."},
    )
    tournament = fields.String(
        validate=a_record_id,
        metadata={
            "description": "Only the games of this tournament (its id).",
            "pattern": RECORD_PATTERN,
        },
    )
    status = fields.String(
        validate=validate.OneOf([status.value for status in GameStatus]),
        metadata={
            "description": "Only games of this status; `active` and `awaiting_random` games "
            "are never archived."
        },
    )
    before = fields.String(
        validate=a_service_time,
        metadata={
            "description": "Only games that ended before this time (strictly): games over only.",
            "format": "date-time",
            "pattern": TIME_PATTERN,
        },
    )
    after = fields.String(
        validate=a_service_time,
        metadata={
            "description": "Only games that ended after this time (strictly): games over only.",
            "format": "date-time",
            "pattern": TIME_PATTERN,
        },
    )
    limit = StrictInt(
        load_default=SEARCH_LIMIT_DEFAULT,
        validate=validate.Range(min=1, max=SEARCH_LIMIT_MAX),
        metadata={"description": "At most this many games."},
    )
    cursor = fields.String(
        validate=validate.Length(min=1, max=1024),
        metadata={
            "description": "The previous page's `cursor`: the page after it. Absent: the first."
        },
    )

    @post_load
    def _filters(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """``{"filters", "limit", "cursor"}``: the filters as the search takes them."""
        limit, cursor = data.pop("limit"), data.pop("cursor", None)
        status = data.pop("status", None)
        filters = Filters(**data, status=None if status is None else GameStatus(status))
        return {"filters": filters, "limit": limit, "cursor": cursor}


class BotFailureSchema(Schema):
    """A bot seat that failed to decide its move: ``timeout`` (not within the workers'
    ``FLOE_BOT_MOVE_SECONDS``) or ``error`` (a bug, logged by the worker). Nothing was
    appended: the game waits at ``version`` until a worker retries the bot. (Documentation
    only: the worker writes it; ``GameViewSchema.bot_failure`` passes it on.)"""

    seat = fields.Integer(required=True, metadata=ref("SeatNumber"))
    version = fields.Integer(required=True, metadata=ref("Version"))
    strength = fields.String(required=True, metadata=ref("BotStrength"))
    reason = fields.String(required=True, validate=validate.OneOf(["timeout", "error"]))
    message = fields.String(required=True, metadata={"description": "Short and public."})
    at = fields.String(required=True, metadata=ref("Timestamp"))


class StoreSafetySchema(Schema):
    """Whether the event store's Redis keeps what it acknowledges, by its configuration."""

    durable = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={
            "description": "false: the store may lose games (see `problems`); null: its "
            "configuration could not be read (`CONFIG GET` refused); true: it never evicts "
            "and keeps an AOF."
        },
    )
    maxmemory_policy = fields.String(
        required=True, metadata={"description": "Its `maxmemory-policy`, or `unknown`."}
    )
    appendonly = fields.String(
        required=True, metadata={"description": "Its `appendonly`, or `unknown`."}
    )
    appendfsync = fields.String(
        required=True, metadata={"description": "Its `appendfsync`, or `unknown`."}
    )
    problems = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "What may lose games: an evicting policy, no AOF."},
    )
    cautions = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "What is weaker than `floe run`'s store, or unknown."},
    )


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    redis = fields.String(required=True, metadata={"enum": ["ok"]})
    #: Bot moves that failed (out of time, or a bug), across all games, ever.
    bot_failures = fields.Integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={"description": "Bot moves that failed, across all games, ever."},
    )
    store = fields.Nested(StoreSafetySchema, required=True)


# One instance of each: building a schema copies its fields, which costs more than using it.
CREATE_GAME = CreateGameSchema()
POST_ACTION = PostActionSchema()
GAME_CREATED = GameCreatedSchema()
GAME_LIST = GameListSchema()
GAME_SEARCH_QUERY = GameSearchQuerySchema()
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
        raise InvalidRequest("invalid_body", describe(error.messages, schema)) from error
    return loaded


def load_query(schema: Schema, args: Mapping[str, list[str]], **parsed: Any) -> dict[str, Any]:
    """A route's query parameters (``request.args.to_dict(flat=False)``) through ``schema``,
    with ``parsed`` given for those the route read already; 400 ``invalid_query`` saying what
    is wrong, a parameter given twice included (never one value picked silently)."""
    for name, values in args.items():
        if len(values) > 1:
            raise InvalidRequest("invalid_query", f"the query parameter {name!r} is given twice")
    try:
        loaded: dict[str, Any] = schema.load({**{k: v[0] for k, v in args.items()}, **parsed})
    except ValidationError as error:
        message = describe(error.messages, schema, query=True)
        raise InvalidRequest("invalid_query", message) from error
    return loaded


_POST_ACTION_FIELDS = frozenset(PostActionSchema().fields) - {"signature"}
_SIGNED_FIELDS = _POST_ACTION_FIELDS | {"signature"}
_SIGNATURE_PATTERN = re.compile(SIGNATURE)


def load_post_action(body: Any) -> dict[str, Any]:
    """``load(POST_ACTION, body)``, with a shortcut for the well-formed body (nearly all).

    A move's body is loaded on every move, and marshmallow takes about 40 µs to say what
    these few type checks say; a body that fails any of them goes to the schema, which then
    gives the same 400 it always did. ``tests/unit/test_post_action_shortcut.py`` holds the
    two to the same answers on generated bodies.
    """
    if type(body) is dict and (body.keys() == _POST_ACTION_FIELDS or body.keys() == _SIGNED_FIELDS):
        action, version, command_id = body["action"], body["expected_version"], body["command_id"]
        signature = body.get("signature")
        if (
            type(action) is dict
            and type(action.get("type")) is str
            and type(version) is int
            and 1 <= version <= MAX_INT
            and type(command_id) is str
            and 1 <= len(command_id) <= 128
            and (
                signature is None
                or (type(signature) is str and _SIGNATURE_PATTERN.match(signature) is not None)
            )
        ):
            return {
                "action": action,
                "expected_version": version,
                "command_id": command_id,
                "signature": signature,
            }
    return load(POST_ACTION, body)
