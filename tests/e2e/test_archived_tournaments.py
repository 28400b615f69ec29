"""A settled tournament moved to the archive answers every route byte for byte as before.

Real Redis, a real worker to record the rounds, and both real archives (a SQLite file and the
suite's PostgreSQL). A tournament is played to its end through the API, every route of it is
read (the list, the document, each player's own view, the standings, the export, the
stream, a game as a player), its games move out, then the tournament itself; the routes are
read again from the same API and from a new one. A mover SIGKILLed after each step of a
tournament's move loses nothing.
"""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.archive.moving import STEPS
from service.bootstrap import Floe
from service.settings import Settings
from service.tournaments.store import INDEX, RUNNING, SETTLED, tournament_key
from tests.support import archives
from tests.support import tournament_api as tournaments
from tests.support.api import ORGANIZER, bearer
from tests.support.archived_games import Answer, answer, api, redis_keys
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_until

archive_url = archives.archive_url
settings = archives.archive_settings


def tournament_reads(
    client: FlaskClient, tournament_id: str, tokens: dict[int, str], game_id: str | None
) -> dict[str, Answer]:
    """Every route of a settled tournament, as anyone and as each player (and ``game_id``,
    a game of it, as each player: their tournament token seats them in their games)."""
    base = f"/v1/tournaments/{tournament_id}"
    paths = [
        "/v1/tournaments",
        "/v1/tournaments?status=finished",
        "/v1/tournaments?status=cancelled",
        "/v1/tournaments?status=running&limit=1",
        base,
        f"{base}/standings.csv",
        f"{base}/export",
        f"{base}/stream",
        f"{base}/me",
    ]
    reads = {path: answer(client, path) for path in paths}
    for player, token in tokens.items():
        reads[f"me as {player}"] = answer(client, f"{base}/me", token)
        if game_id is not None:
            reads[f"{game_id} as {player}"] = answer(client, f"/v1/games/{game_id}", token)
    return reads


def game_ids(client: FlaskClient, tournament_id: str) -> list[str]:
    rounds = tournaments.document(client, tournament_id)["rounds"]
    return [game["game_id"] for round_ in rounds for game in round_["games"]]


def listed_settled(redis_client: redis.Redis, tournament_id: str) -> bool:
    """Settled as the mover sees it: listed settled and out of the running set."""
    listed = redis_client.zscore(SETTLED, tournament_id) is not None
    return listed and not redis_client.sismember(RUNNING, tournament_id)


def held(redis_client: redis.Redis, tournament_id: str) -> dict[str, str]:
    """The tournament's hash in Redis, as text (what the archive keeps)."""
    stored = redis_client.hgetall(tournament_key(tournament_id))
    return {text(name): text(value) for name, value in stored.items()}


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def assert_moved_out(redis_client: redis.Redis, tournament_id: str) -> None:
    assert redis_client.exists(tournament_key(tournament_id)) == 0
    assert redis_client.zscore(SETTLED, tournament_id) is None
    assert redis_client.zscore(INDEX, tournament_id) is not None, "the list keeps its id"


def test_a_finished_tournament_reads_the_same_once_archived(
    settings: Settings, redis_client: redis.Redis, start_worker: Callable[..., Any]
) -> None:
    floe, client = api(settings)
    assert floe.mover is not None and floe.archive is not None and settings.archive_url
    created = tournaments.create(client, tournaments.swiss(tournaments.people(4), rounds=2))
    tournament_id = created["id"]
    tokens = tournaments.tokens_of(created)
    rng = random.Random(26)
    tournaments.play_round(client, tournament_id, tokens, rng)
    # The worker records the rounds; its own mover waits an hour, so only this test moves.
    start_worker(FLOE_ARCHIVE_URL=settings.archive_url, FLOE_ARCHIVE_AFTER_S="3600")
    wait_until(
        lambda: tournaments.round_ready(client, tournament_id, 2), AT_LENGTH, "round 2's games"
    )
    tournaments.play_round(client, tournament_id, tokens, rng)
    wait_until(lambda: listed_settled(redis_client, tournament_id), AT_LENGTH, "the end")
    games = game_ids(client, tournament_id)
    assert len(games) == 4
    before = tournament_reads(client, tournament_id, tokens, games[0])
    record = held(redis_client, tournament_id)

    assert floe.mover.move_tournament(tournament_id) == "a game of it is still in Redis"
    for game_id in games[:-1]:
        assert floe.mover.move(game_id) is None
    assert floe.mover.move_tournaments_due().left == {
        tournament_id: "a game of it is still in Redis"
    }
    assert floe.mover.move(games[-1]) is None
    assert all(redis_keys(redis_client, game_id) == [] for game_id in games)
    later, _ = api(dataclasses.replace(settings, archive_after_s=3600))
    assert later.mover is not None
    assert later.mover.move_tournament(tournament_id) == "settled too recently"
    assert later.mover.move_tournaments_due().moved == []
    assert held(redis_client, tournament_id) == record

    assert floe.mover.move_tournaments_due().moved == [tournament_id]
    assert_moved_out(redis_client, tournament_id)
    archived = floe.archive.tournament(tournament_id)
    assert archived == record

    assert tournament_reads(client, tournament_id, tokens, games[0]) == before
    _, fresh = api(settings)
    assert tournament_reads(fresh, tournament_id, tokens, games[0]) == before
    # An archived record never changes: a token reissued now is refused, and nothing moves.
    reissue = f"/v1/tournaments/{tournament_id}/players/0/token"
    tournaments.refused(fresh.post(reissue, headers=bearer(ORGANIZER)), 409, "tournament_finished")
    assert floe.archive.tournament(tournament_id) == archived
    assert redis_client.exists(tournament_key(tournament_id)) == 0
    assert tournament_reads(fresh, tournament_id, tokens, games[0]) == before


