"""The tournament audit with players' keys: the roster commitment is recomputed with each
listed player's public key, and every game's seat must carry its player's key (listed, or
given by their ``enter`` decision) and no other. A forger who holds the seed and re-plays a
player's games with a key of their own is named: by the roster, or by the seat.

The exports are real (``tournament_exports``: every keyed move signed, as the service stores
it); each tampering below is a forger's, re-signing what they can (their own key's moves, the
hash chains).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from domain.engine.signing import action_message
from domain.tournament import roster_commitment
from replay.ed25519 import new_private_key, public_key_of, sign
from replay.tournament import TournamentVerdict, audit_tournament
from tests.support.replay_cli import rechain
from tests.support.tournament_exports import Export, Player, build

NAMES: list[Player] = ["Ada", "Bo", "Cy", "Di", ("Ed", "random")]
#: Ada (0), Bo (1) and Di (3) sign; Cy signs nothing, and Ed is a bot.
PRIVATE = {0: new_private_key(), 1: new_private_key(), 3: new_private_key()}
PUBLIC = {player: public_key_of(key) for player, key in PRIVATE.items()}
#: A forger's own key.
FORGER = new_private_key()
#: The late entrant's key.
EVE = new_private_key()
EVE_PUBLIC = public_key_of(EVE)


@cache
def keyed() -> Export:
    """Iceberg, 5 players at tables of 2, 3 rounds; three of them sign."""
    return build("iceberg", "swiss", NAMES, rounds=3, private_keys=PRIVATE)


@cache
def late() -> Export:
    """Arktia, 3 players and one entered after round 1 with her key (player 3, Eve)."""
    entry = {"decision": "enter", "name": "Eve", "reason": "late", "public_key": EVE_PUBLIC}
    return build(
        "arktia",
        "swiss",
        ["Ada", "Bo", "Cy"],
        rounds=2,
        max_players=4,
        options={"turn_limit": 30},
        decisions={1: [entry]},
        private_keys={3: EVE},
        seed=4,
    )


def audit(export: Export) -> TournamentVerdict:
    return audit_tournament(export.lines(), file="t.ndjson")


def failed(export: Export) -> TournamentVerdict:
    verdict = audit(export)
    assert verdict.status == "failed", verdict.report()
    return verdict


def name(export: Export, round_: int, table: int) -> str:
    return f"round {round_} table {table} (game {export.listed(round_, table)['game_id']})"


def games_of(export: Export, player: int) -> list[tuple[int, int, int]]:
    """Every (round, table, seat) where ``player`` sat."""
    return [
        (round_["round"], game["table"], game["players"].index(player))
        for round_ in export.manifest["rounds"]
        for game in round_["games"]
        if player in game["players"]
    ]


def replay_as(export: Export, round_: int, table: int, seat: int, private_key: str) -> None:
    """The forger's copy of a game: ``seat`` holds ``private_key``'s public key, every move
    of that seat signed with it, the chain re-hashed. The moves are the same; only who could
    have made them changes."""
    index = export.index(round_, table)
    log = [dict(event, data=dict(event["data"])) for event in export.games[index]]
    seats: list[dict[str, Any]] = [dict(s) for s in log[0]["data"]["seats"]]
    seats[seat]["public_key"] = public_key_of(private_key)
    log[0]["data"]["seats"] = seats
    game_id = log[0]["game_id"]
    for event in log:
        if event["actor"] == seat and "action" in event["data"]:
            message = action_message(game_id, event["version"] - 1, event["data"]["action"])
            event["data"]["signature"] = sign(private_key, message)
    export.games[index] = rechain(log)


def roster_problem(export: Export, listed: list[tuple[str, str | None, str | None]]) -> str:
    committed = export.manifest["roster_commitment"]
    return (
        "roster: the players listed (names, bots and public keys) are not the ones committed "
        f"at creation (roster_commitment {committed}; the players listed give "
        f"{roster_commitment(listed)})"
    )


def listed_roster(export: Export) -> list[tuple[str, str | None, str | None]]:
    return [(p["name"], p["bot"], p.get("public_key")) for p in export.manifest["players"]]


# ----- honest ---------------------------------------------------------------------------------


def test_a_tournament_of_signing_players_verifies_ok() -> None:
    export = keyed()
    players = export.manifest["players"]
    assert [p.get("public_key") for p in players] == [PUBLIC[0], PUBLIC[1], None, PUBLIC[3], None]
    assert "public_key" not in players[2] and "public_key" not in players[4]
    assert export.manifest["roster_commitment"] == roster_commitment(listed_roster(export))
    # Every seat carries its player's key; every keyed move is signed.
    for round_, table, seat in games_of(export, 0):
        log = export.log(round_, table)
        assert log[0]["data"]["seats"][seat]["public_key"] == PUBLIC[0]
        moves = [e for e in log if e["actor"] == seat and "action" in e["data"]]
        assert moves and all("signature" in e["data"] for e in moves)
    verdict = audit(export)
    assert (verdict.status, verdict.problems, verdict.unchecked) == ("ok", (), ())


def test_a_late_entrants_key_is_their_enter_decisions() -> None:
    export = late()
    [entry] = export.manifest["decisions"]
    assert entry["public_key"] == EVE_PUBLIC and entry["player"] == 3
    assert all("public_key" not in p for p in export.manifest["players"])
    [(round_, table, seat)] = games_of(export, 3)
    assert export.log(round_, table)[0]["data"]["seats"][seat]["public_key"] == EVE_PUBLIC
    verdict = audit(export)
    assert (verdict.status, verdict.problems) == ("ok", ())


# ----- forged ---------------------------------------------------------------------------------


def test_a_listed_key_swapped_fails_the_roster_and_the_seats() -> None:
    """Ada's key swapped for the forger's in the manifest only: the roster no longer gives
    its commitment, and every game of hers still seats her real key."""
    export = keyed().copy()
    export.manifest["players"][0]["public_key"] = public_key_of(FORGER)
    problems = failed(export).problems
    assert problems[0] == roster_problem(export, listed_roster(export))
    seats = [
        f"{name(export, r, t)}: seat {s}'s key is not Ada's listed key ({PUBLIC[0]}, where "
        f"{public_key_of(FORGER)} is listed)"
        for r, t, s in games_of(export, 0)
    ]
    assert list(problems[1:]) == seats


def test_a_player_replayed_with_the_forgers_key_everywhere_fails_the_roster_alone() -> None:
    """The host's rewrite made consistent: Ada's listed key and her seat in every game of
    hers are the forger's, every move of hers re-signed with it, every chain re-hashed. Each
    log verifies on its own; the roster committed at creation is what names the forgery."""
    export = keyed().copy()
    export.manifest["players"][0]["public_key"] = public_key_of(FORGER)
    for round_, table, seat in games_of(export, 0):
        replay_as(export, round_, table, seat, FORGER)
    verdict = failed(export)
    assert verdict.problems == (roster_problem(export, listed_roster(export)),)
    assert all(g.status == "ok" for g in verdict.games)


def test_a_game_whose_seat_key_is_not_the_listed_players_fails_naming_the_seat() -> None:
    """One game of Bo's re-played under the forger's key: its log verifies (signed, chained),
    but its seat is not Bo's listed key, and the audit says which seat of which game."""
    export = keyed().copy()
    round_, table, seat = games_of(export, 1)[1]
    replay_as(export, round_, table, seat, FORGER)
    verdict = failed(export)
    assert verdict.problems == (
        f"{name(export, round_, table)}: seat {seat}'s key is not Bo's listed key "
        f"({public_key_of(FORGER)}, where {PUBLIC[1]} is listed)",
    )
    assert all(g.verdict.status == "ok" for g in verdict.games), "each log verifies on its own"


