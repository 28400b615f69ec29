"""Words for people: a refused body or query said in sentences, a 404 page for a browser (the
JSON 404 for programs), and each game's rules as a page.

The sentences are checked through the real API for every schema a request body or query is
loaded with (games, actions, tables, tournaments, decisions, the game search): the field's
path in words, list positions counted from 1, marshmallow's own phrases gone, the stable code
unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.games import GAMES
from service.api.page_answers import POLICY as PAGE_POLICY
from service.api.rules import render
from tests.support.api import ORGANIZER, Game, bearer

#: What a browser sends when it follows a link.
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
#: marshmallow's phrases and its dotted paths (``seats.0.name``): none may reach a person.
RAW = re.compile(
    r"Length must be|Unknown field|Missing data|Not a valid|Must be|Field may not|\w\.\d+\.\w"
)

TWO = [{"name": "Ann"}, {"name": "Bo"}]


def refusal(response: Any, status: int, code: str) -> str:
    body = response.get_json()
    assert response.status_code == status, body
    assert body["error"]["code"] == code, body
    message: str = body["error"]["message"]
    assert RAW.search(message) is None, message
    assert re.match("['A-Z]", message) and message.endswith("."), message
    return message


# ----- sentences ---------------------------------------------------------------------------------


def tournament(**change: Any) -> dict[str, Any]:
    players = [{"name": f"bot{i}", "bot": "random"} for i in range(4)]
    return {"game": "iceberg", "format": "swiss", "rounds": 2, "players": players, **change}


#: (method, path, body, headers, status, code, the sentence expected in the message)
SENTENCES: list[tuple[str, str, Any, dict[str, str], int, str, str]] = [
    (
        "POST",
        "/v1/games",
        {"game": "iceberg", "players": [{"name": "Ann"}, {"name": ""}]},
        {},
        400,
        "invalid_body",
        "Player 2's name must be 1 to 64 characters long.",
    ),
    (
        "POST",
        "/v1/games",
        {"game": "iceberg", "players": TWO, "colour": "blue"},
        {},
        400,
        "invalid_body",
        "'colour' is not a field this request takes.",
    ),
    (
        "POST",
        "/v1/games",
        {"game": "iceberg", "players": [{"name": "Ann", "age": 9}, {"name": "Bo"}]},
        {},
        400,
        "invalid_body",
        "'age' (in player 1) is not a field this request takes.",
    ),
    (
        "POST",
        "/v1/games",
        {"game": "iceberg"},
        {},
        400,
        "invalid_body",
        "The request has no players.",
    ),
    (
        "POST",
        "/v1/games",
        {"game": "iceberg", "players": [{"name": "Ann"}, {}]},
        {},
        400,
        "invalid_body",
        "Player 2 has no name.",
    ),
    (
        "POST",
        "/v1/games",
        {"game": "no-such-game", "players": TWO},
        {},
        400,
        "invalid_body",
        "The game must be one of: ",
    ),
    (
        "POST",
        "/v1/tables",
        {"game": "iceberg", "seats": [{"name": "A" * 65}, {"open": True}]},
        {},
        400,
        "invalid_body",
        "Seat 1's name must be 1 to 64 characters long.",
    ),
    (
        "POST",
        "/v1/tables",
        {"game": "iceberg", "seats": [{"name": "Ann"}, {}]},
        {},
        400,
        "invalid_body",
        "Seat 2 needs a name, or 'open': true.",
    ),
    (
        "POST",
        "/v1/tables",
        {"game": "iceberg", "seats": []},
        {},
        400,
        "invalid_body",
        "The seats must have 1 to 8 entries.",
    ),
    (
        "POST",
        "/v1/tournaments",
        tournament(tiebreaks=["wins", "coin_toss"]),
        bearer(ORGANIZER),
        400,
        "invalid_body",
        "Tiebreak 2 must be one of: ",
    ),
    (
        "POST",
        "/v1/tournaments",
        tournament(table_size=True),
        bearer(ORGANIZER),
        400,
        "invalid_body",
        "The table size must be a whole number.",
    ),
    (
        "POST",
        "/v1/tournaments",
        tournament(format="knockout"),
        bearer(ORGANIZER),
        400,
        "invalid_body",
        "The format must be 'round_robin' or 'swiss'.",
    ),
    (
        "GET",
        "/v1/games?tournament=zz",
        None,
        {},
        400,
        "invalid_query",
        "The query parameter 'tournament' must be 16 lowercase hex digits.",
    ),
    (
        "GET",
        "/v1/games?before=soon",
        None,
        {},
        400,
        "invalid_query",
        "The query parameter 'before' must be a UTC time like ",
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "status", "code", "sentence"),
    SENTENCES,
    ids=[f"{s[1]}-{i}" for i, s in enumerate(SENTENCES)],
)
def test_a_refused_body_or_query_is_told_in_sentences(
    client: FlaskClient,
    method: str,
    path: str,
    body: Any,
    headers: dict[str, str],
    status: int,
    code: str,
    sentence: str,
) -> None:
    response = client.open(path, method=method, json=body, headers=headers)
    assert sentence in refusal(response, status, code)


def test_an_action_and_a_join_are_told_in_sentences_too(
    client: FlaskClient, new_game: Callable[..., Game]
) -> None:
    game = new_game()
    post = client.post(
        f"/v1/games/{game.id}/actions",
        json={"action": {"type": "pass"}, "expected_version": 0, "command_id": ""},
        headers=bearer(game.tokens[0]),
    )
    message = refusal(post, 400, "invalid_body")
    assert "The expected version must be 1 to " in message, message
    assert "The command id must be 1 to 128 characters long." in message, message

    seats = [{"name": "Ann"}, {"open": True}]
    table = client.post("/v1/tables", json={"game": "iceberg", "seats": seats}).get_json()
    join = client.post(f"/v1/tables/{table['id']}/join", json={"name": "Bo", "key": "x"})
    assert refusal(join, 400, "invalid_body") == "'key' is not a field this request takes."


def test_an_entered_name_is_told_in_a_sentence(client: FlaskClient) -> None:
    created = client.post("/v1/tournaments", json=tournament(), headers=bearer(ORGANIZER))
    assert created.status_code == 201, created.get_json()
    decision = {"decision": "enter", "name": "Ann\u202e", "bot": None}
    answer = client.post(
        f"/v1/tournaments/{created.get_json()['id']}/decisions",
        json=decision,
        headers=bearer(ORGANIZER),
    )
    message = refusal(answer, 400, "invalid_field")
    assert message == "The name may not contain a bidirectional control (U+202E).", message


# ----- 404: a page for a browser, JSON for a program --------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/no/such/page",
        "/games/not!an-id",
        "/tournaments/0123456789abcdef",  # well formed, but no such tournament
        "/tournaments/nope",
        "/rules/no-such-game",
    ],
)
def test_a_browser_asking_for_a_page_that_is_not_there_gets_a_page(
    client: FlaskClient, path: str
) -> None:
    response = client.get(path, headers=BROWSER)
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == PAGE_POLICY
    page = response.get_data(as_text=True)
    assert "No such page here" in page and 'href="/"' in page and 'href="/docs"' in page

    for accept in [{}, {"Accept": "*/*"}, {"Accept": "application/json"}]:
        answer = client.get(path, headers=accept)
        assert answer.status_code == 404 and answer.mimetype == "application/json", accept
        assert answer.get_json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "path", ["/v1/no-such-route", "/v1", "/web/no-such-file.js", "/openapi.xml", "/docs/nothing"]
)
def test_the_api_answers_json_404s_whatever_the_client_accepts(
    client: FlaskClient, path: str
) -> None:
    response = client.get(path, headers=BROWSER)
    assert response.status_code == 404
    assert response.mimetype == "application/json", response.get_data(as_text=True)[:200]
    assert response.get_json()["error"]["code"] == "not_found"


def test_an_unknown_game_or_tournament_in_the_api_is_still_json(client: FlaskClient) -> None:
    for path in ["/v1/games/0123456789abcdef", "/v1/tournaments/0123456789abcdef"]:
        response = client.get(path, headers=BROWSER)
        assert response.status_code == 404 and response.mimetype == "application/json", path


# ----- the rules pages ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_hosted_game_has_its_rules_as_a_page(client: FlaskClient, game: str) -> None:
    response = client.get(f"/rules/{game}", headers=BROWSER)
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == PAGE_POLICY
    page = response.get_data(as_text=True)
    title = GAMES[game].info.title
    assert re.search(rf"<h1[^>]*>{re.escape(title)}", page), page[:2000]
    assert "<table>" in page  # the documents' tables are rendered, not shown as pipes
    # Every link within the page lands on a heading of it; none leads to a file not served.
    ids = set(re.findall(r' id="([^"]+)"', page))
    targets = set(re.findall(r'href="#([^"]+)"', page))
    assert targets and targets <= ids, targets - ids
    assert re.search(r'href="[^"]*\.md', page) is None
    assert "<script>" not in page and "/web/.js" not in page


def test_the_rules_list_names_every_hosted_game(client: FlaskClient) -> None:
    page = client.get("/rules", headers=BROWSER).get_data(as_text=True)
    for name, game in GAMES.items():
        assert f'href="/rules/{name}">{game.info.title}</a>' in page, name


def test_raw_html_in_a_rules_document_is_shown_not_run() -> None:
    html = render('# T\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <b onclick="y">\n')
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "javascript:" not in html.replace("[x](javascript:alert(1))", "")
    assert "<b " not in html
    assert '<h1 id="t">T</h1>' in html
