"""``GET /v1/games`` searches the games Redis holds and the archived ones, paged by a cursor.

A real Redis and both real archives (an SQLite file, the suite's PostgreSQL). The service runs
on a clock the test moves, so every game's creation and end are known to the second; games
end by a resignation (Arktia) or wait for a draw no worker makes (Iceberg), and the mover
moves some of them out. The listing is checked against what the test made: each filter alone
and combined, every page size, the part boundary, ties of creation and end times, a game
before and after it moves, one both places hold, and every malformed query. Every answer is
checked against ``openapi.yaml`` too (``CheckedClient``).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest

from service.api.app import create_app
from service.archive.moving import archived_game
from service.archive.protocol import Archive
from service.bootstrap import Floe, build
from service.clock import millis
from service.games.search import Filters, GameSearch
from service.settings import Settings
from tests.support import archives
from tests.support import tournament_api as tournaments
from tests.support.api import ORGANIZER
from tests.support.clocks import START, ManualClock
from tests.support.openapi import CheckedClient, OpenApi

#: Arktia of people only: no draws, so no worker is needed; two turns end a game.
QUICK = {"turn_limit": 2}
#: What a listed game shows, exactly: no token, no seed.
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


@pytest.fixture(scope="module")
def spec() -> OpenApi:
    return OpenApi.load()


#: An empty archive's URL: an SQLite file, or a new PostgreSQL database (each test, both).
archive_url = archives.archive_url
#: The archive opened on it, closed after the test.
archive = archives.archive


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def floe(redis_url: str, archive: Archive, clock: ManualClock) -> Floe:
    settings = Settings(redis_url=redis_url, organizer_token=ORGANIZER, archive_after_s=0)
    return build(settings, archive=archive, clock=clock)


@pytest.fixture
def api(floe: Floe, spec: OpenApi) -> CheckedClient:
    return CheckedClient(create_app(floe=floe), spec)


# ----- the games the test makes, and what it knows of them ----------------------------------


@dataclass
class Made:
    """A game as the test made it: its listing is predicted from this alone (and its view)."""

    id: str
    game: str
    players: list[str]
    created_at: str
    tournament: str | None = None
    tokens: list[str] = field(default_factory=list)
    ended_at: str | None = None
    archived: bool = False


@dataclass
class World:
    api: CheckedClient
    floe: Floe
    clock: ManualClock
    games: dict[str, Made] = field(default_factory=dict)

    def at(self, seconds: int) -> str:
        """Set the service clock to ``seconds`` after the test's start; its time."""
        self.clock.now = START + timedelta(seconds=seconds)
        return self.clock()

    @staticmethod
    def time(seconds: int) -> str:
        """The service-clock time ``seconds`` after the test's start."""
        return ManualClock(START + timedelta(seconds=seconds))()

    def create(self, game: str, players: list[str], *, at: int) -> Made:
        created_at = self.at(at)
        body: dict[str, Any] = {"game": game, "players": [{"name": name} for name in players]}
        if game == "arktia":
            body["options"] = QUICK
        created = self.api.post("/v1/games", json_body=body, expect=201).body
        made = Made(
            created["id"], game, players, created_at, tokens=[s["token"] for s in created["seats"]]
        )
        self.games[made.id] = made
        return made

    def tournament(self, players: list[str], *, at: int) -> tuple[str, list[Made]]:
        """A one-round swiss of people: its games, all created at ``at``."""
        created_at = self.at(at)
        plan = tournaments.swiss([{"name": name} for name in players], rounds=1)
        created = tournaments.create(self.api.client, plan)
        tokens = tournaments.tokens_of(created)
        made = []
        for game in tournaments.document(self.api.client, created["id"])["rounds"][0]["games"]:
            seated = game["players"]
            one = Made(
                game["game_id"],
                "arktia",
                [players[p] for p in seated],
                created_at,
                tournament=created["id"],
                tokens=[tokens[p] for p in seated],
            )
            self.games[one.id] = one
            made.append(one)
        return created["id"], made

    def end(self, made: Made, *, at: int) -> None:
        """Seat 0 resigns at ``at``: the game is over then."""
        made.ended_at = self.at(at)
        version = self.view(made)["version"]
        body = {"action": {"type": "resign"}, "expected_version": version, "command_id": "bye"}
        path = f"/v1/games/{made.id}/actions"
        self.api.post(path, json_body=body, token=made.tokens[0], expect=201)
        assert self.view(made)["status"] == "over"

    def move(self, made: Made) -> None:
        assert self.floe.mover is not None
        assert self.floe.mover.move(made.id) is None
        assert not self.floe.store.exists(made.id)
        made.archived = True

    def view(self, made: Made) -> dict[str, Any]:
        view: dict[str, Any] = self.api.get(f"/v1/games/{made.id}", expect=200).body
        return view

    def item(self, made: Made) -> dict[str, Any]:
        """The listing's item for ``made``, predicted from what the test did and its view."""
        view = self.view(made)
        return {
            "id": made.id,
            "game": made.game,
            "status": view["status"],
            "version": view["version"],
            "created_at": made.created_at,
            "ended_at": made.ended_at,
            "tournament": made.tournament,
            "players": made.players,
            "outcome": view["outcome"],
        }

    def expected(self, **query: str) -> list[str]:
        """The ids a search should list, in order: Redis's part newest created first, then
        the archive's latest ended first (each then by id, descending)."""
        kept = [made for made in self.games.values() if self.matches(made, query)]
        resident = sorted(
            (m for m in kept if not m.archived),
            key=lambda m: (millis(m.created_at), m.id),
            reverse=True,
        )
        archived = sorted(
            (m for m in kept if m.archived), key=lambda m: (m.ended_at or "", m.id), reverse=True
        )
        return [m.id for m in resident + archived]

    def matches(self, made: Made, query: dict[str, str]) -> bool:
        status = self.view(made)["status"]
        ended = made.ended_at
        return (
            ("player" not in query or query["player"] in made.players)
            and ("game" not in query or query["game"] == made.game)
            and ("tournament" not in query or query["tournament"] == made.tournament)
            and ("status" not in query or query["status"] == status)
            and ("before" not in query or (ended is not None and ended < query["before"]))
            and ("after" not in query or (ended is not None and ended > query["after"]))
        )

    def pages(self, limit: int, /, **query: str) -> list[list[dict[str, Any]]]:
        """Every page of a search, following the cursors; checks each page's size."""
        pages: list[list[dict[str, Any]]] = []
        cursor: str | None = None
        while True:
            params = {**query, "limit": str(limit), **({"cursor": cursor} if cursor else {})}
            body = self.api.get(f"/v1/games?{urlencode(params)}", expect=200).body
            assert body["limit"] == limit
            pages.append(body["games"])
            cursor = body["cursor"]
            if cursor is None:
                assert len(body["games"]) <= limit
                assert body["games"] or len(pages) == 1, "an empty page after a full one"
                return pages
            assert len(body["games"]) == limit, "a page with a cursor is full"

    def listed(self, limit: int = 100, /, **query: str) -> list[str]:
        return [game["id"] for page in self.pages(limit, **query) for game in page]


