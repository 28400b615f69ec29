"""The audit of a tournament export: the entry points and the checks across its games.

It reads the manifest (``manifest``) and the game logs (``logs``), audits each log, then
checks what the manifest claims against what the verified logs show, with the rules of the
tournament's version (``Plan.rules_version``, from the manifest's ``rules_version``) and the
director's decisions it lists (``replay.tournament`` says what is checked).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from domain.engine.canonical import canonical_json
from domain.engine.types import GAME_OVER, Outcome
from domain.tournament import Round, Table, roster_commitment, tournament_commitment
from domain.tournament.audit import compare_standings, decision_problems, pairing_problems
from domain.tournament.decisions import Correct, DecisionError
from domain.tournament.plan import PlayedRound
from domain.tournament.standings import GameResult, Standing
from replay.source import BadLine, parse_line, read_file
from replay.tournament.logs import Run, split_runs
from replay.tournament.manifest import Listed, Manifest, Recorded, read_manifest
from replay.tournament.summary import applied, crosstable
from replay.tournament.verdict import GameVerdict, TournamentVerdict
from replay.tournament.wrong import quote
from replay.verify import Status, Verdict, same_json

#: A game's place in the tournament: (round, table).
Place = tuple[int, int]


def is_tournament_file(path: str) -> bool:
    """Whether the file's first line is a JSON object whose only key is ``tournament``."""
    try:
        with Path(path).open("rb") as file:
            first = file.readline()
    except (OSError, ValueError):
        return False
    return is_manifest_line(first.decode("utf-8", errors="surrogateescape").rstrip("\n"))


def is_manifest_line(line: str) -> bool:
    try:
        value = parse_line(line)
    except BadLine:
        return False
    return isinstance(value, dict) and set(value) == {"tournament"}


def audit_file(path: str, *, bot_replay: bool = True) -> TournamentVerdict:
    """The verdict on the tournament export ``path`` (``bot_replay``: each game's bot moves
    made again, ``replay.bots``). Never raises."""
    try:
        lines = read_file(path)
    except OSError as error:
        reason = f"cannot read: {error.strerror or error}"
        return TournamentVerdict("failed", (), (reason,), (), file=path)
    return audit_tournament(lines, file=path, bot_replay=bot_replay)


def audit_tournament(
    lines: Sequence[str], *, file: str | None = None, bot_replay: bool = True
) -> TournamentVerdict:
    """The verdict on a tournament export's lines (the manifest first). Never raises."""
    try:
        return _Audit(lines, bot_replay).run(file)
    except Exception as error:  # a bug, not a verdict on the file: say so, never a traceback
        why = f"the verifier crashed: {type(error).__name__}: {quote(str(error), 160)}"
        return TournamentVerdict("failed", (), (why,), (), file=file)


