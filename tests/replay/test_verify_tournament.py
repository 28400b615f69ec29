"""``floe replay verify`` on a tournament export: honest tournaments verify ``ok`` (or
``incomplete`` while they are played), and every kind of tampering fails, saying where.

The exports are real (``tournament_exports``: every game played through the domain, sealed,
its seed revealed at its end); each tampering below changes one thing, as a forger would,
re-signing game logs (``rechain``) and recomputing the standings where that hides the rest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from domain.tournament import roster_commitment
from replay.tournament import TournamentVerdict, audit_tournament
from tests.support.reference_games import read_jsonl
from tests.support.replay_cli import floe, rechain, reference
from tests.support.tournament_exports import Export, Player, build, claimed_crosstable

NAMES: list[Player] = ["Ada", "Bo", "Cy", "Di", ("Ed", "random")]
#: The player of ``NAMES`` who is a bot.
BOT = 4
#: What the verdict notes of a manifest without a roster commitment.
NOT_COMMITTED = "roster not committed (tournament made before rosters were committed)"


@cache
def swiss() -> Export:
    """Iceberg, 5 players at tables of 2 (a bye each round), 3 rounds."""
    return build("iceberg", "swiss", NAMES, rounds=3)


@cache
def swiss_of_three() -> Export:
    """Arktia, 7 players at tables of 3 (a bye each round), 3 rounds, with options."""
    players: list[Player] = ["Ada", "Bo", "Cy", "Di", "Ed", ("Flo", "greedy"), "Gus"]
    return build(
        "arktia", "swiss", players, table_size=3, rounds=3, options={"turn_limit": 60}, seed=1
    )


@cache
def round_robin() -> Export:
    """Arktia, 5 players: every pair once, 5 rounds of 2 tables and a bye."""
    return build("arktia", "round_robin", ["Ada", "Bo", "Cy", "Di", "Ed"], seed=2)


@cache
def old_swiss() -> Export:
    """``swiss()`` as the service exported it before rules versions: rules version 1, no
    ``rules_version`` in the manifest."""
    return build("iceberg", "swiss", NAMES, rounds=3, rules_version="1")


@cache
def old_swiss_of_three() -> Export:
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
    )


@cache
def old_round_robin() -> Export:
    names = ["Ada", "Bo", "Cy", "Di", "Ed"]
    return build("arktia", "round_robin", names, seed=2, rules_version="1")


HONEST: dict[str, Callable[[], Export]] = {
    "swiss-2": swiss,
    "swiss-3": swiss_of_three,
    "round-robin": round_robin,
    "swiss-2-v1": old_swiss,
    "swiss-3-v1": old_swiss_of_three,
    "round-robin-v1": old_round_robin,
}


def audit(export: Export) -> TournamentVerdict:
    return audit_tournament(export.lines(), file="t.ndjson")


def name(export: Export, round_: int, table: int) -> str:
    return f"round {round_} table {table} (game {export.listed(round_, table)['game_id']})"


def resign(
    export: Export, round_: int, table: int, change: Callable[[dict[str, Any]], None]
) -> None:
    """Change event 1's data of a game and re-sign its whole log, as a careful forger would."""
    index = export.index(round_, table)
    log = export.games[index]
    change(log[0]["data"])
    export.games[index] = rechain(log)


def seat_as(export: Export, data: dict[str, Any], seat: int, player: int) -> None:
    """Give ``seat`` of a game's event 1 the name and bot of ``player``."""
    listed = export.manifest["players"][player]
    data["seats"][seat] = {"seat": seat, "name": listed["name"], "bot": listed["bot"]}


def crosstable_block(export: Export, path: Path) -> list[list[str]]:
    """The crosstable as the CLI prints it after the verdict (each line split on spaces):
    its title, the header, a row per player and the key."""
    rows = claimed_crosstable(export.manifest)
    rounds = [f"r{n}" for n in range(1, len(rows[0]) - 2)]
    return [
        f"{path} crosstable, from the verified games and the corrections:".split(),
        ["player", "name", "points", *rounds],
        *(" ".join(row).split() for row in rows),
    ]


