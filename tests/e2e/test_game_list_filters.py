"""``GET /v1/games`` filters as ``service/api/spec/games.yaml`` documents, against a real
``floe run`` (gunicorn, job workers, its own Redis) over HTTP.

The service is fresh, so the listing holds exactly the games this module makes: Arktia games
of people still in play, Arktia games played out to their end, and Iceberg games in play (their
setup drawn by the workers first). Each filter is checked against what was made: ``status``
and ``game`` alone and together, paging by ``limit`` and ``cursor`` (full pages of exactly
``limit``, the last with ``cursor: null``, every game once, newest created first), and every
refused query (an unknown parameter, ``offset``, a value out of its schema, a parameter given
twice, a cursor no search handed out) is 400 ``invalid_query``. The games are never archived
meanwhile (``FLOE_ARCHIVE_AFTER_S`` is left at its default of minutes), so the answers do not
depend on when a sweep runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.support.floe_run import call, floe_run
from tests.support.waiting import PROMPTLY

pytestmark = pytest.mark.processes

#: What a listed game shows, exactly: no token, no seed, no state.
ITEM_KEYS = {
    "id",
    "game",
    "status",
    "version",
    "created_at",
    "ended_at",
    "tournament",
    "players",
    "outcome",
}
#: Two turns end an Arktia game (``turn_limit``): quick to play out through the API.
QUICK = {"turn_limit": 2}


@dataclass
class World:
    """The running service's port and the ids of the games made on it, by kind."""

    port: int
    active_arktia: list[str]
    over_arktia: list[str]
    active_iceberg: list[str]

    @property
    def every(self) -> set[str]:
        return {*self.active_arktia, *self.over_arktia, *self.active_iceberg}


def get(port: int, query: dict[str, Any] | str) -> tuple[int, Any]:
    """``GET /v1/games`` with ``query`` (a dict, or a raw query string): status, body."""
    raw = query if isinstance(query, str) else urlencode(query)
    status, body, _ = call(port, "GET", f"/v1/games?{raw}")
    return status, body


def listed(port: int, **query: Any) -> list[dict[str, Any]]:
    """One page of the listing, which must be a 200 of well-formed items."""
    status, body = get(port, query)
    assert status == 200, body
    for item in body["games"]:
        assert set(item) == ITEM_KEYS, item
    return list(body["games"])


def ids(games: list[dict[str, Any]]) -> list[str]:
    return [game["id"] for game in games]


def create(port: int, game: str, **extra: Any) -> tuple[str, list[str]]:
    """A game of two people (``?wait=`` lets any setup draw land first): id and tokens."""
    body = {"game": game, "players": [{"name": "Ann"}, {"name": "Bo"}], **extra}
    status, created, _ = call(port, "POST", "/v1/games?wait=30", body, timeout=PROMPTLY)
    assert status == 201, created
    assert created["status"] == "active", created
    return created["id"], [seat["token"] for seat in created["seats"]]


def play_out(port: int, game_id: str, tokens: list[str]) -> None:
    """Whoever is to act posts their first legal action, until the game is over."""
    while True:
        status, view, _ = call(port, "GET", f"/v1/games/{game_id}")
        assert status == 200, view
        if view["status"] == "over":
            return
        token = tokens[view["to_act"][0]]
        status, legal, _ = call(port, "GET", f"/v1/games/{game_id}/legal-actions", token=token)
        assert status == 200, legal
        action = {
            "action": legal["actions"][0],
            "expected_version": legal["version"],
            "command_id": f"play-{legal['version']}",
        }
        path = f"/v1/games/{game_id}/actions?wait=30"
        status, posted, _ = call(port, "POST", path, action, token=token, timeout=PROMPTLY)
        assert status == 201, posted


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    env = {"FLOE_LIVE_GAMES_PER_CREATOR": "0", "FLOE_STORED_BYTES_PER_CREATOR": "0"}
    with floe_run(tmp_path_factory.mktemp("floe-list"), env) as run:
        port = run.port
        active_arktia = [create(port, "arktia")[0] for _ in range(3)]
        over_arktia = []
        for _ in range(2):
            game_id, tokens = create(port, "arktia", options=QUICK)
            play_out(port, game_id, tokens)
            over_arktia.append(game_id)
        active_iceberg = [create(port, "iceberg")[0] for _ in range(2)]
        yield World(port, active_arktia, over_arktia, active_iceberg)


