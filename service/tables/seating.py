"""Tables: people who have not met yet gather, seat by seat, before their game exists.

A game's first event names every seat, so strangers meet at a table first. The host opens it
with named seats (people who are there), bot seats and open seats; strangers join by name and
each gets their own seat token. The game is created from the table when the last open seat
fills, under the id the table chose when it opened, so every token already handed out is
that seat's token in the game. A table with no open seat starts at once.

A person, named or joining, may bring an Ed25519 public key: the table keeps it beside their
seat, the game's seat carries it (``SeatInfo.public_key``), and every move of theirs must be
signed with it (``service.games.signatures``), so neither the host nor a leaked token can
move for them.

Refusals: a join finds no open seat, 409 ``table_full``; a joiner whose name reads as a
seated one's (case and Unicode normalisation aside: ``store.name_key``), 409 ``name_taken``,
decided in the step that seats them, so two joiners racing under one name cannot both sit; a
cancelled or started table, 409 ``table_not_open``; an expired or unknown table, 404
``table_not_found``. An open table lives ``ttl_seconds``; a started or cancelled one is kept
``kept_seconds`` more, then forgotten (its game, once made, is a game like any other). One
creator (client address) may keep ``open_per_creator`` tables open at once (429
``open_table_quota``); the game a table makes counts against its host's game quotas, taken
when its last seat fills (429 to that joiner, who does not take the seat, while the host is
at a quota). The organizer has no quotas.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from service.clock import Clock, later, millis
from service.errors import (
    Conflict,
    Forbidden,
    NotFound,
    OpenTableQuota,
    Unauthenticated,
    table_full,
    table_not_open,
)
from service.games import tokens
from service.games.access import Viewer
from service.games.commands import (
    CreateGame,
    GameCommands,
    NewPlayer,
    check_player_count,
    hosted,
    set_up,
)
from service.limits.quotas import CreatorQuotas, Reserved
from service.store.events import GameExists
from service.tables.store import Joined, TableRecord, TableSeat, TableStore

#: How many times a join re-reads a table whose seat another joiner took first.
JOIN_ATTEMPTS = 16


@dataclass(frozen=True, slots=True)
class TableLimits:
    #: An open table expires this long after it opened.
    ttl_seconds: int = 3600
    #: A started or cancelled table is kept this long (links to it still answer).
    kept_seconds: int = 86400
    #: Open tables one creator may have at once; 0 = no limit.
    open_per_creator: int = 10


@dataclass(frozen=True, slots=True)
class SeatRequest:
    """One seat as the host asks for it: a named person, a bot, or open for a stranger."""

    name: str | None = None
    bot: str | None = None
    open: bool = False
    #: A named person's Ed25519 public key (64 hex): they sign their moves.
    public_key: str | None = None


@dataclass(frozen=True, slots=True)
class OpenTable:
    game: str
    seats: tuple[SeatRequest, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    #: The client address, for the quotas (None: none applies).
    creator: str | None = None
    #: The clock the game is played with, as the request gave it; None: no clock.
    clock: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Opened:
    table: TableRecord
    host_token: str
    #: The tokens of the named people's seats, by seat.
    tokens: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class JoinedTable:
    seat: int
    token: str
    table: TableRecord


class Tables:
    """Open, join, cancel and read tables."""

    def __init__(
        self,
        store: TableStore,
        commands: GameCommands,
        quotas: CreatorQuotas | None,
        clock: Clock,
        limits: TableLimits,
    ) -> None:
        self._store = store
        self._commands = commands
        self._quotas = quotas
        self._clock = clock
        self._limits = limits

    # ----- opening ------------------------------------------------------------------------

    def open(self, command: OpenTable, viewer: Viewer) -> Opened:
        """Open a table (201); one with no open seat starts its game at once."""
        game = hosted(command.game)
        check_player_count(game, len(command.seats))
        table_id, game_id = secrets.token_hex(8), secrets.token_hex(8)
        _check_setup(command, game_id)  # 400 for options or a clock the game cannot set up
        creator = "" if viewer.organizer or command.creator is None else command.creator
        now = self._clock()
        host_token = f"{table_id}.host.{secrets.token_urlsafe(32)}"
        seat_tokens = [
            None if s.open or s.bot else tokens.new_token(game_id, i)
            for i, s in enumerate(command.seats)
        ]
        seats = tuple(
            TableSeat(i, s.name, s.bot, s.open, taken=False, public_key=s.public_key)
            for i, s in enumerate(command.seats)
        )
        record = TableRecord(
            id=table_id,
            game=game.name,
            options=dict(command.options),
            seats=seats,
            status="open",
            created_at=now,
            expires_at=later(now, self._limits.ttl_seconds),
            game_id=game_id,
            host_hash=_sha256(host_token),
            creator=creator,
            token_hashes=tuple(t and tokens.token_hash(t) for t in seat_tokens),
            clock=None if command.clock is None else dict(command.clock),
        )
        handed = tuple((i, t) for i, t in enumerate(seat_tokens) if t is not None)
        if record.open_seats == 0:
            return Opened(self._start_now(record), host_token, handed)
        limit = self._limits.open_per_creator
        expiry_ms = millis(record.expires_at)
        if (
            creator
            and limit > 0
            and not self._store.count_open(
                creator, table_id, now_ms=millis(now), expiry_ms=expiry_ms, limit=limit
            )
        ):
            raise OpenTableQuota(limit)
        self._store.put(record, ttl_ms=self._limits.ttl_seconds * 1000, created_ms=millis(now))
        return Opened(record, host_token, handed)

    def _start_now(self, record: TableRecord) -> TableRecord:
        """A table with no open seat: its game is created now, as ``POST /v1/games`` would
        (the creator's quotas apply), and the table is kept, started, to say so."""
        command = CreateGame(record.game, _players(record), record.options, clock=record.clock)
        self._commands.create_for_table(
            command,
            record.game_id,
            record.token_hashes,
            creator=record.creator or None,
            by_organizer=not record.creator,
        )
        started = replace(record, status="started")
        self._store.put(
            started, ttl_ms=self._limits.kept_seconds * 1000, created_ms=millis(record.created_at)
        )
        return started

    # ----- joining ------------------------------------------------------------------------

    def join(
        self,
        table_id: str,
        name: str,
        *,
        public_key: str | None = None,
        read: TableRecord | None = None,
    ) -> JoinedTable:
        """Take the lowest open seat under ``name`` (with the joiner's ``public_key``, if
        they sign); the last one starts the game.

        ``read``: the table as the caller just read it (the first attempt starts from it).
        """
        reserved: Reserved | None = None
        for _ in range(JOIN_ATTEMPTS):
            record, read = read or self.get(table_id), None
            if record.status != "open":
                raise table_not_open(record.status)
            free = [s.seat for s in record.seats if s.open and not s.taken]
            if not free:
                raise table_full()
            seat = free[0]
            token = tokens.new_token(record.game_id, seat)
            result = self._store.join(
                table_id,
                seat,
                name,
                tokens.token_hash(token),
                reserved=reserved is not None,
                public_key=public_key,
            )
            if isinstance(result, Joined):
                joined = self.get(table_id) if result.open_left else self._start(table_id)
                return JoinedTable(seat, token, joined)
            if result.reason == "reserve_first":
                reserved = self._reserve(record)
                continue
            if result.reason == "taken":
                continue
            # Refused for good: give the host's slot back, unless another joiner took the
            # last seat (then the slot, for the same game, is theirs).
            self._release_unless_starting(table_id, reserved)
            if result.reason == "missing":
                raise table_not_found(table_id)
            if result.reason == "table_full":
                raise table_full()
            if result.reason == "name_taken":
                raise name_taken(name, int(result.status or 0))
            raise table_not_open(result.status or "")
        self._release_unless_starting(table_id, reserved)
        raise table_full()  # the seats kept going to others: as good as full for this joiner

    def _release_unless_starting(self, table_id: str, reserved: Reserved | None) -> None:
        if reserved is None or self._quotas is None or not reserved.creator:
            return
        current = self._store.get(table_id)
        if current is None or current.status in ("open", "cancelled"):
            self._quotas.release(reserved)

    def _reserve(self, record: TableRecord) -> Reserved:
        """The host's quota slot for the game the last seat starts (429 when at a quota)."""
        unreserved = Reserved("", record.game_id)  # nothing to give back: no quota applies
        if self._quotas is None or not record.creator:
            return unreserved
        bot = any(s.bot for s in record.seats)
        return self._quotas.reserve(record.creator, record.game_id, bot=bot) or unreserved

    def _start(self, table_id: str) -> TableRecord:
        """Create the game of a table whose last seat filled ('starting'); idempotent, so a
        start cut short (Redis down) is finished by whoever reads the table next."""
        record = self._store.get(table_id)
        if record is None:
            raise table_not_found(table_id)
        if record.status != "starting":
            return record
        command = CreateGame(record.game, _players(record), record.options, clock=record.clock)
        with contextlib.suppress(GameExists):  # another reader finished it first
            self._commands.create_for_table(
                command, record.game_id, record.token_hashes, by_organizer=not record.creator
            )
        kept_ms = self._limits.kept_seconds * 1000
        self._store.move(table_id, "starting", "started", ttl_ms=kept_ms)
        self._store.relist_started(table_id, millis(record.created_at))
        if record.creator:
            self._store.uncount_open(record.creator, table_id)
        return replace(record, status="started")

    # ----- cancelling and reading ---------------------------------------------------------

    def cancel(self, table_id: str, authorization: str | None, *, organizer: bool) -> TableRecord:
        """The host (or the organizer) cancels an open table."""
        record = self.get(table_id)
        if not organizer:
            token = host_token(authorization)
            if not hmac.compare_digest(_sha256(token), record.host_hash):
                raise Forbidden("not_the_host", "only the table's host token may cancel it")
        kept_ms = self._limits.kept_seconds * 1000
        if not self._store.move(table_id, "open", "cancelled", ttl_ms=kept_ms):
            raise table_not_open(self.get(table_id).status)
        self._store.unlist("open", [table_id])
        if record.creator:
            self._store.uncount_open(record.creator, table_id)
        return replace(record, status="cancelled")

    def get(self, table_id: str) -> TableRecord:
        """The table, or 404 ``table_not_found`` (also once it expired)."""
        record = self._store.get(table_id)
        if record is None:
            raise table_not_found(table_id)
        if record.status == "starting":
            return self._start(table_id)
        return record

    def listing(
        self, status: Literal["open", "started"], *, offset: int, limit: int
    ) -> tuple[list[TableRecord], int]:
        """Tables by status, newest first, and how many are listed; expired ones drop out."""
        ids = self._store.listed(status, offset=offset, limit=limit)
        records = self._store.many(ids)
        gone = [tid for tid, r in zip(ids, records, strict=True) if r is None]
        self._store.unlist(status, gone)
        shown = [r for r in records if r is not None and _listed_as(r) == status]
        return shown, self._store.count_listed(status)


def _listed_as(record: TableRecord) -> str:
    return "open" if record.status == "open" else "started" if record.status != "cancelled" else ""


def _check_setup(command: OpenTable, game_id: str) -> None:
    """Set the game up once, as it will be (open seats under stand-in names): options or a
    clock it cannot use are refused now (400), not when the last stranger arrives."""
    players = [
        NewPlayer(s.name or f"seat {i}", s.bot, s.public_key) for i, s in enumerate(command.seats)
    ]
    set_up(hosted(command.game), game_id, players, command.options, bytes(32), clock=command.clock)


def _players(record: TableRecord) -> tuple[NewPlayer, ...]:
    """The game's players, as the table seats them (each person's key goes into their seat)."""
    return tuple(NewPlayer(s.name or "", s.bot, s.public_key) for s in record.seats)


def name_taken(name: str, seat: int) -> Conflict:
    return Conflict(
        "name_taken",
        f"seat {seat} of this table is named {name!r} already (case and accents' encoding "
        "aside): choose another name",
    )


def table_not_found(table_id: str) -> NotFound:
    return NotFound("table_not_found", f"no open, started or cancelled table {table_id!r}")


def host_token(authorization: str | None) -> str:
    """The token an ``Authorization: Bearer`` header carries (401 without one): cancelling a
    table needs its host's; the API asks it first to refuse in its order."""
    if authorization is None:
        raise Unauthenticated("missing_token", "cancelling a table needs its host token")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("invalid_authorization", "use 'Authorization: Bearer <token>'")
    return token.strip()


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
