"""``board.svg`` is drawn once per (game, version's hash, what the viewer may see): a kept
picture is byte for byte the one drawing it afresh gives, for every kind of viewer, before
and after the end; no seat is handed a picture kept for another; an old version asked for
again is not folded again (issue 27)."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.engine import play
from service.api.app import create_app
from service.bootstrap import Floe, build
from service.games.access import SPECTATOR, Viewer
from service.games.queries import GameQueries
from service.settings import Settings
from tests.support.api import ORGANIZER, Game, bearer

ORGANIZER_VIEWER = Viewer(organizer=True)


@pytest.fixture
def floe(redis_url: str, worker: subprocess.Popen[bytes]) -> Floe:
    """The service in this process (its caches readable), a real worker dealing its draws."""
    return build(Settings(redis_url=redis_url, organizer_token=ORGANIZER))


@pytest.fixture
def client(floe: Floe) -> FlaskClient:
    return create_app(floe=floe).test_client()


def _iceberg(client: FlaskClient) -> Game:
    body = {"game": "iceberg", "players": [{"name": "Ann"}, {"name": "Bo"}]}
    created = client.post("/v1/games?wait=30", json=body)
    assert created.status_code == 201, created.get_json()
    game = created.get_json()
    return Game(client, game["id"], [seat["token"] for seat in game["seats"]])


def _viewers(game: Game) -> dict[str, tuple[dict[str, str], Viewer]]:
    """Every kind of viewer: its request headers, and the same viewer for the queries."""
    return {
        "spectator": ({}, SPECTATOR),
        "seat 0": (bearer(game.tokens[0]), Viewer.of_seat(game.id, 0)),
        "seat 1": (bearer(game.tokens[1]), Viewer.of_seat(game.id, 1)),
        "organizer": (bearer(ORGANIZER), ORGANIZER_VIEWER),
    }


def _served(game: Game, headers: dict[str, str], version: int) -> bytes:
    response = game.client.get(f"/v1/games/{game.id}/board.svg?version={version}", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    data: bytes = response.get_data()
    return data


def _assert_kept_pictures_are_fresh(floe: Floe, game: Game, versions: list[int]) -> None:
    """Each picture served twice (drawn, then kept) equals one drawn by queries that keep
    nothing, for every viewer."""
    fresh = GameQueries(floe.repository, floe.store, signals=floe.signals, picture_cache_bytes=0)
    meta = floe.repository.meta(game.id)
    for name, (headers, viewer) in _viewers(game).items():
        for version in versions:
            drawn = fresh.picture(meta, viewer, version).encode()
            assert _served(game, headers, version) == drawn, (name, version)
            assert _served(game, headers, version) == drawn, (name, version, "kept")


def test_a_kept_picture_is_byte_for_byte_a_fresh_one_for_every_viewer_before_and_after_the_end(
    floe: Floe, client: FlaskClient
) -> None:
    game = _iceberg(client)
    rng = random.Random(27)
    view = game.play_randomly(rng, stop=lambda v: v["version"] >= 12)
    during = [1, 2, view["version"] // 2, view["version"]]
    _assert_kept_pictures_are_fresh(floe, game, during)
    kept = len(floe.queries.pictures.keys())
    assert kept == 3 * len(during), "seats 0, 1 and spectators each (organizer = spectator)"

    final = game.play_randomly(rng)
    assert final["status"] == "over"
    # the same versions again, now public (the seed is out): drawn anew, not the kept ones
    _assert_kept_pictures_are_fresh(floe, game, [*during, final["version"] - 1, final["version"]])
    assert "(over)" in _served(game, {}, final["version"]).decode()


def test_no_seat_is_handed_a_picture_kept_for_another(floe: Floe, client: FlaskClient) -> None:
    game = _iceberg(client)
    game.play_randomly(random.Random(5), stop=lambda v: v["version"] >= 6)
    version = game.view()["version"]
    for headers, _ in _viewers(game).values():
        _served(game, headers, version)
    kept = floe.queries.pictures.keys()
    keys = [key for key in kept if key[0] == game.id]
    made = {key[1] for key in keys}
    assert len(made) == 1, "one version, named by one hash"
    assert sorted((key[2] for key in keys), key=str) == [0, 1, None], keys
    assert not any(key[3] for key in keys), "the seed is not out yet"


@contextmanager
def _counting_folds() -> Iterator[list[int]]:
    """Counts folds in this thread, where the test client serves: calls of ``play.apply``
    (one event into a state) and of ``play.fold_onto`` (a run of them, as the repository
    folds a catch-up of several). The profiler observes, it replaces nothing."""
    folds = [0]
    codes = (play.apply.__code__, play.fold_onto.__code__)

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code in codes:
            folds[0] += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield folds
    finally:
        sys.setprofile(previous)


def test_an_old_version_asked_for_again_is_not_folded_again(
    floe: Floe, client: FlaskClient
) -> None:
    game = _iceberg(client)
    game.play_randomly(random.Random(9), stop=lambda v: v["version"] >= 10)
    old = game.view()["version"] - 3
    with _counting_folds() as first:
        picture = _served(game, {}, old)
    assert first[0] >= 1, "the first request folds the game up to the old version"
    with _counting_folds() as again:
        assert _served(game, {}, old) == picture
    assert again[0] == 0, "the second is the kept picture"