def test_a_key_given_to_an_unkeyed_seat_or_dropped_from_a_keyed_one_fails() -> None:
    export = keyed().copy()
    round_, table, seat = games_of(export, 2)[0]  # Cy, who signs nothing
    replay_as(export, round_, table, seat, FORGER)
    where = name(export, round_, table)
    problem = f"{where}: seat {seat} has a public key, where Cy is listed with none"
    assert failed(export).problems == (problem,)

    dropped = keyed().copy()
    round_, table, seat = games_of(dropped, 3)[0]  # Di, whose moves are signed
    index = dropped.index(round_, table)
    log = [dict(event, data=dict(event["data"])) for event in dropped.games[index]]
    log[0]["data"]["seats"] = [dict(s) for s in log[0]["data"]["seats"]]
    del log[0]["data"]["seats"][seat]["public_key"]
    for event in log:
        event["data"].pop("signature", None)
    dropped.games[index] = rechain(log)
    where = name(dropped, round_, table)
    problem = f"{where}: seat {seat} has no public key, where Di is listed with one ({PUBLIC[3]})"
    assert problem in failed(dropped).problems


def test_a_late_entrants_key_replaced_in_their_decision_fails_their_seat() -> None:
    export = late().copy()
    export.manifest["decisions"][0]["public_key"] = public_key_of(FORGER)
    [(round_, table, seat)] = games_of(export, 3)
    assert failed(export).problems == (
        f"{name(export, round_, table)}: seat {seat}'s key is not Eve's listed key "
        f"({EVE_PUBLIC}, where {public_key_of(FORGER)} is listed)",
    )


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("AB" * 32, "is not a public key (64 lowercase hex digits)"),
        ("ab" * 31, "is not a public key (64 lowercase hex digits)"),
        (None, "null is not a public key (64 lowercase hex digits)"),
        (7, "a number is not a public key (64 lowercase hex digits)"),
    ],
)
def test_a_malformed_listed_key_is_a_problem_of_line_1(key: Any, why: str) -> None:
    export = keyed().copy()
    export.manifest["players"][0]["public_key"] = key
    [problem] = failed(export).problems
    assert problem.startswith("line 1: players[0].public_key: ") and problem.endswith(why)


def test_a_bot_listed_with_a_key_is_a_problem_of_line_1() -> None:
    export = keyed().copy()
    export.manifest["players"][4]["public_key"] = public_key_of(FORGER)
    [problem] = failed(export).problems
    assert problem == "line 1: players[4].public_key: a bot signs nothing: it has no public key"
