"""What the archive's end-to-end and crash tests share: an API built as a new process would
be, every read of a finished game taken as bytes, a game played out, the Redis keys of one."""

from __future__ import annotations

import random
from typing import Any

import redis
from flask.testing import FlaskClient

from service.api.app import create_app
from service.bootstrap import Floe
from service.settings import Settings
from tests.support.api import Game, bearer

Answer = tuple[int, str, bytes]


def api(settings: Settings) -> tuple[Floe, FlaskClient]:
    """A new API on ``settings``: its own caches and archive connection, as a new process."""
    app = create_app(settings)
    floe: Floe = app.extensions["floe"]
    return floe, app.test_client()


def answer(client: FlaskClient, path: str, token: str | None = None) -> Answer:
    response = client.get(path, headers=bearer(token) if token else {})
    return response.status_code, response.content_type, response.get_data()


def game_reads(
    client: FlaskClient, game_id: str, version: int, tokens: list[str]
) -> dict[str, Answer]:
    """Every read of a finished game, as a spectator and as each seat."""
    base = f"/v1/games/{game_id}"
    versions = sorted({1, 2, version // 2, version - 1, version} - {0})
    paths = [
        base,
        f"{base}/state",
        f"{base}/events",
        f"{base}/events?after=1&limit=3",
        f"{base}/events/stream",
        f"{base}/export",
        f"{base}/board.svg",
        *(f"{base}?version={v}" for v in versions),
        *(f"{base}/board.svg?version={v}" for v in versions),
        f"{base}?version={version + 1}",
    ]
    reads = {path: answer(client, path) for path in paths}
    for seat, token in enumerate(tokens):
        for path in (base, f"{base}/legal-actions", f"{base}?version={version // 2 or 1}"):
            reads[f"{path} as {seat}"] = answer(client, path, token)
    return reads


def redis_keys(redis_client: redis.Redis, game_id: str) -> list[bytes]:
    return sorted(redis_client.scan_iter(match=f"floe:{{{game_id}}}:*"))


def play_out(client: FlaskClient, game: str, seats: int, options: dict[str, Any]) -> Game:
    body = {"game": game, "players": [{"name": f"p{i}"} for i in range(seats)], "options": options}
    response = client.post("/v1/games?wait=30", json=body)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    played = Game(client, created["id"], [s["token"] for s in created["seats"]])
    view = played.play_randomly(random.Random(f"{game}-archive"))
    assert view["status"] == "over"
    return played
