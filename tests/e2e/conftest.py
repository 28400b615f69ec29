"""API fixtures: the real app on a real Redis, and helpers to play through it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api.app import create_app
from service.bootstrap import Floe, build
from service.settings import Settings
from tests.support.api import (
    ORGANIZER,
    Game,
    bearer,
)
from tests.support.clocks import ManualClock


@pytest.fixture
def app(redis_url: str) -> Flask:
    return create_app(Settings(redis_url=redis_url, organizer_token=ORGANIZER))


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def new_game(client: FlaskClient) -> Callable[..., Game]:
    def make(players: int = 2, game: str = "arktia", **extra: Any) -> Game:
        body = {"game": game, "players": [{"name": f"p{i}"} for i in range(players)], **extra}
        headers = bearer(ORGANIZER) if "seed" in extra else {}
        response = client.post("/v1/games?wait=30", json=body, headers=headers)  # setup draws
        assert response.status_code == 201, response.get_json()
        created = response.get_json()
        return Game(client, created["id"], [s["token"] for s in created["seats"]])

    return make


# ----- the service in-process on a clock the test moves by hand ----------------------------


@pytest.fixture
def manual_clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def hand_floe(redis_url: str, manual_clock: ManualClock) -> Floe:
    """Floe on the test Redis whose time passes only when the test says (``manual_clock``)."""
    return build(Settings(redis_url=redis_url, organizer_token=ORGANIZER), clock=manual_clock)


@pytest.fixture
def hand_client(hand_floe: Floe) -> FlaskClient:
    """The API of ``hand_floe``."""
    return create_app(floe=hand_floe).test_client()
