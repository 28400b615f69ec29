"""Bot seats played by real RQ workers: alone, with people, and through a lost job."""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from replay.verify import verify_lines
from service.bootstrap import build
from service.jobs.backlog import pending_key
from service.jobs.queue import QUEUE_NAMES, job_id
from service.settings import Settings
from service.store.events import events_key
from tests.support.api import BOT_MOVE_WITHIN_MS, Game, until_over
from tests.support.workers import StartWorker

NewGame = Callable[..., Game]


@pytest.mark.parametrize(
    ("game", "bots", "options"),
    [
        ("arktia", ["greedy", "random"], {}),
        ("iceberg", ["random", "greedy", "random"], {}),
        ("ice-breakers", ["greedy", "greedy"], {"intro": True}),
        ("arktia", ["random", "mcts"], {}),
        ("ice-breakers", ["mcts", "mcts", "mcts"], {"intro": True}),
        ("ice-breakers", ["mcts", "greedy"], {}),
    ],
)
def test_a_game_of_bots_plays_to_the_end_with_no_client(
    worker: subprocess.Popen[bytes],
    client: FlaskClient,
    redis_client: redis.Redis,
    game: str,
    bots: list[str],
    options: dict[str, Any],
) -> None:
    players = [{"name": f"bot{i}", "bot": bot} for i, bot in enumerate(bots)]
    created = client.post("/v1/games", json={"game": game, "players": players, "options": options})
    assert created.status_code == 201
    body = created.get_json()
    assert all(seat["token"] is None for seat in body["seats"])
    final = until_over(client, redis_client, body["id"])
    assert final["outcome"] is not None
    export = client.get(f"/v1/games/{body['id']}/export").get_data(as_text=True)
    assert verify_lines(export.splitlines()).status == "ok"
    actions = [json.loads(line) for line in export.splitlines()]
    bot_moves = [e for e in actions if e["actor"] != "system"]
    assert bot_moves and all(e["command_id"] == f"bot-{e['version'] - 1}" for e in bot_moves)


def test_a_bot_answers_a_person(
    worker: subprocess.Popen[bytes],
    new_game: NewGame,
    client: FlaskClient,
    redis_client: redis.Redis,
) -> None:
    created = client.post(
        "/v1/games",
        json={"game": "arktia", "players": [{"name": "Ann"}, {"name": "bot", "bot": "greedy"}]},
    ).get_json()
    game = Game(client, created["id"], [created["seats"][0]["token"]])
    rng = random.Random(3)
    for _ in range(6):
        view = game.view()
        if view["to_act"] != [0]:
            after = f"0-{view['version']}"
            assert redis_client.xread({events_key(game.id): after}, block=BOT_MOVE_WITHIN_MS)
            continue
        legal = game.legal(0)
        assert game.post(0, rng.choice(legal["actions"]), legal["version"]).status_code == 201
    events = game.get("/events").get_json()["events"]
    assert {e["actor"] for e in events[1:]} == {0, 1}, "the bot moved in its turns"


def test_a_lost_bot_job_is_found_and_runs_once(
    client: FlaskClient, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    players = [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}]
    created = client.post("/v1/games", json={"game": "arktia", "players": players}).get_json()
    game_id = created["id"]
    # The job is lost before any worker saw it: the bots' backlog and RQ queue are emptied.
    assert redis_client.zrange(pending_key(QUEUE_NAMES["bot"]), 0, -1) == [
        job_id("bot", game_id, 1).encode()
    ]
    redis_client.delete(pending_key(QUEUE_NAMES["bot"]), "rq:queue:floe:bots")
    start_worker()  # its sweeper finds the bot that never moved
    moved = redis_client.xread({events_key(game_id): "0-1"}, block=BOT_MOVE_WITHIN_MS)
    assert moved, "the bot moved"
    service = build(Settings(), redis_client=redis_client).automation
    assert service.play_bot(game_id, 1) is False, "the stale job, run again, writes nothing"
    second = client.get(f"/v1/games/{game_id}/events?after=1&limit=1").get_json()["events"][0]
    assert second["version"] == 2 and second["actor"] == 0