def test_the_unfiltered_listing_holds_every_game_made(world: World) -> None:
    games = listed(world.port, limit=100)
    assert set(ids(games)) == world.every
    assert len(games) == len(world.every)


def test_status_keeps_only_the_games_of_that_status(world: World) -> None:
    active = listed(world.port, status="active", limit=100)
    assert set(ids(active)) == {*world.active_arktia, *world.active_iceberg}
    assert {game["status"] for game in active} == {"active"}
    over = listed(world.port, status="over", limit=100)
    assert set(ids(over)) == set(world.over_arktia)
    assert all(game["status"] == "over" and game["ended_at"] for game in over), over
    assert listed(world.port, status="awaiting_random", limit=100) == []


def test_game_keeps_only_the_games_of_that_game(world: World) -> None:
    iceberg = listed(world.port, game="iceberg", limit=100)
    assert set(ids(iceberg)) == set(world.active_iceberg)
    arktia = listed(world.port, game="arktia", limit=100)
    assert set(ids(arktia)) == {*world.active_arktia, *world.over_arktia}
    assert {game["game"] for game in arktia} == {"arktia"}
    assert listed(world.port, game="no-such-game") == []


def test_filters_combine(world: World) -> None:
    assert set(ids(listed(world.port, game="arktia", status="active"))) == set(world.active_arktia)
    assert set(ids(listed(world.port, game="arktia", status="over"))) == set(world.over_arktia)
    assert listed(world.port, game="iceberg", status="over") == []


@pytest.mark.parametrize("query", [{}, {"status": "active"}, {"game": "arktia"}])
@pytest.mark.parametrize("limit", [1, 2, 3])
def test_pages_follow_the_cursor_to_every_game_once(
    world: World, query: dict[str, str], limit: int
) -> None:
    everything = listed(world.port, limit=100, **query)
    pages: list[list[dict[str, Any]]] = []
    cursor: str | None = None
    while True:
        status, body = get(
            world.port, {**query, "limit": limit, **({"cursor": cursor} if cursor else {})}
        )
        assert status == 200, body
        assert body["limit"] == limit
        pages.append(body["games"])
        cursor = body["cursor"]
        if cursor is None:
            break
        assert len(body["games"]) == limit, "a page with a cursor after it is full"
        assert len(pages) <= len(everything), "the cursor never ends"
    assert all(len(page) <= limit for page in pages)
    walked = [game for page in pages for game in page]
    assert ids(walked) == ids(everything), "the pages, joined, are the whole listing, in order"
    assert len(set(ids(walked))) == len(walked), "no game twice"


def test_games_in_play_come_newest_created_first(world: World) -> None:
    games = listed(world.port, status="active", limit=100)
    keys = [(game["created_at"], game["id"]) for game in games]
    assert keys == sorted(keys, reverse=True)
    assert len(keys) == len(world.active_arktia) + len(world.active_iceberg)


@pytest.mark.parametrize(
    "query",
    [
        "bogus=1",
        "offset=1",
        "page=2",
        "Status=active",
        "status=finished",
        "status=active&status=over",
        "game=",
        "game=arktia&game=iceberg",
        "limit=0",
        "limit=101",
        "limit=ten",
        "cursor=not-a-cursor",
        "before=yesterday",
    ],
)
def test_a_query_the_route_does_not_take_is_400_invalid_query(world: World, query: str) -> None:
    status, body = get(world.port, query)
    assert status == 400, body
    assert body["error"]["code"] == "invalid_query", body