def standings_rows(export: Export) -> list[list[str]]:
    """The published standings as the CLI's table shows them: place (shared, at version 2),
    name, points, Buchholz, and each tie-break (version 2)."""
    tiebreaks = export.manifest.get("tiebreaks", [])
    return [
        [s.get("place", str(place)), s["name"], s["points"], s["buchholz"]]
        + [s["tiebreaks"][t] for t in tiebreaks]
        for place, s in enumerate(export.manifest["standings"], start=1)
    ]


# ----- honest tournaments -------------------------------------------------------------------


@pytest.mark.processes
@pytest.mark.parametrize("kind", sorted(HONEST))
def test_an_honest_tournament_verifies_ok_through_the_cli(tmp_path: Path, kind: str) -> None:
    export = HONEST[kind]()
    manifest = export.manifest
    if manifest["format"] == "swiss":
        assert all(r["byes"] for r in manifest["rounds"]), "every round has a bye"
    path = export.write(tmp_path / f"{kind}.ndjson")
    result = floe("verify", str(path))
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    games = [(r["round"], g["table"]) for r in manifest["rounds"] for g in r["games"]]
    for line, (round_, table), log in zip(lines, games, export.games, strict=False):
        assert line == f"{path} {name(export, round_, table)}: ok ({len(log)} events)"
    at = len(games)
    assert lines[at] == f"{path} standings, recomputed from the verified games:"
    tiebreaks = manifest.get("tiebreaks", [])
    assert lines[at + 1].split() == ["place", "name", "points", "Buchholz", *tiebreaks]
    players = len(manifest["players"])
    shown = [line.split() for line in lines[at + 2 : at + 2 + players]]
    assert shown == standings_rows(export)
    rounds = manifest["planned_rounds"]
    at += 2 + players
    if "roster_commitment" not in manifest:  # made before rosters were committed
        assert lines[at] == f"{path} not checked: {NOT_COMMITTED}"
        at += 1
    assert lines[at].endswith(" unsigned: their moves rest on the host's word")  # no one has a key
    at += 1
    verdict = f"{path} (tournament {manifest['id']}): ok ({len(games)} games, {rounds} of {rounds} rounds)"
    assert lines[at] == verdict
    # Then the crosstable (the results' cells, opponents by number) and its key; no decisions.
    shown = [line.split() for line in lines[at + 1 : at + 3 + players]]
    assert shown == crosstable_block(export, path)
    assert lines[at + 3 + players :] == [
        "  key: W won, D shared the win, L lost (or nobody won), against the players numbered; "
        "? no verified result; * corrected; - not in the round",
        "1 ok, 0 incomplete, 0 failed",
    ]


