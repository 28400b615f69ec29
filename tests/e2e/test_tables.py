"""Tables, on the real app and Redis: strangers meet, the game starts with their tokens.

Every refusal is checked to write nothing; racing joins never over-fill a table; an open
table expires; quotas hold for tables as for games; a person's public key, named at opening or
brought to a join, goes into the game's seat, which then moves only with its signature.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.engine.signing import action_message
from replay.ed25519 import new_private_key, public_key_of, sign
from service.api.app import create_app
from service.games import tokens
from service.settings import Settings
from service.tables.store import TableStore, table_key
from tests.support.api import ORGANIZER, bearer
from tests.support.openapi import OpenApi
from tests.support.waiting import PROMPTLY, wait_until

ARKTIA_TWO = {"game": "arktia", "seats": [{"name": "Ada"}, {"open": True}]}
MakeApp = Callable[..., Flask]


@pytest.fixture
def make_app(redis_url: str) -> MakeApp:
    def make(**settings: Any) -> Flask:
        return create_app(Settings(redis_url=redis_url, organizer_token=ORGANIZER, **settings))

    return make


@pytest.fixture
def client(make_app: MakeApp) -> FlaskClient:
    return make_app().test_client()


def open_table(client: FlaskClient, body: dict[str, Any], **kwargs: Any) -> Any:
    return client.post("/v1/tables", json=body, **kwargs)


def join(client: FlaskClient, table_id: str, name: str, **kwargs: Any) -> Any:
    return client.post(f"/v1/tables/{table_id}/join", json={"name": name}, **kwargs)


def table_keys(redis_client: redis.Redis) -> list[bytes]:
    return sorted(redis_client.scan_iter("floe:table*"))


# ----- the happy path ----------------------------------------------------------------------


def test_a_stranger_joins_and_the_game_starts_with_the_tokens_handed_out(
    client: FlaskClient,
) -> None:
    opened = open_table(client, ARKTIA_TWO)
    assert opened.status_code == 201
    table = opened.get_json()
    assert opened.headers["Location"] == f"/v1/tables/{table['id']}"
    assert table["status"] == "open" and table["game_id"] is None
    assert table["seats"] == [
        {"seat": 0, "name": "Ada", "bot": None, "open": False},
        {"seat": 1, "name": None, "bot": None, "open": True},
    ]
    [ada] = table["tokens"]
    assert ada["seat"] == 0 and table["host_token"] != ada["token"]

    joined = join(client, table["id"], "Bo")
    assert joined.status_code == 201
    answer = joined.get_json()
    assert answer["seat"] == 1
    started = answer["table"]
    assert started["status"] == "started" and started["seats"][1] == {
        "seat": 1,
        "name": "Bo",
        "bot": None,
        "open": False,
    }
    game_id = started["game_id"]
    # Each token handed out is that seat's token in the game.
    for seat, token in ((0, ada["token"]), (1, answer["token"])):
        view = client.get(f"/v1/games/{game_id}", headers=bearer(token)).get_json()
        assert view["viewer"] == seat
    view = client.get(f"/v1/games/{game_id}").get_json()
    assert [s["name"] for s in view["seats"]] == ["Ada", "Bo"]
    assert client.get(f"/v1/tables/{table['id']}").get_json() == started


def test_bots_sit_at_a_table_and_its_game_is_theirs_too(client: FlaskClient) -> None:
    body = {
        "game": "ice-breakers",
        "seats": [{"open": True}, {"name": "Hal", "bot": "greedy"}, {"open": True}],
        "options": {"intro": True},
    }
    table = open_table(client, body).get_json()
    assert table["tokens"] == []  # nobody named sits there: every token goes to a joiner
    first, second = (join(client, table["id"], n).get_json() for n in ("Cy", "Di"))
    assert (first["seat"], second["seat"]) == (0, 2)
    assert first["table"]["status"] == "open"
    game_id = second["table"]["game_id"]
    seats = client.get(f"/v1/games/{game_id}").get_json()["seats"]
    assert [(s["name"], s["bot"]) for s in seats] == [("Cy", None), ("Hal", "greedy"), ("Di", None)]


def test_a_table_with_no_open_seat_starts_at_once(client: FlaskClient) -> None:
    body = {"game": "arktia", "seats": [{"name": "Ada"}, {"name": "Hal", "bot": "random"}]}
    table = open_table(client, body).get_json()
    assert table["status"] == "started" and table["game_id"]
    [ada] = table["tokens"]
    view = client.get(f"/v1/games/{table['game_id']}", headers=bearer(ada["token"])).get_json()
    assert view["viewer"] == 0


# ----- races, refusals, cancelling ---------------------------------------------------------


def test_racing_joins_never_over_fill_a_table(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    body = {"game": "arktia", "seats": [{"open": True}] * 4}
    table_id = open_table(client, body).get_json()["id"]
    answers: list[Any] = []
    barrier = threading.Barrier(16)

    def joiner(n: int) -> None:
        barrier.wait(timeout=PROMPTLY)
        answers.append(join(client, table_id, f"p{n}"))

    threads = [threading.Thread(target=joiner, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=PROMPTLY)
    assert not any(thread.is_alive() for thread in threads)
    won = [a.get_json() for a in answers if a.status_code == 201]
    lost = [a.get_json()["error"]["code"] for a in answers if a.status_code != 201]
    assert sorted(w["seat"] for w in won) == [0, 1, 2, 3]
    assert len(lost) == 12 and set(lost) <= {"table_full", "table_not_open"}
    table = client.get(f"/v1/tables/{table_id}").get_json()
    assert table["status"] == "started"
    assert redis_client.zcard("floe:games") == 1
    names = [s["name"] for s in client.get(f"/v1/games/{table['game_id']}").get_json()["seats"]]
    assert sorted(names) == sorted(f"p{n}" for n in range(16) if f"p{n}" in names)
    for answer in won:  # each winner holds the seat its token names
        view = client.get(f"/v1/games/{table['game_id']}", headers=bearer(answer["token"]))
        assert view.get_json()["viewer"] == answer["seat"]


def test_a_started_table_refuses_joins(client: FlaskClient) -> None:
    table_id = open_table(client, ARKTIA_TWO).get_json()["id"]
    assert join(client, table_id, "Bo").status_code == 201
    late = join(client, table_id, "Cy")
    assert late.status_code == 409
    assert late.get_json()["error"]["code"] == "table_not_open"


def test_the_host_cancels_an_open_table_and_nobody_else_can(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    table = open_table(client, ARKTIA_TWO).get_json()
    path = f"/v1/tables/{table['id']}"
    assert client.delete(path).get_json()["error"]["code"] == "missing_token"
    seat_token = table["tokens"][0]["token"]
    refused = client.delete(path, headers=bearer(seat_token))
    assert (refused.status_code, refused.get_json()["error"]["code"]) == (403, "not_the_host")
    cancelled = client.delete(path, headers=bearer(table["host_token"]))
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    late = join(client, table["id"], "Bo")
    assert (late.status_code, late.get_json()["error"]["code"]) == (409, "table_not_open")
    again = client.delete(path, headers=bearer(table["host_token"]))
    assert again.status_code == 409
    listed = client.get("/v1/tables").get_json()["tables"]
    assert table["id"] not in [t["id"] for t in listed]
    # The organizer may cancel any open table.
    other = open_table(client, ARKTIA_TWO).get_json()["id"]
    assert client.delete(f"/v1/tables/{other}", headers=bearer(ORGANIZER)).status_code == 200


def test_unknown_and_malformed_tables_are_404(client: FlaskClient) -> None:
    for table_id in ("0123456789abcdef", "nope", "{x}", "0123456789ABCDEF"):
        for response in (
            client.get(f"/v1/tables/{table_id}"),
            join(client, table_id, "Bo"),
            client.delete(f"/v1/tables/{table_id}", headers=bearer("x")),
        ):
            assert response.status_code == 404, (table_id, response.get_json())
            assert response.get_json()["error"]["code"] == "table_not_found"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"game": "chess", "seats": [{"open": True}]}, "invalid_body"),
        ({"game": "arktia", "seats": [{"open": True}]}, "player_count"),
        (
            {"game": "arktia", "seats": [{"name": "a", "open": True}, {"open": True}]},
            "invalid_body",
        ),
        ({"game": "arktia", "seats": [{"bot": "random"}, {"open": True}]}, "invalid_body"),
        ({"game": "arktia", "seats": [{"open": 1}, {"open": True}]}, "invalid_body"),
        (
            {"game": "arktia", "seats": [{"name": "a", "bot": "god"}, {"open": True}]},
            "invalid_body",
        ),
        ({"game": "arktia", "seats": [{}, {"open": True}]}, "invalid_body"),
        ({"game": "arktia", "seats": [{"name": "a\n"}, {"open": True}]}, "invalid_body"),
        ({**ARKTIA_TWO, "options": {"board": [[0, 0]]}}, "invalid_option"),
        ({**ARKTIA_TWO, "options": {"colour": "red"}}, "unknown_option"),
        ({**ARKTIA_TWO, "extra": 1}, "invalid_body"),
    ],
)
def test_bad_tables_are_400_and_write_nothing(
    client: FlaskClient, redis_client: redis.Redis, body: dict[str, Any], code: str
) -> None:
    response = open_table(client, body)
    assert response.status_code == 400, response.get_json()
    assert response.get_json()["error"]["code"] == code
    assert table_keys(redis_client) == []


def test_a_bad_join_is_400_and_takes_no_seat(client: FlaskClient) -> None:
    table_id = open_table(client, ARKTIA_TWO).get_json()["id"]
    for body in ({}, {"name": ""}, {"name": "x" * 65}, {"name": 3}, {"name": "a", "b": 1}):
        response = client.post(f"/v1/tables/{table_id}/join", json=body)
        assert response.status_code == 400, body
    assert client.get(f"/v1/tables/{table_id}").get_json()["seats"][1]["open"] is True


# ----- time and quotas ---------------------------------------------------------------------


def test_an_open_table_expires(make_app: MakeApp, redis_client: redis.Redis) -> None:
    client = make_app().test_client()
    table_id = open_table(client, ARKTIA_TWO).get_json()["id"]
    ttl = redis_client.pttl(table_key(table_id))
    assert 3_500_000 < ttl <= 3_600_000  # an hour by default
    short = make_app(table_ttl_seconds=1).test_client()
    gone = open_table(short, ARKTIA_TWO).get_json()["id"]
    wait_until(lambda: short.get(f"/v1/tables/{gone}").status_code == 404, PROMPTLY, "the expiry")
    assert gone not in [t["id"] for t in short.get("/v1/tables").get_json()["tables"]]
    assert join(short, gone, "Bo").get_json()["error"]["code"] == "table_not_found"


def test_one_creator_keeps_a_bounded_number_of_tables_open(make_app: MakeApp) -> None:
    client = make_app(open_tables_per_creator=2).test_client()
    first, _ = (open_table(client, ARKTIA_TWO).get_json() for _ in range(2))
    refused = open_table(client, ARKTIA_TWO)
    assert (refused.status_code, refused.get_json()["error"]["code"]) == (429, "open_table_quota")
    elsewhere = open_table(client, ARKTIA_TWO, environ_base={"REMOTE_ADDR": "10.0.0.2"})
    assert elsewhere.status_code == 201
    assert open_table(client, ARKTIA_TWO, headers=bearer(ORGANIZER)).status_code == 201
    client.delete(f"/v1/tables/{first['id']}", headers=bearer(first["host_token"]))
    assert open_table(client, ARKTIA_TWO).status_code == 201


def test_the_game_a_table_starts_counts_against_its_hosts_quota(make_app: MakeApp) -> None:
    client = make_app(bot_games_per_creator=1).test_client()
    body = {"game": "arktia", "seats": [{"name": "Hal", "bot": "random"}, {"open": True}]}
    first = open_table(client, body).get_json()["id"]
    second = open_table(client, body).get_json()["id"]
    stranger = {"environ_base": {"REMOTE_ADDR": "10.0.0.9"}}
    assert join(client, first, "Bo", **stranger).status_code == 201
    refused = join(client, second, "Cy", **stranger)
    assert (refused.status_code, refused.get_json()["error"]["code"]) == (429, "bot_game_quota")
    table = client.get(f"/v1/tables/{second}").get_json()
    assert table["status"] == "open" and table["seats"][1]["open"] is True


# ----- secrets and recovery ----------------------------------------------------------------


def test_tokens_are_returned_once_and_stored_only_as_hashes(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    table = open_table(client, ARKTIA_TWO).get_json()
    handed = [table["host_token"], table["tokens"][0]["token"]]
    assert "token" not in str(client.get(f"/v1/tables/{table['id']}").get_json())
    handed.append(join(client, table["id"], "Bo").get_json()["token"])
    values: list[bytes] = []
    for key in redis_client.scan_iter("floe:*"):
        if redis_client.type(key) == b"hash":
            values += [v for v in redis_client.hgetall(key).values() if isinstance(v, bytes)]
    stored = b" ".join(values)
    for token in handed:
        assert token.encode() not in stored
    assert tokens.token_hash(handed[2]).encode() in stored


def test_a_start_cut_short_is_finished_by_the_next_reader(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    """The last seat taken, then the process died before making the game: the table is
    'starting'; reading it makes the game (once) with the tokens already handed out."""
    table_id = open_table(client, ARKTIA_TWO).get_json()["id"]
    token = tokens.new_token(
        redis_client.hget(table_key(table_id), "game_id").decode(),  # type: ignore[union-attr]
        1,
    )
    store = TableStore(redis_client)
    store.join(table_id, 1, "Bo", tokens.token_hash(token), reserved=True)
    assert redis_client.hget(table_key(table_id), "status") == b"starting"
    assert redis_client.zcard("floe:games") == 0
    table = client.get(f"/v1/tables/{table_id}").get_json()
    assert table["status"] == "started"
    view = client.get(f"/v1/games/{table['game_id']}", headers=bearer(token)).get_json()
    assert view["viewer"] == 1
    assert client.get(f"/v1/tables/{table_id}").get_json() == table
    assert redis_client.zcard("floe:games") == 1


def test_listing_open_and_started_tables(client: FlaskClient) -> None:
    waiting = open_table(client, ARKTIA_TWO).get_json()["id"]
    playing = open_table(client, ARKTIA_TWO).get_json()["id"]
    join(client, playing, "Bo")
    listed = client.get("/v1/tables").get_json()
    assert [t["id"] for t in listed["tables"]] == [waiting]
    assert (listed["total"], listed["offset"], listed["limit"]) == (1, 0, 50)
    started = client.get("/v1/tables?status=started").get_json()["tables"]
    assert [t["id"] for t in started] == [playing]
    bad = client.get("/v1/tables?status=cancelled")
    assert (bad.status_code, bad.get_json()["error"]["code"]) == (400, "invalid_query")


@pytest.mark.parametrize(
    ("data", "status", "code"),
    [
        ("", 400, "malformed_json"),
        ("{", 400, "malformed_json"),
        ('{"game": NaN}', 400, "malformed_json"),
        ("[" * 100_00 + "]" * 100_00, 400, "malformed_json"),
        (
            '{"game": "arktia", "seats": [{"name": "\\ud800"}, {"open": true}]}',
            400,
            "malformed_json",
        ),
        (b'{"game": "\xff"}', 400, "malformed_json"),
        ("x" * 70_000, 413, "body_too_large"),
        (
            '{"game": "arktia", "seats": [{"name": "a"}, {"open": true}], "options": 1e400}',
            400,
            "invalid_body",
        ),
    ],
)
def test_hostile_bodies_are_refused_on_both_table_posts_and_write_nothing(
    client: FlaskClient, redis_client: redis.Redis, data: str | bytes, status: int, code: str
) -> None:
    table_id = open_table(client, ARKTIA_TWO).get_json()["id"]
    before = table_keys(redis_client), redis_client.hgetall(table_key(table_id))
    for path in ("/v1/tables", f"/v1/tables/{table_id}/join"):
        response = client.post(path, data=data, content_type="application/json")
        assert (response.status_code, response.get_json()["error"]["code"]) == (status, code)
    assert (table_keys(redis_client), redis_client.hgetall(table_key(table_id))) == before


def test_with_the_game_quotas_off_the_last_join_starts_the_game(make_app: MakeApp) -> None:
    client = make_app(live_games_per_creator=0, bot_games_per_creator=0).test_client()
    table_id = open_table(client, ARKTIA_TWO).get_json()["id"]
    joined = join(client, table_id, "Bo")
    assert joined.status_code == 201, joined.get_json()
    assert joined.get_json()["table"]["status"] == "started"


# ----- signing seats -----------------------------------------------------------------------

ADA_KEY, BO_KEY = new_private_key(), new_private_key()


def first_event(client: FlaskClient, game_id: str) -> dict[str, Any]:
    events: list[dict[str, Any]] = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    return events[0]


def signed_post(
    client: FlaskClient,
    game_id: str,
    token: str,
    action: dict[str, Any],
    version: int,
    private_key: str | None,
) -> Any:
    """Post ``action`` at ``version`` with ``token``, signed by ``private_key`` (None:
    unsigned)."""
    body: dict[str, Any] = {
        "action": action,
        "expected_version": version,
        "command_id": f"move-{version}",
    }
    if private_key is not None:
        body["signature"] = sign(private_key, action_message(game_id, version, action))
    return client.post(f"/v1/games/{game_id}/actions", json=body, headers=bearer(token))


def test_a_named_seat_and_a_joiner_bring_their_keys_into_the_game(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    ada, bo = public_key_of(ADA_KEY), public_key_of(BO_KEY)
    body = {
        "game": "arktia",
        "seats": [{"name": "Ada", "public_key": ada}, {"open": True}, {"name": "Cy"}],
    }
    spec = OpenApi.load()
    assert spec.request_errors("post", "/v1/tables", body) == []
    opened = open_table(client, body)
    assert opened.status_code == 201, opened.get_json()
    spec.check_response("post", "/v1/tables", 201, dict(opened.headers), opened.get_data())
    table = opened.get_json()
    # Keys are public: the table shows them, only for a seat that has one.
    assert table["seats"] == [
        {"seat": 0, "name": "Ada", "bot": None, "open": False, "public_key": ada},
        {"seat": 1, "name": None, "bot": None, "open": True},
        {"seat": 2, "name": "Cy", "bot": None, "open": False},
    ]
    assert redis_client.hget(table_key(table["id"]), "seat:0:key") == ada.encode()
    joining = {"name": "Bo", "public_key": bo}
    assert spec.request_errors("post", "/v1/tables/{table_id}/join", joining) == []
    joined = client.post(f"/v1/tables/{table['id']}/join", json=joining)
    assert joined.status_code == 201, joined.get_json()
    spec.check_response(
        "post", "/v1/tables/{table_id}/join", 201, dict(joined.headers), joined.get_data()
    )
    started = joined.get_json()["table"]
    assert started["status"] == "started"
    assert [s.get("public_key") for s in started["seats"]] == [ada, bo, None]
    assert client.get(f"/v1/tables/{table['id']}").get_json() == started
    # The game's first event records each key in its seat; an unkeyed seat is as it was.
    created = first_event(client, started["game_id"])
    assert created["data"]["seats"] == [
        {"seat": 0, "name": "Ada", "bot": None, "public_key": ada},
        {"seat": 1, "name": "Bo", "bot": None, "public_key": bo},
        {"seat": 2, "name": "Cy", "bot": None},
    ]


def test_a_keyed_seat_moves_only_with_its_signature(client: FlaskClient) -> None:
    ada = public_key_of(ADA_KEY)
    body = {"game": "arktia", "seats": [{"name": "Ada", "public_key": ada}, {"name": "Cy"}]}
    table = open_table(client, body).get_json()
    assert table["status"] == "started"  # no open seat: it starts as it opens
    game_id, tokens_by_seat = table["game_id"], {t["seat"]: t["token"] for t in table["tokens"]}
    seat = client.get(f"/v1/games/{game_id}").get_json()["to_act"][0]
    legal = client.get(
        f"/v1/games/{game_id}/legal-actions", headers=bearer(tokens_by_seat[seat])
    ).get_json()
    action, version = legal["actions"][0], legal["version"]
    if seat == 1:  # Cy has no key: her move needs none, then it is Ada's turn
        moved = signed_post(client, game_id, tokens_by_seat[1], action, version, None)
        assert moved.status_code == 201, moved.get_json()
        legal = client.get(
            f"/v1/games/{game_id}/legal-actions", headers=bearer(tokens_by_seat[0])
        ).get_json()
        action, version = legal["actions"][0], legal["version"]
    assert legal["actions"], "Ada is to act"
    token = tokens_by_seat[0]
    # Her token alone, or another key's signature, or her signature over another version:
    # 401 bad_signature, and nothing is written.
    for refused in (
        signed_post(client, game_id, token, action, version, None),
        signed_post(client, game_id, token, action, version, BO_KEY),
        client.post(
            f"/v1/games/{game_id}/actions",
            json={
                "action": action,
                "expected_version": version,
                "command_id": "replayed",
                "signature": sign(ADA_KEY, action_message(game_id, version + 1, action)),
            },
            headers=bearer(token),
        ),
    ):
        assert refused.status_code == 401, refused.get_json()
        assert refused.get_json()["error"]["code"] == "bad_signature"
        assert client.get(f"/v1/games/{game_id}").get_json()["version"] == version
    moved = signed_post(client, game_id, token, action, version, ADA_KEY)
    assert moved.status_code == 201, moved.get_json()
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    mine = next(e for e in events if e["version"] == version + 1)
    signature = sign(ADA_KEY, action_message(game_id, version, action))
    assert mine["data"] == {"action": action, "signature": signature}


@pytest.mark.parametrize(
    "seats",
    [
        [{"name": "Ada", "public_key": "AB" * 32}, {"open": True}],
        [{"name": "Ada", "public_key": "ab" * 31}, {"open": True}],
        [{"name": "Ada", "public_key": "ab" * 32 + "\n"}, {"open": True}],
        [{"name": "Ada", "public_key": 7}, {"open": True}],
        [{"name": "Hal", "bot": "random", "public_key": "ab" * 32}, {"open": True}],
        [{"name": "Ada"}, {"open": True, "public_key": "ab" * 32}],
    ],
)
def test_a_bad_key_at_opening_is_400_and_writes_nothing(
    client: FlaskClient, redis_client: redis.Redis, seats: list[dict[str, Any]]
) -> None:
    response = open_table(client, {"game": "arktia", "seats": seats})
    assert response.status_code == 400, response.get_json()
    assert response.get_json()["error"]["code"] == "invalid_body"
    assert table_keys(redis_client) == []


def test_a_join_with_a_bad_key_is_400_and_takes_no_seat(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    table_id = open_table(client, ARKTIA_TWO).get_json()["id"]
    before = redis_client.hgetall(table_key(table_id))
    for key in ("AB" * 32, "ab" * 33, "ab" * 32 + "\n", "", 3, ["ab" * 32]):
        body = {"name": "Bo", "public_key": key}
        response = client.post(f"/v1/tables/{table_id}/join", json=body)
        assert response.status_code == 400, (key, response.get_json())
        assert response.get_json()["error"]["code"] == "invalid_body"
    assert redis_client.hgetall(table_key(table_id)) == before
    # A null key is no key: the joiner plays with their token alone.
    joined = client.post(f"/v1/tables/{table_id}/join", json={"name": "Bo", "public_key": None})
    assert joined.status_code == 201, joined.get_json()
    created = first_event(client, joined.get_json()["table"]["game_id"])
    assert created["data"]["seats"][1] == {"seat": 1, "name": "Bo", "bot": None}
