"""Real tournament exports, made in-process with no Redis, for the tournament audit's tests.

A tournament here is what the service makes of one (docs/guide/tournaments.md, the export format of
issue 15): one seed per slot drawn at creation (deterministically, from the tournament's
``seed``), only their commitments shown; each round's tables from ``Plan.next_round`` given the
results before it; each game played through the domain exactly as the workers play it (every
draw from the slot's seed with ``rng.draw`` at the version it will hold, a person's move a
seeded random choice among ``play.legal_actions`` of a seat in ``play.to_act``, a bot seat's
the move its bot makes: ``tests.support.bots.next_move``), its events
sealed into the hash chain batch by batch as the repository appends them, ``seed_revealed``
right after ``game_over``; then the manifest, with the standings the claimed outcomes give.

A tournament is built at a rules version (``domain.tournament.plan``): ``"2"`` by default, as
the service makes them now, its manifest naming its ``rules_version``, ``tiebreaks``,
``max_players`` and ``roster_commitment`` and each standing its ``place`` and ``tiebreaks``;
or ``"1"``, an *old-style* export exactly as the service wrote them before versions existed
(none of those fields). The director's ``decisions`` are made between rounds, as the service
records them.

``bench/verifying.py`` plays games the same way, but with fixed seats, ids and options; a
tournament game needs its own ``game_created`` (its place, its slot's commitment, the table's
players), so the playthrough is here.

An ``Export`` is kept as JSON (the manifest and each game's stored events) so a test can
tamper with any part, re-sign a game log (``rechain``) and recompute what a forger would.

Players may sign (``build(private_keys=...)``): a player given an Ed25519 private key has its
public key in the manifest's ``players`` (or in their ``enter`` decision, which the request
then names), in the roster commitment and in their seat of every game of theirs, and every
move they make is stored with its signature, as the service stores it.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from domain.engine import play, rng
from domain.engine.canonical import canonical_json
from domain.engine.log import GENESIS_HASH, seal
from domain.engine.signing import action_message
from domain.engine.types import (
    GAME_CREATED,
    GAME_OVER,
    SEED_REVEALED,
    SYSTEM,
    Event,
    GameCreated,
    GameState,
    SeatInfo,
    TournamentSlot,
)
from domain.games import GAMES
from domain.tournament import roster_commitment, tournament_commitment
from domain.tournament.decisions import (
    Correct,
    Decision,
    Enter,
    listed_players,
    parse_decision,
    parse_request,
)
from domain.tournament.plan import Plan, PlayedRound, check_decision
from domain.tournament.rounds import Round
from domain.tournament.standings import GameResult, as_json_number
from replay.ed25519 import public_key_of, sign
from tests.support.bots import next_move

AT = "2026-11-24T01:02:03.456Z"
#: A player: a name, or a name and a bot.
Player = str | tuple[str, str | None]


@dataclass
class Export:
    """A tournament export as JSON: line 1's manifest (the ``tournament`` object) and each
    game's stored events, games in the manifest's order (round, then table)."""

    manifest: dict[str, Any]
    games: list[list[dict[str, Any]]]
    #: False when its bot seats moved as people do (``build(bots_as_people=True)``): their
    #: moves are not their bots', so it verifies only without bot replay.
    bots_replayable: bool = True

    def lines(self) -> list[str]:
        out = [canonical_json({"tournament": self.manifest})]
        return out + [canonical_json(event) for events in self.games for event in events]

    def write(self, path: Path) -> Path:
        path.write_text("".join(line + "\n" for line in self.lines()), encoding="utf-8")
        return path

    def copy(self) -> Export:
        games = copy.deepcopy(self.games)
        return Export(copy.deepcopy(self.manifest), games, self.bots_replayable)

    def listed(self, round_: int, table: int) -> dict[str, Any]:
        """The manifest's entry for the game at ``round_``, ``table``."""
        entry: dict[str, Any] = self.manifest["rounds"][round_ - 1]["games"][table - 1]
        return entry

    def index(self, round_: int, table: int) -> int:
        """Where the log of the game at ``round_``, ``table`` is in ``games``."""
        game_id = self.listed(round_, table)["game_id"]
        return next(i for i, g in enumerate(self.games) if g[0]["game_id"] == game_id)

    def log(self, round_: int, table: int) -> list[dict[str, Any]]:
        return self.games[self.index(round_, table)]

    def line_of(self, round_: int, table: int) -> int:
        """The file's line number of the first event of the game at ``round_``, ``table``."""
        index = self.index(round_, table)
        return 2 + sum(len(g) for g in self.games[:index])

    def restand(self) -> None:
        """Recompute the published standings from the manifest's own claims (the outcomes
        it shows and every round's byes), as the service writes them."""
        self.manifest["standings"] = claimed_standings(self.manifest)