@pytest.mark.processes
def test_json_gives_one_object_for_the_tournament(tmp_path: Path) -> None:
    export = swiss()
    path = export.write(tmp_path / "swiss.ndjson")
    single = reference("iceberg-2p")
    result = floe("verify", "--json", str(path), str(single))
    assert result.returncode == 0, result.stdout + result.stderr
    tournament, game = (json.loads(line) for line in result.stdout.splitlines())
    assert game["file"] == str(single) and game["status"] == "ok"
    assert tournament["file"] == str(path)
    assert tournament["tournament_id"] == export.manifest["id"]
    assert (tournament["status"], tournament["problems"], tournament["unchecked"]) == ("ok", [], [])
    assert (tournament["rounds"], tournament["planned_rounds"]) == (3, 3)
    assert [g["game_id"] for g in tournament["games"]] == [g[0]["game_id"] for g in export.games]
    assert {g["status"] for g in tournament["games"]} == {"ok"}
    first = tournament["games"][0]
    assert (first["round"], first["table"], first["lines"]) == (1, 1, [2, len(export.games[0]) + 1])
    standings = [{k: v for k, v in s.items() if k != "place"} for s in tournament["standings"]]
    published = [{k: v for k, v in s.items() if k != "place"} for s in export.manifest["standings"]]
    assert standings == published
    assert (tournament["rules_version"], tournament["cancelled"]) == ("2", False)
    # At rules version 2 a place is the standings' own (shared: "3-4"), as published.
    assert [s["place"] for s in tournament["standings"]] == [
        s["place"] for s in export.manifest["standings"]
    ]
    assert tournament["decisions"] == []
    rows = tournament["crosstable"]
    assert [(r["player"], r["name"]) for r in rows] == [
        (0, "Ada"),
        (1, "Bo"),
        (2, "Cy"),
        (3, "Di"),
        (4, "Ed"),
    ]
    assert [r["points"] for r in rows] == [row[2] for row in claimed_crosstable(export.manifest)]
    first = export.listed(1, 1)
    cell = rows[first["players"][0]]["rounds"][0]
    assert cell == {
        "round": 1,
        "game_id": first["game_id"],
        "table": 1,
        "seat": 0,
        "opponents": first["players"][1:],
        "result": "won" if first["outcome"]["winners"] == [0] else "lost",
        "points": "1" if first["outcome"]["winners"] == [0] else "0",
        "corrected": False,
    }
    assert {c["result"] for r in rows for c in r["rounds"]} <= {"won", "lost", "shared", "bye"}


def test_a_version_1_export_numbers_its_json_places() -> None:
    """What version 1 wrote before places could be shared: the row's number."""
    places = [s["place"] for s in audit(old_swiss()).to_json()["standings"]]
    assert places == [1, 2, 3, 4, 5]
    export = build("iceberg", "swiss", ["Ada", "Bo", "Cy", "Di"], rounds=1)
    places = [s["place"] for s in audit(export).to_json()["standings"]]
    assert places == ["1-2", "1-2", "3-4", "3-4"]  # two winners, two losers: equal pairs


@pytest.mark.processes
def test_an_export_taken_while_games_are_played_is_incomplete(tmp_path: Path) -> None:
    export = build("iceberg", "swiss", NAMES, rounds=3, unfinished=1, seed=3)
    assert export.listed(3, 2)["outcome"] is None
    path = export.write(tmp_path / "partial.ndjson")
    result = floe("verify", str(path))
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    assert lines[5] == f"{path} {name(export, 3, 2)}: incomplete ({len(export.log(3, 2))} events)"
    assert lines[14] == (
        f"{path} (tournament {export.manifest['id']}): incomplete: 1 game not over "
        "(6 games, 3 of 3 rounds)"
    )
    assert lines[-1] == "0 ok, 1 incomplete, 0 failed"
    shown = [line.split() for line in lines[8:13]]
    assert shown == standings_rows(export)  # the games over and every bye so far
    # The crosstable shows the game not over as "? <opponent>" for both its players.
    crosstable = [line.split() for line in lines[15:22]]
    assert crosstable == crosstable_block(export, path)
    waiting = export.listed(3, 2)["players"]
    assert [crosstable[2 + p][-2:] for p in waiting] == [
        ["?", str(waiting[1])],
        ["?", str(waiting[0])],
    ]


def test_rounds_not_yet_made_are_incomplete() -> None:
    export = build("arktia", "round_robin", ["Ada", "Bo", "Cy", "Di"], made=2, seed=4)
    verdict = audit(export)
    assert (verdict.status, verdict.problems) == ("incomplete", ())
    assert str(verdict) == (
        f"t.ndjson (tournament {export.manifest['id']}): incomplete: 1 round not yet made "
        "(4 games, 2 of 3 rounds)"
    )


# ----- tampering ----------------------------------------------------------------------------


def failed(export: Export) -> TournamentVerdict:
    verdict = audit(export)
    assert verdict.status == "failed", verdict
    return verdict


