"""One event run by a director from start to end, on the real app, Redis and workers, and
its export audited: a manual start, an absent player ended by the clock, a correction that
leaves three players sharing a place, a withdrawal and a late entry between rounds, a pause,
byes, a withdrawal whose game is in play (forfeited through the game's own decision), and a
cancel. The audit of the export is ``ok``; a decision dropped, changed or reordered fails it,
and so does a player listed at creation renamed (the roster committed at creation).

No sleeps: every wait is on a condition (a game over, the tournament settled)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import redis
from flask.testing import FlaskClient

from replay.tournament import audit_tournament
from service.tournaments.store import RUNNING
from tests.support.api import bearer
from tests.support.replay_cli import rechain
from tests.support.tournament_api import (
    create,
    decide,
    document,
    events,
    people,
    play_once,
    refused,
    start_round,
    swiss,
    tokens_of,
    verify,
)
from tests.support.waiting import AT_LENGTH, wait_for, wait_until
from tests.support.workers import StartWorker

#: The absent player's bank runs out in seconds; each move a present player makes adds a
#: minute, so only the absent one can lose on time, however busy the machine.
CLOCK = {"kind": "fischer", "initial_s": 8, "increment_s": 60}


def play_out(
    client: FlaskClient,
    tournament_id: str,
    tokens: dict[int, str],
    rng: random.Random,
    *,
    absent: int | None = None,
) -> None:
    """Play the latest round's games with the present players' tokens until each one is
    over or waits on the ``absent`` player alone (their clock ends it)."""
    for _ in range(1000):
        games = document(client, tournament_id)["rounds"][-1]["games"]
        moved = False
        for game in games:
            if game["status"] != "active":
                continue
            for player in game["players"]:
                if player != absent and player in tokens:
                    moved = play_once(client, game["game_id"], tokens[player], rng) or moved
        if not moved:
            return
    raise AssertionError("the round never ended")


def over(client: FlaskClient, tournament_id: str) -> dict[str, Any]:
    """The tournament once every game of its latest round is over."""
    return wait_for(
        lambda: document(client, tournament_id),
        lambda doc: all(g["status"] == "over" for g in doc["rounds"][-1]["games"]),
        AT_LENGTH,
        "every game of the round to end",
    )


def taken(response: Any) -> dict[str, Any]:
    assert response.status_code == 201, response.get_json()
    answer: dict[str, Any] = response.get_json()
    return answer


def test_a_directed_event_plays_out_and_its_export_passes_the_audit(
    client: FlaskClient,
    redis_client: redis.Redis,
    start_worker: StartWorker,
    tmp_path: Path,
) -> None:
    rng = random.Random(24)
    plan = swiss(people(5), rounds=3, round_start="manual", max_players=6, clock=CLOCK)
    created = create(client, plan)
    tournament_id = created["id"]
    tokens = tokens_of(created)
    assert created["max_players"] == 6 and created["rules_version"] == "2"
    assert len(created["seed_commitments"]) == 3 * 3  # slots for 6 players, committed now
    start_worker()  # the clock's timer, and each round's advance

    # Round 1, started by hand: two tables and a bye; one player never shows up.
    first = taken(start_round(client, tournament_id))["rounds"][0]
    assert len(first["games"]) == 2 and len(first["byes"]) == 1
    [bye_1] = first["byes"]
    absent_game, other_game = first["games"]
    absent = absent_game["players"][1]
    play_out(client, tournament_id, tokens, rng, absent=absent)
    round_1 = over(client, tournament_id)["rounds"][0]
    [ended] = [g for g in round_1["games"] if g["game_id"] == absent_game["game_id"]]
    timeouts = [e for e in events(client, ended["game_id"]) if e["type"] == "timeout"]
    assert [e["data"]["seat"] for e in timeouts] == [1]  # the clock ended the absent seat
    assert ended["outcome"]["winners"] == [0]

    # An arbiter's ruling: the other game of round 1 counts as won by nobody. The log and
    # the outcome stay as played; standings, crosstable and pairings count the correction.
    corrected = taken(
        decide(client, tournament_id, "correct", game_id=other_game["game_id"], winners=[])
    )
    [shown] = [g for g in corrected["rounds"][0]["games"] if g["game_id"] == other_game["game_id"]]
    assert shown["correction"] == {"winners": [], "decision": 1}
    assert shown["outcome"] is not None and shown["outcome"]["winners"] != []
    zeros = {*other_game["players"], absent}
    places = {s["player"]: s["place"] for s in corrected["standings"]}
    # Equal on points and every tie-break: one shared place, never decided by name.
    assert {places[p] for p in zeros} == {"3-5"}
    assert corrected["entered"] is None

    # Between rounds: the absent player withdrawn, a latecomer entered, a pause.
    withdrawn = taken(decide(client, tournament_id, "withdraw", player=absent))
    assert withdrawn["players"][absent]["withdrawn"] is True
    refused(decide(client, tournament_id, "enter", name="p0"), 409, "name_taken")
    entered = taken(decide(client, tournament_id, "enter", name="late"))
    late = entered["entered"]["player"]
    assert late == 5 and entered["players"][late]["name"] == "late"
    # The roster committed at creation is the players listed then: an entry leaves it as it was.
    assert entered["roster_commitment"] == created["roster_commitment"]
    tokens[late] = entered["entered"]["token"]
    assert taken(decide(client, tournament_id, "pause"))["paused"] is True
    refused(start_round(client, tournament_id), 409, "tournament_paused")
    taken(decide(client, tournament_id, "resume"))
    refused(decide(client, tournament_id, "withdraw", player=absent), 409, "already_withdrawn")
    refused(decide(client, tournament_id, "enter", name="p9"), 409, "tournament_full")

    # Round 2: the latecomer plays (their own token works), the absent player does not, and
    # the bye goes to someone who had none.
    second = taken(start_round(client, tournament_id))["rounds"][1]
    seated = [p for g in second["games"] for p in g["players"]]
    assert absent not in seated and absent not in second["byes"]
    assert late in seated or second["byes"] == [late]
    assert len(second["byes"]) == 1 and second["byes"] != [bye_1]
    me = client.get(f"/v1/tournaments/{tournament_id}/me", headers=bearer(tokens[late]))
    assert me.status_code == 200 and me.get_json()["player"] == late

    # A player withdrawn mid-game: the game's own forfeit decision ends their part at once.
    leaving_game = second["games"][0]
    leaving = leaving_game["players"][0]
    taken(decide(client, tournament_id, "withdraw", player=leaving))
    forfeits = [e for e in events(client, leaving_game["game_id"]) if e["type"] == "decision"]
    assert [e["data"]["decision"] for e in forfeits] == ["forfeit"]
    assert forfeits[0]["data"]["seat"] == 0
    assert forfeits[0]["data"]["reason"] == "the director: withdraw"
    play_out(client, tournament_id, tokens, rng)
    round_2 = over(client, tournament_id)["rounds"][1]
    [forfeited] = [g for g in round_2["games"] if g["game_id"] == leaving_game["game_id"]]
    assert forfeited["outcome"]["winners"] == [1]

    # Round 3 has four players, so no bye; the organizer cancels it while it is played.
    third = taken(start_round(client, tournament_id))["rounds"][2]
    assert third["byes"] == [] and len(third["games"]) == 2
    assert {p for g in third["games"] for p in g["players"]}.isdisjoint({absent, leaving})
    taken(decide(client, tournament_id, "cancel"))
    wait_until(
        lambda: redis_client.sismember(RUNNING, tournament_id) == 0,
        AT_LENGTH,
        "every game of the cancelled tournament to end",
    )
    final = document(client, tournament_id)
    assert final["status"] == "cancelled"
    kinds = [d["decision"] for d in final["decisions"]]
    assert kinds == ["correct", "withdraw", "enter", "pause", "resume", "withdraw", "cancel"]
    assert [d["seq"] for d in final["decisions"]] == list(range(1, 8))
    assert [d["rounds_paired"] for d in final["decisions"]] == [1, 1, 1, 1, 1, 2, 3]

    # The export passes the audit; each tampering with its decisions fails it.
    export = client.get(f"/v1/tournaments/{tournament_id}/export")
    assert export.status_code == 200
    text = export.get_data(as_text=True)
    code, said = verify(tmp_path, "event.jsonl", text)
    assert code == 0, said
    assert "ok" in said
    for name, tamper in TAMPERINGS.items():
        code, said = verify(tmp_path, f"{name}.jsonl", rewrite_decisions(text, tamper))
        assert code != 0, f"{name}: {said}"
        assert "failed" in said, f"{name}: {said}"

    # A player listed at creation renamed in the manifest's players and standings (it has no
    # crosstable): the roster committed at creation no longer fits, and the audit says so.
    roster = (
        "roster: the players listed (names, bots and public keys) are not the ones committed "
        "at creation"
    )
    code, said = verify(tmp_path, "renamed.jsonl", renamed(text, 0, "impostor"))
    assert code != 0 and "failed" in said, said
    assert f"problem: {roster} (roster_commitment {created['roster_commitment']};" in said
    # Renamed in the seats of their games too, each log re-signed: only the roster catches it.
    verdict = audit_tournament(renamed(text, 0, "impostor", in_logs=True).splitlines())
    assert verdict.status == "failed"
    assert [p.split(" (roster_commitment ")[0] for p in verdict.problems] == [roster]


def renamed(text: str, player: int, name: str, *, in_logs: bool = False) -> str:
    """The export with a player listed at creation renamed in the manifest's players and
    standings; with ``in_logs``, in every seat of theirs too, each game's log re-signed, as a
    careful forger would."""
    first, *rest = text.splitlines()
    manifest = json.loads(first)["tournament"]
    old = manifest["players"][player]["name"]
    manifest["players"][player]["name"] = name
    for row in manifest["standings"]:
        if row["player"] == player:
            row["name"] = name
    games: dict[str, list[dict[str, Any]]] = {}
    for line in rest:
        event = json.loads(line)
        games.setdefault(event["game_id"], []).append(event)
    if in_logs:
        for game_id, log in games.items():
            seats = log[0]["data"]["seats"]
            if any(seat["name"] == old for seat in seats):
                for seat in seats:
                    seat["name"] = name if seat["name"] == old else seat["name"]
                games[game_id] = rechain(log)
    lines = [json.dumps({"tournament": manifest})]
    lines += [json.dumps(event) for log in games.values() for event in log]
    return "\n".join(lines) + "\n"


def rewrite_decisions(text: str, tamper: Any) -> str:
    """The export with its manifest's decisions rewritten by ``tamper`` and numbered again
    from 1, as a careful forger would."""
    first, rest = text.split("\n", 1)
    manifest = json.loads(first)
    decisions = tamper([dict(d) for d in manifest["tournament"]["decisions"]])
    for seq, decision in enumerate(decisions, start=1):
        decision["seq"] = seq
    manifest["tournament"]["decisions"] = decisions
    return json.dumps(manifest) + "\n" + rest


def _dropped(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in decisions if d["decision"] != "correct"]


def _changed(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**d, "winners": [0]} if d["decision"] == "correct" else d for d in decisions]


def _reordered(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return list(reversed(decisions))


TAMPERINGS = {"dropped": _dropped, "changed": _changed, "reordered": _reordered}