def manifest_plan(manifest: dict[str, Any]) -> Plan:
    """The plan a manifest states (as the audit reads it)."""
    return Plan.of(
        manifest["format"],
        len(manifest["players"]),
        manifest["table_size"],
        manifest["planned_rounds"],
        max_players=manifest.get("max_players"),
        ratings=manifest.get("ratings"),
        tiebreaks=manifest.get("tiebreaks"),
        rules_version=manifest.get("rules_version", "1"),
    )


def manifest_effects(manifest: dict[str, Any]) -> list[Decision]:
    """The manifest's withdraw, enter and correct decisions, in order."""
    return [
        parse_decision(d)
        for d in manifest.get("decisions", [])
        if d["decision"] in ("withdraw", "enter", "correct")
    ]


def claimed_standings(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The standings of the manifest's claims, at its rules version, with its decisions."""
    plan = manifest_plan(manifest)
    names = [p["name"] for p in manifest["players"]]
    results = [
        GameResult(
            tuple(game["players"]),
            tuple(game["outcome"]["winners"]),
            round_["round"],
            game["table"],
        )
        for round_ in manifest["rounds"]
        for game in round_["games"]
        if game["outcome"] is not None
    ]
    byes = [p for round_ in manifest["rounds"] for p in round_["byes"]]
    rows = []
    for s in plan.standings(names, results, byes, manifest_effects(manifest)):
        row = {
            "player": s.player,
            "name": s.name,
            "points": as_json_number(s.points),
            "buchholz": as_json_number(s.buchholz),
        }
        if plan.rules_version != "1":
            row["place"] = s.place
            row["tiebreaks"] = {
                name: as_json_number(value)
                for name, value in zip(plan.tiebreaks, s.tiebreaks, strict=True)
            }
        rows.append(row)
    return rows


def claimed_crosstable(manifest: dict[str, Any]) -> list[list[str]]:
    """The crosstable ``floe replay verify`` prints for the manifest's claims (its outcomes,
    byes and corrections), one row per player: number, name, points, then each round's cell
    (``replay.tournament.summary``: ``W 3``, ``D 3``, ``L 3``, ``? 3``, ``*`` when corrected,
    ``bye``, ``-``)."""
    effects = manifest_effects(manifest)
    fixes = {
        (d.round, d.table): d.winners
        for d in sorted(effects, key=lambda d: d.seq)
        if isinstance(d, Correct)
    }
    names = [p["name"] for p in manifest["players"]]
    names += [d.name for d in effects if isinstance(d, Enter)]
    rows = []
    for player, name in enumerate(names):
        points, cells = Fraction(0), []
        for round_ in manifest["rounds"]:
            cell = "bye" if player in round_["byes"] else "-"
            points += cell == "bye"
            for game in (g for g in round_["games"] if player in g["players"]):
                others = ",".join(str(p) for p in game["players"] if p != player)
                fixed = fixes.get((round_["round"], game["table"]))
                if game["outcome"] is None:
                    cell = f"? {others}"
                    continue
                winners = game["outcome"]["winners"] if fixed is None else fixed
                seat = game["players"].index(player)
                letter = "L" if seat not in winners else "W" if len(winners) == 1 else "D"
                points += Fraction(1, len(winners)) if seat in winners else 0
                cell = f"{letter} {others}" + ("" if fixed is None else "*")
            cells.append(cell)
        rows.append([str(player), name, as_json_number(points), *cells])
    return rows


def build(
    game: str,
    format: str,
    players: Sequence[Player],
    *,
    table_size: int = 2,
    rounds: int | None = None,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    made: int | None = None,
    unfinished: int = 0,
    rules_version: str = "2",
    tiebreaks: Sequence[str] | None = None,
    max_players: int | None = None,
    ratings: Sequence[int] | None = None,
    decisions: Mapping[int, Sequence[dict[str, Any]]] | None = None,
    bots_as_people: bool = False,
    private_keys: Mapping[int, str] | None = None,
) -> Export:
    """A tournament of ``game`` played round after round: ``made`` rounds (all of them by
    default), the last ``unfinished`` games of the last round stopped halfway (as an export
    taken while they are played shows them).

    ``decisions``: by how many rounds are paired when they are made, the director's requests
    (``{"decision": ..., "reason": ..., <its fields>}``, as sent to the service), each checked
    and stamped as the service would; a ``cancel`` ends the tournament there. A ``correct``
    may name its game by ``round`` and ``table`` in place of its ``game_id`` (a test cannot
    know the id before the build): the request sent names it by its id.

    ``bots_as_people``: bot seats move as people do (seeded random picks), as this builder
    played them before bot replay: the old exports pinned by their bytes are made so.

    ``private_keys``: by player number, the Ed25519 private key (hex) of each person who
    signs; a player entered late signs with theirs when their ``enter`` request names its
    public key."""
    seats = [(p, None) if isinstance(p, str) else p for p in players]
    signers = dict(private_keys or {})
    keys: dict[int, str] = {p: public_key_of(k) for p, k in signers.items() if p < len(seats)}
    plan = Plan.of(
        format,
        len(seats),
        table_size,
        rounds,
        max_players=max_players,
        ratings=ratings,
        tiebreaks=tiebreaks,
        rules_version=rules_version,
    )
    options = dict(options or {})
    tournament_id = _hex(f"tournament/{seed}")[:16]
    seeds = [
        hashlib.sha256(f"{tournament_id}/seed/{s}".encode()).digest() for s in range(plan.slots)
    ]
    game_ids = [_hex(f"{tournament_id}/game/{s}")[:16] for s in range(plan.slots)]
    commitments = [rng.seed_commitment(s) for s in seeds]
    made = plan.rounds if made is None else made
    played: list[PlayedRound] = []
    paired: list[Round] = []
    listed: list[dict[str, Any]] = []
    logs: list[list[dict[str, Any]]] = []
    records: list[dict[str, Any]] = []
    effects: list[Decision] = []
    names = [name for name, _ in seats]

    def decide(rounds_paired: int) -> bool:
        """The decisions made with ``rounds_paired`` rounds paired; whether one cancelled."""
        for request in (decisions or {}).get(rounds_paired, ()):
            seq, at = len(records) + 1, f"2026-11-24T02:{len(records):02}:00Z"
            if request["decision"] in ("pause", "resume", "cancel"):
                stamps = {"rounds_paired": rounds_paired, "seq": seq, "at": at}
                records.append({**request, **stamps})
                if request["decision"] == "cancel":
                    return True
                continue
            games = {g["game_id"]: (r["round"], g["table"]) for r in listed for g in r["games"]}
            if request["decision"] == "correct" and "game_id" not in request:
                where = (request["round"], request["table"])
                named = next(game_id for game_id, place in games.items() if place == where)
                request = {k: v for k, v in request.items() if k not in ("round", "table")}
                request["game_id"] = named
            decision = parse_request(
                request,
                rounds_paired=rounds_paired,
                seq=seq,
                at=at,
                next_player=listed_players(plan.players, effects),
                games=games,
            )
            check_decision(plan, names, paired, effects, decision)
            effects.append(decision)
            records.append(dict(decision.to_json()))
            if isinstance(decision, Enter):
                if decision.public_key is not None:
                    keys[len(seats)] = decision.public_key
                seats.append((decision.name, decision.bot))
        return False

    cancelled = False
    for number in range(1, made + 1):
        if decide(number - 1):
            cancelled = True
            break
        round_ = plan.next_round(played, effects)
        paired.append(round_)
        games: list[dict[str, Any]] = []
        winners: list[tuple[int, ...]] = []
        for table, seated in enumerate((t.players for t in round_.tables), start=1):
            slot = plan.slot(number, table)
            cut = number == made and table > len(round_.tables) - unfinished
            created = GameCreated(
                game,
                GAMES[game].rules.rules_version,
                options,
                tuple(SeatInfo(i, *seats[p], keys.get(p)) for i, p in enumerate(seated)),
                commitments[slot],
                TournamentSlot(tournament_id, number, table),
            )
            signing = {i: signers[p] for i, p in enumerate(seated) if p in signers and p in keys}
            events, state = play_game(
                game_ids[slot],
                created,
                seeds[slot],
                cut=cut,
                bots_as_people=bots_as_people,
                signers=signing,
            )
            logs.append(events)
            outcome = None if state.outcome is None else state.outcome.to_json()
            games.append(
                {
                    "game_id": game_ids[slot],
                    "table": table,
                    "players": list(seated),
                    "outcome": outcome,
                }
            )
            if state.outcome is not None:
                winners.append(state.outcome.winners)
        listed.append({"round": number, "byes": list(round_.byes), "games": games})
        if len(winners) == len(round_.tables):
            played.append(PlayedRound(Round(round_.tables, round_.byes), tuple(winners)))
    if not cancelled and len(played) == made:
        decide(made)
    manifest: dict[str, Any] = {
        "id": tournament_id,
        "game": game,
        "format": plan.format,
        "table_size": plan.table_size,
        "planned_rounds": plan.rounds,
        "options": options,
        "created_at": AT,
        "commitment": tournament_commitment(commitments),
        "seed_commitments": commitments,
        "players": [
            {"player": i, "name": n, "bot": b} | ({"public_key": keys[i]} if i in keys else {})
            for i, (n, b) in enumerate(seats[: plan.players])
        ],
        "rounds": listed,
        "standings": [],
    }
    if plan.rules_version != "1":
        manifest["rules_version"] = plan.rules_version
        manifest["tiebreaks"] = list(plan.tiebreaks)
        manifest["max_players"] = plan.max_players
        manifest["roster_commitment"] = roster_commitment(
            [(n, b, keys.get(i)) for i, (n, b) in enumerate(seats[: plan.players])]
        )
        if plan.ratings is not None:
            manifest["ratings"] = list(plan.ratings)
    if records:
        manifest["decisions"] = records
    export = Export(manifest, logs, bots_replayable=not bots_as_people)
    export.restand()
    return export


def play_game(
    game_id: str,
    created: GameCreated,
    seed: bytes,
    *,
    cut: bool = False,
    bots_as_people: bool = False,
    signers: Mapping[int, str] | None = None,
) -> tuple[list[dict[str, Any]], GameState[Any]]:
    """One game played out from ``created``, as stored events; with ``cut``, stopped about
    halfway, as it stands while it is played (no ``game_over``, no seed revealed);
    ``bots_as_people``: bot seats move as people do (``build`` says when); ``signers``: by
    seat, the private key each keyed seat signs its moves with."""
    rules = GAMES[created.game].rules
    chooser = random.Random(game_id)
    [first] = seal(
        game_id,
        [Event(GAME_CREATED, SYSTEM, created.to_json())],
        first_version=1,
        prev_hash=GENESIS_HASH,
        at=AT,
        command_id=None,
    )
    stored = [first]
    state = play.new_game(rules, game_id, created)
    while not state.over:
        draw = rules.pending_draw(state.board)
        command_id = None
        if draw is not None:  # the worker's draw, from the slot's seed
            outcome = rng.draw(seed, game_id, state.version + 1, draw.label, draw.kind, draw.n)
            events, after = play.resolve_draw_step(rules, state, outcome)
        else:
            # a person's move at random, a bot seat's its bot's (replay verifies it)
            seat, action, command_id = next_move(
                created.game, state, seed, chooser, bots=not bots_as_people
            )
            signature = None
            if seat in (signers or {}):
                message = action_message(game_id, state.version, action.to_json())
                signature = sign((signers or {})[seat], message)
            events, after = play.step(rules, state, seat, action, signature=signature)
        if cut and events[-1].type == GAME_OVER:
            break  # the half of a game that ends quickly: stop before its end
        if events[-1].type == GAME_OVER:  # the repository reveals the seed in the same append
            revealed = Event(SEED_REVEALED, SYSTEM, {"seed": seed.hex()})
            events, after = [*events, revealed], play.apply(rules, after, revealed)
        stored += seal(
            game_id,
            events,
            first_version=state.version + 1,
            prev_hash=stored[-1].hash,
            at=AT,
            command_id=command_id,
        )
        state = after
        if cut and state.version >= 20:
            break
    return [dict(e.to_json()) for e in stored], state


def _hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