def test_a_tournament_cancelled_before_it_began_moves_even_if_never_listed_settled(
    settings: Settings, redis_client: redis.Redis
) -> None:
    floe, client = api(settings)
    assert floe.mover is not None
    manual = tournaments.swiss(tournaments.people(2), rounds=1, round_start="manual")
    created = tournaments.create(client, manual)
    tournament_id = created["id"]
    assert floe.mover.move_tournament(tournament_id) == "not settled"
    cancelled = tournaments.decide(client, tournament_id, "cancel")
    assert cancelled.status_code == 201, cancelled.get_json()
    assert listed_settled(redis_client, tournament_id)
    tokens = tournaments.tokens_of(created)
    before = tournament_reads(client, tournament_id, tokens, None)
    # As a tournament settled before the settled list existed: the repair pass finds it.
    redis_client.zrem(SETTLED, tournament_id)
    assert floe.mover.move_tournament(tournament_id) == "not listed settled yet"

    assert floe.mover.move_tournaments_due().moved == [tournament_id]
    assert_moved_out(redis_client, tournament_id)
    assert tournament_reads(client, tournament_id, tokens, None) == before
    _, fresh = api(settings)
    assert tournament_reads(fresh, tournament_id, tokens, None) == before
    reissue = f"/v1/tournaments/{tournament_id}/players/0/token"
    refused = fresh.post(reissue, headers=bearer(ORGANIZER))
    tournaments.refused(refused, 409, "tournament_cancelled")


def finished_tournament(floe: Floe, client: FlaskClient) -> tuple[str, dict[int, str], list[str]]:
    """A one-round tournament of two people, played out and recorded (here, no worker), its
    games moved out: settled, and due to move."""
    created = tournaments.create(client, tournaments.swiss(tournaments.people(2), rounds=1))
    tournament_id = created["id"]
    tokens = tournaments.tokens_of(created)
    tournaments.play_round(client, tournament_id, tokens, random.Random(7))
    floe.tournaments.advance(tournament_id)
    assert tournaments.document(client, tournament_id)["status"] == "finished"
    games = game_ids(client, tournament_id)
    assert floe.mover is not None
    assert all(floe.mover.move(game_id) is None for game_id in games)
    return tournament_id, tokens, games


def killed_mover(settings: Settings, step: str, tournament_id: str) -> None:
    """Move the tournament in a process of its own that SIGKILLs itself after ``step``."""
    assert settings.redis_url is not None and settings.archive_url is not None
    env = {**os.environ, "REDIS_URL": settings.redis_url, "FLOE_ARCHIVE_URL": settings.archive_url}
    run = subprocess.run(
        [sys.executable, "-m", "tests.support.killed_mover", step, tournament_id, "tournament"],
        env=env,
        capture_output=True,
        timeout=PROMPTLY,
        check=False,
    )
    assert run.returncode == -signal.SIGKILL, run.stderr.decode()


@pytest.mark.processes  # the killed mover
@pytest.mark.parametrize("step", STEPS)
def test_a_tournament_mover_killed_after_any_step_loses_nothing(
    settings: Settings, redis_client: redis.Redis, step: str
) -> None:
    floe, client = api(settings)
    assert floe.archive is not None and floe.mover is not None
    tournament_id, tokens, games = finished_tournament(floe, client)
    before = tournament_reads(client, tournament_id, tokens, games[0])
    record = held(redis_client, tournament_id)

    killed_mover(settings, step, tournament_id)
    assert redis_client.exists(tournament_key(tournament_id)) == (step != "delete")
    assert (floe.archive.tournament(tournament_id) == record) == (step != "read")
    _, fresh = api(settings)
    assert tournament_reads(fresh, tournament_id, tokens, games[0]) == before

    assert floe.mover.move_tournament(tournament_id) is None
    assert_moved_out(redis_client, tournament_id)
    assert floe.archive.tournament(tournament_id) == record
    assert floe.mover.move_tournaments_due().moved == []
    _, fresh = api(settings)
    assert tournament_reads(fresh, tournament_id, tokens, games[0]) == before


@pytest.mark.processes  # the killed mover
def test_a_write_after_the_mover_read_is_never_lost(
    settings: Settings, redis_client: redis.Redis
) -> None:
    floe, client = api(settings)
    assert floe.archive is not None and floe.mover is not None
    tournament_id, _, _ = finished_tournament(floe, client)
    killed_mover(settings, "check", tournament_id)  # archived, not yet deleted
    read = floe.tournaments.store.resident(tournament_id)
    assert read is not None and floe.archive.tournament(tournament_id) == read.record

    reissue = f"/v1/tournaments/{tournament_id}/players/0/token"
    issued = client.post(reissue, headers=bearer(ORGANIZER))
    assert issued.status_code == 201, issued.get_json()
    token = issued.get_json()["token"]
    assert floe.tournaments.store.delete_settled(read) == "stale"
    assert floe.mover.move_tournament(tournament_id) == "the archive holds another record"
    assert redis_client.exists(tournament_key(tournament_id)) == 1
    _, fresh = api(settings)
    me = fresh.get(f"/v1/tournaments/{tournament_id}/me", headers=bearer(token))
    assert me.status_code == 200 and me.get_json()["player"] == 0