def test_an_edited_event_breaks_the_hash_chain_of_its_game() -> None:
    export = swiss().copy()
    export.log(1, 2)[4]["at"] = "2026-11-24T01:02:04.000Z"
    verdict = failed(export)
    where = name(export, 1, 2)
    assert verdict.problems == (f"{where}: v5: the hash does not match the event",)
    game = verdict.games[1]
    assert (
        str(game)
        == f"{where}: failed at version 5: the hash does not match the event ({len(export.log(1, 2))} events)"
    )
    # Its result cannot be trusted, so what depends on it is named, not guessed at:
    assert verdict.unchecked == (
        f"the tables of round 2 and later: {where} has no verified result",
        f"the standings: {where} has no verified result",
    )


def test_a_swapped_seed_fails_its_game_at_seed_revealed() -> None:
    export = swiss().copy()
    index = export.index(2, 1)
    log = export.games[index]
    log[-1]["data"]["seed"] = "00" * 32
    export.games[index] = rechain(log)
    verdict = failed(export)
    assert verdict.problems == (
        f"{name(export, 2, 1)}: v{len(log)}: the revealed seed does not match its commitment",
    )


def test_a_forged_seed_commitment_in_the_manifest_is_named_by_its_slot() -> None:
    export = swiss().copy()
    forged = hashlib.sha256(b"another seed").hexdigest()
    real = export.manifest["seed_commitments"][3]
    export.manifest["seed_commitments"][3] = forged  # slot 3: round 2, table 2
    verdict = failed(export)
    slot = f"seed_commitments[3]: {forged} is not the seed commitment of {name(export, 2, 2)}, the game of its slot ({real})"
    assert verdict.problems[0].startswith("commitment: ")  # the commitment no longer fits
    assert verdict.problems[1:] == (slot,)
    export.manifest["commitment"] = hashlib.sha256(
        "".join(export.manifest["seed_commitments"]).encode()
    ).hexdigest()  # a careful forger commits to the forged list: the slot still gives it away
    assert failed(export).problems == (slot,)


def test_a_forged_commitment_fails() -> None:
    export = swiss().copy()
    real = export.manifest["commitment"]
    export.manifest["commitment"] = "ab" * 32
    verdict = failed(export)
    assert verdict.problems == (
        f"commitment: {'ab' * 32} is not the SHA-256 of the seed commitments ({real})",
    )


def rename(export: Export, player: int, new: str, *, in_logs: bool = False) -> None:
    """Rename a player listed at creation in the manifest's players and standings (there is
    no crosstable in it); with ``in_logs``, in the seats of every game of theirs too, each
    log re-signed, as a careful forger would."""
    listed = export.manifest["players"][player]
    old, listed["name"] = listed["name"], new
    for row in export.manifest["standings"]:
        if row["player"] == player:
            row["name"] = new
    for index, log in enumerate(export.games if in_logs else []):
        seats = log[0]["data"]["seats"]
        if any(seat["name"] == old for seat in seats):
            for seat in seats:
                seat["name"] = new if seat["name"] == old else seat["name"]
            export.games[index] = rechain(log)


def roster_problem(export: Export, forged: list[Player]) -> str:
    committed = export.manifest["roster_commitment"]
    given = roster_commitment([(p, None) if isinstance(p, str) else p for p in forged])
    return (
        "roster: the players listed (names, bots and public keys) are not the ones committed "
        f"at creation (roster_commitment {committed}; the players listed give {given})"
    )


def test_the_roster_commitment_is_of_the_players_listed_and_checked() -> None:
    export = swiss()
    assert export.manifest["roster_commitment"] == roster_commitment(
        [(p["name"], p["bot"]) for p in export.manifest["players"]]
    )
    verdict = audit(export)
    assert (verdict.status, verdict.problems, verdict.unchecked) == ("ok", (), ())


