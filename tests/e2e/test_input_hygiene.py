"""What strangers send, kept clean at the edge (issue 27, "Input"): names that cannot hide or
reorder text, one name per person at a table, bodies declared JSON and written in UTF-8,
answers that nothing can sniff or run, and an organizer token nobody guesses.

Each refusal is checked for what the sender gets (status, code, a message saying why) and for
what it leaves behind (nothing), and each rule for the honest request it still lets through.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.api.app import STRICT_POLICY
from service.api.page_answers import POLICY as PAGE_POLICY
from service.api.schemas.names import check_entered_name
from service.errors import InvalidRequest
from service.run.supervisor import run as floe_run
from service.settings import Settings
from tests.support import tournament_api as tournaments
from tests.support.api import ORGANIZER, bearer
from tests.support.limited_app import written_keys

JSON = {"Content-Type": "application/json"}
ORGANIZER_JSON = {**JSON, **bearer(ORGANIZER)}


def refused(response: Any, status: int, code: str) -> str:
    """The standard error of ``status`` and ``code``; its message."""
    assert response.status_code == status, (response.status_code, response.get_data()[:300])
    error = response.get_json()["error"]
    assert error["code"] == code, error
    message: str = error["message"]
    return message


def stored(redis_client: redis.Redis) -> set[bytes]:
    """Every key a request wrote (not the rate limiter's, nor a process's liveness)."""
    return written_keys(redis_client)


def game(*names: str) -> dict[str, Any]:
    return {"game": "arktia", "players": [{"name": name} for name in names]}


def table(*seats: dict[str, Any]) -> dict[str, Any]:
    return {"game": "arktia", "seats": list(seats)}


# ----- names -----------------------------------------------------------------------------

#: A name that hides or reorders what others read, and the words the refusal uses.
MISLEADING = [
    ("Ann\u202eXOB", "bidirectional control"),  # right-to-left override
    ("Ann\u202a", "bidirectional control"),
    ("Ann\u2066Bo\u2069", "bidirectional control"),  # isolates
    ("Ann\u200e", "bidirectional control"),
    ("Ann\u200f", "bidirectional control"),
    ("Ann\u061c", "bidirectional control"),
    ("An\u200bn", "invisible character"),  # zero width space
    ("An\u200cn", "invisible character"),
    ("An\u200dn", "invisible character"),
    ("An\u2060n", "invisible character"),  # word joiner
    ("An\u2064n", "invisible character"),
    ("\ufeffAnn", "invisible character"),
    ("An\u00adn", "invisible character"),  # soft hyphen
    ("An\u034fn", "invisible character"),
    ("An\u180en", "invisible character"),
    ("\u3164", "invisible character"),  # Hangul filler, alone
    ("Ann\u115f", "invisible character"),
    ("Ann\u1160", "invisible character"),
    ("Ann\uffa0", "invisible character"),
    ("Ann\ufe0f", "invisible character"),  # variation selector
    ("Ann\U000e0041", "invisible character"),  # a tag
    ("Ann\x07", "control character"),
    ("Ann\x85", "control character"),  # C1
    ("Ann\nBo", "control character"),
    ("", "empty"),
    ("   ", "white space"),
    ("\u3000\u2003", "white space"),  # ideographic and em spaces only
]
HONEST = ["Zoë", "山田 太郎", "محمد", "שרה", "Ünal O'Brien", "🧊 Ice", "a" * 64]


@pytest.mark.parametrize(("name", "why"), MISLEADING)
def test_misleading_names_are_refused_everywhere_a_name_enters(
    client: FlaskClient, redis_client: redis.Redis, name: str, why: str
) -> None:
    """A game's players, a table's seats, a tournament's players: 400, the field and the
    reason named, nothing written."""
    message = refused(client.post("/v1/games", json=game("Bo", name)), 400, "invalid_body")
    assert "Player 2's name" in message and why in message, message
    body = table({"name": "Bo"}, {"name": name, "bot": "random"}, {"open": True})
    message = refused(client.post("/v1/tables", json=body), 400, "invalid_body")
    assert "Seat 2's name" in message and why in message, message
    tournament = {"format": "round_robin", **game(name, "Bo")}
    answer = client.post("/v1/tournaments", json=tournament, headers=bearer(ORGANIZER))
    message = refused(answer, 400, "invalid_body")
    assert "Player 1's name" in message and why in message, message
    assert stored(redis_client) == set()


@pytest.mark.parametrize(("name", "why"), MISLEADING)
def test_a_misleading_name_cannot_join_a_table(client: FlaskClient, name: str, why: str) -> None:
    opened = client.post("/v1/tables", json=table({"name": "Bo"}, {"open": True})).get_json()
    message = refused(
        client.post(f"/v1/tables/{opened['id']}/join", json={"name": name}), 400, "invalid_body"
    )
    assert "name" in message and why in message, message
    seats = client.get(f"/v1/tables/{opened['id']}").get_json()["seats"]
    assert seats[1]["open"] and seats[1]["name"] is None, "the seat is still free"


def test_honest_names_are_kept_as_given(client: FlaskClient) -> None:
    created = client.post("/v1/games", json=game(*HONEST[:4]))
    assert created.status_code == 201, created.get_json()
    view = client.get(f"/v1/games/{created.get_json()['id']}").get_json()
    assert [seat["name"] for seat in view["seats"]] == HONEST[:4]
    seats = [{"name": name} for name in HONEST[4:6]] + [{"open": True}]
    opened = client.post("/v1/tables", json=table(*seats))
    assert opened.status_code == 201, opened.get_json()
    joined = client.post(f"/v1/tables/{opened.get_json()['id']}/join", json={"name": HONEST[6]})
    assert joined.status_code == 201, joined.get_json()
    assert [s["name"] for s in joined.get_json()["table"]["seats"]] == HONEST[4:]


@pytest.mark.parametrize(
    ("first", "second"),
    [("Ann", "Ann"), ("Ann", "ANN"), ("Zo\u00eb", "zoe\u0308"), ("Straße", "STRASSE")],
)
def test_two_seats_of_one_table_may_not_read_the_same(
    client: FlaskClient, redis_client: redis.Redis, first: str, second: str
) -> None:
    """At opening: 400 and no table. Joining: 409 ``name_taken`` and the seat stays free."""
    body = table({"name": first}, {"name": second, "bot": "greedy"}, {"open": True})
    message = refused(client.post("/v1/tables", json=body), 400, "invalid_body")
    assert "seats" in message and "named" in message, message
    assert stored(redis_client) == set()

    opened = client.post("/v1/tables", json=table({"name": first}, {"open": True})).get_json()
    join = f"/v1/tables/{opened['id']}/join"
    message = refused(client.post(join, json={"name": second}), 409, "name_taken")
    assert "seat 0" in message, message
    assert client.get(f"/v1/tables/{opened['id']}").get_json()["seats"][1]["open"]
    other = client.post(join, json={"name": f"{first} 2"})
    assert other.status_code == 201, other.get_json()


def test_two_strangers_racing_under_one_name_never_both_sit(app: Flask) -> None:
    """Eight tables with two open seats each; at each, two joiners under the same name (in
    different case) are released together: one sits, the other is 409 ``name_taken``."""
    client = app.test_client()
    tables = [
        client.post(
            "/v1/tables", json=table({"name": "Host"}, {"open": True}, {"open": True})
        ).get_json()["id"]
        for _ in range(8)
    ]
    start = threading.Barrier(16)

    def join(number: int) -> tuple[str, int, str | None]:
        table_id = tables[number // 2]
        own = app.test_client()
        start.wait(timeout=30)
        name = "Racer" if number % 2 else "RACER"
        answer = own.post(f"/v1/tables/{table_id}/join", json={"name": name})
        code = None if answer.status_code == 201 else answer.get_json()["error"]["code"]
        return table_id, answer.status_code, code

    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(join, range(16)))
    for table_id in tables:
        mine = sorted((status, code) for tid, status, code in answers if tid == table_id)
        assert mine == [(201, None), (409, "name_taken")], mine
        seats = client.get(f"/v1/tables/{table_id}").get_json()["seats"]
        assert sorted(s["name"].lower() for s in seats if s["name"]) == ["host", "racer"]


@pytest.mark.parametrize(("name", "why"), MISLEADING[:-3])
def test_a_late_entrys_name_is_checked_as_any_other(name: str, why: str) -> None:
    """The check ``POST /v1/tournaments/{id}/decisions`` is to make of an ``enter`` (blank
    names are the domain's own refusal already)."""
    with pytest.raises(InvalidRequest) as refusal:
        check_entered_name({"decision": "enter", "name": name, "reason": "late"})
    assert refusal.value.code == "invalid_field" and why in refusal.value.message
    for fine in HONEST:
        check_entered_name({"decision": "enter", "name": fine, "reason": "late"})
    check_entered_name({"decision": "withdraw", "name": name, "player": 1, "reason": "r"})


def test_a_late_entry_under_a_misleading_name_is_refused_by_the_route(
    client: FlaskClient,
) -> None:
    """``POST /v1/tournaments/{id}/decisions`` makes that check: 400, and nobody enters."""
    created = tournaments.create(client, tournaments.swiss(tournaments.people(4), rounds=2))
    tournament_id = created["id"]
    before = tournaments.document(client, tournament_id)
    refused = tournaments.decide(client, tournament_id, "enter", name="Ann\u202eevil")
    assert refused.status_code == 400, refused.get_json()
    assert refused.get_json()["error"]["code"] == "invalid_field"
    assert tournaments.document(client, tournament_id) == before


# ----- content types ---------------------------------------------------------------------


def test_a_body_without_content_type_is_415_on_every_route_that_reads_one(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    """What a browser may send cross-site without asking first: refused, nothing written."""
    raw = json.dumps(game("Ann", "Bo"))
    message = refused(client.post("/v1/games", data=raw), 415, "unsupported_media_type")
    assert "application/json" in message, message
    opening = json.dumps(table({"name": "A"}, {"open": True}))
    refused(client.post("/v1/tables", data=opening), 415, "unsupported_media_type")
    tournament = json.dumps({"format": "round_robin", **game("Ann", "Bo")})
    answer = client.post("/v1/tournaments", data=tournament, headers=bearer(ORGANIZER))
    refused(answer, 415, "unsupported_media_type")
    assert stored(redis_client) == set()

    created = client.post("/v1/games", json=game("Ann", "Bo")).get_json()
    seat = bearer(created["seats"][0]["token"])
    base = f"/v1/games/{created['id']}"
    action = {"action": {"type": "resign"}, "expected_version": 1, "command_id": "c-1"}
    answer = client.post(f"{base}/actions", data=json.dumps(action), headers=seat)
    refused(answer, 415, "unsupported_media_type")
    decision = {"decision": "forfeit", "seat": 1, "reason": "gone"}
    answer = client.post(f"{base}/decisions", data=json.dumps(decision), headers=bearer(ORGANIZER))
    refused(answer, 415, "unsupported_media_type")
    assert client.get(base).get_json()["version"] == 1

    opened = client.post("/v1/tables", json=table({"name": "A"}, {"open": True})).get_json()
    answer = client.post(f"/v1/tables/{opened['id']}/join", data=json.dumps({"name": "B"}))
    refused(answer, 415, "unsupported_media_type")
    assert client.get(f"/v1/tables/{opened['id']}").get_json()["seats"][1]["open"]


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=utf-16",
        "application/json; charset=iso-8859-1",
        "application/jsonp",
    ],
)
def test_other_types_and_charsets_are_415(
    client: FlaskClient, redis_client: redis.Redis, content_type: str
) -> None:
    raw = json.dumps(game("Ann", "Bo"))
    answer = client.post("/v1/games", data=raw, headers={"Content-Type": content_type})
    refused(answer, 415, "unsupported_media_type")
    assert stored(redis_client) == set()


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "application/json; charset=UTF-8"],
)
def test_json_in_utf8_is_read(client: FlaskClient, content_type: str) -> None:
    raw = json.dumps(game("Zoë", "Bo"), ensure_ascii=False).encode("utf-8")
    answer = client.post("/v1/games", data=raw, headers={"Content-Type": content_type})
    assert answer.status_code == 201, answer.get_json()


