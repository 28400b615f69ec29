"""Tournaments on the real app, Redis and workers: created with every seed committed, run
round after round by themselves, followed, exported, and audited."""

from __future__ import annotations

import functools
import hashlib
import json
import random
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.engine.rng import seed_commitment
from domain.tournament import roster_commitment, tournament_commitment
from replay.ed25519 import signature_is_valid
from replay.tournament import audit_tournament
from service.api.app import create_app
from service.bootstrap import Floe, build
from service.clock import utc_now
from service.games import tokens
from service.games.access import Viewer
from service.games.commands import CreateGame, GameCommands, NewPlayer
from service.games.follow_ups import JobKind, JobQueue
from service.jobs.queue import RqJobQueue
from service.redis.connect import connect
from service.settings import Settings
from service.tournaments.running import CreateTournament, Tournaments
from service.tournaments.store import tournament_key
from tests.support.api import ORGANIZER, bearer
from tests.support.replay_cli import floe as floe_cli
from tests.support.store import every_stored_byte
from tests.support.tournament_api import create, document, floe_of
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_until
from tests.support.workers import StartWorker

BOTS = ("random", "greedy")


def body(players: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"game": "iceberg", "format": "swiss", "rounds": 3, "players": players, **extra}


def bots(count: int, start: int = 0) -> list[dict[str, Any]]:
    return [{"name": f"bot{start + i:02}", "bot": BOTS[i % 2]} for i in range(count)]


def play_round(
    client: FlaskClient, tournament_id: str, tokens: dict[int, str], rng: random.Random
) -> None:
    """Until every game of the latest round is over: each person plays a random legal action
    whenever it is their turn, with their one tournament token; when nobody can, wait for the
    next event of a game still live (bots, draws), never a sleep."""
    floe = floe_of(client.application)
    while True:
        games = document(client, tournament_id)["rounds"][-1]["games"]
        if all(g["status"] == "over" for g in games):
            return
        moved = False
        for game in games:
            for player in game["players"]:
                if player in tokens and game["status"] == "active":
                    moved = play_once(client, game["game_id"], tokens[player], rng) or moved
        if moved:
            continue
        live = [g for g in games if g["status"] in ("active", "awaiting_random")]
        if not live:
            wait_until(
                lambda: all(
                    g["status"] != "pending"
                    for g in document(client, tournament_id)["rounds"][-1]["games"]
                ),
                PROMPTLY,
                "the round's games to be created",
            )
            continue
        version = client.get(f"/v1/games/{live[0]['game_id']}").get_json()["version"]
        floe.repository.wait(live[0]["game_id"], after=version, block_ms=2000)


def play_once(client: FlaskClient, game_id: str, token: str, rng: random.Random) -> bool:
    """One random legal action of ``token``'s seat, if it has any now."""
    headers = bearer(token)
    legal = client.get(f"/v1/games/{game_id}/legal-actions", headers=headers).get_json()
    if not legal["actions"]:
        return False
    weights = [0.1 if a["type"] == "retire" else 1.0 for a in legal["actions"]]
    posted = client.post(
        f"/v1/games/{game_id}/actions?wait=30",
        json={
            "action": rng.choices(legal["actions"], weights)[0],
            "expected_version": legal["version"],
            "command_id": f"move-{legal['version']}",
        },
        headers=headers,
    )
    assert posted.status_code in (201, 202), posted.get_json()
    return True


def play_people(client: FlaskClient, tournament_id: str, tokens: dict[int, str], seed: int) -> None:
    """Play every round until the tournament finishes (the workers make each next round)."""
    rng = random.Random(seed)
    while (current := document(client, tournament_id))["status"] != "finished":
        play_round(client, tournament_id, tokens, rng)
        made = len(current["rounds"])
        wait_until(functools.partial(moved_on, client, tournament_id, made), AT_LENGTH, "a round")


def moved_on(client: FlaskClient, tournament_id: str, made: int) -> bool:
    now = document(client, tournament_id)
    return now["status"] == "finished" or len(now["rounds"]) > made


