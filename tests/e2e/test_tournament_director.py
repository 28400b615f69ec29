"""Tournaments run by a director, on the real app, Redis and workers: rounds started by hand
or N seconds after the round before (a durable timer, the sweeper behind it), pause and
resume, cancel, a player's token reissued, the list, a player's own view, the standings as
CSV, the crosstable, and the decisions in the view and the export.

No sleeps: every wait is on a condition (a document, the store, a timer armed)."""

from __future__ import annotations

import csv
import io
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.tournament.plan import Plan
from service.clock import millis
from service.jobs.timers import TIMERS_KEY, Timers
from service.tournaments.store import RUNNING, tournament_key
from tests.support.api import ORGANIZER, bearer
from tests.support.tournament_api import (
    GAME,
    bots,
    create,
    decide,
    document,
    events,
    floe_of,
    people,
    play_round,
    refused,
    start_round,
    stored_rounds,
    swiss,
    tokens_of,
    verify,
    worth,
)
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_for, wait_until
from tests.support.workers import StartWorker

# ----- rounds started by the organizer's hand ------------------------------------------------


def test_a_manual_tournament_plays_each_round_when_the_organizer_starts_it(
    app: Flask, client: FlaskClient, redis_client: redis.Redis, start_worker: StartWorker
) -> None:
    created = create(client, swiss(people(4), round_start="manual"))
    tournament_id = created["id"]
    tokens = tokens_of(created)
    assert created["status"] == "open" and created["rounds"] == []
    assert created["round_start"] == "manual" and created["paused"] is False
    auto = create(client, swiss(people(4)))
    assert auto["round_start"] == "auto" and auto["status"] == "running"

    # the refusals, in order: 401, 404, 403, then 409
    refused(start_round(client, tournament_id, token=None), 401, "missing_token")
    refused(start_round(client, "0123456789abcdef"), 404, "tournament_not_found")
    refused(start_round(client, tournament_id, token=tokens[0]), 403, "organizer_only")
    refused(start_round(client, auto["id"]), 409, "not_manual")
    refused(client.post(f"/v1/tournaments/{tournament_id}/rounds?x=1"), 401, "missing_token")
    query = client.post(f"/v1/tournaments/{tournament_id}/rounds?x=1", headers=bearer(ORGANIZER))
    refused(query, 400, "invalid_query")

    first = start_round(client, tournament_id)
    assert first.status_code == 201, first.get_json()
    assert first.get_json()["status"] == "running"
    assert [r["round"] for r in first.get_json()["rounds"]] == [1]
    assert all(g["status"] == "active" for g in first.get_json()["rounds"][0]["games"])
    refused(start_round(client, tournament_id), 409, "round_not_over")

    # round 1 over: the worker's advance records it, and makes nothing
    start_worker()
    play_round(client, tournament_id, tokens, random.Random(1))
    wait_until(
        lambda: stored_rounds(redis_client, tournament_id)[0]["outcomes"] is not None,
        PROMPTLY,
        "the worker to record round 1",
    )
    assert len(document(client, tournament_id)["rounds"]) == 1, "a manual round came by itself"
    assert document(client, tournament_id)["next_round_at"] is None

    second = start_round(client, tournament_id)
    assert second.status_code == 201, second.get_json()
    assert [r["round"] for r in second.get_json()["rounds"]] == [1, 2]
    play_round(client, tournament_id, tokens, random.Random(2))
    wait_until(
        lambda: document(client, tournament_id)["status"] == "finished",
        PROMPTLY,
        "the last round to finish the tournament",
    )
    refused(start_round(client, tournament_id), 409, "tournament_finished")
    export = client.get(f"/v1/tournaments/{tournament_id}/export").get_data(as_text=True)
    manifest = json.loads(export.splitlines()[0])["tournament"]
    assert manifest["round_start"] == "manual" and "decisions" not in manifest


def test_a_manual_tournament_whose_last_round_is_over_finishes_on_the_next_start(
    client: FlaskClient,
) -> None:
    """No worker: the last round ends, nobody advanced it; a start finds it finished."""
    created = create(client, swiss(people(2), rounds=1, round_start="manual"))
    assert start_round(client, created["id"]).status_code == 201
    play_round(client, created["id"], tokens_of(created), random.Random(3))
    refused(start_round(client, created["id"]), 409, "tournament_finished")
    assert document(client, created["id"])["status"] == "finished"