@pytest.fixture
def world(api: CheckedClient, floe: Floe, clock: ManualClock) -> World:
    """Twelve games: seven Redis holds (live, waiting for a draw, over) and five archived,
    with creation times and end times shared by several (ties go by id)."""
    world = World(api, floe, clock)
    tournament_id, (t1, t2) = world.tournament(["p0", "p1", "p2", "p3"], at=0)
    a1 = world.create("arktia", ["ann", "bob"], at=0)
    world.create("arktia", ["bob", "cyd"], at=0)  # stays live
    a3 = world.create("arktia", ["ann", "dee"], at=5)
    a4 = world.create("arktia", ["cyd", "ann"], at=5)
    a5 = world.create("arktia", ["dee", "eve"], at=5)
    world.create("iceberg", ["ann", "bob"], at=10)  # no worker: waits for its deal
    world.create("arktia", ["eve", "ann"], at=20)  # stays live
    a7 = world.create("arktia", ["bob", "ann"], at=30)
    a8 = world.create("arktia", ["ann", "bob"], at=30)
    world.create("arktia", ["fay", "gus"], at=30)  # stays live
    world.end(a1, at=50)
    for made in (a3, a4, a5):
        world.end(made, at=60)
    world.end(a7, at=70)
    world.end(a8, at=80)
    world.end(t1, at=100)
    world.end(t2, at=101)
    floe.tournaments.advance(tournament_id)  # the round recorded: its games may move
    for made in (a1, a4, a5, a7, t1):
        world.move(made)
    assert sum(m.archived for m in world.games.values()) == 5 and len(world.games) == 12
    return world


# ----- the tests ----------------------------------------------------------------------------