def test_without_a_body_no_type_is_asked(client: FlaskClient) -> None:
    """Routes that read no body act without a ``Content-Type``; a route that reads one and
    gets nothing says the body is empty (400), not 415."""
    refused(client.post("/v1/games"), 400, "malformed_json")
    body = {"round_start": "manual", "format": "round_robin", **game("Ann", "Bo")}
    created = client.post("/v1/tournaments", json=body, headers=bearer(ORGANIZER)).get_json()
    base = f"/v1/tournaments/{created['id']}"
    started = client.post(f"{base}/rounds", headers=bearer(ORGANIZER))
    assert started.status_code == 201, started.get_json()
    reissued = client.post(f"{base}/players/0/token", headers=bearer(ORGANIZER))
    assert reissued.status_code == 201, reissued.get_json()


def test_an_upload_needs_its_type_declared(client: FlaskClient) -> None:
    created = client.post("/v1/games", json=game("Ann", "Bo")).get_json()
    export = client.get(f"/v1/games/{created['id']}/export", headers=bearer(ORGANIZER)).get_data()
    message = refused(client.post("/v1/replays", data=export), 415, "unsupported_media_type")
    assert "application/x-ndjson" in message, message
    plain = {"Content-Type": "text/plain"}
    refused(client.post("/v1/replays", data=export, headers=plain), 415, "unsupported_media_type")
    for content_type in ["application/x-ndjson", "application/jsonl", "application/octet-stream"]:
        answer = client.post("/v1/replays", data=export, headers={"Content-Type": content_type})
        assert answer.status_code == 200, (content_type, answer.get_json())
        assert answer.get_json()["verdict"]["status"] == "incomplete"


