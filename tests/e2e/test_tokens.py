"""Seat tokens: long and random, stored only as SHA-256 hashes, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from tests.e2e.conftest import ORGANIZER, bearer


def every_stored_byte(client: redis.Redis) -> bytes:
    """Every key and value in Redis, whatever its type, as one blob."""
    blob = b""
    for key in client.keys("*"):
        assert isinstance(key, bytes)
        kind = client.type(key)
        value: Any
        if kind == b"string":
            value = client.get(key)
        elif kind == b"hash":
            value = client.hgetall(key)
        elif kind == b"stream":
            value = client.xrange(key)
        elif kind == b"zset":
            value = client.zrange(key, 0, -1, withscores=True)
        elif kind == b"list":
            value = client.lrange(key, 0, -1)
        elif kind == b"set":
            value = client.smembers(key)
        else:
            raise AssertionError(f"unexpected key type {kind!r} of {key!r}")
        blob += key + repr(value).encode()
    return blob


def test_tokens_are_long_random_and_stored_only_as_sha256(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    created = client.post(
        "/v1/games", json={"game": "arktia", "players": [{"name": "a"}, {"name": "b"}]}
    ).get_json()
    seat_tokens = [seat["token"] for seat in created["seats"]]
    for seat, token in enumerate(seat_tokens):
        game_id, number, secret = token.split(".")
        assert (game_id, int(number)) == (created["id"], seat)
        assert len(secret) >= 43  # 32 random bytes, URL-safe base64
        assert client.get(f"/v1/games/{game_id}", headers=bearer(token)).status_code == 200
    assert len(set(seat_tokens)) == 2
    stored = every_stored_byte(redis_client)
    for token in seat_tokens:
        assert token.encode() not in stored and token.split(".")[2].encode() not in stored
        assert hashlib.sha256(token.encode()).hexdigest().encode() in stored
    assert ORGANIZER.encode() not in stored
    meta = redis_client.hget(f"floe:{{{created['id']}}}:meta", "tokens")
    assert isinstance(meta, bytes)
    assert json.loads(meta) == [hashlib.sha256(t.encode()).hexdigest() for t in seat_tokens]


def test_token_checks_go_through_a_constant_time_compare(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a timing measurement: every comparison of a presented token with a stored secret
    is made by ``hmac.compare_digest`` (a spy records the calls; the real function answers)."""
    calls: list[tuple[Any, Any]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)  # the module service.tokens calls
    created = client.post(
        "/v1/games", json={"game": "arktia", "players": [{"name": "a"}, {"name": "b"}]}
    ).get_json()
    token = created["seats"][0]["token"]
    calls.clear()
    assert client.get(f"/v1/games/{created['id']}", headers=bearer(token)).status_code == 200
    assert (hashlib.sha256(token.encode()).hexdigest(),) * 2 in calls
    wrong = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    calls.clear()
    assert client.get(f"/v1/games/{created['id']}", headers=bearer(wrong)).status_code == 401
    assert any(a == hashlib.sha256(wrong.encode()).hexdigest() for a, _ in calls)
    calls.clear()
    client.get("/v1/games/x", headers=bearer(ORGANIZER))
    assert (ORGANIZER.encode(), ORGANIZER.encode()) in calls
