"""Bots are deterministic across processes: games played by a real ``floe worker`` (its own
process, its own hash seed) verify ``ok`` here with every bot move made again.

Each catalog game is played with a bot of every kind (``random``, ``greedy`` and ``mcts`` at
full strength, as the service plays them), kept short by its options; one game seats a person
beside a bot. Then one worker's export, with a bot move changed and the game played on as a
forger would, fails naming the move.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from typing import Any

import redis
from flask.testing import FlaskClient

from domain.engine.canonical import canonical_json
from replay.bots import BotReplay, BotSeat
from replay.verify import verify
from service.store.events import events_key
from tests.support.api import BOT_MOVE_WITHIN_MS, Game, until_over
from tests.support.bots import forge_move, moves_by_seat, service_log
from tests.support.workers import StartWorker

#: Each catalog game with one bot of each kind (and Ice Breakers' plan with its two plan
#: followers alone), kept short by its options.
CASES: list[tuple[str, list[str], dict[str, Any]]] = [
    ("arktia", ["random", "greedy", "mcts"], {"turn_limit": 16}),
    ("iceberg", ["random", "greedy", "mcts"], {"idle_turn_limit": 4}),
    ("ice-breakers", ["random", "greedy", "mcts"], {"intro": True}),
    ("ice-breakers", ["greedy", "mcts"], {"intro": True}),
]


def other_hash_seed() -> str:
    """A ``PYTHONHASHSEED`` for the worker that is not this process's: whatever depends on
    hash order (set iteration) would then differ between the two."""
    return "1" if os.environ.get("PYTHONHASHSEED") == "0" else "0"


def export(client: FlaskClient, game_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/v1/games/{game_id}/export")
    assert response.status_code == 200
    return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]


def test_games_played_by_a_worker_verify_with_every_bot_move_made_again(
    start_worker: StartWorker, client: FlaskClient, redis_client: redis.Redis
) -> None:
    start_worker(PYTHONHASHSEED=other_hash_seed())
    ids = []
    for game, bots, options in CASES:  # all at once: the worker plays them side by side
        players = [{"name": f"bot{i}", "bot": bot} for i, bot in enumerate(bots)]
        body = {"game": game, "players": players, "options": options}
        created = client.post("/v1/games", json=body)
        assert created.status_code == 201, created.get_json()
        ids.append(created.get_json()["id"])
    for game_id, (game, bots, _) in zip(ids, CASES, strict=True):
        assert until_over(client, redis_client, game_id)["outcome"] is not None
        events = export(client, game_id)
        verdict = verify(events)
        assert verdict.status == "ok", (game, bots, verdict)
        moved = moves_by_seat(events)
        seats = tuple(BotSeat(i, kind, moved.get(i, 0)) for i, kind in enumerate(bots))
        assert verdict.bots == BotReplay("replayed", seats), (game, bots)
        assert verdict.bots.moves == sum(moved.values()) > 0


def test_a_persons_moves_beside_a_workers_bot_are_never_replayed(
    start_worker: StartWorker, client: FlaskClient, redis_client: redis.Redis
) -> None:
    start_worker(PYTHONHASHSEED=other_hash_seed())
    players = [{"name": "Ann"}, {"name": "bot", "bot": "mcts"}]
    body = {"game": "arktia", "players": players, "options": {"turn_limit": 12}}
    created = client.post("/v1/games", json=body).get_json()
    game = Game(client, created["id"], [created["seats"][0]["token"]])
    chooser = random.Random(5)
    while (view := game.view())["status"] != "over":
        if view["to_act"] != [0]:  # the bot's turn: wait for the worker's move
            after = f"0-{view['version']}"
            assert redis_client.xread({events_key(game.id): after}, block=BOT_MOVE_WITHIN_MS)
            continue
        legal = game.legal(0)
        assert game.post(0, chooser.choice(legal["actions"]), legal["version"]).status_code == 201
    events = export(client, game.id)
    moved = moves_by_seat(events)
    assert moved[0] > 0 and moved[1] > 0
    verdict = verify(events)
    assert verdict.status == "ok", verdict
    assert verdict.bots == BotReplay("replayed", (BotSeat(1, "mcts", moved[1]),))


def test_a_workers_export_with_a_bot_move_changed_fails_naming_it(
    worker: subprocess.Popen[bytes], client: FlaskClient, redis_client: redis.Redis
) -> None:
    players = [{"name": "a", "bot": "greedy"}, {"name": "b", "bot": "random"}]
    body = {"game": "arktia", "players": players, "options": {"turn_limit": 16}}
    game_id = client.post("/v1/games", json=body).get_json()["id"]
    until_over(client, redis_client, game_id)
    events = export(client, game_id)
    greedy = [e for e in events if e["actor"] == 0]
    moved = greedy[len(greedy) // 2]
    forged, put_in = forge_move(events, moved["version"])
    assert verify(forged, bot_replay=False).status == "ok"
    verdict = verify(forged)
    assert (verdict.status, verdict.version) == ("failed", moved["version"])
    assert verdict.reason == (
        f"the bot of seat 0 (greedy) would have played {canonical_json(moved['data']['action'])}"
        f" at version {moved['version']}, the log says {canonical_json(put_in)}"
    )


def test_an_upload_is_audited_without_bot_replay_and_says_so(client: FlaskClient) -> None:
    """``POST /v1/replays`` never makes bot moves again (their cost is the bots' thinking,
    which an upload must not be able to ask of the API): a forged bot move passes there,
    and the banner says the bots' moves are not proven."""
    events = service_log("iceberg", ["greedy", "random"], "upload", idle_turn_limit=4)
    greedy = [e for e in events if e["actor"] == 0]
    forged, _ = forge_move(events, greedy[len(greedy) // 2]["version"])
    assert verify(forged).status == "failed"
    body = "".join(json.dumps(e) + "\n" for e in forged)
    answer = client.post("/v1/replays", data=body, content_type="application/x-ndjson")
    assert answer.status_code == 200
    document = answer.get_json()
    assert document["verdict"]["status"] == "ok"
    assert set(document["verdict"]) == {
        "game_id",
        "status",
        "events",
        "version",
        "reason",
        "unsigned_seats",
    }
    assert document["banner"] == [
        "bot replay skipped: the bots' moves are legal, but not proven to be the moves their "
        "bots make (floe replay verify without --no-bot-replay proves it)"
    ]
