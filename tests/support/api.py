"""What API tests share: the organizer token, bearer headers and a game driven through the
Flask test client."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask.testing import FlaskClient

ORGANIZER = "organizer-secret-token"


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
        wait: int = 10,
    ) -> Any:
        """Post an action; ``wait`` seconds for a worker's draw, if the action needs one."""
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
