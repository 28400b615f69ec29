"""Property-based fuzzing of every documented operation, generated from ``openapi.yaml``.

Schemathesis draws requests from the document — valid ones (positive) and ones that break it
(negative) — and sends them to the real app on the test Redis, with every check it runs on an
answer (``--checks all`` of the command line, tests/support/schemathesis.toml): no 5xx; a
documented status code, content type, body (each SSE message too) and headers; a valid
request accepted, an invalid one refused; a missing required header refused. The rules no
schema states (an action of the game ``game_id`` names, a tournament plan that can be run,
Arktia's connected board) are told to the fuzzer by tests/support/fuzz_hooks.py. Routes under
a game get a real game id and real ``Authorization`` headers (seat 0, seat 1, the organizer,
none) as well as fully generated ones; so do routes under a table (its host token too) and
under a tournament (a person's tournament token too). Whatever was fuzzed, every tournament
in the store is whole afterwards: listed, readable, and round 1's games all created (unless
its rounds start by the organizer's hand and none was started).

Bounded and reproducible: a few examples per operation, derandomized (the same cases on every
run), no example database, Hypothesis' caches in a temporary directory, not the repo. ``?wait=`` is pinned to 0 — no worker runs here,
so a generated ``wait=30`` would only block for 30 s; tests/e2e/test_hostile_input.py
covers bad ``wait`` values.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from schemathesis.generation.modes import GenerationMode

from service.api.app import create_app
from service.settings import Settings
from tests.support import fuzz_hooks
from tests.support.api import ORGANIZER

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"
SCHEMA = schemathesis.openapi.from_path(SPEC_PATH)
OPERATIONS: list[Any] = [result.ok() for result in SCHEMA.get_all_operations()]  # type: ignore[union-attr]
MAX_EXAMPLES = 40


def _negatable(operation: Any) -> bool:
    """Negative data needs something to break besides the free-form ``game_id``."""
    return (
        any(True for _ in operation.query)
        or any(True for _ in operation.body)
        or any(True for _ in operation.headers)
    )


#: Not fuzzed with valid requests: ``GET /v1/games/{game_id}/socket``. The document cannot
#: say "a WebSocket handshake" as parameters, so every request drawn from it is a plain GET,
#: refused 400 ``http_error`` (documented, but a "valid" request refused to the fuzzer), and
#: a Flask test client cannot complete an upgrade anyway. Its refusals and 503 are checked in
#: tests/e2e/test_openapi.py (``check_socket_refusals``, the dead store), its 429 in
#: tests/e2e/test_rate_limits.py, and the upgrade itself with every message after it on a real
#: ``floe run``: test_openapi.py's test_the_socket_upgrades_and_speaks_as_documented and
#: tests/e2e/test_socket.py. It has nothing but ``game_id`` to break, so no negative case.
NOT_POSITIVELY_FUZZED = frozenset({("GET", "/v1/games/{game_id}/socket")})


def _positive(operation: Any) -> bool:
    return (operation.method.upper(), operation.path) not in NOT_POSITIVELY_FUZZED


CASES = [(GenerationMode.POSITIVE, op) for op in OPERATIONS if _positive(op)] + [
    (GenerationMode.NEGATIVE, op) for op in OPERATIONS if _negatable(op)
]


@pytest.fixture(scope="module", autouse=True)
def hypothesis_outside_the_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No example database is used; Hypothesis' other caches go to a temporary directory."""
    set_hypothesis_home_dir(tmp_path_factory.mktemp("hypothesis"))
    yield
    set_hypothesis_home_dir(None)


@pytest.fixture
def fuzz_app(redis_url: str) -> Flask:
    """The real app; SSE streams end after 50 ms so a live stream is read to its end."""
    return create_app(
        Settings(
            redis_url=redis_url,
            organizer_token=ORGANIZER,
            sse_max_seconds=0.05,
            sse_heartbeat_seconds=0.05,
        )
    )


#: The tournament every case has: a person and a bot, one game, never over (no worker runs).
TOURNAMENT = {
    "game": "arktia",
    "format": "round_robin",
    "players": [{"name": "a"}, {"name": "b", "bot": "random"}],
}