# ----- UTF-8 only ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (json.dumps(game("Ann", "Bo")).encode("utf-16"), "byte order mark"),  # with its BOM
        (json.dumps(game("Ann", "Bo")).encode("utf-16-le"), "NUL"),
        (json.dumps(game("Ann", "Bo")).encode("utf-16-be"), "NUL"),
        (json.dumps(game("Ann", "Bo")).encode("utf-32"), "byte order mark"),
        (json.dumps(game("Ann", "Bo")).encode("utf-32-le"), "NUL"),
        (b"\xef\xbb\xbf" + json.dumps(game("Ann", "Bo")).encode(), "byte order mark"),
        (json.dumps(game("Zoë", "Bo"), ensure_ascii=False).encode("latin-1"), "not UTF-8"),
    ],
)
def test_bodies_that_are_not_utf8_are_malformed(
    client: FlaskClient, redis_client: redis.Redis, raw: bytes, says: str
) -> None:
    message = refused(client.post("/v1/games", data=raw, headers=JSON), 400, "malformed_json")
    assert says in message and "UTF-8" in message, message
    assert stored(redis_client) == set()


# ----- what answers say about themselves -------------------------------------------------


def test_every_answer_is_nosniff_and_runs_nothing_by_default(client: FlaskClient) -> None:
    created = client.post("/v1/games", json=game("Ann", "Bo")).get_json()
    base = f"/v1/games/{created['id']}"
    answers = {
        "json": client.get("/v1/health"),
        "error": client.get("/v1/games/nope"),
        "svg": client.get(f"{base}/board.svg"),
        "ndjson": client.get(f"{base}/export", headers=bearer(ORGANIZER)),
        "created": client.post("/v1/games", json=game("Cy", "Di")),
        "refused": client.post("/v1/games", data="x", headers={"Content-Type": "text/plain"}),
        "yaml": client.get("/openapi.yaml"),
        "docs asset": client.get("/docs/assets/swagger-ui-bundle.js"),
        "no route": client.get("/nowhere"),
    }
    for kind, answer in answers.items():
        assert answer.status_code < 500, kind
        assert answer.headers["X-Content-Type-Options"] == "nosniff", kind
        assert answer.headers["Content-Security-Policy"] == STRICT_POLICY, kind
    assert answers["svg"].mimetype == "image/svg+xml"


