"""Seat tokens: long and random, stored only as SHA-256 hashes, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from service.games import tokens
from tests.support.api import ORGANIZER, Game, bearer
from tests.support.store import every_stored_byte


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

    monkeypatch.setattr(hmac, "compare_digest", spy)  # the module service.games.tokens calls
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


# -- hostile Authorization headers: always a 4xx with a stable code, never a 500 -------------

ERROR_STATUSES = {400, 401, 403, 404, 409, 422}


def _route_requests(game: Game) -> list[tuple[str, str, dict[str, Any] | None]]:
    version = game.view()["version"]
    body = {"action": {"type": "pass"}, "expected_version": version, "command_id": "fuzz"}
    return [
        ("GET", f"/v1/games/{game.id}", None),
        ("GET", f"/v1/games/{game.id}/legal-actions", None),
        ("POST", f"/v1/games/{game.id}/actions?wait=0", body),
    ]


def _send(client: FlaskClient, method: str, url: str, body: Any, header: str) -> Any:
    headers = {"Authorization": header}
    if method == "GET":
        return client.get(url, headers=headers)
    return client.post(url, json=body, headers=headers)


def _refused_cleanly(response: Any) -> str:
    """A 4xx in the standard error JSON; returns its code."""
    assert response.status_code != 500, response.get_data()[:300]
    assert response.status_code in ERROR_STATUSES, (response.status_code, response.get_data())
    assert response.mimetype == "application/json"
    body = json.loads(response.get_data())
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    code = body["error"]["code"]
    assert isinstance(code, str) and code
    return str(code)


def _hostile_tokens(game: Game) -> list[str]:
    real = game.tokens[0]
    game_id, seat, secret = real.split(".")
    return [
        "x.\xb3.y",  # superscript three: str.isdigit() is true, int() refuses it
        f"{game_id}.\xb3.{secret}",
        f"{game_id}.\u0661.{secret}",  # ARABIC-INDIC DIGIT ONE: int() reads it as 1
        f"{game_id}.\uff11.{secret}",  # FULLWIDTH DIGIT ONE
        f"{game_id}.\U0001d7d9.{secret}",  # MATHEMATICAL DOUBLE-STRUCK DIGIT ONE
        f"{game_id}.{'9' * 5000}.{secret}",
        f"{game_id}.99.{secret}",
        f"{game_id}.-1.{secret}",
        f"{game_id}.+0.{secret}",
        f"{game_id}. 0.{secret}",
        f"{game_id}.00.{secret}",
        f"{game_id}..{secret}",
        f".{seat}.{secret}",
        f"{game_id}.{seat}.",
        "..",
        ".",
        f"{game_id}.{seat}.{secret}.extra",
        f"{game_id}\x00.{seat}.{secret}",
        f"{game_id}.{seat}.{secret}\x00",
        f"g\xe9me.{seat}.{secret}",
        f"\u30b2\u30fc\u30e0.{seat}.{secret}",
        real + "A" * 100_000,
        "A" * 100_000,
        real.upper(),
        real[:-1],
    ]


def test_a_superscript_digit_in_a_token_is_401_not_500(
    client: FlaskClient, new_game: Callable[..., Game]
) -> None:
    game = new_game()
    for method, url, body in _route_requests(game):
        response = _send(client, method, url, body, "Bearer x.\xb3.y")
        assert _refused_cleanly(response) == "unknown_token"
        assert response.status_code == 401


def test_malformed_tokens_are_401_on_every_route_that_reads_tokens(
    client: FlaskClient, new_game: Callable[..., Game]
) -> None:
    game = new_game()
    for token in _hostile_tokens(game):
        for method, url, body in _route_requests(game):
            response = _send(client, method, url, body, f"Bearer {token}")
            code = _refused_cleanly(response)
            assert (response.status_code, code) == (401, "unknown_token"), (token[:80], code)
    for header in ("", "Bearer", "Bearer ", "Basic abc", "Bearer\t" + game.tokens[0], "\x00"):
        for method, url, body in _route_requests(game):
            response = _send(client, method, url, body, header)
            assert _refused_cleanly(response) == "invalid_authorization", repr(header)
            assert response.status_code == 401
    # the real token still works, so none of these was refused for the wrong reason
    assert game.get("", game.tokens[0]).status_code == 200


def test_only_canonical_tokens_are_claims() -> None:
    assert tokens.parse_claim("0123456789abcdef.1.c2VjcmV0") == tokens.TokenClaim(
        "0123456789abcdef", 1, "0123456789abcdef.1.c2VjcmV0"
    )
    for bad in (
        "x.\xb3.y", "g.\u0661.s", "g.\uff11.s", "g.01.s", "g.100.s", "g.-1.s", "g.+1.s",
        "g. 1.s", "g.1 .s", "g..s", ".1.s", "g.1.", "g.1.s.t", "g\x00.1.s", "g.1.s\x00",
        "g\xe9.1.s", "g.1.s\xe9", "g.1.s=", "g.1.s/", "g.1.s+", "g.1.s\ud800", "",
        "g.1." + "s" * 1000, "g" * 1000 + ".1.s",
    ):  # fmt: skip
        assert tokens.parse_claim(bad) is None, repr(bad)


@pytest.fixture(scope="module")
def hypothesis_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No example database; Hypothesis' caches in a temporary directory, not the repo."""
    set_hypothesis_home_dir(tmp_path_factory.mktemp("hypothesis"))
    yield
    set_hypothesis_home_dir(None)


