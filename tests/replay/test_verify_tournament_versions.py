"""``floe replay verify`` on tournaments of each rules version, and on the director's decisions.

An export made before tournament rules versions existed (no ``rules_version`` in its manifest)
is audited with rules version 1, the rules it was run with, and verifies as it did; one of
version 2 names its version, its tie-breaks and its decisions, and is audited with them. A
decision dropped, changed or moved fails the audit wherever it changed something.

The exports are real (``tournament_exports``); each tampering changes one thing, as a forger
would, renumbering the decisions and recomputing the standings where that hides the rest.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from domain.tournament.export import MANIFEST_FIELDS
from domain.tournament.standings import DEFAULT_TIEBREAKS
from replay.tournament import TournamentVerdict, audit_tournament
from tests.support.replay_cli import floe
from tests.support.tournament_exports import Export, Player, build, claimed_crosstable

NAMES: list[Player] = ["Ada", "Bo", "Cy", "Di", ("Ed", "random")]
FIELD: list[Player] = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", ("Gus", "random")]
#: Made with 1 round paired: Cy withdraws, Hal enters (player 7), a pause and its resume; with
#: 2 paired: round 1 table 1 corrected to nobody winning (the builder names the game by its id).
DECISIONS: dict[int, list[dict[str, Any]]] = {
    1: [
        {"decision": "withdraw", "player": 2, "reason": "Ill."},
        {"decision": "enter", "name": "Hal", "reason": "Came late."},
        {"decision": "pause", "reason": "Lunch."},
        {"decision": "resume", "reason": "After lunch."},
    ],
    2: [{"decision": "correct", "round": 1, "table": 1, "winners": [], "reason": "Misread."}],
}
#: sha256 of each old-style export's lines (joined by newlines), as commit 1b50e23's
#: ``tests/support/tournament_exports.build`` made them with commit 1b50e23's domain: the
#: builder at rules version 1 writes the very bytes the service exported before versions
#: (its bot seats moving as people, as that builder played them: ``bots_as_people``).
OLD_EXPORTS = {
    "swiss": "5d395eef2596282a9bfd338f6e146c1a7ac5d00dfddbe99c58ba231085b6a811",
    "swiss-3": "5809b4488cbccd95b44ec9de18c0ed5fac141a1c547c28186276b117756482b8",
    "round-robin": "d613b935719032b5ef26e5e4d8479945e9e32638d8acfd6cf2ce308690c1e443",
}
#: The manifest fields of every export before versions (and ``clock`` with one).
OLD_FIELDS = set(MANIFEST_FIELDS)


@cache
def old(kind: str) -> Export:
    """The exports of ``test_verify_tournament``'s honest tournaments, at rules version 1."""
    if kind == "swiss":
        return build("iceberg", "swiss", NAMES, rounds=3, rules_version="1", bots_as_people=True)
    if kind == "swiss-3":
        players: list[Player] = ["Ada", "Bo", "Cy", "Di", "Ed", ("Flo", "greedy"), "Gus"]
        options = {"turn_limit": 60}
        return build(
            "arktia",
            "swiss",
            players,
            table_size=3,
            rounds=3,
            options=options,
            seed=1,
            rules_version="1",
            bots_as_people=True,
        )
    five = ["Ada", "Bo", "Cy", "Di", "Ed"]
    return build("arktia", "round_robin", five, seed=2, rules_version="1")


@cache
def directed() -> Export:
    """Iceberg at rules version 2: 7 players (up to 8), 4 rounds, with ``DECISIONS``."""
    return build("iceberg", "swiss", FIELD, rounds=4, max_players=8, seed=5, decisions=DECISIONS)


@cache
def cancelled() -> Export:
    """Iceberg at rules version 2, cancelled once 2 of its 4 rounds are over."""
    decisions = {2: [{"decision": "cancel", "reason": "The venue closed."}]}
    return build("iceberg", "swiss", FIELD, rounds=4, seed=6, decisions=decisions)


