"""Rate limits per token and per client address: 429 ``rate_limited`` with ``Retry-After``.

Counters live in the test Redis; time moves through an injected service clock (and once
through freezegun), never through sleeps.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from freezegun import freeze_time

from service.api.app import create_app
from service.errors import RateLimited
from service.limits.rate_limits import MAX_LEASE, Limits, RateLimiter, lease_size
from service.run.redis_server import free_tcp_port
from service.settings import Settings
from tests.support.api import ORGANIZER, bearer
from tests.support.clocks import ManualClock
from tests.support.openapi import OpenApi, documented_operations
from tests.support.socket_contract import UPGRADE, SocketAwareClient

CREATE = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
TABLE = {"game": "arktia", "seats": [{"name": "Ada"}, {"open": True}]}
TOURNAMENT = {
    "game": "arktia",
    "format": "round_robin",
    "players": [{"name": "Ada"}, {"name": "Bo"}],
}
#: 12:00:10 UTC: 10 s into a 60 s window (windows are aligned on the epoch).


MakeApp = Callable[..., Flask]


@pytest.fixture
def make_app(redis_url: str) -> MakeApp:
    def make(clock: ManualClock | None = None, **limits: Any) -> Flask:
        settings = Settings(redis_url=redis_url, organizer_token=ORGANIZER, **limits)
        return create_app(settings, clock=clock or ManualClock())

    return make


def new_game(client: FlaskClient) -> tuple[str, list[str]]:
    created = client.post("/v1/games", json=CREATE)
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    return body["id"], [seat["token"] for seat in body["seats"]]


def assert_429(response: Any) -> int:
    assert response.status_code == 429, (response.status_code, response.get_json())
    assert response.get_json()["error"]["code"] == "rate_limited"
    assert set(response.get_json()["error"]) == {"code", "message"}
    retry_after = response.headers["Retry-After"]
    assert retry_after.isdigit() and int(retry_after) >= 1
    return int(retry_after)


def test_over_the_per_token_limit_is_429_while_another_token_still_works(
    make_app: MakeApp,
) -> None:
    clock = ManualClock()
    setup = make_app(clock, rate_limit_per_token=0, rate_limit_per_address=0).test_client()
    game_id, (t0, t1) = new_game(setup)
    client = make_app(clock, rate_limit_per_token=3, rate_limit_per_address=0).test_client()
    url = f"/v1/games/{game_id}"
    for _ in range(3):
        assert client.get(url, headers=bearer(t0)).status_code == 200
    assert assert_429(client.get(url, headers=bearer(t0))) == 50  # the window ends at 12:01:00
    assert_429(client.get(f"{url}/legal-actions", headers=bearer(t0)))  # every route, same token
    assert client.get(url, headers=bearer(t1)).status_code == 200  # another seat is untouched
    assert client.get(url).status_code == 200  # so is a spectator (no token: no token limit)
    assert client.get(url, headers=bearer(ORGANIZER)).status_code == 200


def test_a_refused_action_writes_nothing_and_the_retry_is_answered_later(
    make_app: MakeApp,
) -> None:
    clock = ManualClock()
    setup = make_app(clock, rate_limit_per_token=0, rate_limit_per_address=0).test_client()
    game_id, (t0, _) = new_game(setup)
    client = make_app(clock, rate_limit_per_token=2, rate_limit_per_address=0).test_client()
    url = f"/v1/games/{game_id}"
    body = {
        "action": {"type": "place", "size": "T", "tile": [0, 0]},
        "expected_version": 1,
        "command_id": "c1",
    }
    client.get(url, headers=bearer(t0))
    client.get(url, headers=bearer(t0))
    retry = assert_429(client.post(f"{url}/actions", json=body, headers=bearer(t0)))
    assert setup.get(url).get_json()["version"] == 1  # nothing was written
    clock.advance(retry)
    accepted = client.post(f"{url}/actions", json=body, headers=bearer(t0))
    assert accepted.status_code == 201, accepted.get_json()
    assert client.post(f"{url}/actions", json=body, headers=bearer(t0)).get_json() == (
        accepted.get_json()
    )  # the idempotent repeat, within the new window's budget


def test_over_the_per_address_limit_is_429_while_another_address_still_works(
    make_app: MakeApp,
) -> None:
    app = make_app(rate_limit_per_token=0, rate_limit_per_address=4)
    here = app.test_client()
    there = app.test_client()
    there.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    game_id, (t0, _) = new_game(here)
    assert here.get("/v1/games").status_code == 200
    assert here.get("/v1/health").status_code == 200
    assert here.get(f"/v1/games/{game_id}", headers=bearer(t0)).status_code == 200
    assert_429(here.get("/v1/games"))
    assert_429(here.get(f"/v1/games/{game_id}", headers=bearer(t0)))  # a token does not help
    assert_429(here.post("/v1/games", json=CREATE))
    assert_429(here.get("/v1/nope"))  # unknown /v1 routes count too
    assert there.get("/v1/games").status_code == 200
    assert len(there.get("/v1/games").get_json()["games"]) == 1  # the refused create wrote nothing


def test_both_limits_apply_and_the_tighter_one_wins(make_app: MakeApp) -> None:
    app = make_app(rate_limit_per_token=5, rate_limit_per_address=2)
    client = app.test_client()
    game_id, (t0, _) = new_game(client)
    assert client.get(f"/v1/games/{game_id}", headers=bearer(t0)).status_code == 200
    response = client.get(f"/v1/games/{game_id}", headers=bearer(t0))
    assert_429(response)
    assert "address" in response.get_json()["error"]["message"]


def test_the_window_resets(make_app: MakeApp) -> None:
    clock = ManualClock()
    client = make_app(clock, rate_limit_per_token=0, rate_limit_per_address=2).test_client()
    assert client.get("/v1/games").status_code == 200
    assert client.get("/v1/games").status_code == 200
    assert assert_429(client.get("/v1/games")) == 50
    clock.advance(49)  # 12:00:59: the same window
    assert assert_429(client.get("/v1/games")) == 1
    clock.advance(1)  # 12:01:00: a new window, a fresh budget
    assert client.get("/v1/games").status_code == 200
    assert client.get("/v1/games").status_code == 200
    assert assert_429(client.get("/v1/games")) == 60


def test_the_window_follows_the_real_clock_under_freezegun(redis_url: str) -> None:
    settings = Settings(redis_url=redis_url, rate_limit_per_address=1, rate_limit_window_seconds=10)
    with freeze_time("2026-11-22 12:00:03") as frozen:
        client = create_app(settings).test_client()  # the default clock: service.clock.utc_now
        assert client.get("/v1/health").status_code == 200
        assert assert_429(client.get("/v1/health")) == 7
        frozen.tick(timedelta(seconds=7))
        assert client.get("/v1/health").status_code == 200


def test_tokens_are_counted_under_their_hash_never_stored(
    make_app: MakeApp, redis_client: redis.Redis
) -> None:
    client = make_app(rate_limit_per_token=100, rate_limit_per_address=100).test_client()
    _, (t0, _) = new_game(client)
    client.get("/v1/games", headers=bearer(t0))
    keys = [k.decode() for k in redis_client.keys("floe:ratelimit:*") if isinstance(k, bytes)]
    assert len(keys) == 2
    secret = t0.rsplit(".", 1)[1]
    assert not any(secret in key for key in keys)
    assert any(hashlib.sha256(t0.encode()).hexdigest() in key for key in keys)
    assert all(0 < redis_client.ttl(key) <= 61 for key in keys)  # counters expire


def test_zero_turns_the_limits_off(make_app: MakeApp, redis_client: redis.Redis) -> None:
    client = make_app(rate_limit_per_token=0, rate_limit_per_address=0).test_client()
    _, (t0, _) = new_game(client)
    for _ in range(50):
        assert client.get("/v1/games", headers=bearer(t0)).status_code == 200
    assert redis_client.keys("floe:ratelimit:*") == []


def test_counting_is_atomic_under_concurrency(make_app: MakeApp) -> None:
    app = make_app(rate_limit_per_token=0, rate_limit_per_address=25)

    def hit(_: int) -> int:
        return app.test_client().get("/v1/health").status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(hit, range(60)))
    assert statuses.count(200) == 25 and statuses.count(429) == 35


def test_generous_defaults_and_env_vars() -> None:
    defaults = Settings.from_env({})
    assert (defaults.rate_limit_per_token, defaults.rate_limit_per_address) == (6000, 30000)
    assert defaults.rate_limit_window_seconds == 60
    tuned = Settings.from_env(
        {
            "FLOE_RATE_LIMIT_PER_TOKEN": "7",
            "FLOE_RATE_LIMIT_PER_ADDRESS": "0",
            "FLOE_RATE_LIMIT_WINDOW_SECONDS": "5",
        }
    )
    assert (tuned.rate_limit_per_token, tuned.rate_limit_per_address) == (7, 0)
    assert tuned.rate_limit_window_seconds == 5


def test_the_limiter_on_a_dead_store_is_503_not_500() -> None:
    dead = create_app(
        Settings(redis_url=f"redis://127.0.0.1:{free_tcp_port()}/0", rate_limit_per_token=5)
    ).test_client()
    for headers in [{}, bearer("x.0.y")]:
        response = dead.get("/v1/games", headers=headers)
        assert response.status_code == 503
        assert response.get_json()["error"]["code"] == "store_unavailable"
        assert response.headers["Retry-After"].isdigit()


def test_every_documented_operation_documents_its_429(make_app: MakeApp) -> None:
    spec = OpenApi.load()
    setup = make_app(rate_limit_per_token=0, rate_limit_per_address=0).test_client()
    game_id, (t0, _) = new_game(setup)
    table = setup.post("/v1/tables", json=TABLE).get_json()
    tournament = setup.post("/v1/tournaments", json=TOURNAMENT, headers=bearer(ORGANIZER))
    cup = f"/v1/tournaments/{tournament.get_json()['id']}"
    tight = make_app(rate_limit_per_token=0, rate_limit_per_address=1)
    api = SocketAwareClient(tight, spec)  # the socket's handshake is refused too
    api.get("/v1/health", expect=200)  # the address's whole budget
    base = f"/v1/games/{game_id}"
    action = {"action": {"type": "retire"}, "expected_version": 1, "command_id": "c"}
    decision = {"decision": "forfeit", "seat": 1, "reason": "r"}
    pause = {"decision": "pause", "reason": "r"}
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "/v1/games", {"json_body": CREATE}),
        ("GET", "/v1/games", {}),
        ("GET", base, {}),
        ("GET", f"{base}/state?version=1", {}),
        ("GET", f"{base}/board.svg", {}),
        ("GET", f"{base}/legal-actions", {"token": t0}),
        ("POST", f"{base}/actions", {"token": t0, "json_body": action}),
        ("POST", f"{base}/decisions", {"token": ORGANIZER, "json_body": decision}),
        ("GET", f"{base}/events", {}),
        ("GET", f"{base}/events/stream", {}),
        ("GET", f"{base}/export", {"token": ORGANIZER}),
        ("GET", f"{base}/socket", {"headers": UPGRADE}),  # before the upgrade, as JSON
        ("GET", "/v1/health", {}),
        ("GET", "/v1/keys", {}),
        ("POST", "/v1/replays", {"data": "", "headers": {"Content-Type": "application/x-ndjson"}}),
        ("POST", "/v1/tables", {"json_body": TABLE}),
        ("GET", "/v1/tables", {}),
        ("GET", f"/v1/tables/{table['id']}", {}),
        ("POST", f"/v1/tables/{table['id']}/join", {"json_body": {"name": "Bo"}}),
        ("DELETE", f"/v1/tables/{table['id']}", {"token": table["host_token"]}),
        ("POST", "/v1/tournaments", {"token": ORGANIZER, "json_body": TOURNAMENT}),
        ("GET", cup, {}),
        ("GET", f"{cup}/stream", {}),
        ("GET", f"{cup}/export", {"token": ORGANIZER}),
        ("GET", "/v1/tournaments", {}),
        ("GET", f"{cup}/me", {"token": ORGANIZER}),
        ("GET", f"{cup}/standings.csv", {}),
        ("POST", f"{cup}/rounds", {"token": ORGANIZER}),
        ("POST", f"{cup}/decisions", {"token": ORGANIZER, "json_body": pause}),
        ("POST", f"{cup}/players/0/token", {"token": ORGANIZER}),
    ]
    for method, path, kwargs in calls:
        answer = api.call(method, path, expect=429, code="rate_limited", **kwargs)
        assert answer.headers["Retry-After"].isdigit()
    assert {(m, p) for m, p, status in api.seen if status == 429} == documented_operations(spec)
    assert setup.get(base).get_json()["version"] == 1
    assert setup.get(f"/v1/tables/{table['id']}").get_json()["status"] == "open"
    assert setup.get(cup).get_json()["rounds"][0]["games"][0]["status"] == "active"
    assert setup.get(cup).get_json()["decisions"] == [], "no decision was taken"
    assert setup.application.extensions["floe"].tournaments.store.count() == 1, "none created"


# ----- leases: large limits are counted a lease at a time ---------------------------------


def leased_limiter(redis_client: redis.Redis, clock: ManualClock, per_address: int) -> RateLimiter:
    return RateLimiter(redis_client, Limits(0, per_address, 60), clock)


def admitted(limiter: RateLimiter) -> bool:
    try:
        limiter.check("10.0.0.1", None)
    except RateLimited:
        return False
    return True


def test_a_large_limit_is_leased_one_round_trip_per_lease(redis_client: redis.Redis) -> None:
    limit = 1024
    assert lease_size(limit) == 4 and lease_size(100) == 1 and lease_size(10**9) == MAX_LEASE
    limiter = leased_limiter(redis_client, ManualClock(), limit)
    assert admitted(limiter)
    [key] = redis_client.keys("floe:ratelimit:*")
    assert int(redis_client.get(key) or 0) == 4  # one INCRBY took a lease of 4
    for _ in range(3):  # ... which admits three more without asking Redis
        assert admitted(limiter)
    assert int(redis_client.get(key) or 0) == 4
    assert admitted(limiter)  # the fifth request takes the next lease
    assert int(redis_client.get(key) or 0) == 8


def test_one_process_gets_exactly_its_limit(redis_client: redis.Redis) -> None:
    limiter = leased_limiter(redis_client, ManualClock(), 1026)  # leases of 4; 1026 = 4k + 2
    results = [admitted(limiter) for _ in range(1030)]
    assert results.count(True) == 1026 and not any(results[1026:])


def test_processes_sharing_a_counter_never_admit_more_than_the_limit(
    redis_client: redis.Redis,
) -> None:
    """Leases only ever refuse early: what each process leased but did not use is lost."""
    clock = ManualClock()
    limiters = [leased_limiter(redis_client, clock, 1024) for _ in range(3)]
    admitted_count = sum(admitted(limiters[i % 3]) for i in range(1200))
    assert 1024 - 3 * (4 - 1) <= admitted_count <= 1024
    clock.advance(60)  # a new window: fresh leases for everyone
    assert all(admitted(limiter) for limiter in limiters)


def test_leases_are_atomic_under_concurrency(make_app: MakeApp) -> None:
    app = make_app(rate_limit_per_token=0, rate_limit_per_address=1024)

    def hit(_: int) -> int:
        return app.test_client().get("/v1/health").status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(hit, range(1100)))
    assert statuses.count(200) == 1024 and statuses.count(429) == 76