def test_pages_keep_their_own_policy(client: FlaskClient) -> None:
    lobby = client.get("/")
    assert lobby.status_code == 200
    assert lobby.headers["Content-Security-Policy"] == PAGE_POLICY
    assert lobby.headers["X-Content-Type-Options"] == "nosniff"


def test_the_api_reference_may_run_its_own_script_and_nothing_else(client: FlaskClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    policy = page.headers["Content-Security-Policy"]
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    [inline] = re.findall(r"<script>(.*?)</script>", page.get_data(as_text=True), re.S)
    digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == f"'self' 'sha256-{digest}'"
    assert directives["default-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["connect-src"] == "'self'"
    assert "unsafe-eval" not in policy and "http" not in policy


# ----- the organizer token ---------------------------------------------------------------


@pytest.mark.parametrize("token", ["secret", "s3cret", "fifteen-chars-x", "x" * 40, "-" * 16])
def test_a_weak_organizer_token_stops_the_start(token: str) -> None:
    with pytest.raises(ValueError, match="FLOE_ORGANIZER_TOKEN"):
        Settings.from_env({"FLOE_ORGANIZER_TOKEN": token})
    out = io.StringIO()
    assert floe_run([], environ={"FLOE_ORGANIZER_TOKEN": token}, out=out) == 2
    assert "FLOE_ORGANIZER_TOKEN is too weak" in out.getvalue()


@pytest.mark.parametrize("token", ["sixteen-chars-ok", "aaaaaaaaaaaaaaab", ORGANIZER])
def test_a_strong_organizer_token_or_none_is_taken(token: str) -> None:
    assert Settings.from_env({"FLOE_ORGANIZER_TOKEN": token}).organizer_token == token
    assert Settings.from_env({}).organizer_token is None
    assert Settings.from_env({"FLOE_ORGANIZER_TOKEN": ""}).organizer_token is None