def audit(export: Export) -> TournamentVerdict:
    """The old exports' bots moved as people (their pinned bytes): audited without bot replay."""
    return audit_tournament(export.lines(), file="t.ndjson", bot_replay=export.bots_replayable)


def failed(export: Export) -> TournamentVerdict:
    verdict = audit(export)
    assert verdict.status == "failed", verdict
    return verdict


def decisions_of(export: Export) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = export.manifest["decisions"]
    return found


def renumber(export: Export) -> None:
    """Number the decisions 1, 2, ... in their order, as a careful forger would."""
    for seq, decision in enumerate(decisions_of(export), start=1):
        decision["seq"] = seq


# ----- rules version 1: the exports made before versions ---------------------------------------


@pytest.mark.parametrize("kind", sorted(OLD_EXPORTS))
def test_an_export_made_before_versions_verifies_with_version_1(kind: str) -> None:
    export = old(kind)
    assert set(export.manifest) == OLD_FIELDS
    digest = hashlib.sha256("\n".join(export.lines()).encode()).hexdigest()
    assert digest == OLD_EXPORTS[kind], "not the bytes the service exported before versions"
    verdict = audit(export)
    # Made before rosters were committed too: ok, its roster noted as not checked.
    assert (verdict.status, verdict.problems) == ("ok", ())
    assert verdict.unchecked == (
        "roster not committed (tournament made before rosters were committed)",
    )
    assert (verdict.rules_version, verdict.tiebreaks) == ("1", ())
    published = [(s["player"], s["points"], s["buchholz"]) for s in export.manifest["standings"]]
    recomputed = [(s.player, str(s.points), str(s.buchholz)) for s in verdict.standings]
    assert recomputed == published


@pytest.mark.processes
def test_an_old_export_verifies_ok_through_the_cli(tmp_path: Path) -> None:
    path = old("swiss").write(tmp_path / "old.ndjson")
    result = floe("verify", "--no-bot-replay", str(path))  # its bots moved as people
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "1 ok, 0 incomplete, 0 failed"


def test_an_old_export_read_with_the_new_rules_would_fail() -> None:
    """What versions prevent: the same tournament audited with version 2's rules."""
    export = old("swiss").copy()
    export.manifest["rules_version"] = "2"
    verdict = failed(export)
    assert any(p.startswith("round 2: tables ") for p in verdict.problems), verdict.problems
    assert any(p.startswith("standing ") for p in verdict.problems), verdict.problems


def test_an_old_tournament_may_be_paused_resumed_and_cancelled() -> None:
    """A version 1 tournament running across the deploy takes the service's new decisions;
    cancelled, it is complete with the rounds it had."""
    decisions = {
        1: [{"decision": "pause", "reason": "Lunch."}, {"decision": "resume", "reason": "Back."}],
        2: [{"decision": "cancel", "reason": "Closed."}],
    }
    export = build("iceberg", "swiss", NAMES, rounds=4, rules_version="1", decisions=decisions)
    assert "rules_version" not in export.manifest and len(export.manifest["rounds"]) == 2
    verdict = audit(export)
    assert (verdict.status, verdict.problems, verdict.cancelled) == ("ok", (), True)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda m: m.update(tiebreaks=["buchholz"]),
            "line 1: tiebreaks: rules version 1 orders by points, Buchholz, name",
        ),
        (
            lambda m: m.update(max_players=9),
            "line 1: max_players: rules version 1 takes no late entries",
        ),
        (
            lambda m: m.update(
                decisions=[
                    {
                        "decision": "withdraw",
                        "player": 1,
                        "rounds_paired": 1,
                        "seq": 1,
                        "at": "2026-11-24T02:00:00Z",
                        "reason": "Ill.",
                    }
                ]
            ),
            "line 1: decisions[0]: a tournament of rules version 1 takes no withdraw decision",
        ),
        (
            lambda m: m["standings"][0].update(place="1"),
            "line 1: standing 1: not exactly the fields of the format (missing: none; extra: place)",
        ),
    ],
)
def test_version_1_has_none_of_version_2s_fields(
    change: Callable[[dict[str, Any]], None], problem: str
) -> None:
    export = old("swiss").copy()
    change(export.manifest)
    assert failed(export).problems == (problem,)