class _Audit:
    def __init__(self, lines: Sequence[str], bot_replay: bool = True) -> None:
        self.lines = lines
        self.bot_replay = bot_replay
        self.problems: list[str] = []
        self.unchecked: list[str] = []

    def run(self, file: str | None) -> TournamentVerdict:
        manifest = self._manifest()
        runs = self._runs()
        audits = {id(run): run.audit(self.bot_replay) for run in runs}
        if manifest is None:
            logs = tuple(_unlisted(run, audits[id(run)]) for run in runs)
            self.problems += [p for g in logs for p in g.problems]
            return TournamentVerdict("failed", logs, tuple(self.problems), (), file=file)
        self._commitments(manifest)
        self._roster(manifest)
        games, results = self._games(manifest, runs, audits)
        self._decisions(manifest)
        self._pairings(manifest, games, results)
        table = self._standings(manifest, games, results)
        playing = {
            (g.round, g.table)
            for g in games
            if g.round is not None and g.table is not None and g.status == "incomplete"
        }
        rows = crosstable(manifest, results, playing)
        made = len(manifest.rounds)
        # A cancelled tournament is complete as it was cancelled: its rounds are all it has.
        complete = made == manifest.plan.rounds or manifest.cancelled is not None
        if self.problems or any(g.status == "failed" for g in games):
            status: Status = "failed"
        elif all(g.status == "ok" for g in games) and complete:
            status = "ok"
        else:
            status = "incomplete"
        return TournamentVerdict(
            status,
            tuple(games),
            tuple(self.problems),
            tuple(table),
            manifest.id,
            made,
            manifest.plan.rounds,
            tuple(self.unchecked),
            file,
            manifest.cancelled is not None,
            manifest.plan.rules_version,
            manifest.plan.tiebreaks,
            rows,
            applied(manifest),
        )

    def _manifest(self) -> Manifest | None:
        if not self.lines or not self.lines[0].strip():
            self.problems.append('line 1: empty, where the {"tournament": {...}} line belongs')
            return None
        try:
            value = parse_line(self.lines[0])
        except BadLine as bad:
            self.problems.append(f"line 1: {bad}")
            return None
        manifest, problems = read_manifest(value)
        self.problems += problems
        return manifest

    def _runs(self) -> list[Run]:
        """Each game's first run of lines; a later run of a game already seen (its lines are
        not together) is a problem, and is not audited as a log of its own."""
        runs: list[Run] = []
        seen: dict[str, Run] = {}
        for run in split_runs(self.lines[1:]):
            earlier = seen.get(run.game_id) if run.game_id is not None else None
            if earlier is not None:
                self.problems.append(
                    f"game {run.game_id}: {_span(run)} more of its events, "
                    f"after other games' lines (its log is at lines {earlier.first}-"
                    f"{earlier.last}): a game's lines go together"
                )
                continue
            if run.game_id is not None:
                seen[run.game_id] = run
            runs.append(run)
        return runs

    def _commitments(self, manifest: Manifest) -> None:
        seeds, plan = manifest.seed_commitments, manifest.plan
        if seeds is None:
            return
        if len(seeds) != plan.slots:
            self.problems.append(
                f"seed_commitments: {len(seeds)} of them, where the plan has {plan.slots} "
                f"slots ({plan.rounds} rounds of {plan.tables_per_round} tables)"
            )
        if manifest.commitment is not None:
            computed = tournament_commitment(seeds)
            if computed != manifest.commitment:
                self.problems.append(
                    f"commitment: {manifest.commitment} is not the SHA-256 of the seed "
                    f"commitments ({computed})"
                )

    def _roster(self, manifest: Manifest) -> None:
        """The players listed at creation (names, bots and public keys, in order) against the
        roster commitment published beside ``commitment``: a player renamed, swapped, added,
        dropped or given another key since no longer matches it (one entered later is their
        decision's, not the roster's). A manifest without one is of a tournament made before
        rosters were committed: nothing to check it against, which the verdict says."""
        if not manifest.roster_committed:
            self.unchecked.append(
                "roster not committed (tournament made before rosters were committed)"
            )
            return
        if manifest.roster_commitment is None:
            return  # malformed: line 1's problem says so
        computed = roster_commitment(manifest.roster)
        if computed != manifest.roster_commitment:
            self.problems.append(
                "roster: the players listed (names, bots and public keys) are not the ones "
                f"committed at creation (roster_commitment {manifest.roster_commitment}; the "
                f"players listed give {computed})"
            )

    def _games(
        self, manifest: Manifest, runs: list[Run], audits: dict[int, Verdict]
    ) -> tuple[list[GameVerdict], dict[Place, tuple[int, ...]]]:
        """Every listed game's verdict, then every unlisted log's; and the winning seats of
        each listed game whose verified log is over, by (round, table)."""
        by_id = {run.game_id: run for run in runs if run.game_id is not None}
        places: dict[str, Listed] = {}
        games: list[GameVerdict] = []
        results: dict[Place, tuple[int, ...]] = {}
        for listed in (g for r in manifest.rounds for g in r.games):
            first = places.setdefault(listed.game_id, listed)
            run = by_id.get(listed.game_id)
            if first is not listed:
                why = f"{listed.name}: the manifest lists this game at {first.name} too"
                verdict = Verdict(listed.game_id, "failed", 0, None, "listed twice")
                games.append(GameVerdict(listed.game_id, *_key(listed), None, verdict, (why,)))
                continue
            if run is None:
                why = f"{listed.name}: no log in the export"
                verdict = Verdict(listed.game_id, "failed", 0, None, "no log in the export")
                games.append(GameVerdict(listed.game_id, *_key(listed), None, verdict, (why,)))
                continue
            verdict = audits[id(run)]
            problems = [_log_problem(listed.name, verdict)] if verdict.status == "failed" else []
            winners, found = _check_game(manifest, listed, run, verdict)
            problems += found
            lines = (run.first, run.last)
            games.append(
                GameVerdict(listed.game_id, *_key(listed), lines, verdict, tuple(problems))
            )
            if winners is not None:
                results[_key(listed)] = winners
        self._order(runs, places)
        for run in runs:
            if run.game_id not in places:
                extra = _unlisted(run, audits[id(run)])
                why = f"{extra.name}: a log the manifest does not list"
                games.append(replace(extra, problems=(why, *extra.problems)))
        for game in games:
            self.problems += game.problems
        return games, results

    def _order(self, runs: list[Run], places: dict[str, Listed]) -> None:
        """The logs of listed games must come in the manifest's order (round, then table)."""
        logged = [(run, places[run.game_id]) for run in runs if run.game_id in places]
        expected = sorted(logged, key=lambda pair: _key(pair[1]))
        for (run, got), (_, belongs) in zip(logged, expected, strict=True):
            if got is not belongs:
                self.problems.append(
                    f"line {run.first}: the log of {got.name} is where the log of "
                    f"{belongs.name} belongs (games go in round, then table order)"
                )
                return

    def _pairings(
        self, manifest: Manifest, games: list[GameVerdict], results: dict[Place, tuple[int, ...]]
    ) -> None:
        """Every round's tables and byes against the format, over the rounds whose games are
        all over, and the first round not yet over (its tables follow from those before)."""
        plan = manifest.plan
        failed = {(g.round, g.table) for g in games if g.status == "failed"}
        played: list[PlayedRound] = []
        for listed in manifest.rounds:
            number = listed.number
            if number > plan.rounds:
                self.problems.append(f"round {number}: the tournament has {plan.rounds} rounds")
                break
            round_ = Round(tuple(Table(g.players) for g in listed.games), listed.byes)
            waiting = [g for g in listed.games if _key(g) not in results]
            # A round's own winners are never read when its tables are checked, only those
            # of the rounds before it: the () of a game not over is never counted.
            winners = tuple(results.get(_key(g), ()) for g in listed.games)
            played.append(PlayedRound(round_, winners))
            if not waiting:
                continue
            if number < len(manifest.rounds):
                broken = [g for g in waiting if _key(g) in failed]
                if broken:
                    self.unchecked.append(
                        f"the tables of round {number + 1} and later: {broken[0].name} has no "
                        "verified result"
                    )
                else:
                    self.problems.append(
                        f"round {number + 1}: made before every game of round {number} was "
                        f"over ({waiting[0].name} is not)"
                    )
            break
        self.problems += pairing_problems(plan, played, manifest.effects)

    def _decisions(self, manifest: Manifest) -> None:
        """The decisions against the rounds: each made with no more rounds paired than the
        manifest lists and no fewer than the one before it; a pause and a resume in turn, and
        no round made while paused; nothing after a cancel, neither a decision nor a round.
        Then, when that order holds, each withdraw, enter and correct could have been taken
        when it was (``decision_problems``)."""
        made = len(manifest.rounds)
        found: list[str] = []
        before: Recorded | None = None
        paused: Recorded | None = None
        cancelled: Recorded | None = None
        for decision in manifest.decisions:
            where = f"decision {decision.seq} ({decision.kind})"
            if cancelled is not None:
                found.append(
                    f"{where}: made after the tournament was cancelled (decision {cancelled.seq})"
                )
            if decision.rounds_paired > made:
                found.append(
                    f"{where}: made with {decision.rounds_paired} rounds paired, where the "
                    f"manifest lists {made}"
                )
            if before is not None and decision.rounds_paired < before.rounds_paired:
                found.append(
                    f"{where}: made with {decision.rounds_paired} rounds paired, after decision "
                    f"{before.seq} made with {before.rounds_paired}"
                )
            if decision.kind == "pause" and paused is not None:
                found.append(f"{where}: the tournament is paused already (decision {paused.seq})")
            if decision.kind == "resume":
                if paused is None:
                    found.append(f"{where}: the tournament is not paused")
                elif decision.rounds_paired > paused.rounds_paired:
                    found.append(
                        f"round {paused.rounds_paired + 1}: made while the tournament was paused "
                        f"(decisions {paused.seq} to {decision.seq})"
                    )
            if decision.kind in ("pause", "resume"):
                paused = decision if decision.kind == "pause" else None
            if decision.kind == "cancel" and cancelled is None:
                cancelled = decision
            before = decision
        if paused is not None and made > paused.rounds_paired:
            found.append(
                f"round {paused.rounds_paired + 1}: made while the tournament was paused "
                f"(decision {paused.seq}, never resumed)"
            )
        if cancelled is not None and made > cancelled.rounds_paired:
            found.append(
                f"round {cancelled.rounds_paired + 1}: made after the tournament was cancelled "
                f"(decision {cancelled.seq})"
            )
        self.problems += found
        self.problems += _misnamed_games(manifest)
        if found or not manifest.effects:
            return
        rounds = [
            Round(tuple(Table(g.players) for g in listed.games), listed.byes)
            for listed in manifest.rounds
        ]
        names = [name for name, _ in manifest.players]
        self.problems += decision_problems(manifest.plan, names, rounds, manifest.effects)

    def _standings(
        self, manifest: Manifest, games: list[GameVerdict], results: dict[Place, tuple[int, ...]]
    ) -> list[Standing]:
        """The standings the verified results give (every game over, every listed round's
        byes), compared with the published ones unless a result cannot be verified."""
        names = [name for name, _ in manifest.players]
        plan = manifest.plan
        counted: list[GameResult] = []
        byes: list[int] = []
        for listed in manifest.rounds:
            if listed.number > plan.rounds:
                break
            byes += listed.byes
            # Each result keeps its round and table, which a correction names.
            counted += [
                GameResult(g.players, results[_key(g)], g.round, g.table)
                for g in listed.games
                if _key(g) in results
            ]
        try:
            computed = plan.standings(names, counted, byes, manifest.effects)
        except DecisionError as error:  # not at version 1: the manifest refuses them there
            self.problems.append(f"the standings: {error.code}: {error.message}")
            return []
        if manifest.standings is None:
            return computed
        listed_places = {_key(g) for r in manifest.rounds for g in r.games}
        broken = [
            g
            for g in games
            if g.round is not None
            and g.table is not None
            and (g.round, g.table) in listed_places
            and (g.round, g.table) not in results
            and g.status == "failed"
        ]
        if broken:
            self.unchecked.append(f"the standings: {broken[0].name} has no verified result")
            return computed
        self.problems += compare_standings(manifest.standings, computed)
        return computed


