"""Tournaments: games whose luck is fixed before the first move, run round after round.

At creation every seed the tournament can use is drawn, one per (round, table) slot, and only
their commitments are shown; each slot's game id is chosen too. Round 1's games are created at
once. When a tournament game ends, a worker job (``advance``) looks at its round: once every
game of it is over, the round's outcomes are recorded and the next round's tables made from
them (``Plan.next_round``), in one compare-and-set, then its games are created. Everything
here is idempotent: a job that runs twice, or two workers at once, make each round once and
each game once (a game's id is its slot's, so a second create is ``GameExists``); a worker
killed anywhere leaves a state the next ``advance`` (the sweeper's, at the latest) finishes.

A person's one token, ``<tournament id>.<player>.<secret>``, is their seat token in every game
of theirs: ``player_seats`` resolves it to those seats.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.engine.canonical import canonical_json
from domain.engine.rng import seed_commitment
from domain.engine.status import GameStatus
from domain.engine.types import JSON, Outcome, TournamentSlot
from domain.tournament import Round, Table, tournament_commitment
from domain.tournament.plan import Plan, PlanError, PlayedRound
from domain.tournament.standings import GameResult, as_json_number, standings
from service.clock import Clock, millis
from service.errors import InvalidRequest, NotFound, organizer_only
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
from service.games.repository import GameRepository
from service.store.events import EventStore, GameExists
from service.tournaments.store import (
    Recorded,
    StoredTournament,
    TournamentStatus,
    TournamentStore,
)

#: How many times ``advance`` reads again after another worker recorded first.
ADVANCE_ATTEMPTS = 8


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


class Tournaments:
    """Create, advance and read tournaments."""

    def __init__(
        self,
        store: TournamentStore,
        commands: GameCommands,
        repository: GameRepository,
        records: EventStore,
        clock: Clock,
    ) -> None:
        self._store = store
        self._commands = commands
        self._repository = repository
        #: The games' records (which of a round's games exist, and where they stand).
        self._records = records
        self._clock = clock

    @property
    def store(self) -> TournamentStore:
        return self._store

    # ----- creating -----------------------------------------------------------------------

    def create(self, command: CreateTournament, viewer: Viewer) -> CreatedTournament:
        """Draw and commit every seed, hand out the tokens, and start round 1 (organizer)."""
        if not viewer.organizer:
            raise organizer_only("creating a tournament", anonymous=viewer.anonymous)
        game = hosted(command.game)
        if game.info.cooperative:
            raise InvalidRequest(
                "invalid_tournament", f"game: {game.name} is co-operative; nobody is ranked"
            )
        try:
            plan = Plan.of(command.format, len(command.players), command.table_size, command.rounds)
        except PlanError as error:
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
            "created_at": now,
            "players": [{"name": p.name, "bot": p.bot} for p in command.players],
            "token_hashes": [t and tokens.token_hash(t) for t in player_tokens],
            "seed_commitments": commitments,
            "commitment": tournament_commitment(commitments),
            "game_ids": [secrets.token_hex(8) for _ in range(plan.slots)],
        }
        first = _round_json(1, plan.next_round([]))
        seeds_hex = [seed.hex() for seed in seeds]
        self._store.create(tournament_id, spec, seeds_hex, [first], millis(now))
        stored = self._get(tournament_id)
        self._ensure_games(stored)
        return CreatedTournament(self._document(stored), player_tokens)

    # ----- running ------------------------------------------------------------------------

    def game_over(self, game_id: str) -> None:
        """A tournament game ended (the worker's job): show it, and advance if it can."""
        meta = self._repository.meta(game_id)
        slot = self._repository.latest(meta).created.tournament
        if slot is None:
            return
        self._store.touch(slot.id)
        self.advance(slot.id)

    def advance(self, tournament_id: str) -> None:
        """Make sure the current round's games exist; once they are all over, record their
        outcomes and make the next round (or finish). Idempotent, and safe to run anywhere
        at any time: a lost race reads again and finds the work done."""
        for _ in range(ADVANCE_ATTEMPTS):
            stored = self._store.get(tournament_id)
            if stored is None:
                self._store.forget_unwritten(tournament_id, millis(self._clock()))
                return
            if stored.status == "finished":
                self._store.not_running(tournament_id)  # left there by a crash, if at all
                return
            self._ensure_games(stored)
            outcomes = self._outcomes(stored, stored.made)
            if outcomes is None:
                return
            plan = _plan(stored.spec)
            rounds = [*stored.rounds[:-1], {**stored.rounds[-1], "outcomes": outcomes}]
            finished = stored.made == plan.rounds
            if not finished:
                played = [_played(r) for r in rounds]
                rounds.append(_round_json(stored.made + 1, plan.next_round(played)))
            status: TournamentStatus = "finished" if finished else "running"
            result = self._store.record(tournament_id, read=stored, rounds=rounds, status=status)
            if isinstance(result, Recorded):
                if not finished:
                    self._ensure_games(self._get(tournament_id))
                return

    def advance_running(self) -> None:
        """Advance every running tournament (the sweeper: nothing stays stuck)."""
        for tournament_id in self._store.running():
            self.advance(tournament_id)

    def _ensure_games(self, stored: StoredTournament) -> None:
        """Create the games of the latest round that do not exist yet."""
        spec, plan = stored.spec, _plan(stored.spec)
        number = stored.made
        game_ids = self._game_ids(stored, number)
        exists = self._records.records(game_ids)
        if all(meta is not None for meta in exists):
            return
        players = spec["players"]
        hashes = spec["token_hashes"]
        seeds = self._store.seeds(stored.id)
        for table, (game_id, meta, seated) in enumerate(
            zip(game_ids, exists, stored.rounds[-1]["tables"], strict=True), start=1
        ):
            if meta is not None:
                continue
            slot = plan.slot(number, table)
            command = CreateGame(
                spec["game"],
                tuple(NewPlayer(players[p]["name"], players[p]["bot"]) for p in seated),
                spec["options"],
                seed_hex=seeds[slot],
                tournament=TournamentSlot(stored.id, number, table),
                clock=_clock(spec),
            )
            with contextlib.suppress(GameExists):  # another worker made it first
                self._commands.create_for_table(command, game_id, [hashes[p] for p in seated])

    def _outcomes(self, stored: StoredTournament, number: int) -> list[JSON] | None:
        """Each game's outcome in round ``number``, or None while one is not over."""
        games = self._games(stored.rounds[number - 1], self._game_ids(stored, number))
        if any(game["outcome"] is None for game in games):
            return None
        return [game["outcome"] for game in games]

    def _game_ids(self, stored: StoredTournament, number: int) -> list[str]:
        per_round = _plan(stored.spec).tables_per_round
        start = (number - 1) * per_round
        return list(stored.spec["game_ids"][start : start + per_round])

    # ----- reading ------------------------------------------------------------------------

    def get(self, tournament_id: str) -> JSON:
        """The tournament as ``GET /v1/tournaments/{id}`` shows it (404 when unknown)."""
        return self._document(self._get(tournament_id))

    def followed(self, tournament_id: str) -> tuple[int, JSON]:
        """The document and its change count, from one read (a stream's event and its id)."""
        stored = self._get(tournament_id)
        return stored.changes, self._document(stored)

    def changes(self, tournament_id: str) -> tuple[int, bool]:
        """How many times the tournament changed, and whether it is finished (for SSE)."""
        stored = self._get(tournament_id)
        return stored.changes, stored.status == "finished"

    def export_lines(self, tournament_id: str, viewer: Viewer) -> Iterator[str]:
        """The export: the manifest, then every game's events, in round and table order.
        Public once the tournament is finished; before that, the organizer's only."""
        stored = self._get(tournament_id)
        if stored.status != "finished" and not viewer.organizer:
            raise organizer_only("export before the end", anonymous=viewer.anonymous)
        if stored.status == "running":
            # A round recorded a moment ago may not have all its games yet: make them now,
            # so the export has a log for every game its manifest lists.
            self._ensure_games(stored)
        return self._export(stored)

    def _export(self, stored: StoredTournament) -> Iterator[str]:
        document = self._document(stored)
        # The manifest keeps to the fields the audit reads (``replay.tournament.manifest``);
        # ``clock`` only when the tournament has one, so older manifests read as they were.
        manifest = {k: v for k, v in document.items() if k != "status"}
        if manifest.get("clock") is None:
            manifest.pop("clock", None)
        manifest["rounds"] = [
            {**r, "games": [{k: v for k, v in g.items() if k != "status"} for g in r["games"]]}
            for r in document["rounds"]
        ]
        yield canonical_json({"tournament": manifest}) + "\n"
        for number in range(1, stored.made + 1):
            for game_id in self._game_ids(stored, number):
                meta = self._repository.meta(game_id)
                upto = self._repository.latest(meta).version
                for event in self._repository.read(game_id, upto=upto):
                    yield canonical_json(event.to_json()) + "\n"

    def player_seats(self, tournament_id: str, player: int, token: str) -> Viewer | None:
        """The viewer a person's tournament token names (their seat in each of their games),
        or None when it is no such token."""
        stored = self._store.get(tournament_id)
        if stored is None:
            return None
        hashes = stored.spec["token_hashes"]
        if player >= len(hashes) or hashes[player] is None:
            return None
        if not hmac.compare_digest(tokens.token_hash(token), hashes[player]):
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

    def _document(self, stored: StoredTournament) -> JSON:
        spec = stored.spec
        rounds: list[JSON] = []
        results: list[GameResult] = []
        byes: list[int] = []
        for number, round_ in enumerate(stored.rounds, start=1):
            game_ids = self._game_ids(stored, number)
            shown = self._games(round_, game_ids)
            rounds.append({"round": number, "byes": list(round_["byes"]), "games": shown})
            byes += round_["byes"]
            for game in shown:
                if game["outcome"] is not None:
                    winners = tuple(game["outcome"]["winners"])
                    results.append(GameResult(tuple(game["players"]), winners))
        names = [p["name"] for p in spec["players"]]
        return {
            "id": stored.id,
            "game": spec["game"],
            "format": spec["format"],
            "table_size": spec["table_size"],
            "planned_rounds": spec["planned_rounds"],
            "options": spec["options"],
            "clock": _clock(spec),
            "status": stored.status,
            "created_at": spec["created_at"],
            "commitment": spec["commitment"],
            "seed_commitments": spec["seed_commitments"],
            "players": [
                {"player": i, "name": p["name"], "bot": p["bot"]}
                for i, p in enumerate(spec["players"])
            ],
            "rounds": rounds,
            "standings": [
                {
                    "player": s.player,
                    "name": s.name,
                    "points": as_json_number(s.points),
                    "buchholz": as_json_number(s.buchholz),
                }
                for s in standings(names, results, byes)
            ],
        }

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


def _plan(spec: Mapping[str, Any]) -> Plan:
    return Plan.of(spec["format"], len(spec["players"]), spec["table_size"], spec["planned_rounds"])


def _round_json(number: int, round_: Round) -> JSON:
    return {
        "round": number,
        "tables": [list(t.players) for t in round_.tables],
        "byes": list(round_.byes),
        "outcomes": None,
    }


def _played(round_: Mapping[str, Any]) -> PlayedRound:
    tables = tuple(Table(tuple(t)) for t in round_["tables"])
    winners = tuple(tuple(o["winners"]) for o in round_["outcomes"])
    return PlayedRound(Round(tables, tuple(round_["byes"])), winners)