def test_creating_a_tournament_needs_the_organizer(client: FlaskClient) -> None:
    payload = body(bots(4))
    anonymous = client.post("/v1/tournaments", json=payload)
    assert anonymous.status_code == 401
    assert anonymous.get_json()["error"]["code"] == "missing_token"
    seated = create(client, body([{"name": "Ada"}, *bots(3)]))["players"][0]["token"]
    player = client.post("/v1/tournaments", json=payload, headers=bearer(seated))
    assert player.status_code == 403
    assert player.get_json()["error"]["code"] == "organizer_only"
    wrong = client.post("/v1/tournaments", json=payload, headers=bearer("nobody.0.x"))
    assert wrong.status_code == 401
    assert client.get("/v1/tournaments/0123456789abcdef").status_code == 404


@pytest.mark.parametrize(
    ("change", "status", "code", "words"),
    [
        ({"game": "ice-breakers"}, 400, "invalid_tournament", "co-operative"),
        ({"game": "chess"}, 400, "invalid_body", "game"),
        ({"format": "knockout"}, 400, "invalid_body", "format"),
        ({"table_size": 5}, 400, "invalid_body", "The table size"),
        ({"table_size": True}, 400, "invalid_body", "The table size"),
        ({"rounds": None}, 400, "invalid_tournament", "rounds"),
        ({"format": "round_robin", "table_size": 3}, 400, "invalid_tournament", "tables of 2"),
        ({"format": "round_robin", "rounds": 2}, 400, "invalid_tournament", "has 5 rounds"),
        ({"players": bots(1)}, 400, "invalid_body", "players"),
        (
            {"players": [{"name": "a"}, {"name": "a"}], "rounds": 1},
            400,
            "invalid_tournament",
            "differ",
        ),
        ({"players": bots(2)}, 400, "invalid_tournament", "without meeting"),
        ({"table_size": 4, "rounds": 6, "players": bots(5)}, 400, "invalid_tournament", "two"),
        ({"options": {"nonsense": 1}}, 400, None, None),
        ({"extra": 1}, 400, "invalid_body", "extra"),
    ],
)
def test_a_tournament_that_cannot_be_run_is_refused_and_writes_nothing(
    client: FlaskClient,
    redis_client: redis.Redis,
    change: dict[str, Any],
    status: int,
    code: str | None,
    words: str | None,
) -> None:
    payload = {**body(bots(5)), **change}
    response = client.post("/v1/tournaments", json=payload, headers=bearer(ORGANIZER))
    assert response.status_code == status, response.get_json()
    error = response.get_json()["error"]
    if code is not None:
        assert error["code"] == code
    if words is not None:
        assert words in error["message"]
    assert redis_client.keys("floe:tournament*") == []
    assert redis_client.keys("floe:game:*") == []