# ----- rounds N seconds after the round before -----------------------------------------------


def round_times(client: FlaskClient, finished: dict[str, Any]) -> list[tuple[str, str]]:
    """Per round: when its first game was created, and when its last game ended."""
    times = []
    for round_ in finished["rounds"]:
        logs = [events(client, g["game_id"]) for g in round_["games"]]
        created = min(log[0]["at"] for log in logs)
        ended = max(e["at"] for log in logs for e in log if e["type"] == "game_over")
        times.append((created, ended))
    return times


def test_after_s_pairs_the_next_round_that_many_seconds_after_the_round_before_ends(
    client: FlaskClient, redis_client: redis.Redis, start_worker: StartWorker
) -> None:
    """Bots play; the worker never sweeps here, so only the durable timer makes rounds."""
    after = 2
    created = create(client, swiss(bots(4), rounds=3, round_start={"after_s": after}))
    tournament_id = created["id"]
    assert created["round_start"] == {"after_s": after}
    start_worker(FLOE_SWEEP_SECONDS="3600")
    waiting = wait_for(
        lambda: document(client, tournament_id),
        lambda d: d["next_round_at"] is not None or len(d["rounds"]) > 1,
        AT_LENGTH,
        "round 1 to end",
    )
    if len(waiting["rounds"]) == 1:  # caught between the rounds: the time is shown
        ended = stored_rounds(redis_client, tournament_id)[0]["ended_at"]
        assert millis(waiting["next_round_at"]) == millis(ended) + after * 1000
        armed = Timers(redis_client).armed()
        assert any(
            item.startswith("tournament-") and due == millis(ended) // 1000 + after
            for item, due in armed.items()
        ), armed
    finished = wait_for(
        lambda: document(client, tournament_id),
        lambda d: d["status"] == "finished",
        AT_LENGTH,
        "every round",
    )
    assert [r["round"] for r in finished["rounds"]] == [1, 2, 3]
    times = round_times(client, finished)
    for (_, ended), (started, _) in itertools.pairwise(times):
        gap = (millis(started) - millis(ended)) // 1000
        assert gap >= after, f"a round made {gap} s after the one before ended: {times}"
    assert finished["next_round_at"] is None


def test_a_lost_timer_is_made_good_by_the_sweeper(
    client: FlaskClient, redis_client: redis.Redis, start_worker: StartWorker
) -> None:
    """The timer is dropped (the queue Redis lost it); a worker's sweep makes the round."""
    created = create(client, swiss(bots(4), rounds=2, round_start={"after_s": 3}))
    tournament_id = created["id"]
    start_worker(FLOE_SWEEP_SECONDS="3600")

    def timer() -> list[str]:
        return [i for i in Timers(redis_client).armed() if i.startswith("tournament-")]

    wait_until(lambda: bool(timer()), AT_LENGTH, "round 1 to end and its timer to be armed")
    assert redis_client.zrem(TIMERS_KEY, *timer()) == 1, "the timer fired before it was dropped"
    assert len(document(client, tournament_id)["rounds"]) == 1
    start_worker()  # its sweeper runs every 0.2 s
    finished = wait_for(
        lambda: document(client, tournament_id),
        lambda d: d["status"] == "finished",
        AT_LENGTH,
        "the sweeper to make round 2",
    )
    (_, ended), (started, _) = round_times(client, finished)
    assert millis(started) - millis(ended) >= 3000


def test_round_start_is_checked_at_creation(client: FlaskClient, redis_client: redis.Redis) -> None:
    for bad in ["soon", {"after_s": 0}, {"after_s": 86_401}, {"after_s": True}, {}, 5, None]:
        response = client.post(
            "/v1/tournaments",
            json=swiss(people(2), rounds=1, round_start=bad),
            headers=bearer(ORGANIZER),
        )
        refused(response, 400, "invalid_body")
        assert "The round start" in response.get_json()["error"]["message"]
    assert redis_client.keys("floe:tournament*") == []
    fine = create(client, swiss(people(2), rounds=1, round_start={"after_s": 86_400}))
    assert fine["round_start"] == {"after_s": 86_400}