def test_a_player_renamed_everywhere_fails_the_roster_alone() -> None:
    """Renamed in the players, the standings and every seat of theirs, each log re-signed:
    consistent everywhere but with the roster committed at creation."""
    export = swiss().copy()
    rename(export, 1, "Bob", in_logs=True)
    verdict = failed(export)
    forged: list[Player] = ["Ada", "Bob", "Cy", "Di", ("Ed", "random")]
    assert verdict.problems == (roster_problem(export, forged),)
    assert all(g.status == "ok" for g in verdict.games)


def test_a_player_renamed_in_the_manifest_fails_the_roster_and_the_seats() -> None:
    export = swiss().copy()
    rename(export, 1, "Bob")
    problems = failed(export).problems
    forged: list[Player] = ["Ada", "Bob", "Cy", "Di", ("Ed", "random")]
    assert problems[0] == roster_problem(export, forged)
    # The logs still seat Bo: each of Bo's games names its seat too.
    assert problems[1:] and all(": seat " in p and "Bob (a person)" in p for p in problems[1:])


def test_a_bot_made_a_person_or_two_players_swapped_fail_the_roster() -> None:
    export = build("arktia", "round_robin", ["Ada", "Bo", ("Cy", "random")], made=0, seed=6)
    assert export.manifest["rounds"] == []  # nobody seated yet: only the roster names them
    person = export.copy()
    person.manifest["players"][2]["bot"] = None
    assert failed(person).problems == (roster_problem(person, ["Ada", "Bo", "Cy"]),)
    swapped = export.copy()
    rename(swapped, 0, "Bo")
    rename(swapped, 1, "Ada")
    forged: list[Player] = ["Bo", "Ada", ("Cy", "random")]
    assert failed(swapped).problems == (roster_problem(swapped, forged),)


def test_a_manifest_without_a_roster_commitment_is_ok_its_roster_not_checked() -> None:
    export = swiss().copy()
    del export.manifest["roster_commitment"]
    verdict = audit(export)
    assert (verdict.status, verdict.problems) == ("ok", ())
    assert verdict.unchecked == (NOT_COMMITTED,)
    assert f"t.ndjson not checked: {NOT_COMMITTED}" in verdict.report()


def test_a_malformed_roster_commitment_fails_on_line_1() -> None:
    export = swiss().copy()
    export.manifest["roster_commitment"] = "AB" * 32
    verdict = failed(export)
    assert verdict.problems == (
        f"line 1: roster_commitment: {'AB' * 32} is not 64 lowercase hex digits",
    )
    assert verdict.unchecked == ()  # committed, if malformed: no note that it was not


def test_two_players_swapped_between_tables_fail_the_pairing() -> None:
    export = swiss().copy()
    one, two = export.listed(3, 1), export.listed(3, 2)
    # Two people: a bot put in a person's seat fails its log too (bot replay: its moves are
    # not the bot's), and here only the pairing may be wrong.
    i, j = (next(i for i, p in enumerate(t["players"]) if p != BOT) for t in (one, two))
    p, q = one["players"][i], two["players"][j]
    one["players"][i], two["players"][j] = q, p
    resign(export, 3, 1, lambda data: seat_as(export, data, i, q))
    resign(export, 3, 2, lambda data: seat_as(export, data, j, p))
    export.restand()  # the standings the forged tables give: only the pairing is wrong
    verdict = failed(export)
    assert len(verdict.problems) == 1, verdict.problems
    assert verdict.problems[0].startswith("round 3: tables ")
    assert "are not the format's" in verdict.problems[0]
    assert all(g.status == "ok" for g in verdict.games)  # every log verifies on its own


def test_a_moved_bye_fails_the_pairing() -> None:
    export = swiss().copy()
    round_ = export.manifest["rounds"][2]
    [bye] = round_["byes"]
    table = export.listed(3, 1)
    seated = table["players"][1]
    round_["byes"], table["players"][1] = [seated], bye
    resign(export, 3, 1, lambda data: seat_as(export, data, 1, bye))
    export.restand()
    verdict = failed(export)
    assert len(verdict.problems) == 1, verdict.problems
    problem = verdict.problems[0]
    assert problem.startswith("round 3: tables ") and f"bye {seated} are not" in problem
    assert problem.endswith(f"bye {bye}")