def test_a_search_lists_every_game_once_redis_first_then_the_archive(world: World) -> None:
    listed = world.api.get("/v1/games?limit=100", expect=200).body
    assert listed["cursor"] is None and listed["limit"] == 100
    assert [game["id"] for game in listed["games"]] == world.expected()
    statuses = [game["status"] for game in listed["games"]]
    assert statuses[-5:] == ["over"] * 5 and "awaiting_random" in statuses[:7]
    for game in listed["games"]:
        assert set(game) == ITEM_KEYS  # nothing a spectator may not see
        assert game == world.item(world.games[game["id"]])
    assert world.api.get("/v1/games", expect=200).body["limit"] == 20  # the default


#: Filters alone and combined; ``T+n`` is the time n seconds after the test's start, and
#: ``TOURNAMENT`` the id of the world's tournament.
QUERIES: list[dict[str, str]] = [
    {"player": "ann"},
    {"player": "p2"},
    {"player": "nobody"},
    {"game": "iceberg"},
    {"game": "arktia"},
    {"game": "chess"},
    {"status": "active"},
    {"status": "awaiting_random"},
    {"status": "over"},
    {"before": "T+60"},
    {"after": "T+60"},
    {"before": "T+101", "after": "T+50"},
    {"player": "ann", "status": "over"},
    {"player": "ann", "game": "arktia", "after": "T+59"},
    {"player": "bob", "status": "active"},
    {"status": "active", "before": "T+200"},
    {"tournament": "TOURNAMENT"},
    {"tournament": "TOURNAMENT", "player": "p0"},
    {"tournament": "TOURNAMENT", "before": "T+101"},
    {"tournament": "0123456789abcdef"},
]


def test_every_filter_alone_and_combined(world: World) -> None:
    tournament = next(m.tournament for m in world.games.values() if m.tournament)
    found: dict[str, int] = {}
    for query in QUERIES:
        concrete = {
            name: (
                tournament
                if value == "TOURNAMENT"
                else world.time(int(value[2:]))
                if value.startswith("T+")
                else value
            )
            for name, value in query.items()
        }
        expected = world.expected(**concrete)
        assert world.listed(**concrete) == expected, query
        assert world.listed(2, **concrete) == expected, query
        if ("status" in query and query["status"] != "over") or query.get("game") == "iceberg":
            assert not any(world.games[game_id].archived for game_id in expected), query
        found["&".join(f"{k}={v}" for k, v in query.items())] = len(expected)
    assert found["player=ann"] == 7 and found["status=over"] == 8
    assert found["before=T+60"] == 1 and found["after=T+60"] == 4
    assert found["before=T+101&after=T+50"] == 6 and found["tournament=TOURNAMENT"] == 2
    assert found["status=awaiting_random"] == 1 and found["player=nobody"] == 0


