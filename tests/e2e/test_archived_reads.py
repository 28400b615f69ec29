"""A finished game moved to the archive answers every read byte for byte as before.

Real Redis, real workers for the draws, and both real archives (a SQLite file and the suite's
PostgreSQL). Each game is played to its end through the API, every read of it is taken, the
mover moves it out (its Redis keys gone), and the reads are taken again: from the same API
(whose caches saw the game live) and from a new one (a process that never saw it).
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.settings import Settings
from service.store.events import GameExists
from tests.support import archives
from tests.support import tournament_api as tournaments
from tests.support.api import Game
from tests.support.archived_games import answer, api, game_reads, play_out, redis_keys
from tests.support.waiting import AT_LENGTH, wait_until

#: (game, seats, options): every hosted game, short.
GAMES = [
    ("arktia", 2, {"turn_limit": 2}),
    ("iceberg", 2, {}),
    ("ice-breakers", 2, {}),
]


archive_url = archives.archive_url
settings = archives.archive_settings


@pytest.mark.parametrize(("game", "seats", "options"), GAMES, ids=[g for g, _, _ in GAMES])
def test_a_finished_game_reads_the_same_once_archived(
    settings: Settings,
    redis_client: redis.Redis,
    worker: subprocess.Popen[bytes],
    game: str,
    seats: int,
    options: dict[str, Any],
) -> None:
    floe, client = api(settings)
    played = play_out(client, game, seats, options)
    version = played.view()["version"]
    last = played.get("/events").get_json()["events"][-1]
    before = game_reads(client, played.id, version, played.tokens)
    assert redis_keys(redis_client, played.id)

    assert floe.mover is not None
    assert floe.mover.move(played.id) is None
    assert redis_keys(redis_client, played.id) == []
    assert floe.archive is not None and floe.archive.has(played.id)

    assert game_reads(client, played.id, version, played.tokens) == before
    _, fresh = api(settings)
    assert game_reads(fresh, played.id, version, played.tokens) == before
    assert last["type"] == "seed_revealed"


def test_a_command_repeated_after_the_move_gets_its_first_answer(
    settings: Settings, redis_client: redis.Redis
) -> None:
    floe, client = api(settings)
    body = {"game": "arktia", "players": [{"name": "ann"}, {"name": "bob"}]}
    created = client.post("/v1/games", json=body).get_json()
    game = Game(client, created["id"], [s["token"] for s in created["seats"]])
    game.play_randomly(random.Random(7), stop=lambda view: view["version"] >= 3)
    view = game.view()
    seat = view["to_act"][0]
    resign = {"type": "resign"}
    first = game.post(seat, resign, view["version"], command_id="leaving")
    assert first.status_code == 201, first.get_json()
    repeated = game.post(seat, resign, view["version"], command_id="leaving")
    assert repeated.get_json() == first.get_json()
    assert floe.mover is not None and floe.mover.move(game.id) is None
    assert redis_keys(redis_client, game.id) == []

    _, fresh = api(settings)
    again = Game(fresh, game.id, game.tokens).post(seat, resign, view["version"], "leaving")
    assert (again.status_code, again.get_data()) == (repeated.status_code, repeated.get_data())
    other = Game(fresh, game.id, game.tokens).post(seat, resign, view["version"], "another")
    assert other.status_code == 409, other.get_json()


def test_a_game_not_over_or_not_yet_due_stays_in_redis(
    settings: Settings, redis_client: redis.Redis, tmp_path: Path
) -> None:
    floe, client = api(settings)
    body = {"game": "arktia", "players": [{"name": "ann"}, {"name": "bob"}]}
    live = client.post("/v1/games", json=body).get_json()["id"]
    assert floe.mover is not None
    assert floe.mover.move(live) is not None
    assert floe.mover.move_due().moved == []
    assert redis_keys(redis_client, live)

    later, later_client = api(dataclasses.replace(settings, archive_after_s=3600))
    ended = play_out(later_client, "arktia", 2, {"turn_limit": 2})
    assert later.mover is not None and later.mover.move_due().moved == []
    assert redis_keys(redis_client, ended.id)
    assert floe.mover.move_due().moved == [ended.id]
    assert redis_keys(redis_client, ended.id) == []


def test_an_id_the_archive_holds_is_never_created_again(settings: Settings) -> None:
    floe, client = api(settings)
    ended = play_out(client, "arktia", 2, {"turn_limit": 2})
    assert floe.mover is not None and floe.mover.move(ended.id) is None
    first = floe.store.read(ended.id, upto=1)[0]
    with pytest.raises(GameExists):
        floe.store.create(first, seed_hex="00" * 32, meta={"game": "arktia"}, created_ms=0)


def test_a_tournament_reads_the_same_once_its_games_are_archived(
    settings: Settings, redis_client: redis.Redis, start_worker: Callable[..., Any]
) -> None:
    floe, client = api(settings)
    created = tournaments.create(client, tournaments.swiss(tournaments.people(4), rounds=2))
    tournament_id = created["id"]
    tokens = tournaments.tokens_of(created)
    rng = random.Random(26)
    assert floe.mover is not None

    tournaments.play_round(client, tournament_id, tokens, rng)  # no worker: not recorded yet
    first_round = round_games(client, tournament_id)[0]
    for game_id in first_round:
        assert floe.mover.move(game_id) == "its tournament round is not recorded yet"
        assert redis_keys(redis_client, game_id)
    start_worker()  # records the round and makes the next
    wait_until(lambda: tournaments.round_ready(client, tournament_id, 2), AT_LENGTH, "round 2")
    tournaments.play_round(client, tournament_id, tokens, rng)
    wait_until(lambda: finished(client, tournament_id), AT_LENGTH, "the end")

    paths = [
        f"/v1/tournaments/{tournament_id}",
        f"/v1/tournaments/{tournament_id}/standings.csv",
        f"/v1/tournaments/{tournament_id}/export",
    ]
    before = {path: answer(client, path) for path in paths}
    for game_id in [g for games in round_games(client, tournament_id) for g in games]:
        assert floe.mover.move(game_id) is None
        assert redis_keys(redis_client, game_id) == []
    assert {path: answer(client, path) for path in paths} == before
    _, fresh = api(settings)
    assert {path: answer(fresh, path) for path in paths} == before


def round_games(client: FlaskClient, tournament_id: str) -> list[list[str]]:
    rounds = tournaments.document(client, tournament_id)["rounds"]
    return [[game["game_id"] for game in round_["games"]] for round_ in rounds]


def finished(client: FlaskClient, tournament_id: str) -> bool:
    return bool(tournaments.document(client, tournament_id)["status"] == "finished")


def test_the_workers_move_finished_games_out_on_their_own(
    settings: Settings, redis_client: redis.Redis, start_worker: Callable[..., Any]
) -> None:
    assert settings.archive_url is not None
    floe, client = api(settings)
    ended = play_out(client, "arktia", 2, {"turn_limit": 2})
    body = {"game": "arktia", "players": [{"name": "ann"}, {"name": "bob"}]}
    live = client.post("/v1/games", json=body).get_json()["id"]
    version = ended.view()["version"]
    before = game_reads(client, ended.id, version, ended.tokens)

    start_worker(FLOE_ARCHIVE_URL=settings.archive_url, FLOE_ARCHIVE_AFTER_S="0")
    wait_until(lambda: not redis_keys(redis_client, ended.id), AT_LENGTH, "the move")
    assert floe.archive is not None and floe.archive.has(ended.id)
    assert game_reads(client, ended.id, version, ended.tokens) == before
    assert redis_keys(redis_client, live), "a game not over stays"