# ----- pause, resume, cancel -------------------------------------------------------------------


def test_a_paused_tournament_pairs_nothing_until_it_is_resumed(
    client: FlaskClient, redis_client: redis.Redis, start_worker: StartWorker, tmp_path: Path
) -> None:
    created = create(client, swiss(people(4)))
    tournament_id = created["id"]
    tokens = tokens_of(created)
    paused = decide(client, tournament_id, "pause")
    assert paused.status_code == 201, paused.get_json()
    assert paused.get_json()["paused"] is True
    [pause] = paused.get_json()["decisions"]
    assert pause["decision"] == "pause" and pause["seq"] == 1 and pause["rounds_paired"] == 1
    assert pause["reason"] == "the director: pause" and pause["at"].endswith("Z")
    refused(decide(client, tournament_id, "pause"), 409, "already_paused")

    # the games go on; the round ends; the worker records it and pairs nothing
    start_worker()
    play_round(client, tournament_id, tokens, random.Random(4))
    wait_until(
        lambda: stored_rounds(redis_client, tournament_id)[0]["outcomes"] is not None,
        PROMPTLY,
        "the worker to record round 1",
    )
    assert len(document(client, tournament_id)["rounds"]) == 1, "paired while paused"

    resumed = decide(client, tournament_id, "resume")
    assert resumed.status_code == 201, resumed.get_json()
    body = resumed.get_json()
    assert body["paused"] is False and len(body["rounds"]) == 2, "resuming pairs at once"
    assert [d["decision"] for d in body["decisions"]] == ["pause", "resume"]
    assert [d["seq"] for d in body["decisions"]] == [1, 2]
    refused(decide(client, tournament_id, "resume"), 409, "not_paused")

    play_round(client, tournament_id, tokens, random.Random(5))
    finished = wait_for(
        lambda: document(client, tournament_id),
        lambda d: d["status"] == "finished",
        PROMPTLY,
        "the tournament to finish",
    )
    refused(decide(client, tournament_id, "pause"), 409, "tournament_finished")
    refused(decide(client, tournament_id, "cancel"), 409, "tournament_finished")
    assert finished["decisions"] == body["decisions"], "refused decisions write nothing"

    text = client.get(f"/v1/tournaments/{tournament_id}/export").get_data(as_text=True)
    manifest = json.loads(text.splitlines()[0])["tournament"]
    assert manifest["decisions"] == finished["decisions"]
    assert "round_start" not in manifest and "paused" not in manifest
    assert "crosstable" not in manifest
    # Everything but the decisions is what the audit has always read, and it holds.
    plain = {k: v for k, v in manifest.items() if k != "decisions"}
    lines = [json.dumps({"tournament": plain}), *text.splitlines()[1:]]
    status, said = verify(tmp_path, "plain.jsonl", "\n".join(lines) + "\n")
    assert status == 0, said


def test_the_audit_accepts_the_export_of_a_paused_and_resumed_tournament(
    client: FlaskClient, start_worker: StartWorker, tmp_path: Path
) -> None:
    created = create(client, swiss(bots(4)))
    decide(client, created["id"], "pause")
    decide(client, created["id"], "resume")
    start_worker()
    wait_until(
        lambda: document(client, created["id"])["status"] == "finished",
        AT_LENGTH,
        "the tournament",
    )
    text = client.get(f"/v1/tournaments/{created['id']}/export").get_data(as_text=True)
    assert "decisions" in json.loads(text.splitlines()[0])["tournament"]
    status, said = verify(tmp_path, "paused.jsonl", text)
    assert status == 0, said


