"""Tournaments: games whose luck is fixed before the first move, run round after round.

At creation every seed the tournament can use is drawn, one per (round, table) slot, and only
their commitments are shown, beside a commitment to the players listed (``roster_commitment``);
each slot's game id is chosen too. Round 1's games are created at once (unless the organizer
starts each round: ``round_start`` ``"manual"``, when the tournament stays ``open`` until
round 1 is started). When a tournament game ends, a worker job (``advance``) looks at its
round: once every game of it is over, the round's outcomes (and the time it ended) are
recorded and, if its ``round_start`` says so now, the next round's tables made from them
(``Plan.next_round``), in one compare-and-set, then its games are created.
``round_start``:

- ``"auto"``: the next round is made as soon as the round before is over;
- ``{"after_s": N}``: N seconds after the round before ended (the time its last game ended,
  from the games' logs). An advance that finds the time not come yet does nothing but arm a
  durable timer (``service.jobs.timers``) for it, whose job advances the tournament again;
  the sweeper's periodic advance covers a timer lost;
- ``"manual"``: only the organizer makes a round (``start_round``).

The director's decisions (``service.tournaments.decisions``) are recorded beside the rounds:
a paused tournament pairs no new round (its games go on); a cancelled one pairs none again,
and its live games are ended by a ``result`` decision with no winners. ``withdraw``, ``enter``
and ``correct`` change the rounds paired after them and the standings
(``domain.tournament.decisions``); a withdrawn player's game in play is forfeited through
the game's own ``forfeit`` decision (at once, and again by every advance until it is), a
person entered late gets a token of their own, shown once, and a corrected game keeps its
log and outcome while the standings count it as corrected.

The players are those listed at creation (``spec["players"]``), then those entered, in
order (``roster``); a player's number is their place in that list. A person given an Ed25519
``public_key`` (at creation, or by their ``enter`` decision) has it in their seat of every
game of theirs, so they sign every move there (``service.games.signatures``); the roster
commitment covers the keys of the players listed at creation.

Everything here is idempotent: a job that runs twice, or two workers at once, make each round
once and each game once (a game's id is its slot's, so a second create is ``GameExists``); a
worker killed anywhere leaves a state the next ``advance`` (the sweeper's, at the latest)
finishes.

A person's one token, ``<tournament id>.<player>.<secret>``, is their seat token in every game
of theirs: ``player_seats`` resolves it to those seats. The organizer may reissue it
(``reissue_token``): the record then keeps the new token's hash only, and the old token names
nobody anywhere.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.engine.canonical import canonical_json
from domain.engine.errors import IllegalAction, NotAllowed
from domain.engine.rng import seed_commitment
from domain.engine.status import GameStatus
from domain.engine.types import JSON, Outcome, TournamentSlot
from domain.tournament import Round, Table, roster_commitment, tournament_commitment
from domain.tournament.decisions import Correct, Decision, Enter, Withdraw, withdrawn
from domain.tournament.plan import Plan, PlanError, PlayedRound
from domain.tournament.standings import GameResult, Standing, as_json_number, tiebreak_values
from domain.tournament.v1 import VERSION as FIRST_RULES
from service.clock import Clock, later, millis
from service.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    Unauthenticated,
    VersionConflict,
    organizer_only,
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
from service.games.follow_ups import JobQueue
from service.games.repository import GameRepository
from service.store.events import EventStore, GameExists, GameRecord
from service.tournaments import decisions as director
from service.tournaments import export, views
from service.tournaments.store import (
    Recorded,
    StoredTournament,
    TournamentStatus,
    TournamentStore,
    summary_of,
)

#: How many times a write reads again after another one landed first.
ADVANCE_ATTEMPTS = 8
#: The organizer's writes (a decision, a round started, a token) retry longer: each failure
#: means another write landed, and those are few.
ORGANIZER_ATTEMPTS = 64
#: How long cancelling waits for a draw in flight before ending a game (the sweeper ends it
#: later, if not then).
CANCEL_WAIT_SECONDS = 3.0
#: How many times ending one game is tried when the game moves meanwhile.
END_ATTEMPTS = 16
#: The most seconds ``{"after_s": N}`` may wait (a day).
MAX_AFTER_S = 86_400
#: How long a withdrawal waits for a draw in flight before forfeiting the player's game (the
#: next advance forfeits it later, if not then).
FORFEIT_WAIT_SECONDS = 3.0
ORGANIZER = Viewer(organizer=True)


@dataclass(frozen=True, slots=True)
class CreateTournament:
    game: str
    format: str
    players: tuple[NewPlayer, ...]
    table_size: int = 2
    #: Swiss only (a round robin's count follows from its players).
    rounds: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    #: The clock of every game, as the request gave it; None: no clock.
    clock: Mapping[str, Any] | None = None
    #: When each next round starts: ``"auto"``, ``"manual"`` or ``{"after_s": N}``.
    round_start: str | Mapping[str, int] = "auto"
    #: The most players late entries may bring the tournament to; None: no late entries.
    max_players: int | None = None
    #: The standings' tie-breaks, in order; None: the default ones.
    tiebreaks: tuple[str, ...] | None = None
    #: Each player's rating, seeding a swiss's round 1; None: seeded by entry order.
    ratings: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class CreatedTournament:
    """A new tournament as the API shows it, and each person's token (shown once)."""

    document: JSON
    tokens: tuple[str | None, ...]

    def to_json(self) -> JSON:
        players = [
            {**player, "token": token}
            for player, token in zip(self.document["players"], self.tokens, strict=True)
        ]
        return {**self.document, "players": players}


