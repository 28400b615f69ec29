"""Per-creator quotas on live games and live bot games: 429 with a stable code, nothing written.

The real app on the test Redis; the creator is the client address Flask's test client sends
(127.0.0.1, or another through ``environ_base``). Time moves through an injected clock.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.bootstrap import Floe
from service.limits.quotas import ORPHAN_MS, CreatorQuotas, QuotaLimits, bots_key, live_key
from service.settings import Settings
from tests.support.api import ORGANIZER, bearer
from tests.support.clocks import ManualClock
from tests.support.limited_app import MakeApp, floe_keys, limited_app

PEOPLE = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
BOTS = {
    "game": "arktia",
    "players": [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}],
}
ONE_BOT = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Hal", "bot": "greedy"}]}
ELSEWHERE = {"REMOTE_ADDR": "10.0.0.2"}


@pytest.fixture
def make_app(redis_url: str) -> MakeApp:
    return partial(limited_app, redis_url)


def created(response: Any) -> str:
    assert response.status_code == 201, response.get_json()
    game_id: str = response.get_json()["id"]
    return game_id


def refused(response: Any, code: str, limit: int) -> str:
    assert response.status_code == 429, response.get_json()
    error = response.get_json()["error"]
    assert error["code"] == code
    assert f" {limit} " in error["message"] and "organizer" in error["message"]
    assert "Retry-After" not in response.headers, "waiting frees no slot"
    message: str = error["message"]
    return message


def play_out(client: FlaskClient, game_id: str, tokens: list[str]) -> None:
    """People's first legal action, every turn, until the game is over."""
    while (view := client.get(f"/v1/games/{game_id}").get_json())["status"] != "over":
        seat = view["to_act"][0]
        legal = client.get(f"/v1/games/{game_id}/legal-actions", headers=bearer(tokens[seat]))
        body = legal.get_json()
        action = {
            "action": body["actions"][0],
            "expected_version": body["version"],
            "command_id": f"c{body['version']}",
        }
        answer = client.post(
            f"/v1/games/{game_id}/actions", json=action, headers=bearer(tokens[seat])
        )
        assert answer.status_code == 201, answer.get_json()


def bots_play_out(app: Flask, game_id: str) -> None:
    """The bots' moves, made in this process (as a worker would), until the game is over."""
    floe: Floe = app.extensions["floe"]
    client = app.test_client()
    while (view := client.get(f"/v1/games/{game_id}").get_json())["status"] != "over":
        assert floe.automation.play_bot(game_id, view["version"]), "the bot moved"


def test_over_the_live_game_quota_is_429_and_writes_nothing(
    make_app: MakeApp, redis_client: redis.Redis
) -> None:
    client = make_app(live_games_per_creator=2).test_client()
    created(client.post("/v1/games", json=PEOPLE))
    created(client.post("/v1/games", json=BOTS))  # a bot game is a live game too
    before = floe_keys(redis_client)
    for body in (PEOPLE, BOTS, ONE_BOT):
        message = refused(client.post("/v1/games?wait=1", json=body), "live_game_quota", 2)
        assert "FLOE_LIVE_GAMES_PER_CREATOR" in message
    assert floe_keys(redis_client) == before, "a refused create writes nothing, quota keys neither"
    assert len(client.get("/v1/games").get_json()["games"]) == 2


def test_over_the_bot_game_quota_is_429_and_writes_nothing(
    make_app: MakeApp, redis_client: redis.Redis
) -> None:
    client = make_app(bot_games_per_creator=2).test_client()
    created(client.post("/v1/games", json=BOTS))
    created(client.post("/v1/games", json=ONE_BOT))  # one bot seat makes a bot game
    before = floe_keys(redis_client)
    for body in (BOTS, ONE_BOT):
        message = refused(client.post("/v1/games", json=body), "bot_game_quota", 2)
        assert "FLOE_BOT_GAMES_PER_CREATOR" in message
    assert floe_keys(redis_client) == before
    created(client.post("/v1/games", json=PEOPLE))  # people's games are not bot games
    assert len(client.get("/v1/games").get_json()["games"]) == 3


@pytest.mark.slow
def test_a_finished_game_frees_its_slot(make_app: MakeApp) -> None:
    app = make_app(live_games_per_creator=2, bot_games_per_creator=1)
    client = app.test_client()
    people = client.post("/v1/games", json=PEOPLE).get_json()
    bots = created(client.post("/v1/games", json=BOTS))
    refused(client.post("/v1/games", json=PEOPLE), "live_game_quota", 2)
    play_out(client, people["id"], [seat["token"] for seat in people["seats"]])
    created(client.post("/v1/games", json=PEOPLE))  # the finished game's slot
    refused(client.post("/v1/games", json=BOTS), "bot_game_quota", 1)
    bots_play_out(app, bots)
    created(client.post("/v1/games", json=BOTS))  # both of its slots
    refused(client.post("/v1/games", json=PEOPLE), "live_game_quota", 2)