def test_a_forged_standing_is_named_by_its_place() -> None:
    export = swiss().copy()
    row = export.manifest["standings"][2]
    row["points"] = "9"
    verdict = failed(export)
    assert len(verdict.problems) == 1
    assert verdict.problems[0].startswith(
        f"standing 3: {row['name']} (player {row['player']}) with points 9 and"
    )
    assert " should be " in verdict.problems[0]


def test_reordered_standings_fail_at_each_place() -> None:
    export = swiss().copy()
    table = export.manifest["standings"]
    table[0], table[1] = table[1], table[0]
    verdict = failed(export)
    assert [p.split(":")[0] for p in verdict.problems] == ["standing 1", "standing 2"]


def test_a_forged_outcome_claim_fails_its_game() -> None:
    export = swiss().copy()
    outcome = export.listed(1, 1)["outcome"]
    outcome["winners"] = [1] if outcome["winners"] == [0] else [0]
    verdict = failed(export)
    where = name(export, 1, 1)
    assert len(verdict.problems) == 1
    assert verdict.problems[0].startswith(f"{where}: the manifest claims the outcome ")
    assert "but the log ends" in verdict.problems[0]
    assert str(verdict.games[0]).startswith(f"{where}: failed: the manifest claims the outcome")
    export.restand()  # standings from the forged claim: the verified results disagree
    assert any(p.startswith("standing ") for p in failed(export).problems)


def test_a_missing_game_fails() -> None:
    export = swiss().copy()
    where = name(export, 2, 2)
    del export.games[export.index(2, 2)]
    verdict = failed(export)
    assert verdict.problems == (f"{where}: no log in the export",)
    assert str(verdict.games[3]) == f"{where}: failed: no log in the export (0 events)"


def test_an_extra_game_fails() -> None:
    export = swiss().copy()
    extra = read_jsonl(reference("iceberg-2p"))
    line = 2 + sum(len(g) for g in export.games)
    export.games.append(extra)
    verdict = failed(export)
    where = f"game {extra[0]['game_id']} (line {line})"
    assert verdict.problems == (f"{where}: a log the manifest does not list",)
    assert verdict.games[-1].status == "failed" and verdict.games[-1].verdict.status == "ok"


def test_a_game_listed_in_another_slot_fails() -> None:
    export = swiss().copy()
    one, two = export.listed(1, 1), export.listed(1, 2)
    for key in ("game_id", "outcome"):  # the manifest lists each game at the other's table
        one[key], two[key] = two[key], one[key]
    export.games[0], export.games[1] = export.games[1], export.games[0]  # in the listed order
    verdict = failed(export)
    moved = name(export, 1, 1)  # the game of table 2, now listed at table 1
    assert (
        f'{moved}: event 1 places it at {{"id":"{export.manifest["id"]}","round":1,"table":2}}, not {{"id":"{export.manifest["id"]}","round":1,"table":1}}'
        in verdict.problems
    )
    assert any(p.startswith("seed_commitments[0]: ") and moved in p for p in verdict.problems)
    assert any(p.startswith(f"{moved}: seat 0 is ") for p in verdict.problems)


def test_logs_out_of_order_fail() -> None:
    export = swiss().copy()
    first = export.line_of(1, 1)
    export.games[0], export.games[1] = export.games[1], export.games[0]
    verdict = failed(export)
    assert verdict.problems == (
        f"line {first}: the log of {name(export, 1, 2)} is where the log of "
        f"{name(export, 1, 1)} belongs (games go in round, then table order)",
    )


def test_a_game_whose_lines_are_split_fails() -> None:
    export = swiss().copy()
    revealed = export.games[0].pop()  # round 1 table 1's last line, after table 2's log
    export.games[1].append(revealed)
    verdict = failed(export)
    first, second = export.games[0], export.games[1]
    assert (
        f"game {revealed['game_id']}: line {1 + len(first) + len(second)} holds more of its "
        f"events, after other games' lines (its log is at lines 2-{1 + len(first)}): a "
        "game's lines go together"
    ) in verdict.problems
    assert verdict.games[0].verdict.status == "incomplete"  # what is left of it: no seed


