"""What API tests share: the organizer token, bearer headers, a game driven through the
Flask test client, and a game of bots followed to its end."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from flask.testing import FlaskClient

from service.store.events import events_key

ORGANIZER = "organizer-secret-token"
#: How long a bots' game may go without a new event (a worker's move) before it counts as
#: stalled: twice a bot's own budget (60 s), so a busy machine is never taken for a stall.
BOT_MOVE_WITHIN_MS = 120_000


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Game:
    """A game created through the API, with its seat tokens."""

    client: FlaskClient
    id: str
    tokens: list[str]

    def get(self, path: str = "", token: str | None = None) -> Any:
        headers = bearer(token) if token else {}
        return self.client.get(f"/v1/games/{self.id}{path}", headers=headers)

    def view(self) -> dict[str, Any]:
        body: dict[str, Any] = self.get().get_json()
        return body

    def legal(self, seat: int) -> dict[str, Any]:
        body: dict[str, Any] = self.get("/legal-actions", self.tokens[seat]).get_json()
        return body

    def post(
        self,
        seat: int,
        action: dict[str, Any],
        version: int | None = None,
        command_id: str | None = None,
        *,
        wait: int = 30,
    ) -> Any:
        """Post an action; ``wait`` seconds (the most the API allows) for a worker's draw, if
        the action needs one: it answers as soon as the draw is in."""
        version = self.view()["version"] if version is None else version
        body = {
            "action": action,
            "expected_version": version,
            "command_id": command_id or f"{seat}-{version}",
        }
        return self.client.post(
            f"/v1/games/{self.id}/actions?wait={wait}",
            json=body,
            headers=bearer(self.tokens[seat]),
        )

    def play_randomly(
        self, rng: random.Random, *, stop: Callable[[dict[str, Any]], bool] | None = None
    ) -> dict[str, Any]:
        """Play from legal-actions only until the game ends (or ``stop`` says so)."""
        while True:
            view = self.view()
            if view["status"] == "over" or (stop and stop(view)):
                return view
            seat = rng.choice(view["to_act"])
            legal = self.legal(seat)
            actions = legal["actions"]
            weights = [0.1 if a["type"] == "retire" else 1.0 for a in actions]
            action = rng.choices(actions, weights)[0]
            response = self.post(seat, action, legal["version"])
            assert response.status_code == 201, response.get_json()


def until_over(client: FlaskClient, redis_client: redis.Redis, game_id: str) -> dict[str, Any]:
    """Follow the stream (blocking reads, no sleeps) until the game is over."""
    seen = 0
    for _ in range(10_000):
        view: dict[str, Any] = client.get(f"/v1/games/{game_id}").get_json()
        if view["status"] == "over":
            return view
        seen = max(seen, view["version"])
        assert redis_client.xread({events_key(game_id): f"0-{seen}"}, block=BOT_MOVE_WITHIN_MS), (
            "stalled"
        )
    raise AssertionError("the bots' game did not end")
