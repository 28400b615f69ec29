"""The service's refusals: what went wrong, with a stable code, and no HTTP in sight.

The domain refuses moves (``domain.engine.errors.GameError``); the service adds what only it
can know: who is asking, whether the game exists, whether the version moved on. The API maps
each class to a status in one table (``service.api.errors``); the worker and the CLI use the
same errors without caring about statuses. Codes are stable: clients may branch on them, and
docs/reference/errors.md lists them.
"""

from __future__ import annotations

from domain.engine.errors import Refusal


class ServiceError(Refusal):
    """Base of every refusal by the service."""


class InvalidRequest(ServiceError):
    """The request itself is unusable: a body, query or option outside its schema."""


class Unauthenticated(ServiceError):
    """No credential where one is needed, or one that names nobody."""


class Forbidden(ServiceError):
    """A known caller asking for something that is not theirs to do or see."""


class NotFound(ServiceError):
    """No such game, or no such version of it."""


class VersionConflict(ServiceError):
    """The command was decided against a version the game has moved on from."""

    def __init__(self, current: int, expected: int) -> None:
        super().__init__("version_conflict", f"the game is at version {current}, not {expected}")
        self.current = current
        self.expected = expected


class OutOfTime(ServiceError):
    """The seat's clock ran out before its action came: the timeout is recorded instead."""

    def __init__(self, seat: int, version: int) -> None:
        super().__init__(
            "out_of_time",
            f"seat {seat}'s time ran out before this action; the game is at version {version}",
        )
        self.seat = seat
        self.version = version


class CommandReused(ServiceError):
    """A command id this seat already used, sent again with a different request.

    An idempotency key names one request, never two: repeating it with another action or
    another ``expected_version`` is refused rather than silently answered with the first.
    """

    def __init__(self, command_id: str) -> None:
        super().__init__(
            "command_id_reused",
            f"command_id {command_id!r} was already used for a different request by this "
            "seat; send a new command_id for a new request",
        )


class RateLimited(ServiceError):
    """Too many requests in the current window; ``retry_after`` seconds until it ends."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__("rate_limited", message)
        self.retry_after = retry_after


class StorageQuotaExceeded(ServiceError):
    """The creator's games already hold its budget of bytes in Redis
    (``service/limits/storage.py``); no ``retry_after``: a game leaving Redis frees room."""

    def __init__(self, message: str) -> None:
        super().__init__("storage_quota", message)


class QuotaExceeded(ServiceError):
    """The creator already has as many live games (or live bot games) as it may.

    No ``retry_after``: waiting frees nothing; finishing a game does (``service/limits/quotas.py``).
    """

    def __init__(self, *, bot: bool, limit: int) -> None:
        remedy = (
            "finish one of them (a game stops counting once it is over), or ask the organizer, "
            "whose token has no quota, to create the game or to raise "
        )
        if bot:
            super().__init__(
                "bot_game_quota",
                f"this client already has {limit} games with a bot seat in play, the most it "
                f"may have at once; {remedy}FLOE_BOT_GAMES_PER_CREATOR",
            )
        else:
            super().__init__(
                "live_game_quota",
                f"this client already has {limit} games in play, the most it may have at "
                f"once; {remedy}FLOE_LIVE_GAMES_PER_CREATOR",
            )
        self.limit = limit


class NotReplicated(ServiceError):
    """A write made, but not yet on as many replicas as ``FLOE_REPLICA_ACKS`` asks: not
    promised (503; a retry with the same command id is safe)."""

    def __init__(self, acked: int, wanted: int) -> None:
        super().__init__(
            "store_unavailable",
            f"the write reached {acked} of the {wanted} replicas it must before it is "
            "acknowledged; retry with the same command_id",
        )


class Conflict(ServiceError):
    """The request came too late for what it asks: a table already full, started or closed."""


class OpenTableQuota(ServiceError):
    """The creator already has as many open tables as it may (no ``Retry-After``: a table
    frees its slot when it starts, is cancelled or expires)."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            "open_table_quota",
            f"this client already has {limit} open tables, the most it may have at once; "
            "cancel one, wait for one to fill or expire, or raise FLOE_OPEN_TABLES_PER_CREATOR",
        )
        self.limit = limit


def table_full() -> Conflict:
    return Conflict("table_full", "every open seat of this table is taken")


def table_not_open(status: str) -> Conflict:
    """409 ``table_not_open``: the table was cancelled or has started."""
    why = {"cancelled": "was cancelled by its host", "started": "has started its game"}
    return Conflict(
        "table_not_open", f"this table {why.get(status, 'is not open')}; it takes no one now"
    )


class TooManyStreams(ServiceError):
    """This address holds its cap of open streams and waits; ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__("too_many_streams", message)
        self.retry_after = retry_after


class StreamsFull(ServiceError):
    """This process holds as many streams and waits as it keeps room for; the connections
    left are kept for plain requests. ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__("streams_full", message)
        self.retry_after = retry_after


def unknown_game(game_id: str) -> NotFound:
    return NotFound("game_not_found", f"no game {game_id!r}")


def not_a_seat() -> Forbidden:
    return Forbidden("not_a_seat", "this token is not a seat of this game")


def organizer_only(what: str, *, anonymous: bool) -> ServiceError:
    """``what`` needs the organizer token: 401 for nobody, 403 for a seat."""
    message = f"{what} needs the organizer token"
    if anonymous:
        return Unauthenticated("missing_token", message)
    return Forbidden("organizer_only", message)