@pytest.mark.slow  # a family of whole-tournament audits
@pytest.mark.parametrize(
    ("version", "problem"),
    [
        (
            "3",
            "line 1: rules_version: unknown tournament rules version 3 (this verifier knows 1, 2)",
        ),
        (2, "line 1: rules_version: not a string but a number"),
    ],
)
def test_an_unknown_rules_version_fails(version: object, problem: str) -> None:
    export = directed().copy()
    export.manifest["rules_version"] = version
    verdict = failed(export)
    assert verdict.problems == (problem,)
    assert [g.round for g in verdict.games] == [None] * 12  # no manifest to place them
    assert {g.status for g in verdict.games} == {"ok"}  # but each log audited on its own


# ----- rules version 2, with decisions ---------------------------------------------------------


def test_a_directed_tournament_verifies_ok() -> None:
    export = directed()
    manifest = export.manifest
    assert (manifest["rules_version"], manifest["max_players"]) == ("2", 8)
    assert manifest["tiebreaks"] == list(DEFAULT_TIEBREAKS)
    assert [d["seq"] for d in decisions_of(export)] == [1, 2, 3, 4, 5]
    rounds = manifest["rounds"]
    seated = [{p for g in r["games"] for p in g["players"]} | set(r["byes"]) for r in rounds]
    assert 2 in seated[0] and all(2 not in s and 7 in s for s in seated[1:])
    verdict = audit(export)
    assert (verdict.status, verdict.problems, verdict.unchecked) == ("ok", (), ())
    assert verdict.rules_version == "2" and len(verdict.standings) == 8
    assert [s.place for s in verdict.standings] == [s["place"] for s in manifest["standings"]]
    table = verdict.report()
    header = ["place", "name", "points", "Buchholz", *manifest["tiebreaks"]]
    assert table[len(export.games) + 1].split() == header