def test_the_organizer_is_exempt_and_not_counted(
    make_app: MakeApp, redis_client: redis.Redis
) -> None:
    client = make_app(live_games_per_creator=1, bot_games_per_creator=1).test_client()
    created(client.post("/v1/games", json=BOTS))
    refused(client.post("/v1/games", json=PEOPLE), "live_game_quota", 1)
    for body in (PEOPLE, BOTS, BOTS):
        created(client.post("/v1/games", json=body, headers=bearer(ORGANIZER)))
    assert redis_client.zcard(live_key("127.0.0.1")) == 1
    assert redis_client.zcard(bots_key("127.0.0.1")) == 1
    assert len(client.get("/v1/games").get_json()["games"]) == 4


def test_another_address_has_its_own_quota(make_app: MakeApp) -> None:
    client = make_app(live_games_per_creator=1).test_client()
    created(client.post("/v1/games", json=PEOPLE))
    refused(client.post("/v1/games", json=PEOPLE), "live_game_quota", 1)
    created(client.post("/v1/games", json=PEOPLE, environ_base=ELSEWHERE))
    refused(client.post("/v1/games", json=PEOPLE, environ_base=ELSEWHERE), "live_game_quota", 1)


def test_concurrent_creates_never_exceed_the_quotas(make_app: MakeApp) -> None:
    """24 creates from one address, 8 at a time (the first 8 released together), half of
    them bot games: exactly 7 get in, at most 3 of them bot games, whatever the interleaving.

    Which kind fills the live quota first depends on the interleaving, so the split between
    kinds is not fixed; a bot game refused for its own quota only once 3 are in, is."""
    app = make_app(live_games_per_creator=7, bot_games_per_creator=3)
    start = threading.Barrier(8)

    def create(number: int) -> tuple[str, int, str | None]:
        client = app.test_client()
        if number < 8:
            start.wait(timeout=30)
        kind = "bots" if number % 2 else "people"
        response = client.post("/v1/games", json=BOTS if kind == "bots" else PEOPLE)
        code = None if response.status_code == 201 else response.get_json()["error"]["code"]
        return kind, response.status_code, code

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(create, range(24)))
    created_bots = sum(1 for kind, status, _ in answers if kind == "bots" and status == 201)
    assert sum(1 for _, status, _ in answers if status == 201) == 7
    assert created_bots <= 3
    refusals = Counter((kind, code) for kind, status, code in answers if status != 201)
    assert set(refusals) <= {
        ("people", "live_game_quota"),
        ("bots", "live_game_quota"),
        ("bots", "bot_game_quota"),
    }
    if created_bots < 3:
        assert ("bots", "bot_game_quota") not in refusals
    assert len(app.test_client().get("/v1/games").get_json()["games"]) == 7


def test_refusals_before_the_quota_keep_their_status(make_app: MakeApp) -> None:
    """The quota is the last check: a bad request over quota is still its 400, 401 or 403."""
    client = make_app(live_games_per_creator=1).test_client()
    seat = client.post("/v1/games", json=PEOPLE).get_json()["seats"][0]["token"]
    seed = "ab" * 32
    cases: list[tuple[dict[str, Any], dict[str, str], int, str]] = [
        ({"game": "arktia", "players": PEOPLE["players"][:1]}, {}, 400, "player_count"),
        ({**PEOPLE, "options": {"turn_limit": 0}}, {}, 400, "invalid_option"),
        ({**PEOPLE, "nope": 1}, {}, 400, "invalid_body"),
        ({**PEOPLE, "seed": seed}, {}, 401, "missing_token"),
        ({**PEOPLE, "seed": seed}, bearer(seat), 403, "organizer_only"),
        (PEOPLE, bearer("forged.0.token"), 401, "unknown_token"),
        (PEOPLE, {}, 429, "live_game_quota"),
    ]
    for body, headers, status, code in cases:
        answer = client.post("/v1/games", json=body, headers=headers)
        assert (answer.status_code, answer.get_json()["error"]["code"]) == (status, code)