def assert_every_tournament_is_whole(app: Flask, redis_client: redis.Redis) -> None:
    """No request, however refused or cut short, left part of a tournament behind."""
    floe = app.extensions["floe"]
    client = app.test_client()
    listed = floe.tournaments.store.listed(offset=0, limit=100_000)
    stored = list(redis_client.scan_iter("floe:tournament:*", count=1000))
    assert len(stored) == len(listed), "a tournament's record outside the index"
    for tournament_id in listed:
        answer = client.get(f"/v1/tournaments/{tournament_id}")
        assert answer.status_code == 200, answer.get_json()
        document = answer.get_json()
        tables = len(document["players"]) // document["table_size"]
        assert len(document["seed_commitments"]) == document["planned_rounds"] * tables
        if document["status"] == "open" or not document["rounds"]:
            # its rounds start by the organizer's hand, and none was started (nor ever will be,
            # if it was cancelled first)
            assert document["round_start"] == "manual" and document["rounds"] == [], document
            continue
        [first] = document["rounds"]
        assert len(first["games"]) == tables
        assert all(game["status"] != "pending" for game in first["games"]), document["id"]


def test_every_documented_operation_is_fuzzed() -> None:
    labels = {f"{op.method.upper()} {op.path}" for op in OPERATIONS}
    assert len(labels) == 30 and "POST /v1/games/{game_id}/actions" in labels
    positive = {
        f"{op.method.upper()} {op.path}" for mode, op in CASES if mode is GenerationMode.POSITIVE
    }
    assert labels - positive == {"GET /v1/games/{game_id}/socket"}  # NOT_POSITIVELY_FUZZED
    assert "GET /v1/keys" in labels
    assert "POST /v1/games/{game_id}/decisions" in labels
    assert "POST /v1/tables/{table_id}/join" in labels
    assert {
        "POST /v1/tournaments",
        "GET /v1/tournaments",
        "GET /v1/tournaments/{tournament_id}",
        "GET /v1/tournaments/{tournament_id}/stream",
        "GET /v1/tournaments/{tournament_id}/export",
        "GET /v1/tournaments/{tournament_id}/me",
        "GET /v1/tournaments/{tournament_id}/standings.csv",
        "POST /v1/tournaments/{tournament_id}/rounds",
        "POST /v1/tournaments/{tournament_id}/decisions",
        "POST /v1/tournaments/{tournament_id}/players/{player}/token",
    } <= labels
    assert sum(mode is GenerationMode.NEGATIVE for mode, _ in CASES) >= 6


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "operation"),
    CASES,
    ids=[f"{mode.value} {op.method.upper()} {op.path}" for mode, op in CASES],
)
def test_fuzzed_requests_answer_as_documented(
    fuzz_app: Flask, redis_client: redis.Redis, operation: Any, mode: GenerationMode
) -> None:
    client = fuzz_app.test_client()
    operation.app = operation.schema.app = fuzz_app  # checks that send again reach it too
    created = client.post(
        "/v1/games", json={"game": "arktia", "players": [{"name": "a"}, {"name": "b"}]}
    ).get_json()
    seat_tokens = [seat["token"] for seat in created["seats"]]
    fuzz_hooks.KNOWN_GAMES[created["id"]] = created["game"]
    if mode is GenerationMode.POSITIVE and operation.path.endswith("/actions"):
        seat_tokens = []  # a valid action may still be illegal now (422): only the others'

    table = client.post(
        "/v1/tables", json={"game": "arktia", "seats": [{"name": "a"}, {"open": True}]}
    ).get_json()
    tournament = client.post(
        "/v1/tournaments", json=TOURNAMENT, headers={"Authorization": f"Bearer {ORGANIZER}"}
    ).get_json()
    fixed: dict[str, Any] = {}
    names = {p.name for p in operation.path_parameters}
    if names:
        known = {
            "game_id": created["id"],
            "table_id": table["id"],
            "tournament_id": tournament["id"],
            "player": 0,
        }
        fixed["path_parameters"] = {name: known[name] for name in names}
    if "table_id" in names:
        seat_tokens.append(table["host_token"])
    if "tournament_id" in names or operation.path == "/v1/tournaments":
        seat_tokens.append(tournament["players"][0]["token"])
    query = {"wait": 0} if any(p.name == "wait" for p in operation.query) else None
    strategies = [operation.as_strategy(mode, query=query)]
    strategies.append(operation.as_strategy(mode, query=query, **fixed))
    for token in [*seat_tokens, ORGANIZER]:
        auth = {"Authorization": f"Bearer {token}"}
        strategies.append(operation.as_strategy(mode, headers=auth, query=query, **fixed))
    statuses: set[int] = set()

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=st.one_of(strategies))
    def fuzz(case: Any) -> None:
        response = case.call(app=fuzz_app)
        statuses.add(response.status_code)
        case.validate_response(response)  # every check

    fuzz()
    assert statuses and max(statuses) < 500, statuses
    assert_every_tournament_is_whole(fuzz_app, redis_client)