def tournament_not_found(tournament_id: str) -> NotFound:
    return NotFound("tournament_not_found", f"no tournament {tournament_id!r}")


def player_not_found(player: str) -> NotFound:
    return NotFound("player_not_found", f"the tournament has no player {player!r}")


def check_round_start(value: Any) -> str | dict[str, int]:
    """``round_start`` as the service keeps it; ``ValueError`` saying why for anything else."""
    if value in ("auto", "manual"):
        return str(value)
    if isinstance(value, Mapping) and set(value) == {"after_s"}:
        seconds = value["after_s"]
        if type(seconds) is int and 1 <= seconds <= MAX_AFTER_S:
            return {"after_s": seconds}
    raise ValueError(f'round_start is "auto", "manual" or {{"after_s": 1..{MAX_AFTER_S}}}')


def settled(document: Mapping[str, Any]) -> bool:
    """Whether a tournament's document will never change again: finished, or cancelled with
    every game of it over."""
    if document["status"] == "finished":
        return True
    return document["status"] == "cancelled" and all(
        game["status"] == GameStatus.OVER for r in document["rounds"] for game in r["games"]
    )


class Tournaments:
    """Create, advance, direct and read tournaments."""

    def __init__(
        self,
        store: TournamentStore,
        commands: GameCommands,
        repository: GameRepository,
        records: EventStore,
        clock: Clock,
        *,
        jobs: JobQueue | None = None,
    ) -> None:
        self._store = store
        self._commands = commands
        self._repository = repository
        #: The games' records (which of a round's games exist, and where they stand).
        self._records = records
        self._clock = clock
        #: Where the timer of an ``{"after_s": N}`` round is armed (None: the sweeper's
        #: advance alone makes such rounds, a sweep late at most).
        self._jobs = jobs

    @property
    def store(self) -> TournamentStore:
        return self._store

    # ----- creating -----------------------------------------------------------------------

    def create(self, command: CreateTournament, viewer: Viewer) -> CreatedTournament:
        """Draw and commit every seed, hand out the tokens, and start round 1 (organizer),
        unless the organizer starts each round."""
        if not viewer.organizer:
            raise organizer_only("creating a tournament", anonymous=viewer.anonymous)
        game = hosted(command.game)
        if game.info.cooperative:
            raise InvalidRequest(
                "invalid_tournament", f"game: {game.name} is co-operative; nobody is ranked"
            )
        try:
            plan = Plan.of(
                command.format,
                len(command.players),
                command.table_size,
                command.rounds,
                max_players=command.max_players,
                ratings=command.ratings,
                tiebreaks=command.tiebreaks,
            )
            round_start = check_round_start(command.round_start)
        except (PlanError, ValueError) as error:
            raise InvalidRequest("invalid_tournament", str(error)) from None
        check_player_count(game, plan.table_size)
        names = [p.name for p in command.players]
        if len(set(names)) != len(names):
            raise InvalidRequest("invalid_tournament", "players: every name must differ")
        stand_ins = [NewPlayer(f"seat {i}") for i in range(plan.table_size)]
        # 400 for options or a clock the game cannot use, before anything is written.
        set_up(game, "0" * 16, stand_ins, command.options, bytes(32), clock=command.clock)
        tournament_id = secrets.token_hex(8)
        seeds = [secrets.token_bytes(32) for _ in range(plan.slots)]
        commitments = [seed_commitment(seed) for seed in seeds]
        player_tokens = tuple(
            None if p.bot else f"{tournament_id}.{i}.{secrets.token_urlsafe(32)}"
            for i, p in enumerate(command.players)
        )
        now = self._clock()
        spec = {
            "game": game.name,
            "format": plan.format,
            "table_size": plan.table_size,
            "planned_rounds": plan.rounds,
            "options": dict(command.options),
            "clock": None if command.clock is None else dict(command.clock),
            "round_start": round_start,
            "rules_version": plan.rules_version,
            "max_players": plan.max_players,
            "tiebreaks": list(plan.tiebreaks),
            "ratings": None if plan.ratings is None else list(plan.ratings),
            "created_at": now,
            "players": [_listed(p) for p in command.players],
            "token_hashes": [t and tokens.token_hash(t) for t in player_tokens],
            "seed_commitments": commitments,
            "commitment": tournament_commitment(commitments),
            "roster_commitment": roster_commitment(
                [(p.name, p.bot, p.public_key) for p in command.players]
            ),
            "game_ids": [secrets.token_hex(8) for _ in range(plan.slots)],
        }
        manual = round_start == "manual"
        first = [] if manual else [_next_round(plan, [], [])]
        seeds_hex = [seed.hex() for seed in seeds]
        status: TournamentStatus = "open" if manual else "running"
        self._store.create(
            tournament_id,
            spec,
            seeds_hex,
            first,
            millis(now),
            status=status,
            summary=summary_of(spec),
        )
        stored = self._get(tournament_id)
        self._ensure_games(stored)
        return CreatedTournament(self._document(stored), player_tokens)

    # ----- running ------------------------------------------------------------------------

    def game_over(self, game_id: str) -> None:
        """A tournament game ended, or its tournament's timer came due (the worker's job):
        show it, and advance if it can."""
        meta = self._repository.meta(game_id)
        slot = self._repository.latest(meta).created.tournament
        if slot is None:
            return
        self._store.touch(slot.id)
        self.advance(slot.id)

    def advance(self, tournament_id: str) -> None:
        """Make sure the current round's games exist; once they are all over, record their
        outcomes and make the next round if its time has come (or finish). A cancelled
        tournament's live games are ended instead. Idempotent, and safe to run anywhere at
        any time: a lost race reads again and finds the work done."""
        for _ in range(ADVANCE_ATTEMPTS):
            stored = self._store.get(tournament_id)
            if stored is None:
                self._store.forget_unwritten(tournament_id, millis(self._clock()))
                return
            if stored.status == "finished":
                self._store.not_running(tournament_id)  # left there by a crash, if at all
                return
            if stored.status == "cancelled":
                self._wind_down(stored)
                return
            if stored.status == "open":
                return  # the organizer starts round 1
            self._ensure_games(stored)
            self._forfeit_withdrawn(stored)
            closed = self._closed(stored)
            if closed is None:
                return
            plan = _plan(stored.spec)
            if stored.made >= plan.rounds:
                if self._write(stored, rounds=closed, status="finished"):
                    return
                continue
            if self._may_pair(stored, closed):
                rounds = [*closed, _next_round(plan, closed, director.effects(stored))]
                if self._write(stored, rounds=rounds):
                    self._ensure_games(self._get(tournament_id))
                    return
                continue
            if closed == stored.rounds or self._write(stored, rounds=closed):
                return

    def _may_pair(self, stored: StoredTournament, closed: list[JSON]) -> bool:
        """Whether the round after ``closed`` (all over) is to be made by itself now: not
        while paused, never for a manual start, and for ``{"after_s": N}`` not before N
        seconds after the round ended (its timer is armed for then)."""
        start = _round_start(stored.spec)
        if stored.paused or start == "manual":
            return False
        if isinstance(start, dict):
            due = later(closed[-1]["ended_at"], start["after_s"])
            if millis(self._clock()) < millis(due):
                self._arm(stored, due)
                return False
        return True

    def _arm(self, stored: StoredTournament, due: str) -> None:
        """Arm the timer that advances the tournament at ``due``: the job a game of its last
        round runs when it ends (``tournament-<game>-<version>``), due then."""
        if self._jobs is None:
            return
        game_id = self._game_ids(stored, stored.made)[-1]
        [record] = self._records.records([game_id])
        if record is not None:
            self._jobs.enqueue("tournament", game_id, record.version, due=millis(due) // 1000)

    def advance_running(self) -> None:
        """Advance every tournament not settled (the sweeper: nothing stays stuck, no timer
        is lost, no cancelled game stays live)."""
        for tournament_id in self._store.running():
            self.advance(tournament_id)

    def start_round(self, tournament_id: str) -> JSON:
        """Make the next round of a manual tournament (the organizer's ``POST .../rounds``):
        round 1 of an open one, or the round after one whose games are all over. 409
        ``not_manual``, ``tournament_finished``, ``tournament_cancelled``,
        ``tournament_paused``, ``round_not_over``."""
        for _ in range(ORGANIZER_ATTEMPTS):
            stored = self._get(tournament_id)
            if _round_start(stored.spec) != "manual":
                raise Conflict("not_manual", "the tournament's rounds start by themselves")
            if stored.status == "finished":
                raise Conflict("tournament_finished", "every round is played")
            if stored.status == "cancelled":
                raise Conflict("tournament_cancelled", "the tournament was cancelled")
            if stored.paused:
                raise Conflict("tournament_paused", "the tournament is paused: resume it first")
            plan = _plan(stored.spec)
            effects = director.effects(stored)
            if stored.made == 0:
                rounds = [_next_round(plan, [], effects)]
            else:
                self._ensure_games(stored)
                closed = self._closed(stored)
                if closed is None:
                    raise Conflict("round_not_over", f"round {stored.made} has games in play")
                if stored.made >= plan.rounds:
                    if self._write(stored, rounds=closed, status="finished"):
                        raise Conflict("tournament_finished", "every round is played")
                    continue
                rounds = [*closed, _next_round(plan, closed, effects)]
            if self._write(stored, rounds=rounds, status="running"):
                made = self._get(tournament_id)
                self._ensure_games(made)
                return self._document(self._get(tournament_id))
        raise RuntimeError(f"tournament {tournament_id}: too many writes at once")

    def _closed(self, stored: StoredTournament) -> list[JSON] | None:
        """The rounds with the last one's outcomes and end time recorded, once every game of
        it is over (as they are, if recorded already); None while one is not over."""
        last = stored.rounds[-1]
        if last.get("outcomes") is not None:
            return list(stored.rounds)
        game_ids = self._game_ids(stored, stored.made)
        records = self._records.records(game_ids)
        over: list[GameRecord] = []
        for record in records:
            if record is None or record.status != GameStatus.OVER:
                return None
            over.append(record)
        outcomes: list[JSON] = []
        ended = ""
        for game_id, record in zip(game_ids, over, strict=True):
            outcome = self._repository.latest(self._repository.meta(game_id)).outcome
            assert outcome is not None
            outcomes.append(outcome.to_json())
            last_event = self._repository.read(game_id, after=record.version - 1)
            if last_event:
                ended = max(ended, last_event[-1].at)
        ended = ended or self._clock()
        return [*stored.rounds[:-1], {**last, "outcomes": outcomes, "ended_at": ended}]

    def _write(
        self,
        stored: StoredTournament,
        *,
        rounds: Sequence[JSON] | None = None,
        status: TournamentStatus | None = None,
        decisions: Sequence[JSON] | None = None,
        token_hashes: Sequence[str | None] | None = None,
        shown: bool = True,
    ) -> bool:
        """One compare-and-set against ``stored``; False when another write came first."""
        result = self._store.record(
            stored.id,
            read=stored,
            rounds=rounds,
            status=status,
            decisions=decisions,
            token_hashes=token_hashes,
            shown=shown,
        )
        return isinstance(result, Recorded)

    def _ensure_games(self, stored: StoredTournament) -> None:
        """Create the games of the latest round that do not exist yet."""
        number = stored.made
        if number == 0:
            return
        spec, plan = stored.spec, _plan(stored.spec)
        game_ids = self._game_ids(stored, number)
        exists = self._records.records(game_ids)
        if all(meta is not None for meta in exists):
            return
        players = roster(stored)
        hashes = stored.token_hashes
        seeds = self._store.seeds(stored.id)
        for table, (game_id, meta, seated) in enumerate(
            zip(game_ids, exists, stored.rounds[-1]["tables"], strict=True), start=1
        ):
            if meta is not None:
                continue
            slot = plan.slot(number, table)
            command = CreateGame(
                spec["game"],
                tuple(_new_player(players[p]) for p in seated),
                spec["options"],
                seed_hex=seeds[slot],
                tournament=TournamentSlot(stored.id, number, table),
                clock=_clock(spec),
            )
            with contextlib.suppress(GameExists):  # another worker made it first
                self._commands.create_for_table(command, game_id, [hashes[p] for p in seated])

    def _game_ids(self, stored: StoredTournament, number: int) -> list[str]:
        """The game ids of round ``number``'s tables: its first slots, in table order."""
        per_round = _plan(stored.spec).tables_per_round
        start = (number - 1) * per_round
        tables = len(stored.rounds[number - 1]["tables"])
        return list(stored.spec["game_ids"][start : start + tables])

    # ----- the director -------------------------------------------------------------------

    def decide(self, tournament_id: str, body: Any, viewer: Viewer) -> JSON:
        """The organizer's decision (``service.tournaments.decisions``): 400 for a body that
        states none, 409 when the tournament as it stands refuses it (nothing written);
        else recorded, then acted on. The tournament's document after it, with
        ``entered``: the entered player's number and token (shown only now) after an
        ``enter``, else null."""
        if not viewer.organizer:
            raise organizer_only("a decision on a tournament", anonymous=viewer.anonymous)
        for _ in range(ORGANIZER_ATTEMPTS):
            stored = self._get(tournament_id)
            taken = director.take(body, self._as_it_stands(stored), self._clock())
            hashes: list[str | None] | None = None
            token: str | None = None
            if isinstance(taken.effect, Correct):
                self._check_over(taken.effect)
            if isinstance(taken.effect, Enter):
                if taken.effect.bot is None:
                    token = f"{tournament_id}.{taken.effect.player}.{secrets.token_urlsafe(32)}"
                hashes = [*stored.token_hashes, token and tokens.token_hash(token)]
            decisions = [*stored.decisions, taken.record]
            if self._write(stored, decisions=decisions, status=taken.status, token_hashes=hashes):
                break
        else:
            raise RuntimeError(f"tournament {tournament_id}: too many writes at once")
        if taken.kind == "resume":
            self.advance(tournament_id)  # a round may have ended while it was paused
        elif taken.kind == "cancel":
            self._wind_down(self._get(tournament_id), wait_seconds=CANCEL_WAIT_SECONDS)
        elif isinstance(taken.effect, Withdraw):
            after = self._get(tournament_id)
            self._forfeit_withdrawn(after, wait_seconds=FORFEIT_WAIT_SECONDS)
        document = self._document(self._get(tournament_id))
        entered = None
        if isinstance(taken.effect, Enter):
            entered = {"player": taken.effect.player, "token": token}
        return {**document, "entered": entered}

    def _as_it_stands(self, stored: StoredTournament) -> director.AsItStands:
        """What a decision is checked against (``director.AsItStands``)."""
        games = {
            game_id: (number, table)
            for number in range(1, stored.made + 1)
            for table, game_id in enumerate(self._game_ids(stored, number), start=1)
        }
        rounds = [_round_of(r) for r in stored.rounds]
        return director.AsItStands(
            stored,
            _plan(stored.spec),
            [p["name"] for p in stored.spec["players"]],
            rounds,
            games,
            director.effects(stored),
            len(roster(stored)),
        )

    def _check_over(self, correction: Correct) -> None:
        """409 ``game_in_play`` for a correction of a game not over: end it first (the
        game's ``result`` decision), then correct what it gave, if need be."""
        [record] = self._records.records([correction.game_id])
        if record is None or record.status != GameStatus.OVER:
            raise Conflict(
                "game_in_play",
                f"game {correction.game_id} is not over: end it with the game's result "
                "decision, or correct it once it is",
            )

    def _forfeit_withdrawn(self, stored: StoredTournament, *, wait_seconds: float = 0.0) -> None:
        """Forfeit the seat of every withdrawn player in a game of the latest round that is
        still in play (the game's ``forfeit`` decision, with the withdrawal's reason). A game
        awaiting a draw is waited for up to ``wait_seconds``, else left to the next advance."""
        gone = {
            int(d["player"]): str(d["reason"])
            for d in stored.decisions
            if d["decision"] == "withdraw"
        }
        if not gone or stored.made == 0:
            return
        game_ids = self._game_ids(stored, stored.made)
        deadline = time.monotonic() + wait_seconds
        records = self._records.records(game_ids)
        for game_id, record, seated in zip(
            game_ids, records, stored.rounds[-1]["tables"], strict=True
        ):
            if record is None or record.status == GameStatus.OVER:
                continue
            for seat, player in enumerate(seated):
                if player in gone:
                    body = {"decision": "forfeit", "seat": seat, "reason": gone[player]}
                    self._decide_game(game_id, body, deadline, done=("game_over", "already_left"))

    def _wind_down(self, stored: StoredTournament, *, wait_seconds: float = 0.0) -> None:
        """End every live game of a cancelled tournament (a ``result`` decision with no
        winners and the cancel's reason); once none is live, it is settled. A game awaiting a
        draw is waited for up to ``wait_seconds``, else left to the next advance."""
        if stored.made == 0:
            self._store.not_running(stored.id)
            return
        reason = director.cancel_reason(stored) or "the tournament was cancelled"
        self._ensure_games(stored)  # a game paired but not made yet is made, then ended
        game_ids = self._game_ids(stored, stored.made)
        deadline = time.monotonic() + wait_seconds
        ended = False
        live = False
        for game_id, record in zip(game_ids, self._records.records(game_ids), strict=True):
            if record is not None and record.status == GameStatus.OVER:
                continue
            if record is not None and self._end_game(game_id, reason, deadline):
                ended = True
            else:
                live = True
        if ended:
            self._store.touch(stored.id)
        if not live:
            self._store.not_running(stored.id)

    def _end_game(self, game_id: str, reason: str, deadline: float) -> bool:
        """End a live game with no winners (the organizer's ``result``); True once it is
        over, False when it still awaits a draw at ``deadline``."""
        body = {"decision": "result", "winners": [], "reason": reason}
        return self._decide_game(game_id, body, deadline, done=("game_over",))

    def _decide_game(
        self, game_id: str, body: JSON, deadline: float, *, done: tuple[str, ...]
    ) -> bool:
        """Take the organizer's decision ``body`` on a game; True once taken (or refused
        with a code in ``done``: what it was to bring about is so already), False when the
        game still awaits a draw at ``deadline``."""
        for _ in range(END_ATTEMPTS):
            meta = self._repository.meta(game_id)
            try:
                self._commands.decide(meta, body, ORGANIZER)
                return True
            except (NotAllowed, IllegalAction) as refused:
                if refused.code in done:
                    return True
                if refused.code != "awaiting_random":
                    raise
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                version = self._repository.latest(meta).version
                self._repository.wait(game_id, after=version, block_ms=int(remaining * 1000) + 1)
            except VersionConflict:
                continue  # the game moved (a move, a bot, a timeout): decide on what stands
        return False

    def reissue_token(self, tournament_id: str, player: str, viewer: Viewer) -> JSON:
        """A new token for a person (the organizer's): the record keeps its hash in place of
        the old one's, so the old token names nobody from now on. 404 ``player_not_found``,
        409 ``player_is_bot``."""
        number = self._player(self._get(tournament_id), player)
        if not viewer.organizer:
            raise organizer_only("reissuing a token", anonymous=viewer.anonymous)
        for _ in range(ORGANIZER_ATTEMPTS):
            stored = self._get(tournament_id)
            hashes = list(stored.token_hashes)
            if hashes[number] is None:
                raise Conflict("player_is_bot", f"player {number} is a bot: bots have no token")
            token = f"{tournament_id}.{number}.{secrets.token_urlsafe(32)}"
            hashes[number] = tokens.token_hash(token)
            if self._write(stored, token_hashes=hashes, shown=False):
                return {"player": number, "token": token}
        raise RuntimeError(f"tournament {tournament_id}: too many writes at once")

    def check(self, tournament_id: str) -> None:
        """404 for an unknown tournament."""
        self._get(tournament_id)

    def check_player(self, tournament_id: str, player: str) -> int:
        """404 for an unknown tournament, then for a player it does not have."""
        return self._player(self._get(tournament_id), player)

    @staticmethod
    def _player(stored: StoredTournament, player: str) -> int:
        if not (player.isascii() and player.isdigit()) or (player != "0" and player[0] == "0"):
            raise player_not_found(player)
        listed = len(roster(stored))
        number = int(player) if len(player) <= 2 else listed
        if number >= listed:
            raise player_not_found(player)
        return number

    # ----- reading ------------------------------------------------------------------------

    def get(self, tournament_id: str) -> JSON:
        """The tournament as ``GET /v1/tournaments/{id}`` shows it (404 when unknown)."""
        return self._document(self._get(tournament_id))

    def followed(self, tournament_id: str) -> tuple[int, JSON]:
        """The document and its change count, from one read (a stream's event and its id)."""
        stored = self._get(tournament_id)
        return stored.changes, self._document(stored)

    def changes(self, tournament_id: str) -> tuple[int, bool]:
        """How many times the tournament changed, and whether it is settled (for SSE):
        finished, or cancelled with every game of it over."""
        stored = self._get(tournament_id)
        if stored.status == "finished":
            return stored.changes, True
        if stored.status != "cancelled" or stored.made == 0:
            return stored.changes, stored.status == "cancelled"
        records = self._records.records(self._game_ids(stored, stored.made))
        over = all(r is not None and r.status == GameStatus.OVER for r in records)
        return stored.changes, over

    def listing(self, *, offset: int, limit: int, status: TournamentStatus | None) -> JSON:
        """``GET /v1/tournaments``: a page of tournaments, newest first."""
        found, total = self._store.summaries(offset=offset, limit=limit, status=status)
        return {
            "tournaments": [
                {
                    "id": s.id,
                    "game": s.fixed.get("game"),
                    "format": s.fixed.get("format"),
                    "table_size": s.fixed.get("table_size"),
                    "planned_rounds": s.fixed.get("planned_rounds"),
                    "rounds_made": s.made,
                    "players": s.fixed.get("players"),
                    "round_start": s.fixed.get("round_start", "auto"),
                    "status": s.status,
                    "paused": s.paused,
                    "created_at": s.fixed.get("created_at"),
                }
                for s in found
            ],
            "total": total,
            "offset": offset,
            "limit": limit,
        }

    def me(self, tournament_id: str, viewer: Viewer) -> JSON:
        """``GET /v1/tournaments/{id}/me``: a player's own view (``views.me``). 404 first,
        then 401 ``missing_token`` or 403 ``not_a_player`` for any token but one of this
        tournament's players'."""
        stored = self._get(tournament_id)
        if viewer.tournament is None or viewer.tournament[0] != tournament_id:
            if viewer.anonymous:
                raise Unauthenticated("missing_token", "this route needs a player's token")
            raise Forbidden("not_a_player", "the token is no player's of this tournament")
        return views.me(self._document(stored), viewer.tournament[1])

    def standings_csv(self, tournament_id: str) -> str:
        """The standings as CSV (``views.standings_csv``)."""
        stored = self._get(tournament_id)
        rows, used = self._standings(stored, self._rounds_shown(stored))
        return views.standings_csv(rows, used)

    def export_lines(self, tournament_id: str, viewer: Viewer) -> Iterator[str]:
        """The export: the manifest, then every game's events, in round and table order.
        Public once the tournament is finished or cancelled; before that, the organizer's
        only."""
        stored = self._get(tournament_id)
        ended = stored.status in ("finished", "cancelled")
        if not ended and not viewer.organizer:
            raise organizer_only("export before the end", anonymous=viewer.anonymous)
        if stored.status in ("running", "cancelled"):
            # A round recorded a moment ago may not have all its games yet: make them now,
            # so the export has a log for every game its manifest lists.
            self._ensure_games(stored)
        return self._export(stored)

    def _export(self, stored: StoredTournament) -> Iterator[str]:
        document = self._document(stored)
        manifest = export.manifest(document, stored.spec)
        yield canonical_json({"tournament": manifest}) + "\n"
        for number in range(1, stored.made + 1):
            for game_id in self._game_ids(stored, number):
                meta = self._repository.meta(game_id)
                upto = self._repository.latest(meta).version
                for event in self._repository.read(game_id, upto=upto):
                    yield canonical_json(event.to_json()) + "\n"

    def player_seats(self, tournament_id: str, player: int, token: str) -> Viewer | None:
        """The viewer a person's tournament token names (their seat in each of their games),
        or None when it is no such token (a reissued one's predecessor included)."""
        stored = self._store.get(tournament_id)
        if stored is None:
            return None
        hashes = stored.token_hashes
        if player >= len(hashes) or hashes[player] is None:
            return None
        if not hmac.compare_digest(tokens.token_hash(token), str(hashes[player])):
            return None
        seats: list[tuple[str, int]] = []
        for number, round_ in enumerate(stored.rounds, start=1):
            for game_id, seated in zip(
                self._game_ids(stored, number), round_["tables"], strict=True
            ):
                if player in seated:
                    seats.append((game_id, seated.index(player)))
        return Viewer(seats=tuple(seats), tournament=(tournament_id, player))

    def _get(self, tournament_id: str) -> StoredTournament:
        stored = self._store.get(tournament_id)
        if stored is None:
            raise tournament_not_found(tournament_id)
        return stored

    def _rounds_shown(self, stored: StoredTournament) -> list[JSON]:
        corrections = _corrections(director.effects(stored))
        shown: list[JSON] = []
        for number, round_ in enumerate(stored.rounds, start=1):
            games = self._games(round_, self._game_ids(stored, number))
            for game in games:
                game["correction"] = corrections.get(game["game_id"])
            shown.append({"round": number, "byes": list(round_["byes"]), "games": games})
        return shown

    def _standings(
        self, stored: StoredTournament, rounds: Sequence[JSON]
    ) -> tuple[list[Standing], tuple[str, ...]]:
        """The standings from every game over and every bye, with the corrections made, and
        the tie-breaks they were made with (none at rules version 1: Buchholz, then name)."""
        results: list[GameResult] = []
        byes: list[int] = []
        for round_ in rounds:
            byes += round_["byes"]
            for game in round_["games"]:
                if game["outcome"] is not None:
                    winners = tuple(game["outcome"]["winners"])
                    seated = tuple(game["players"])
                    results.append(GameResult(seated, winners, round_["round"], game["table"]))
        plan = _plan(stored.spec)
        names = [p["name"] for p in stored.spec["players"]]
        rows = plan.standings(names, results, byes, director.effects(stored))
        return rows, plan.tiebreaks

    def _document(self, stored: StoredTournament) -> JSON:
        spec = stored.spec
        rounds = self._rounds_shown(stored)
        rows, used = self._standings(stored, rounds)
        gone = withdrawn(director.effects(stored))
        ratings = spec.get("ratings") or []
        document: JSON = {
            "id": stored.id,
            "game": spec["game"],
            "format": spec["format"],
            "table_size": spec["table_size"],
            "planned_rounds": spec["planned_rounds"],
            "options": spec["options"],
            "clock": _clock(spec),
            "round_start": _round_start(spec),
            "rules_version": spec.get("rules_version", FIRST_RULES),
            "max_players": spec.get("max_players", len(spec["players"])),
            "tiebreaks": list(used),
            "status": stored.status,
            "paused": stored.paused,
            "next_round_at": self._next_round_at(stored),
            "created_at": spec["created_at"],
            "commitment": spec["commitment"],
            # None for a tournament made before rosters were committed.
            "roster_commitment": spec.get("roster_commitment"),
            "seed_commitments": spec["seed_commitments"],
            "players": [
                {
                    "player": i,
                    "name": p["name"],
                    "bot": p["bot"],
                    "public_key": p.get("public_key"),
                    "rating": ratings[i] if i < len(ratings) else None,
                    "withdrawn": i in gone,
                }
                for i, p in enumerate(roster(stored))
            ],
            "rounds": rounds,
            "standings": [_standing_json(rank, s, used) for rank, s in enumerate(rows, start=1)],
            "decisions": list(stored.decisions),
        }
        points = {s.player: as_json_number(s.points) for s in rows}
        document["crosstable"] = views.crosstable(document, points)
        return document

    def _next_round_at(self, stored: StoredTournament) -> str | None:
        """When an ``{"after_s": N}`` tournament's next round is due (its round before over
        and recorded, not paused, rounds left); None otherwise."""
        start = _round_start(stored.spec)
        if not isinstance(start, dict) or stored.status != "running" or stored.paused:
            return None
        if stored.made >= stored.spec["planned_rounds"]:
            return None
        ended = stored.rounds[-1].get("ended_at")
        return None if ended is None else later(ended, start["after_s"])

    def _games(self, round_: Mapping[str, Any], game_ids: Sequence[str]) -> list[JSON]:
        """A round's games with their status and outcome (recorded, or read live)."""
        recorded = round_.get("outcomes")
        if recorded is not None:
            statuses: list[str] = [GameStatus.OVER] * len(game_ids)
            outcomes: list[JSON | None] = list(recorded)
        else:
            statuses, outcomes = [], []
            for game_id, record in zip(game_ids, self._records.records(game_ids), strict=True):
                status = "pending" if record is None else record.status
                statuses.append(status)
                outcome: Outcome | None = None
                if status == GameStatus.OVER:
                    outcome = self._repository.latest(self._repository.meta(game_id)).outcome
                outcomes.append(None if outcome is None else outcome.to_json())
        return [
            {
                "game_id": game_id,
                "table": table,
                "players": list(seated),
                "status": status,
                "outcome": outcome,
            }
            for table, (game_id, seated, status, outcome) in enumerate(
                zip(game_ids, round_["tables"], statuses, outcomes, strict=True), start=1
            )
        ]


def _clock(spec: Mapping[str, Any]) -> dict[str, Any] | None:
    """The tournament's clock; None for one without (or created before clocks were)."""
    clock: dict[str, Any] | None = spec.get("clock")
    return clock


def _round_start(spec: Mapping[str, Any]) -> str | dict[str, int]:
    """The tournament's ``round_start``; ``"auto"`` for one created before it existed."""
    start: str | dict[str, int] = spec.get("round_start", "auto")
    return start


def _plan(spec: Mapping[str, Any]) -> Plan:
    """The stored tournament's plan, read as it was made: with the rules it was created
    with, and without the refusal of a long swiss (a plan made is not refused again)."""
    return Plan.of(
        spec["format"],
        len(spec["players"]),
        spec["table_size"],
        spec["planned_rounds"],
        max_players=spec.get("max_players"),
        ratings=spec.get("ratings"),
        tiebreaks=spec.get("tiebreaks"),
        allow_repeats=True,
        rules_version=spec.get("rules_version", FIRST_RULES),
    )


def roster(stored: StoredTournament) -> list[JSON]:
    """Every player by number: those listed at creation, then those entered, in order, each
    ``{"name", "bot"}`` and ``"public_key"`` when they have one."""
    entered = [
        {k: d[k] for k in ("name", "bot", "public_key") if k in d}
        for d in stored.decisions
        if d["decision"] == "enter"
    ]
    return [*stored.spec["players"], *entered]


def _listed(player: NewPlayer) -> JSON:
    """A player as the record lists them: their key only when they have one, so a tournament
    without keys is stored as it always was."""
    listed: JSON = {"name": player.name, "bot": player.bot}
    if player.public_key is not None:
        listed["public_key"] = player.public_key
    return listed


def _new_player(player: Mapping[str, Any]) -> NewPlayer:
    """A roster entry as the seat of a game: its key goes into ``game_created``."""
    return NewPlayer(player["name"], player["bot"], player.get("public_key"))


def _standing_json(rank: int, standing: Standing, tiebreaks: Sequence[str]) -> JSON:
    """A standing as the document shows it: its place (shared ones as ``"3-4"``; by rank
    for rules version 1, which shares none) and each tie-break the plan orders by."""
    values = tiebreak_values(standing, tiebreaks) if standing.tiebreaks else {}
    return {
        "player": standing.player,
        "name": standing.name,
        "place": standing.place or str(rank),
        "points": as_json_number(standing.points),
        "buchholz": as_json_number(standing.buchholz),
        "tiebreaks": {name: as_json_number(value) for name, value in values.items()},
    }


def _corrections(effects: Sequence[Decision]) -> dict[str, JSON]:
    """Each corrected game's counted winners and the decision (``seq``) that set them; of
    two corrections of one game, the later."""
    return {
        d.game_id: {"winners": list(d.winners), "decision": d.seq}
        for d in effects
        if isinstance(d, Correct)
    }


def _round_json(number: int, round_: Round) -> JSON:
    return {
        "round": number,
        "tables": [list(t.players) for t in round_.tables],
        "byes": list(round_.byes),
        "outcomes": None,
    }


def _next_round(
    plan: Plan, closed: Sequence[Mapping[str, Any]], effects: Sequence[Decision]
) -> JSON:
    """The round after ``closed`` (every one of them over), with the decisions made by now,
    as the record keeps it."""
    played = [_played(r) for r in closed]
    return _round_json(len(closed) + 1, plan.next_round(played, effects))


def _round_of(round_: Mapping[str, Any]) -> Round:
    tables = tuple(Table(tuple(t)) for t in round_["tables"])
    return Round(tables, tuple(round_["byes"]))


def _played(round_: Mapping[str, Any]) -> PlayedRound:
    winners = tuple(tuple(o["winners"]) for o in round_["outcomes"])
    return PlayedRound(_round_of(round_), winners)