def test_a_slot_whose_game_never_appeared_is_pruned_later(
    make_app: MakeApp, redis_client: redis.Redis
) -> None:
    """A create that died between taking its slot and writing its game leaves an orphan:
    it counts until ``ORPHAN_MS`` have passed, then the next refused create prunes it."""
    clock = ManualClock()
    app = make_app(clock, live_games_per_creator=1)
    floe: Floe = app.extensions["floe"]
    dead_create = CreatorQuotas(
        redis_client, QuotaLimits(bot_games=0, live_games=1), clock, floe.store
    )
    dead_create.reserve("127.0.0.1", "0123456789abcdef", bot=False)
    client = app.test_client()
    refused(client.post("/v1/games", json=PEOPLE), "live_game_quota", 1)
    clock.advance(ORPHAN_MS / 1000 - 1)
    refused(client.post("/v1/games", json=PEOPLE), "live_game_quota", 1)
    clock.advance(1)
    game_id = created(client.post("/v1/games", json=PEOPLE))
    assert redis_client.zrange(live_key("127.0.0.1"), 0, -1) == [game_id.encode()]


def test_zero_turns_the_quotas_off(make_app: MakeApp, redis_client: redis.Redis) -> None:
    client = make_app(
        live_games_per_creator=0, bot_games_per_creator=0, stored_bytes_per_creator=0
    ).test_client()
    for _ in range(5):
        created(client.post("/v1/games", json=BOTS))
    assert redis_client.keys("floe:quota:*") == [], "nothing counted"
    only_bots = make_app(
        live_games_per_creator=0, bot_games_per_creator=2, stored_bytes_per_creator=0
    ).test_client()
    for _ in range(3):
        created(only_bots.post("/v1/games", json=PEOPLE))
    created(only_bots.post("/v1/games", json=BOTS))
    created(only_bots.post("/v1/games", json=BOTS))
    refused(only_bots.post("/v1/games", json=BOTS), "bot_game_quota", 2)
    assert redis_client.keys("floe:quota:*") == [bots_key("127.0.0.1").encode()]


def test_defaults_and_env_vars() -> None:
    defaults = Settings.from_env({})
    assert (defaults.bot_games_per_creator, defaults.live_games_per_creator) == (16, 100)
    assert (Settings().bot_games_per_creator, Settings().live_games_per_creator) == (16, 100)
    tuned = Settings.from_env(
        {"FLOE_BOT_GAMES_PER_CREATOR": "0", "FLOE_LIVE_GAMES_PER_CREATOR": "1000"}
    )
    assert (tuned.bot_games_per_creator, tuned.live_games_per_creator) == (0, 1000)
    for name in ("FLOE_BOT_GAMES_PER_CREATOR", "FLOE_LIVE_GAMES_PER_CREATOR"):
        with pytest.raises(ValueError, match=name):
            Settings.from_env({name: "-1"})
        with pytest.raises(ValueError, match=name):
            Settings.from_env({name: "many"})


def test_a_creator_at_the_bot_quota_frees_a_slot_by_resigning_a_game(
    make_app: MakeApp,
) -> None:
    """The way out of the lock-out: the creator, seated in its bot games, resigns one."""
    client = make_app(bot_games_per_creator=2).test_client()
    games = [client.post("/v1/games", json=ONE_BOT).get_json() for _ in range(2)]
    refused(client.post("/v1/games", json=ONE_BOT), "bot_game_quota", 2)
    first = games[0]
    view = client.get(f"/v1/games/{first['id']}").get_json()
    body = {"action": {"type": "resign"}, "expected_version": view["version"], "command_id": "r"}
    token = first["seats"][0]["token"]
    resigned = client.post(f"/v1/games/{first['id']}/actions", json=body, headers=bearer(token))
    assert resigned.status_code == 201, resigned.get_json()
    assert client.get(f"/v1/games/{first['id']}").get_json()["status"] == "over"
    created(client.post("/v1/games", json=ONE_BOT))


def test_a_creator_at_the_live_quota_frees_a_slot_when_an_abandoned_game_times_out(
    make_app: MakeApp, redis_url: str
) -> None:
    """Or the clock ends the abandoned game: its timeout frees the slot like any end."""
    clock = ManualClock()
    app = make_app(clock, live_games_per_creator=1)
    client = app.test_client()
    timed = {**PEOPLE, "clock": {"kind": "per_move", "move_s": 60}}
    game_id = created(client.post("/v1/games", json=timed))
    refused(client.post("/v1/games", json=PEOPLE), "live_game_quota", 1)
    clock.advance(61)
    floe: Floe = app.extensions["floe"]
    assert floe.automation.time_out(game_id, 1)  # what a worker's timer does when it is due
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "over"
    created(client.post("/v1/games", json=PEOPLE))