def test_every_seed_is_committed_at_creation_and_round_one_starts_at_once(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    created = create(client, body([{"name": "Ada"}, {"name": "Bo"}, *bots(5)], table_size=2))
    assert created["status"] == "running" and created["planned_rounds"] == 3
    assert len(created["seed_commitments"]) == 3 * 3  # 3 rounds of 3 tables, one bye each
    assert created["commitment"] == tournament_commitment(created["seed_commitments"])
    assert (
        created["commitment"]
        == hashlib.sha256("".join(created["seed_commitments"]).encode("ascii")).hexdigest()
    )
    # The players listed are committed beside the seeds: their names and bots, in order.
    listed = [(p["name"], p["bot"]) for p in created["players"]]
    assert created["roster_commitment"] == roster_commitment(listed)
    roster = [{"bot": b, "name": n, "public_key": None} for n, b in listed]
    written = json.dumps(roster, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert created["roster_commitment"] == hashlib.sha256(written.encode()).hexdigest()
    assert document(client, created["id"])["roster_commitment"] == created["roster_commitment"]
    tokens = [p["token"] for p in created["players"]]
    assert [t is None for t in tokens] == [False, False, True, True, True, True, True]
    assert all(t.startswith(created["id"] + ".") for t in tokens[:2] if t)
    [first] = created["rounds"]
    assert first["round"] == 1 and len(first["games"]) == 3 and first["byes"] == [6]
    for game in first["games"]:
        view = client.get(f"/v1/games/{game['game_id']}").get_json()
        assert [s["name"] for s in view["seats"]] == [
            created["players"][p]["name"] for p in game["players"]
        ]
        slot = game["table"] - 1
        assert view["seed_commitment"] == created["seed_commitments"][slot]
    # The seeds stay inside: not in any answer, not in any game before it ends.
    seeds = json.loads(redis_client.hget(tournament_key(created["id"]), "seeds") or b"[]")
    assert [seed_commitment(bytes.fromhex(s)) for s in seeds] == created["seed_commitments"]
    shown = json.dumps(created) + json.dumps(document(client, created["id"]))
    assert not any(seed in shown for seed in seeds)
    # Standings already count the bye: a point, and for Buchholz a game against a virtual
    # opponent with the player's own points (FIDE).
    standings = document(client, created["id"])["standings"]
    # A bye is a win over a virtual opponent with the player's own points (FIDE).
    assert standings[0] == {
        "player": 6,
        "name": "bot04",
        "place": "1",
        "points": "1",
        "buchholz": "1",
        "tiebreaks": {
            "buchholz_cut1": "0",
            "sonneborn_berger": "1",
            "direct_encounter": "0",
            "wins": "0",
        },
    }


def test_a_players_one_token_seats_them_in_each_of_their_games_and_nowhere_else(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    created = create(client, body([{"name": f"p{i}"} for i in range(4)], table_size=2))
    games = created["rounds"][0]["games"]
    for player in created["players"]:
        headers = bearer(player["token"])
        for game in games:
            legal = client.get(f"/v1/games/{game['game_id']}/legal-actions", headers=headers)
            if player["player"] in game["players"]:
                assert legal.status_code == 200, legal.get_json()
            else:
                assert legal.status_code == 403
                assert legal.get_json()["error"]["code"] == "not_a_seat"
    stored = every_stored_byte(redis_client)
    for player in created["players"]:
        assert player["token"].encode() not in stored, "only the token's hash is kept"
        assert tokens.token_hash(player["token"]).encode() in stored
    forged = created["players"][0]["token"][:-4] + "AAAA"
    refused = client.get(f"/v1/games/{games[0]['game_id']}", headers=bearer(forged))
    assert refused.status_code == 401 and refused.get_json()["error"]["code"] == "unknown_token"


def test_a_swiss_of_people_and_bots_runs_round_after_round_and_its_export_verifies(
    app: Flask, client: FlaskClient, start_worker: StartWorker, tmp_path: Path
) -> None:
    start_worker()
    start_worker()
    people = [{"name": "Ada"}, {"name": "Bo"}]
    created = create(client, body([*people, *bots(5)], table_size=2, rounds=3))
    tournament_id = created["id"]
    tokens = {p["player"]: p["token"] for p in created["players"] if p["token"]}
    before = client.get(f"/v1/tournaments/{tournament_id}/export")
    assert before.status_code == 401, "public only once finished"
    organizer = client.get(f"/v1/tournaments/{tournament_id}/export", headers=bearer(ORGANIZER))
    assert organizer.status_code == 200
    play_people(client, tournament_id, tokens, seed=7)
    finished = document(client, tournament_id)
    assert [r["round"] for r in finished["rounds"]] == [1, 2, 3]
    byes = [p for r in finished["rounds"] for p in r["byes"]]
    assert len(byes) == len(set(byes)) == 3, "a bye at most once each"
    tables = [frozenset(g["players"]) for r in finished["rounds"] for g in r["games"]]
    assert len(tables) == len(set(tables)), "no rematch while another grouping exists"
    slots = [g["game_id"] for r in finished["rounds"] for g in r["games"]]
    for number, round_ in enumerate(finished["rounds"]):
        for game in round_["games"]:
            view = client.get(f"/v1/games/{game['game_id']}").get_json()
            assert view["status"] == "over"
            assert (
                view["seed_commitment"]
                == finished["seed_commitments"][number * 3 + game["table"] - 1]
            )
    assert len(set(slots)) == 9
    export = client.get(f"/v1/tournaments/{tournament_id}/export")
    assert export.status_code == 200 and export.mimetype == "application/x-ndjson"
    lines = export.get_data(as_text=True).splitlines()
    manifest = json.loads(lines[0])["tournament"]
    assert manifest["standings"] == finished["standings"] and "status" not in manifest
    assert manifest["roster_commitment"] == created["roster_commitment"]
    assert {json.loads(line)["game_id"] for line in lines[1:]} == set(slots)
    path = tmp_path / "tournament.jsonl"
    path.write_text(export.get_data(as_text=True))
    verified = floe_cli("verify", str(path))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "ok" in verified.stdout
    for standing in finished["standings"]:
        assert standing["name"] in verified.stdout


def test_a_tournament_stored_before_rosters_were_committed_reads_and_audits_as_before(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    created = create(client, body(bots(4), rounds=1))
    key = tournament_key(created["id"])
    spec = json.loads(redis_client.hget(key, "spec") or b"{}")
    assert spec["roster_commitment"] == created["roster_commitment"]
    del spec["roster_commitment"]  # as a tournament created before rosters were committed
    redis_client.hset(key, "spec", json.dumps(spec))
    assert document(client, created["id"])["roster_commitment"] is None
    export = client.get(f"/v1/tournaments/{created['id']}/export", headers=bearer(ORGANIZER))
    lines = export.get_data(as_text=True).splitlines()
    assert "roster_commitment" not in json.loads(lines[0])["tournament"]
    verdict = audit_tournament(lines)
    assert verdict.problems == ()
    assert verdict.unchecked == (
        "roster not committed (tournament made before rosters were committed)",
    )


def test_the_stream_sends_the_tournament_on_every_change_until_it_is_finished(
    app: Flask, client: FlaskClient, start_worker: StartWorker
) -> None:
    start_worker()
    created = create(client, body(bots(4), table_size=2, rounds=2))
    response = client.get(f"/v1/tournaments/{created['id']}/stream", buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    documents = list(sse_documents(response.response))
    response.close()
    assert documents[-1]["status"] == "finished"
    assert [d["status"] for d in documents[:-1]] == ["running"] * (len(documents) - 1)
    assert len({len(d["rounds"]) for d in documents}) == 2, "it saw both rounds"
    assert documents[-1] == document(client, created["id"])
    tournaments = floe_of(app).tournaments
    last = tournaments.changes(created["id"])[0]
    tournaments.game_over(documents[-1]["rounds"][-1]["games"][0]["game_id"])  # a late job
    assert tournaments.changes(created["id"])[0] == last, "a finished tournament never changes"
    again = client.get(
        f"/v1/tournaments/{created['id']}/stream", headers={"Last-Event-ID": str(last)}
    )
    assert again.get_data(as_text=True) == "retry: 2000\n\n", "nothing more will come"


def sse_documents(chunks: Iterable[str] | Iterable[bytes]) -> Iterator[dict[str, Any]]:
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            message, buffer = buffer.split("\n\n", 1)
            data = [line[6:] for line in message.splitlines() if line.startswith("data: ")]
            if data:
                yield json.loads(data[0])


class LosesTournamentJobs:
    """A real RQ queue that loses every tournament job, as a worker killed mid-job would."""

    def __init__(self, inner: JobQueue) -> None:
        self._inner = inner

    def enqueue(
        self, kind: JobKind, game_id: str, version: int, *, due: int | None = None
    ) -> bool | None:
        if kind == "tournament":
            return False
        return self._inner.enqueue(kind, game_id, version, due=due)


def lossy_app(redis_url: str) -> Flask:
    """The app, on a queue that loses the tournament jobs its moves enqueue."""
    settings = Settings(redis_url=redis_url, organizer_token=ORGANIZER)
    client = connect(settings)
    floe = build(settings, redis_client=client, jobs=LosesTournamentJobs(RqJobQueue(client)))
    return create_app(settings, floe=floe)


PEOPLE = [{"name": f"p{i}"} for i in range(4)]


def test_advancing_at_once_from_many_workers_makes_each_round_and_game_once(
    redis_url: str, redis_client: redis.Redis
) -> None:
    """Four advances race once round 1 is over (its jobs lost, no worker): one round 2."""
    client = lossy_app(redis_url).test_client()
    # Arktia draws nothing: with no worker at all, only these advances make round 2.
    created = create(client, body(PEOPLE, game="arktia", format="swiss", rounds=2))
    tokens = {p["player"]: p["token"] for p in created["players"]}
    play_round(client, created["id"], tokens, random.Random(1))
    assert len(document(client, created["id"])["rounds"]) == 1
    tournaments = floe_of(client.application).tournaments
    start = threading.Barrier(4)

    def advance() -> None:
        start.wait(timeout=PROMPTLY)
        tournaments.advance(created["id"])

    threads = [threading.Thread(target=advance) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=PROMPTLY)
    assert not any(thread.is_alive() for thread in threads)
    second = document(client, created["id"])
    assert [r["round"] for r in second["rounds"]] == [1, 2]
    assert redis_client.zcard("floe:games") == 4, "two games a round, each made once"
    assert all(g["status"] != "pending" for g in second["rounds"][1]["games"])
    play_round(client, created["id"], tokens, random.Random(2))
    tournaments.advance(created["id"])
    tournaments.advance(created["id"])
    assert document(client, created["id"])["status"] == "finished"
    assert redis_client.zcard("floe:games") == 4


class FailsAfterOneGame(GameCommands):
    """Game creation that dies after the first game of a round: a crash mid-round."""

    def __init__(self, inner: GameCommands, floe: Floe) -> None:
        super().__init__(floe.repository, floe.jobs, signature_is_valid)
        self.made = 0

    def create_for_table(self, command: CreateGame, *args: Any, **kwargs: Any) -> Any:
        self.made += 1
        if self.made > 1:
            raise ConnectionError("the process died here")
        return super().create_for_table(command, *args, **kwargs)


def test_a_crash_while_a_round_is_created_leaves_nothing_stuck(
    app: Flask,
    client: FlaskClient,
    start_worker: StartWorker,
    redis_client: redis.Redis,
    tmp_path: Path,
) -> None:
    """Creation dies after round 1's first game: the round is recorded, a game is missing.
    The workers create it (a job, or the sweeper at the latest) and the tournament ends."""
    floe = floe_of(app)
    crashing = Tournaments(
        floe.tournaments.store,
        FailsAfterOneGame(floe.commands, floe),
        floe.repository,
        floe.store,
        utc_now,
    )
    players = tuple(NewPlayer(p["name"], p["bot"]) for p in bots(4))
    with pytest.raises(ConnectionError):
        crashing.create(
            CreateTournament("iceberg", "swiss", players, rounds=2), Viewer(organizer=True)
        )
    [tournament_id] = floe.tournaments.store.listed(offset=0, limit=10)
    games = document(client, tournament_id)["rounds"][0]["games"]
    assert [g["status"] for g in games].count("pending") == 1
    # The organizer's export, read now, makes the missing game first: a log for every game
    # its manifest lists, so it audits as honest but unfinished.
    export = client.get(f"/v1/tournaments/{tournament_id}/export", headers=bearer(ORGANIZER))
    path = tmp_path / "early.jsonl"
    path.write_bytes(export.get_data())
    audited = floe_cli("verify", str(path))
    assert audited.returncode == 1 and "0 ok, 1 incomplete, 0 failed" in audited.stdout, (
        audited.stdout
    )
    start_worker()
    wait_until(
        lambda: document(client, tournament_id)["status"] == "finished", AT_LENGTH, "the tournament"
    )
    assert redis_client.zcard("floe:games") == 4


def test_when_every_tournament_job_is_lost_the_sweeper_makes_the_rounds(
    redis_url: str, start_worker: StartWorker
) -> None:
    client = lossy_app(redis_url).test_client()
    # Arktia draws nothing, and people play: the worker's only part is its sweeper.
    created = create(client, body(PEOPLE, game="arktia", rounds=2))
    tokens = {p["player"]: p["token"] for p in created["players"]}
    start_worker()  # its sweeper runs every 0.2 s
    play_people(client, created["id"], tokens, seed=3)
    finished = document(client, created["id"])
    assert [r["round"] for r in finished["rounds"]] == [1, 2]
    assert all(g["status"] == "over" for r in finished["rounds"] for g in r["games"])


def test_a_worker_killed_in_a_tournament_job_leaves_nothing_stuck(
    client: FlaskClient, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    """The worker that takes a tournament's job is SIGKILLed there; another finishes it."""
    paused = start_worker("before_tournament")
    created = create(client, body(bots(4), rounds=2))
    first = created["rounds"][0]["games"]
    announced = redis_client.blpop(
        [f"floe:fault:{{{g['game_id']}}}:started" for g in first], timeout=PROMPTLY
    )
    assert announced is not None, "the paused worker took a tournament job"
    paused.kill()
    paused.wait()
    start_worker()
    wait_until(
        lambda: document(client, created["id"])["status"] == "finished", AT_LENGTH, "the tournament"
    )
    finished = document(client, created["id"])
    assert [r["round"] for r in finished["rounds"]] == [1, 2]
    assert redis_client.zcard("floe:games") == 4