def _check_game(
    manifest: Manifest, game: Listed, run: Run, verdict: Verdict
) -> tuple[tuple[int, ...] | None, list[str]]:
    """What is wrong with a listed game's first event and its claimed outcome; and the
    winning seats its verified log reaches (None when it is not over, or cannot be scored
    at its table)."""
    if verdict.status == "failed" and verdict.version in (None, 1):
        return None, []  # no usable first event: the log's own failure says why
    data: dict[str, Any] = run.events[0]["data"]  # the audit passed event 1
    where = game.name
    problems: list[str] = []
    place = {"id": manifest.id, "round": game.round, "table": game.table}
    if "tournament" not in data:
        problems.append(f"{where}: event 1 is not a tournament game's (no tournament field)")
    elif not same_json(data["tournament"], place):
        problems.append(
            f"{where}: event 1 places it at {_show(data['tournament'])}, not {_show(place)}"
        )
    plan, seeds = manifest.plan, manifest.seed_commitments
    if game.round <= plan.rounds and game.table <= plan.tables_per_round:
        slot = plan.slot(game.round, game.table)
        if seeds is not None and slot < len(seeds) and data["seed_commitment"] != seeds[slot]:
            problems.append(
                f"seed_commitments[{slot}]: {seeds[slot]} is not the seed commitment of "
                f"{where}, the game of its slot ({quote(str(data['seed_commitment']))})"
            )
    else:
        problems.append(
            f"{where}: the plan has no such place ({plan.rounds} rounds of "
            f"{plan.tables_per_round} tables)"
        )
    if data["game"] != manifest.game:
        problems.append(
            f"{where}: a game of {quote(str(data['game']))}, not of the tournament's "
            f"{manifest.game}"
        )
    if not same_json(data["options"], manifest.options):
        problems.append(
            f"{where}: options {_show(data['options'])} are not the tournament's "
            f"{_show(manifest.options)}"
        )
    if not same_json(data.get("clock"), manifest.clock):
        problems.append(
            f"{where}: clock {_show(data.get('clock'))} is not the tournament's "
            f"{_show(manifest.clock)}"
        )
    seats: list[Any] = data["seats"]
    if len(seats) != len(game.players):
        problems.append(
            f"{where}: {len(seats)} seats, where the table has {len(game.players)} players"
        )
    keys = manifest.everyone_keys
    for seat, (held, player) in enumerate(zip(seats, game.players, strict=False)):
        name, bot = manifest.everyone[player]
        if held.get("name") != name or held.get("bot") != bot:
            problems.append(
                f"{where}: seat {seat} is {_player(held.get('name'), held.get('bot'))}, where "
                f"the table seats player {player}, {_player(name, bot)}"
            )
        problem = _key_problem(seat, held.get("public_key"), keys[player], name)
        if problem is not None:
            problems.append(f"{where}: {problem}")
    outcome = _outcome(run, verdict)
    if outcome is not None and not same_json(outcome, game.outcome):
        claim = "no outcome" if game.outcome is None else f"the outcome {_show(game.outcome)}"
        problems.append(f"{where}: the manifest claims {claim}, but the log ends {_show(outcome)}")
    elif outcome is None and game.outcome is not None and verdict.status != "failed":
        problems.append(
            f"{where}: the manifest claims the outcome {_show(game.outcome)}, but the log is "
            "not over"
        )
    if outcome is None or len(seats) != len(game.players):
        return None, problems
    return tuple(outcome["winners"]), problems


