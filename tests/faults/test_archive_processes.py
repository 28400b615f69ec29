"""API processes on one PostgreSQL read each other's archived games.

Two real gunicorn servers (two gevent worker processes each) on the suite's Redis and one
real PostgreSQL archive, sharing one service key as every API process of one Floe does. A
game played to its end through the first is read, byte for byte, through both; a mover in
this process moves it out of Redis; both servers then answer every read exactly as before,
whichever of their processes takes the request.
"""

from __future__ import annotations

import http.client
import random
from pathlib import Path

import redis

from service.settings import Settings
from tests.support.api import ORGANIZER, bearer
from tests.support.archived_games import api, play_out, redis_keys
from tests.support.served import ServeApi

Answer = tuple[int, str, bytes]


def read(port: int, path: str, token: str | None = None) -> Answer:
    """One GET on its own connection: status, content type and the body's bytes."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", path, headers=bearer(token) if token else {})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


def reads(port: int, game_id: str, version: int, tokens: list[str]) -> dict[str, Answer]:
    """A finished game's reads, each asked twice (two processes may take them)."""
    base = f"/v1/games/{game_id}"
    paths = [base, f"{base}/events", f"{base}/export", f"{base}/board.svg"]
    paths += [f"{base}?version={v}" for v in range(1, version + 1)]
    paths += [f"{base}/board.svg?version={v}" for v in (1, version // 2 or 1, version)]
    found = {f"{path} #{n}": read(port, path) for path in paths for n in (1, 2)}
    found |= {f"{base} as {seat}": read(port, base, t) for seat, t in enumerate(tokens)}
    return found


def test_two_api_servers_on_one_postgres_read_each_others_archived_games(
    serve_api: ServeApi,
    redis_url: str,
    redis_client: redis.Redis,
    postgres_url: str,
    tmp_path: Path,
) -> None:
    key_file = tmp_path / "service.key"
    settings = Settings(
        redis_url=redis_url,
        organizer_token=ORGANIZER,
        archive_url=postgres_url,
        archive_after_s=0,
        service_key_file=key_file,
        live_games_per_creator=0,
    )
    floe, client = api(settings)  # makes the key file the servers then share
    extra = {"FLOE_ARCHIVE_URL": postgres_url, "FLOE_SERVICE_KEY_FILE": str(key_file)}
    first, second = (serve_api(redis_url, **extra) for _ in range(2))
    games = [play_out(client, "arktia", 2, {"turn_limit": 2}) for _ in range(2)]
    rng = random.Random(27)
    before = {}
    for game in games:
        version = game.view()["version"]
        before[game.id] = reads(first.port, game.id, version, game.tokens)
        assert reads(second.port, game.id, version, game.tokens) == before[game.id]

    assert floe.mover is not None
    for game in games:
        assert floe.mover.move(game.id) is None
        assert redis_keys(redis_client, game.id) == []
    for game in rng.sample(games, len(games)):
        version = game.view()["version"]
        for served in rng.sample([first, second], 2):
            assert reads(served.port, game.id, version, game.tokens) == before[game.id]