def test_a_hostile_line_in_a_game_is_named_by_its_line_in_the_file() -> None:
    export = swiss().copy()
    lines = export.lines()
    number = export.line_of(2, 1) + 4  # event 5 of round 2 table 1
    lines[number - 1] = "not json"
    verdict = audit_tournament(lines)
    assert verdict.status == "failed"
    assert verdict.problems[0].startswith(f"{name(export, 2, 1)}: v5: line {number} is not JSON")


def test_a_round_made_before_the_last_was_over_fails() -> None:
    export = swiss().copy()
    index = export.index(2, 2)
    export.games[index] = export.games[index][:20]  # round 2 table 2 still in play
    export.listed(2, 2)["outcome"] = None
    export.restand()
    verdict = failed(export)
    assert verdict.problems == (
        f"round 3: made before every game of round 2 was over ({name(export, 2, 2)} is not)",
    )


MALFORMED: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "table-size-text": (
        lambda m: m.update(table_size="2"),
        "line 1: table_size: not an integer but a string",
    ),
    "no-rounds": (
        lambda m: m.update(planned_rounds=0),
        "line 1: rounds: a swiss tournament needs 1 or more rounds",
    ),
    "status-kept": (
        lambda m: m.update(status="finished"),
        "line 1: tournament: not exactly the fields of the format (missing: none; extra: status)",
    ),
    "player-fields": (
        lambda m: m["players"][1].pop("bot"),
        "line 1: players[1]: not exactly the fields of the format (missing: bot; extra: none)",
    ),
    "no-such-player": (
        lambda m: m["rounds"][1]["games"][0]["players"].__setitem__(1, 99),
        "line 1: rounds[1].games[0].players[1]: no player 99 (players are 0..4)",
    ),
    "bad-id": (
        lambda m: m.update(id="ABC"),
        "line 1: id: ABC is not 16 lowercase hex digits",
    ),
    "bad-number": (
        lambda m: m["standings"][2].update(points="4/2"),
        "line 1: standing 3: points: 4/2 is not a number as the format writes one (an integer, or a/b in lowest terms)",
    ),
}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_a_malformed_manifest_fails_on_line_1(kind: str) -> None:
    change, reason = MALFORMED[kind]
    export = swiss().copy()
    change(export.manifest)
    verdict = failed(export)
    assert verdict.problems == (reason,)
    assert [g.status for g in verdict.games] == ["ok"] * 6  # every log still gets its verdict


def test_line_1_that_is_no_manifest_fails() -> None:
    lines = swiss().lines()
    for first, reason in [
        ('{"tournament": 5}', "line 1: tournament: not an object but a number"),
        ('{"tournament": {}', "line 1: is not JSON"),
        ("", 'line 1: empty, where the {"tournament": {...}} line belongs'),
    ]:
        verdict = audit_tournament([first, *lines[1:]])
        assert verdict.status == "failed" and verdict.problems[0].startswith(reason), verdict
    assert audit_tournament([]).status == "failed"


@pytest.mark.processes
def test_the_cli_names_each_problem_and_fails(tmp_path: Path) -> None:
    export = swiss().copy()
    export.manifest["commitment"] = "ab" * 32
    MALFORMED["table-size-text"][0](export.manifest)
    path = export.write(tmp_path / "forged.ndjson")
    result = floe("verify", str(path))
    assert result.returncode == 1
    *_, problem, verdict, total = result.stdout.splitlines()
    assert problem == f"{path} problem: line 1: table_size: not an integer but a string"
    assert verdict == f"{path}: failed: 1 problem (6 games, 0 of ? rounds)"
    assert total == "0 ok, 0 incomplete, 1 failed"