@pytest.mark.processes
def test_a_directed_tournament_verifies_ok_through_the_cli(tmp_path: Path) -> None:
    path = directed().write(tmp_path / "directed.ndjson")
    result = floe("verify", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert f"{path} crosstable, from the verified games and the corrections:" in lines
    assert lines[-2].startswith(f"{path} decision 5 (correct) after round 2: game ")
    assert lines[-1] == "1 ok, 0 incomplete, 0 failed"
    verdict = json.loads(floe("verify", "--json", str(path)).stdout)
    assert [d["seq"] for d in verdict["decisions"]] == [1, 2, 3, 4, 5]
    assert len(verdict["crosstable"]) == 8


@pytest.mark.slow  # a family of whole-tournament audits
@pytest.mark.parametrize("seq", [1, 2, 3, 4, 5])
def test_a_dropped_decision_fails(seq: int) -> None:
    """Dropped, and the rest renumbered and the standings recomputed to hide it: the withdraw
    (Cy would have been paired), the entry (Hal is nobody), the pause (a resume of nothing),
    the resume (rounds made while paused), the correction (the pairings after it)."""
    export = directed().copy()
    del decisions_of(export)[seq - 1]
    renumber(export)
    if seq != 2:  # without the entry, Hal's games have a player nobody named: no standings
        export.restand()
    verdict = failed(export)
    expected = {
        1: "round 2: tables ",
        2: "line 1: rounds[1].",
        3: "decision 3 (resume): the tournament is not paused",
        4: "round 2: made while the tournament was paused (decision 3, never resumed)",
        5: "round 3: tables ",
    }[seq]
    assert any(p.startswith(expected) for p in verdict.problems), verdict.problems


def test_a_dropped_decision_leaves_a_gap_in_the_numbers() -> None:
    export = directed().copy()
    del decisions_of(export)[1]
    assert failed(export).problems == (
        "line 1: decisions[1].seq: 3 where 2 belongs (decisions are numbered from 1, in order)",
    )


def test_a_changed_withdrawal_fails_the_pairing() -> None:
    export = directed().copy()
    decisions_of(export)[0]["player"] = 3  # Di withdrew, not Cy
    export.restand()
    problems = failed(export).problems
    assert problems[0].startswith("round 2: tables "), problems


def test_a_changed_entry_fails_its_games_seats() -> None:
    export = directed().copy()
    decisions_of(export)[1]["name"] = "Ian"
    export.restand()
    problems = failed(export).problems
    assert any(": seat " in p and "'Ian'" not in p and "Ian" in p for p in problems), problems


def test_a_changed_correction_fails_the_pairings_and_the_standings() -> None:
    export = directed().copy()
    fix = decisions_of(export)[4]
    fix["winners"] = [0]  # as the game itself ended: the correction undone
    problems = failed(export).problems
    assert problems[0].startswith("round 3: tables "), problems  # it paired rounds 3 and 4
    assert any(p.startswith("standing ") for p in problems)  # and counts in the standings
    export.restand()  # hidden in the standings, it still paired round 3
    assert failed(export).problems[0].startswith("round 3: tables ")


def test_decisions_out_of_order_fail() -> None:
    export = directed().copy()
    listed = decisions_of(export)
    listed[0], listed[1] = listed[1], listed[0]
    assert failed(export).problems == (
        "line 1: decisions[0].seq: 2 where 1 belongs (decisions are numbered from 1, in order)",
    )
    listed.insert(2, listed.pop())  # the correction (2 rounds paired) before the pause (1)
    renumber(export)
    problems = failed(export).problems
    assert "decision 4 (pause): made with 1 rounds paired, after decision 3 made with 2" in problems


@pytest.mark.slow  # a family of whole-tournament audits
@pytest.mark.parametrize(
    ("index", "rounds_paired", "problem"),
    [
        (0, 2, "round 2: tables "),  # Cy withdrawn a round late: Cy missing from round 2
        (1, 0, "round 1: tables "),  # Hal entered a round early: Hal missing from round 1
    ],
)
def test_a_decision_moved_to_another_round_fails_the_pairing(
    index: int, rounds_paired: int, problem: str
) -> None:
    export = directed().copy()
    listed = decisions_of(export)
    moved = listed.pop(index)
    moved["rounds_paired"] = rounds_paired
    if rounds_paired > 1:
        listed.append(moved)  # kept in the order made
    else:
        listed.insert(0, moved)
    renumber(export)
    export.restand()
    problems = failed(export).problems
    assert any(p.startswith(problem) for p in problems), problems


def test_a_decision_that_could_not_have_been_taken_fails() -> None:
    export = directed().copy()
    fix = decisions_of(export)[4]
    fix["round"] = 4  # round 4 was not paired when it was made
    assert "decision 5: no_such_game: round 4 is not paired" in failed(export).problems


def test_a_correction_names_its_game_by_id_and_where_it_was_played() -> None:
    fix = decisions_of(directed())[4]
    assert fix["game_id"] == directed().listed(1, 1)["game_id"]
    assert (fix["round"], fix["table"], fix["winners"]) == (1, 1, [])


def test_a_correction_naming_another_game_fails() -> None:
    """The id tampered with (another game's, the pairings and standings untouched): the
    record no longer says which game the director corrected."""
    export = directed().copy()
    other = export.listed(2, 1)["game_id"]
    decisions_of(export)[4]["game_id"] = other
    assert failed(export).problems == (
        f"decision 5 (correct): game {other} is not the game of round 1 table 1 "
        f"(game {export.listed(1, 1)['game_id']} is)",
    )


# ----- what the verdict shows: the crosstable and the decisions ------------------------------


def test_the_report_ends_with_the_crosstable_and_the_decisions() -> None:
    export = directed()
    verdict = audit(export)
    lines = verdict.report()
    at = lines.index(str(verdict))  # the verdict on the set, then the crosstable
    assert lines[at + 1] == "t.ndjson crosstable, from the verified games and the corrections:"
    assert lines[at + 2].split() == ["player", "name", "points", "r1", "r2", "r3", "r4"]
    rows = [line.split() for line in lines[at + 3 : at + 11]]
    assert rows == [" ".join(row).split() for row in claimed_crosstable(export.manifest)]
    assert lines[at + 11].startswith("  key: W won, D shared the win")
    fixed = export.listed(1, 1)
    assert lines[at + 12 :] == [
        't.ndjson decision 1 (withdraw) after round 1: player 2 (Cy) withdrawn — "Ill."',
        't.ndjson decision 2 (enter) after round 1: player 7 (Hal) entered — "Came late."',
        't.ndjson decision 3 (pause) after round 1 — "Lunch."',
        't.ndjson decision 4 (resume) after round 1 — "After lunch."',
        f"t.ndjson decision 5 (correct) after round 2: game {fixed['game_id']}, round 1 table 1, "
        'winners: none (nobody won) — "Misread."',
    ]
    # Cy withdrawn after round 1, Hal entered then: absent from the rounds they missed.
    assert rows[2][-3:] == ["-", "-", "-"] and rows[7][3] == "-"


def test_the_crosstable_counts_the_corrected_results() -> None:
    """Round 1 table 1 ended with a winner; corrected to nobody winning, it gives both
    players a loss, marked corrected, and the points are the recomputed standings'."""
    export = directed()
    verdict = audit(export)
    fixed = export.listed(1, 1)
    assert fixed["outcome"]["winners"] != []
    for seat, player in enumerate(fixed["players"]):
        cell = verdict.crosstable[player].rounds[0]
        assert (cell.result, cell.points, cell.corrected, cell.seat) == ("lost", 0, True, seat)
        assert str(cell) == f"L {fixed['players'][1 - seat]}*"
    points = {s.player: s.points for s in verdict.standings}
    assert {row.player: row.points for row in verdict.crosstable} == points


def test_a_correction_wins_over_the_log_in_the_crosstable_only_when_recorded() -> None:
    """Without the correction (dropped, and the rest hidden), the game counts as it ended."""
    export = directed().copy()
    del decisions_of(export)[4]
    verdict = audit(export)
    fixed = export.listed(1, 1)
    winner = fixed["players"][fixed["outcome"]["winners"][0]]
    assert verdict.crosstable[winner].rounds[0].result == "won"
    assert not any(c.corrected for row in verdict.crosstable for c in row.rounds)


def test_the_json_verdict_lists_the_decisions_and_the_crosstable() -> None:
    export = directed()
    found = audit(export).to_json()
    assert found["decisions"] == decisions_of(export)  # as recorded
    assert list(found)[:11] == [
        "file",
        "tournament_id",
        "status",
        "reason",
        "rounds",
        "planned_rounds",
        "cancelled",
        "rules_version",
        "games",
        "problems",
        "unchecked",
    ]
    assert list(found)[11:] == ["standings", "crosstable", "decisions", "unsigned_players"]
    rows = found["crosstable"]
    assert [row["name"] for row in rows] == ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    assert [row["points"] for row in rows] == [
        row[2] for row in claimed_crosstable(export.manifest)
    ]
    hal = rows[7]["rounds"]
    assert hal[0] == {
        "round": 1,
        "game_id": None,
        "table": None,
        "seat": None,
        "opponents": [],
        "result": "absent",
        "points": None,
        "corrected": False,
    }
    assert [s["place"] for s in found["standings"]] == [
        s["place"] for s in export.manifest["standings"]
    ]


def test_a_failed_manifest_has_no_crosstable_nor_decisions() -> None:
    export = directed().copy()
    export.manifest["rules_version"] = "3"
    found = failed(export).to_json()
    assert (found["crosstable"], found["decisions"], found["standings"]) == ([], [], [])


# ----- cancelled, paused, round_start ------------------------------------------------------------


def test_a_cancelled_tournament_is_ok_with_the_rounds_it_had() -> None:
    export = cancelled()
    assert len(export.manifest["rounds"]) == 2 and export.manifest["planned_rounds"] == 4
    verdict = audit(export)
    assert (verdict.status, verdict.problems, verdict.cancelled) == ("ok", (), True)
    assert str(verdict).endswith("ok (6 games, 2 of 4 rounds, cancelled)")
    assert verdict.to_json()["cancelled"] is True


def test_a_round_made_after_the_cancel_fails() -> None:
    export = cancelled().copy()
    decisions_of(export)[0]["rounds_paired"] = 1
    problems = failed(export).problems
    assert "round 2: made after the tournament was cancelled (decision 1)" in problems


def test_a_dropped_cancel_leaves_a_tournament_not_yet_over() -> None:
    """Without its cancel the export reads as one taken mid-way: incomplete, never ok."""
    export = cancelled().copy()
    del export.manifest["decisions"]
    verdict = audit(export)
    assert (verdict.status, verdict.reason) == ("incomplete", "2 rounds not yet made")


def test_a_decision_after_the_cancel_fails() -> None:
    export = cancelled().copy()
    later = {**decisions_of(export)[0], "decision": "pause", "seq": 2, "reason": "Why not."}
    decisions_of(export).append(later)
    problems = failed(export).problems
    assert problems == ("decision 2 (pause): made after the tournament was cancelled (decision 1)",)


@pytest.mark.slow  # a family of whole-tournament audits
@pytest.mark.parametrize("start", ["manual", {"after_s": 300}, "auto"])
def test_round_start_is_recorded(start: object) -> None:
    export = directed().copy()
    export.manifest["round_start"] = copy.deepcopy(start)
    assert audit(export).status == "ok"


MALFORMED: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "round-start": (
        lambda m: m.update(round_start={"after_s": 0}),
        'line 1: round_start: not "auto", "manual" nor {"after_s": N} with N whole seconds, 1 to 86400',
    ),
    "kind": (
        lambda m: m["decisions"][2].update(decision="forfeit"),
        "line 1: decisions[2].decision: forfeit is none of withdraw, enter, correct, pause, resume, cancel",
    ),
    "at": (
        lambda m: m["decisions"][2].update(at="after lunch"),
        "line 1: decisions[2].at: after lunch is not a time (2026-05-02T12:00:00Z)",
    ),
    "reason": (
        lambda m: m["decisions"][3].update(reason=" "),
        "line 1: decisions[3].reason: not a non-blank string of at most 500 characters",
    ),
    "pause-field": (
        lambda m: m["decisions"][2].update(player=1),
        "line 1: decisions[2]: not exactly the fields of the format (missing: none; extra: player)",
    ),
    "withdraw-field": (
        lambda m: m["decisions"][0].pop("player"),
        "line 1: decisions[0]: missing_field: withdraw needs the field 'player'",
    ),
    "tiebreak-name": (
        lambda m: m.update(tiebreaks=["coin_toss"]),
        "line 1: tiebreaks: 'coin_toss' is none of buchholz, buchholz_cut1, median_buchholz, sonneborn_berger, direct_encounter, wins",
    ),
    "standing-tiebreaks": (
        lambda m: m["standings"][1]["tiebreaks"].pop("wins"),
        "line 1: standing 2: tiebreaks: not the tournament's tie-breaks (buchholz_cut1, sonneborn_berger, direct_encounter, wins)",
    ),
    "standing-place": (
        lambda m: m["standings"][1].update(place="second"),
        'line 1: standing 2: place: second is not a place ("3", or "3-4")',
    ),
}


@pytest.mark.slow  # a family of whole-tournament audits
@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_a_malformed_version_2_manifest_fails_on_line_1(kind: str) -> None:
    change, reason = MALFORMED[kind]
    export = directed().copy()
    change(export.manifest)
    verdict = failed(export)
    assert verdict.problems == (reason,)


def test_a_forged_tiebreak_or_place_fails_its_standing() -> None:
    export = directed().copy()
    row = export.manifest["standings"][2]
    row["tiebreaks"]["wins"] = "9"
    [problem] = failed(export).problems
    assert problem.startswith(f"standing 3: {row['name']} (player {row['player']}) with points")
    assert " 9, " not in problem and problem.count("tie-breaks") == 2
    export = directed().copy()
    export.manifest["standings"][0]["place"] = "1-2"
    assert failed(export).problems[0].startswith("standing 1: ")