@pytest.mark.parametrize("query", [{}, {"status": "over"}, {"player": "ann"}], ids=str)
def test_paging_gives_each_game_once_in_order_in_full_pages(
    world: World, query: dict[str, str]
) -> None:
    expected = world.expected(**query)
    for limit in (1, 2, 3, 100):
        pages = world.pages(limit, **query)  # checks every page's size
        assert [game["id"] for page in pages for game in page] == expected, limit
        assert len(pages) == max(1, -(-len(expected) // limit)), limit
        parts = [{world.games[game["id"]].archived for game in page} for page in pages]
        if query == {} and limit in (2, 3):  # seven in Redis: a page ends there, mid-page
            assert {False, True} in parts, limit
        if query == {"status": "over"} and limit == 3:  # three: a page ends there, exactly
            assert parts[:2] == [{False}, {True}]


def test_a_small_batch_splits_ties_the_same(world: World) -> None:
    """Reading Redis a game at a time cuts through the games created in the same second: the
    order and the pages are those of the default batches."""
    search = GameSearch(world.floe.store, world.floe.archive, batch=1)
    for limit in (1, 2, 5):
        cursor: str | None = None
        listed: list[str] = []
        while True:
            page = search.search(Filters(), limit=limit, cursor=cursor)
            listed += [game.game_id for game in page.games]
            cursor = page.cursor
            if cursor is None:
                break
        assert listed == world.expected()


def test_a_game_lists_the_same_before_and_after_it_moves(world: World) -> None:
    """An item is the same from either part; only its place in the order changes."""
    [a8] = [
        m
        for m in world.games.values()
        if m.players == ["ann", "bob"] and m.ended_at == world.time(80)
    ]
    before = [g for g in world.pages(100, player="bob")[0] if g["id"] == a8.id]
    assert len(before) == 1 and before[0]["status"] == "over"
    assert before[0]["ended_at"] == a8.ended_at and before[0]["outcome"]["winners"] == [1]
    world.move(a8)
    after = [g for g in world.pages(100, player="bob")[0] if g["id"] == a8.id]
    assert after == before
    assert world.listed(player="bob") == world.expected(player="bob")


def test_a_game_both_places_hold_is_listed_once_from_the_archive(world: World) -> None:
    """Between the mover's archive write and its Redis delete, both hold the game: the
    listing shows it once, in the archive's part."""
    [a3] = [m for m in world.games.values() if m.players == ["ann", "dee"]]
    resident = world.floe.store.resident(a3.id)
    assert resident is not None and world.floe.archive is not None
    world.floe.archive.put(archived_game(resident))
    assert world.floe.store.exists(a3.id)
    a3.archived = True  # where the listing should put it
    for limit in (1, 3, 100):
        listed = world.listed(limit)
        assert listed == world.expected() and listed.count(a3.id) == 1


def test_a_cursor_holds_its_place_while_games_come_and_go(world: World) -> None:
    """Keyset paging: a game created after the first page is not met; a game moved after
    it was listed may be met again in the archive's part; none is ever missed."""
    expected = world.expected()
    first = world.api.get("/v1/games?limit=3", expect=200).body
    assert [g["id"] for g in first["games"]] == expected[:3]
    world.create("arktia", ["new", "comer"], at=200)  # newer than any: never met now
    over = [world.games[i] for i in expected if world.games[i].ended_at]
    met = next(m for m in over if m.id in expected[:3])  # listed already, then moved
    ahead = next(m for m in over if m.id in expected[3:] and not m.archived)
    world.move(met)
    world.move(ahead)
    rest: list[str] = []
    cursor = first["cursor"]
    while cursor is not None:
        page = world.api.get(f"/v1/games?{urlencode({'limit': 3, 'cursor': cursor})}", expect=200)
        rest += [g["id"] for g in page.body["games"]]
        cursor = page.body["cursor"]
    seen = [g["id"] for g in first["games"]] + rest
    assert set(seen) == set(expected)
    assert seen.count(met.id) == 2 and seen.count(ahead.id) == 1
    assert len(seen) == len(expected) + 1


def test_without_an_archive_only_redis_is_searched(redis_url: str, spec: OpenApi) -> None:
    clock = ManualClock()
    floe = build(Settings(redis_url=redis_url, organizer_token=ORGANIZER), clock=clock)
    assert floe.archive is None
    world = World(CheckedClient(create_app(floe=floe), spec), floe, clock)
    made = [world.create("arktia", [f"x{i}", "y"], at=i // 2) for i in range(5)]
    world.end(made[1], at=10)
    for limit in (1, 2, 5):
        assert world.listed(limit) == world.expected()
    assert world.listed(status="over") == [made[1].id]
    assert world.listed(before=world.time(11), player="y") == [made[1].id]
    assert world.listed(before=world.time(10)) == []


def _cursor(parts: Any) -> str:
    raw = json.dumps(parts).encode()
    return "g1." + base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    "query",
    [
        "offset=0",
        "page=2",
        "limit=0",
        "limit=101",
        "limit=ten",
        "limit=-1",
        "status=done",
        "status=OVER",
        "before=2026-11-22",
        "before=2026-02-30T12:00:00Z",
        "after=2026-11-22T12:00:00%2B01:00",
        "after=2026-11-22T12:00:00.5Z",
        "tournament=xyz",
        "tournament=0123456789ABCDEF",
        "tournament=0123456789abcdef%0A",
        "player=",
        "player=a%0Ab",
        "game=",
        "player=ann&player=bob",
        "cursor=",
        "cursor=nonsense",
        "cursor=g1.%21%21",
        "cursor=" + _cursor(["r", True, "x"]),
        "cursor=" + _cursor(["r", -1, "x"]),
        "cursor=" + _cursor(["r", 2**60, "x"]),
        "cursor=" + _cursor(["r", 1000, ""]),
        "cursor=" + _cursor(["x", None]),
        "cursor=" + _cursor(["a", "not-the-archive's"]),
        "cursor=" + _cursor(["a", 7]),
        "cursor=" + _cursor({"r": 1}),
    ],
)
def test_a_malformed_query_is_invalid_query(api: CheckedClient, query: str) -> None:
    answer = api.get(f"/v1/games?{query}", expect=400, code="invalid_query")
    assert answer.body["error"]["message"]