def _key_problem(seat: int, held: Any, listed: str | None, name: str) -> str | None:
    """Why a seat's public key is not its player's listed one (None when it is): a seat
    signed by another key is moved by whoever holds that key, not by the player."""
    if held == listed:
        return None
    who = quote(name, 40)
    if listed is None:
        return f"seat {seat} has a public key, where {who} is listed with none"
    if held is None:
        return f"seat {seat} has no public key, where {who} is listed with one ({listed})"
    shown = quote(str(held), 70)
    return f"seat {seat}'s key is not {who}'s listed key ({shown}, where {listed} is listed)"


def _misnamed_games(manifest: Manifest) -> list[str]:
    """Each ``correct`` whose game id is not the id of the game the manifest lists at its
    round and table (a place it does not list is ``decision_problems``'s ``no_such_game``)."""
    listed = {_key(g): g for r in manifest.rounds for g in r.games}
    problems = []
    for decision in manifest.decisions:
        fix = decision.effect
        if not isinstance(fix, Correct):
            continue
        game = listed.get((fix.round, fix.table))
        if game is not None and game.game_id != fix.game_id:
            problems.append(
                f"decision {decision.seq} (correct): game {fix.game_id} is not the game of "
                f"round {fix.round} table {fix.table} (game {game.game_id} is)"
            )
    return problems


