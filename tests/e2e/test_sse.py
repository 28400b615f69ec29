"""The Server-Sent Events stream: every event once, in order, resumable, closed at the end."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from flask.testing import FlaskClient

from service.api.app import create_app
from service.settings import Settings
from tests.support.api import Game

NewGame = Callable[..., Game]


def read_stream(
    client: FlaskClient, url: str, headers: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Parse an SSE response body into its messages (id, event, data)."""
    response = client.get(url, headers=headers or {})
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    messages = []
    for block in response.get_data(as_text=True).split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line and not line.startswith(":"):
                name, _, value = line.partition(": ")
                fields[name] = value
        if "data" in fields:
            messages.append({**fields, "data": json.loads(fields["data"])})
    return messages


def test_the_stream_of_a_finished_game_sends_every_event_and_closes(
    client: FlaskClient, new_game: NewGame
) -> None:
    game = new_game()
    final = game.play_randomly(random.Random(4))
    messages = read_stream(client, f"/v1/games/{game.id}/events/stream")
    assert [int(m["id"]) for m in messages] == list(range(1, final["version"] + 1))
    assert [m["event"] for m in messages] == [m["data"]["type"] for m in messages]
    assert messages[-1]["event"] == "seed_revealed"
    assert all("hash" in m["data"] for m in messages)  # public once the game is over


def test_last_event_id_resumes_after_that_version(client: FlaskClient, new_game: NewGame) -> None:
    game = new_game()
    final = game.play_randomly(random.Random(8))
    url = f"/v1/games/{game.id}/events/stream"
    resumed = read_stream(client, url, {"Last-Event-ID": str(final["version"] - 3)})
    assert [int(m["id"]) for m in resumed] == [
        final["version"] - 2,
        final["version"] - 1,
        final["version"],
    ]
    assert [int(m["id"]) for m in read_stream(client, f"{url}?after={final['version'] - 1}")] == [
        final["version"]
    ]
    assert read_stream(client, url, {"Last-Event-ID": str(final["version"])}) == []


def test_a_live_game_streams_without_hashes_until_the_time_limit(
    new_game: NewGame, redis_url: str
) -> None:
    game = new_game()
    legal = game.legal(0)
    game.post(0, legal["actions"][0], legal["version"])
    settings = Settings(redis_url=redis_url, sse_max_seconds=0.2, sse_heartbeat_seconds=0.05)
    response = create_app(settings).test_client().get(f"/v1/games/{game.id}/events/stream")
    body = response.get_data(as_text=True)
    assert ": keep-alive" in body
    datas = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]
    assert [d["version"] for d in datas] == [1, 2]
    assert not any("hash" in d or "prev_hash" in d for d in datas)