def test_the_audit_accepts_the_export_of_a_manual_tournament(
    client: FlaskClient, start_worker: StartWorker, tmp_path: Path
) -> None:
    """``round_start`` other than "auto" is in the manifest; the audit reads it."""
    created = create(client, swiss(bots(4), round_start="manual"))
    start_worker()
    for number in (1, 2):
        assert start_round(client, created["id"]).status_code == 201
        wait_until(
            lambda: all(
                g["status"] == "over"
                for g in document(client, created["id"])["rounds"][-1]["games"]
            ),
            AT_LENGTH,
            f"round {number}",
        )
    wait_until(
        lambda: document(client, created["id"])["status"] == "finished",
        PROMPTLY,
        "the tournament to finish",
    )
    text = client.get(f"/v1/tournaments/{created['id']}/export").get_data(as_text=True)
    assert json.loads(text.splitlines()[0])["tournament"]["round_start"] == "manual"
    status, said = verify(tmp_path, "manual.jsonl", text)
    assert status == 0, said


@pytest.mark.processes  # floe replay verify
def test_cancelling_ends_the_live_games_and_pairs_nothing_more(
    app: Flask, client: FlaskClient, redis_client: redis.Redis, tmp_path: Path
) -> None:
    created = create(client, swiss(people(4)))
    tournament_id = created["id"]
    games = [g["game_id"] for g in created["rounds"][0]["games"]]
    cancelled = decide(client, tournament_id, "cancel", reason="The venue closed.")
    assert cancelled.status_code == 201, cancelled.get_json()
    body = cancelled.get_json()
    assert body["status"] == "cancelled"
    assert [g["status"] for g in body["rounds"][0]["games"]] == ["over", "over"]
    assert [g["outcome"] for g in body["rounds"][0]["games"]] == [{"winners": [], "scores": {}}] * 2
    for game_id in games:
        log = events(client, game_id)
        decision = [e for e in log if e["type"] == "decision"]
        assert [e["data"] for e in decision] == [
            {"decision": "result", "winners": [], "reason": "The venue closed."}
        ]
        assert log[-2]["type"] == "game_over" and log[-1]["type"] == "seed_revealed"
    assert redis_client.sismember(RUNNING, tournament_id) == 0, "settled: not swept any more"

    floe_of(app).tournaments.advance(tournament_id)  # a late job, or the sweeper
    after = document(client, tournament_id)
    assert after["status"] == "cancelled" and len(after["rounds"]) == 1
    for kind in ("pause", "resume", "cancel"):
        refused(decide(client, tournament_id, kind), 409, "tournament_cancelled")
    assert [d["decision"] for d in after["decisions"]] == ["cancel"]
    # a cancelled tournament is over: its export is public, its stream ends at once
    export = client.get(f"/v1/tournaments/{tournament_id}/export")
    assert export.status_code == 200
    manifest = json.loads(export.get_data(as_text=True).splitlines()[0])["tournament"]
    assert manifest["decisions"][0]["reason"] == "The venue closed."
    status, said = verify(tmp_path, "cancelled.jsonl", export.get_data(as_text=True))
    assert status == 0 and "cancelled" in said, said
    stream = client.get(f"/v1/tournaments/{tournament_id}/stream").get_data(as_text=True)
    assert stream.count("event: tournament") == 1


def test_cancelling_a_tournament_of_bots_ends_its_games_even_those_awaiting_a_draw(
    client: FlaskClient, redis_client: redis.Redis, start_worker: StartWorker
) -> None:
    """Iceberg draws at once: a cancel may meet a game awaiting its draw, ended once drawn."""
    created = create(
        client,
        {"game": "iceberg", "format": "swiss", "rounds": 3, "players": bots(6)},
    )
    tournament_id = created["id"]
    start_worker()
    assert decide(client, tournament_id, "cancel").status_code == 201
    wait_until(
        lambda: redis_client.sismember(RUNNING, tournament_id) == 0,
        AT_LENGTH,
        "every game of the cancelled tournament to end",
    )
    final = document(client, tournament_id)
    assert final["status"] == "cancelled" and len(final["rounds"]) == 1
    assert all(g["status"] == "over" for g in final["rounds"][0]["games"])