def _header_values(game: Game) -> st.SearchStrategy[str]:
    """Any header value: arbitrary text, and near-misses of a real token, one part mutated."""
    real = game.tokens[0]
    game_id, seat, secret = real.split(".")
    odd_digits = ["\xb3", "\xb2", "\xb9", "\u0661", "\uff11", "\U0001d7d9", "\u2460", "\u00bd"]
    seat_part = st.one_of(
        st.sampled_from([*odd_digits, "01", "00", "-1", "+1", " 1", "1 ", "", "1_0", "0x1"]),
        st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1, max_size=3),
        st.integers(min_value=-(10**30), max_value=10**30).map(str),
    )
    any_text = st.text(max_size=300)
    part = st.one_of(
        seat_part, any_text, st.sampled_from([game_id, seat, secret, "", " ", "\x00", "\xff"])
    )
    token = st.one_of(
        st.tuples(st.just(game_id), seat_part, st.just(secret)).map(".".join),
        st.tuples(st.just(game_id), st.just(seat), part).map(".".join),
        st.tuples(part, st.just(seat), st.just(secret)).map(".".join),
        st.tuples(part, part, part).map(".".join),
        st.lists(part, max_size=6).map(".".join),
        st.integers(min_value=0, max_value=20_000).map(lambda n: real + "A" * n),
    )
    scheme = st.sampled_from(["Bearer ", "bearer ", "BEARER  ", "Bearer\t", "Basic ", "", " "])
    return st.one_of(
        st.tuples(scheme, token, st.sampled_from(["", " ", "\x00", "\t"])).map("".join),
        st.text(max_size=200),
        st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    )


@pytest.mark.slow
def test_fuzzed_authorization_headers_are_never_a_500(
    client: FlaskClient, new_game: Callable[..., Game], hypothesis_home: None
) -> None:
    """Property-based fuzz of ``Authorization`` against the real app on the test Redis: on
    every route that reads tokens, any header value is a 4xx JSON refusal with a stable code
    (a real seat token is fine too: then the route's own answer). Derandomized and bounded."""
    game = new_game()
    requests = _route_requests(game)
    codes = {"unknown_token", "invalid_authorization", "not_a_seat", "not_your_turn"}

    @settings(
        derandomize=True,
        max_examples=300,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(header=_header_values(game), route=st.sampled_from(requests))
    def check(header: str, route: tuple[str, str, dict[str, Any] | None]) -> None:
        method, url, body = route
        try:
            response = _send(client, method, url, body, header)
        except (UnicodeEncodeError, ValueError) as exc:
            # The test client itself refuses a value no HTTP client could send (a character
            # beyond latin-1, a newline); a real server never sees it.
            assume(False)
            raise AssertionError from exc  # unreachable
        if response.status_code < 300:
            return  # a header that happens to be a valid token (or no token) on a read route
        code = _refused_cleanly(response)
        if response.status_code == 401:
            assert code in {"unknown_token", "invalid_authorization", "missing_token"}, code
        else:
            assert code in codes | {"invalid_body", "unknown_action_type"}, code

    check()