def _unlisted(run: Run, verdict: Verdict) -> GameVerdict:
    """A log the manifest does not list (or any log, when the manifest cannot be read)."""
    game = GameVerdict(run.game_id, None, None, (run.first, run.last), verdict)
    if verdict.status != "failed":
        return game
    return replace(game, problems=(_log_problem(game.name, verdict),))


# ----- small helpers --------------------------------------------------------------------------


def _span(run: Run) -> str:
    if run.first == run.last:
        return f"line {run.first} holds"
    return f"lines {run.first}-{run.last} hold"


def _key(game: Listed) -> tuple[int, int]:
    return game.round, game.table


def _log_problem(name: str, verdict: Verdict) -> str:
    where = "" if verdict.version is None else f"v{verdict.version}: "
    return f"{name}: {where}{verdict.reason}"


def _outcome(run: Run, verdict: Verdict) -> dict[str, Any] | None:
    """The outcome a verified log reaches, as the rules write it: its ``game_over`` (an ok
    log ends game_over, seed_revealed, and the audit checked the rules conclude it) folded
    exactly as ``play.apply`` folds it; None unless the log is ok."""
    if verdict.status != "ok":
        return None
    over = run.events[-2]
    assert over["type"] == GAME_OVER
    return Outcome.from_json(over["data"]).to_json()


def _show(value: Any) -> str:
    return quote(canonical_json(value))


def _player(name: Any, bot: Any) -> str:
    who = "a person" if bot is None else f"bot {quote(str(bot), 20)}"
    return f"{quote(str(name), 40)} ({who})"