def test_decisions_are_refused_in_order_and_refusals_write_nothing(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    created = create(client, swiss(people(2), rounds=1))
    tournament_id = created["id"]
    here = f"/v1/tournaments/{tournament_id}/decisions"
    player = created["players"][0]["token"]
    before = redis_client.hgetall(tournament_key(tournament_id))
    ok = {"decision": "pause", "reason": "r"}
    for body, code in [
        ({"decision": "withdraw", "reason": "r"}, "missing_field"),
        ({"decision": "withdraw", "player": "1", "reason": "r"}, "invalid_field"),
        ({"decision": "enter", "name": "Eve", "player": 2, "reason": "r"}, "unexpected_field"),
        ({"decision": "enter", "name": "Eve", "bot": "wizard", "reason": "r"}, "invalid_field"),
        ({"decision": "enter", "name": "E\nve", "reason": "r"}, "invalid_field"),
        ({"decision": "enter", "name": "x" * 65, "reason": "r"}, "invalid_field"),
        ({"decision": "correct", "game_id": "x", "winners": [], "reason": "r"}, "invalid_field"),
        (
            {"decision": "correct", "game_id": GAME, "winners": [0, 0], "reason": "r"},
            "invalid_field",
        ),
        (
            {"decision": "correct", "game_id": GAME, "round": 1, "winners": [], "reason": "r"},
            "unexpected_field",
        ),
        ({"decision": "nap", "reason": "r"}, "unknown_decision"),
        ({"reason": "r"}, "unknown_decision"),
        ({"decision": "pause"}, "missing_field"),
        ({"decision": "pause", "reason": "r", "until": 5}, "unexpected_field"),
        ({"decision": "pause", "reason": "  "}, "invalid_field"),
        ({"decision": "pause", "reason": "x" * 501}, "invalid_field"),
        ({"decision": "pause", "reason": 5}, "invalid_field"),
        ([ok], "invalid_body"),
    ]:
        response = client.post(here, json=body, headers=bearer(ORGANIZER))
        refused(response, 400, code)
    refused(client.post(here, json=ok), 401, "missing_token")
    refused(client.post(here, json=ok, headers=bearer(player)), 403, "organizer_only")
    refused(client.post(here, json=ok, headers=bearer("nobody.0.x")), 401, "unknown_token")
    unknown = client.post(
        "/v1/tournaments/0123456789abcdef/decisions", json=ok, headers=bearer(ORGANIZER)
    )
    refused(unknown, 404, "tournament_not_found")
    as_json = {"Content-Type": "application/json", **bearer(ORGANIZER)}
    refused(client.post(here, data="{", headers=as_json), 400, "malformed_json")
    # Well-formed, and refused by the tournament as it stands: 409 with the domain's code.
    for body, code in [
        ({"decision": "withdraw", "player": 1, "reason": "r"}, "too_few_players"),
        ({"decision": "withdraw", "player": 7, "reason": "r"}, "unknown_player"),
        ({"decision": "enter", "name": "Eve", "reason": "r"}, "too_late"),
        ({"decision": "correct", "game_id": GAME, "winners": [], "reason": "r"}, "no_such_game"),
        ({"decision": "resume", "reason": "r"}, "not_paused"),
    ]:
        refused(client.post(here, json=body, headers=bearer(ORGANIZER)), 409, code)
    assert redis_client.hgetall(tournament_key(tournament_id)) == before


# ----- tokens ------------------------------------------------------------------------------


def test_a_reissued_token_replaces_the_old_one_everywhere(client: FlaskClient) -> None:
    created = create(client, swiss([{"name": "Ada"}, {"name": "Bo"}, *bots(2)], rounds=1))
    tournament_id = created["id"]
    old = created["players"][0]["token"]
    [game] = [g for g in created["rounds"][0]["games"] if 0 in g["players"]]
    here = f"/v1/tournaments/{tournament_id}/players"
    assert client.get(f"/v1/games/{game['game_id']}", headers=bearer(old)).status_code == 200

    refused(client.post(f"{here}/0/token"), 401, "missing_token")
    refused(client.post(f"{here}/0/token", headers=bearer(old)), 403, "organizer_only")
    for missing in ("4", "99", "x", "00", "-1"):
        response = client.post(f"{here}/{missing}/token", headers=bearer(ORGANIZER))
        refused(response, 404, "player_not_found")
    refused(client.post(f"{here}/2/token", headers=bearer(ORGANIZER)), 409, "player_is_bot")
    gone = client.post(
        "/v1/tournaments/0123456789abcdef/players/0/token", headers=bearer(ORGANIZER)
    )
    refused(gone, 404, "tournament_not_found")

    issued = client.post(f"{here}/0/token", headers=bearer(ORGANIZER))
    assert issued.status_code == 201, issued.get_json()
    body = issued.get_json()
    assert body["player"] == 0 and body["token"].startswith(f"{tournament_id}.0.")
    new = body["token"]
    assert new != old
    for path in (f"/v1/games/{game['game_id']}", f"/v1/tournaments/{tournament_id}/me"):
        refused(client.get(path, headers=bearer(old)), 401, "unknown_token")
    seated = client.get(f"/v1/games/{game['game_id']}", headers=bearer(new)).get_json()
    assert seated["viewer"] == game["players"].index(0)
    legal = client.get(f"/v1/games/{game['game_id']}/legal-actions", headers=bearer(new))
    assert legal.status_code == 200
    assert client.get(f"/v1/tournaments/{tournament_id}/me", headers=bearer(new)).status_code == 200
    other = created["players"][1]["token"]
    assert client.get(f"/v1/games/{game['game_id']}", headers=bearer(other)).status_code == 200


# ----- reading: the list, a player's view, the CSV, the crosstable ----------------------------


def test_the_list_pages_newest_first_and_filters_by_status(app: Flask, client: FlaskClient) -> None:
    opened = create(client, swiss(people(2), rounds=1, round_start="manual"))
    running = create(client, swiss(people(2), rounds=1))
    cancelled = create(client, swiss(people(2), rounds=1))
    assert decide(client, cancelled["id"], "cancel").status_code == 201
    finished = create(client, swiss(people(2), rounds=1, options={"turn_limit": 1}))
    play_round(client, finished["id"], tokens_of(finished), random.Random(6))
    floe_of(app).tournaments.advance(finished["id"])  # the worker's job, here by hand
    assert decide(client, running["id"], "pause").status_code == 201

    listed = client.get("/v1/tournaments").get_json()
    assert listed["total"] == 4 and (listed["offset"], listed["limit"]) == (0, 50)
    ids = [t["id"] for t in listed["tournaments"]]
    made = [opened, running, cancelled, finished]
    assert set(ids) == {t["id"] for t in made}
    # newest first (by creation, to the second; one second's in id order, the highest first)
    keys = [(t["created_at"], t["id"]) for t in listed["tournaments"]]
    assert keys == sorted(keys, reverse=True)
    by_id = {t["id"]: t for t in listed["tournaments"]}
    assert by_id[running["id"]] == {
        "id": running["id"],
        "game": "arktia",
        "format": "swiss",
        "table_size": 2,
        "planned_rounds": 1,
        "rounds_made": 1,
        "players": 2,
        "round_start": "auto",
        "status": "running",
        "paused": True,
        "created_at": running["created_at"],
    }
    assert by_id[opened["id"]]["status"] == "open" and by_id[opened["id"]]["rounds_made"] == 0
    assert by_id[opened["id"]]["round_start"] == "manual"
    assert by_id[cancelled["id"]]["status"] == "cancelled"
    assert by_id[finished["id"]]["status"] == "finished"
    statuses = [("open", opened), ("running", running), ("cancelled", cancelled)]
    for status, expected in [*statuses, ("finished", finished)]:
        page = client.get(f"/v1/tournaments?status={status}").get_json()
        assert [t["id"] for t in page["tournaments"]] == [expected["id"]], status
        assert page["total"] == 1
    paged = client.get("/v1/tournaments?offset=1&limit=2").get_json()
    assert [t["id"] for t in paged["tournaments"]] == ids[1:3] and paged["total"] == 4
    assert client.get("/v1/tournaments?status=running&offset=1").get_json()["tournaments"] == []
    for query in ("status=paused", "limit=0", "offset=-1", "x=1"):
        refused(client.get(f"/v1/tournaments?{query}"), 400, "invalid_query")


def test_a_player_sees_their_game_their_next_and_their_results(client: FlaskClient) -> None:
    created = create(client, swiss(people(3), rounds=2, round_start="manual"))
    tournament_id = created["id"]
    tokens = tokens_of(created)
    me = f"/v1/tournaments/{tournament_id}/me"
    refused(client.get(me), 401, "missing_token")
    refused(client.get(me, headers=bearer(ORGANIZER)), 403, "not_a_player")
    elsewhere = create(client, swiss(people(2), rounds=1))["players"][0]["token"]
    refused(client.get(me, headers=bearer(elsewhere)), 403, "not_a_player")
    refused(client.get(me, headers=bearer("nobody.0.x")), 401, "unknown_token")
    refused(client.get(f"{me}?x=1", headers=bearer(tokens[0])), 400, "invalid_query")
    refused(client.get("/v1/tournaments/0123456789abcdef/me"), 404, "tournament_not_found")

    waiting = client.get(me, headers=bearer(tokens[0])).get_json()
    assert waiting == {
        "tournament_id": tournament_id,
        "player": 0,
        "name": "p0",
        "bot": None,
        "status": "open",
        "paused": False,
        "points": "0",
        "current": None,
        "next": None,
        "next_round_at": None,
        "results": [],
    }
    started = start_round(client, tournament_id).get_json()
    [game] = started["rounds"][0]["games"]
    [bye] = started["rounds"][0]["byes"]
    for player in game["players"]:
        view = client.get(me, headers=bearer(tokens[player])).get_json()
        place = {
            "game_id": game["game_id"],
            "round": 1,
            "table": 1,
            "seat": game["players"].index(player),
            "status": "active",
            "opponents": [p for p in game["players"] if p != player],
        }
        assert view["current"] == place and view["next"] == {**place, "bye": False}
    sitting = client.get(me, headers=bearer(tokens[bye])).get_json()
    assert sitting["current"] is None
    assert sitting["next"] == {
        "game_id": None,
        "round": 1,
        "table": None,
        "seat": None,
        "status": None,
        "opponents": [],
        "bye": True,
    }
    assert sitting["results"] == [
        {
            "round": 1,
            "table": None,
            "game_id": None,
            "seat": None,
            "opponents": [],
            "result": "bye",
            "points": "1",
        }
    ]
    play_round(client, tournament_id, tokens, random.Random(7))
    done = document(client, tournament_id)["rounds"][0]["games"][0]
    for player in game["players"]:
        view = client.get(me, headers=bearer(tokens[player])).get_json()
        assert view["current"] is None and view["next"] is None, "nothing paired yet"
        [result] = view["results"]
        seat = game["players"].index(player)
        expected, points = worth(done, seat)
        assert result["result"] == expected
        assert result["points"] == view["points"] == points
        assert (result["game_id"], result["seat"]) == (game["game_id"], seat)
    start_round(client, tournament_id)
    second = document(client, tournament_id)["rounds"][1]
    for player in second["games"][0]["players"]:
        view = client.get(me, headers=bearer(tokens[player])).get_json()
        assert (
            view["current"]["round"] == 2 and view["next"]["game_id"] == view["current"]["game_id"]
        ), "the next game exists"


def test_the_standings_as_csv_are_the_standings_of_the_document(client: FlaskClient) -> None:
    players = [{"name": "=cmd|' /C calc'!A0"}, {"name": 'Bo, "the" second'}, *people(2)]
    created = create(client, swiss(players, rounds=1, options={"turn_limit": 1}))
    tournament_id = created["id"]
    play_round(client, tournament_id, tokens_of(created), random.Random(8))
    response = client.get(f"/v1/tournaments/{tournament_id}/standings.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="tournament-{tournament_id}-standings.csv"'
    )
    text = response.get_data(as_text=True)
    assert text.endswith("\r\n")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert header[:4] == ["place", "player", "name", "points"] and len(header) > 4
    standings = document(client, tournament_id)["standings"]
    assert [int(r[1]) for r in body] == [s["player"] for s in standings]
    assert [r[3] for r in body] == [s["points"] for s in standings]
    names = {int(r[1]): r[2] for r in body}
    assert names[0] == "'=cmd|' /C calc'!A0", "a formula is never a formula in a spreadsheet"
    assert names[1] == 'Bo, "the" second'
    assert all(len(r) == len(header) and r[0] for r in body)
    refused(
        client.get("/v1/tournaments/0123456789abcdef/standings.csv"), 404, "tournament_not_found"
    )
    refused(client.get(f"/v1/tournaments/{tournament_id}/standings.csv?x=1"), 400, "invalid_query")


def test_the_crosstable_shows_every_players_every_round(client: FlaskClient) -> None:
    created = create(client, swiss(people(3), rounds=2, round_start="manual"))
    tournament_id = created["id"]
    tokens = tokens_of(created)
    assert [row["rounds"] for row in created["crosstable"]] == [[], [], []]
    for seed in (9, 10):
        start_round(client, tournament_id)
        play_round(client, tournament_id, tokens, random.Random(seed))
    final = document(client, tournament_id)
    rows = final["crosstable"]
    assert [row["player"] for row in rows] == [0, 1, 2]
    points = {s["player"]: s["points"] for s in final["standings"]}
    for row in rows:
        assert row["points"] == points[row["player"]] and row["name"] == f"p{row['player']}"
        assert [entry["round"] for entry in row["rounds"]] == [1, 2]
        for entry, round_ in zip(row["rounds"], final["rounds"], strict=True):
            if row["player"] in round_["byes"]:
                assert entry["result"] == "bye" and entry["points"] == "1"
                assert entry["game_id"] is None and entry["opponents"] == []
                continue
            [game] = [g for g in round_["games"] if row["player"] in g["players"]]
            seat = game["players"].index(row["player"])
            assert entry["game_id"] == game["game_id"] and entry["seat"] == seat
            assert entry["opponents"] == [p for p in game["players"] if p != row["player"]]
            assert (entry["result"], entry["points"]) == worth(game, seat)


# ----- the plan: ratings, tie-breaks, room for late entries ------------------------------------


def test_ratings_seed_round_one_and_the_tiebreaks_asked_for_order_the_standings(
    client: FlaskClient,
) -> None:
    ratings = [1200, 2100, 1500, 1800, 1650, 1900]
    rated = [{**p, "rating": r} for p, r in zip(people(6), ratings, strict=True)]
    tiebreaks = ["wins", "median_buchholz"]
    created = create(client, swiss(rated, rounds=3, tiebreaks=tiebreaks, max_players=8))
    assert [p["rating"] for p in created["players"]] == ratings
    assert created["tiebreaks"] == tiebreaks and created["max_players"] == 8
    assert len(created["seed_commitments"]) == 3 * 4  # room for 8 players a round
    by_rating = Plan.of("swiss", 6, 2, 3, ratings=ratings).next_round([])
    by_number = Plan.of("swiss", 6, 2, 3).next_round([])
    assert by_rating.tables != by_number.tables  # the ratings mattered
    tables = [tuple(g["players"]) for g in created["rounds"][0]["games"]]
    assert tables == [t.players for t in by_rating.tables]
    assert all(set(s["tiebreaks"]) == set(tiebreaks) for s in created["standings"])
    header = csv.reader(
        io.StringIO(
            client.get(f"/v1/tournaments/{created['id']}/standings.csv").get_data(as_text=True)
        )
    )
    assert next(header) == ["place", "player", "name", "points", *tiebreaks]


def test_a_plan_is_checked_whole_at_creation(client: FlaskClient) -> None:
    def refused_plan(payload: dict[str, Any], code: str, words: str) -> None:
        response = client.post("/v1/tournaments", json=payload, headers=bearer(ORGANIZER))
        refused(response, 400, code)
        assert words in response.get_json()["error"]["message"], response.get_json()

    some_rated: list[dict[str, Any]] = [{"name": "a", "rating": 1500}, {"name": "b"}, {"name": "c"}]
    refused_plan(swiss(some_rated), "invalid_tournament", "every player a rating")
    refused_plan(swiss(people(4), tiebreaks=["wins", "wins"]), "invalid_tournament", "once")
    refused_plan(swiss(people(4), tiebreaks=["coin_toss"]), "invalid_body", "Tiebreak 1")
    refused_plan(swiss(people(4), max_players=3), "invalid_tournament", "max_players")
    robin = {**swiss(people(4)), "format": "round_robin", "rounds": None}
    refused_plan({**robin, "max_players": 6}, "invalid_tournament", "late entries")
    rated = [{**p, "rating": 1500} for p in people(4)]
    refused_plan({**robin, "players": rated}, "invalid_tournament", "ratings")
