"""``openapi.yaml`` against the running app: same routes, a sound document, true answers.

The document is built (``make spec``, ``service/api/spec``) from the marshmallow schemas, the
per-resource operation files and each game's declaration and contract: a test here fails
while the committed copies (the repository's and the package's, which ``/openapi.yaml``
serves) differ from what the sources build, and while the code can refuse with an error code
the document's ``ErrorCode`` lacks.

Every response the app gives in these tests — whole Arktia, Iceberg and Ice Breakers games
played from ``legal-actions`` (the draws made by a real ``floe worker`` process), a 202, a
tournament followed from its creation to its end, and every documented refusal — is checked
against the operation it came from (``tests/support/openapi.py``): the status must be
documented, the JSON body (every export line, every SSE ``data:``, also of a live stream)
must validate against the documented schema, required headers must be present, and an
error's ``code`` must be named in the operation's docs. Request bodies are checked too: one
the server accepts must fit the documented request schema, one it refuses as malformed must
not. Draws are awaited on the event stream (``?wait=``, XREAD BLOCK), never with a sleep.
"""

from __future__ import annotations

import ast
import hashlib
import http.client
import importlib.metadata
import json
import queue
import random
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename

from domain.games import GAMES
from service.api.app import create_app
from service.api.spec import packaged_text
from service.api.spec.build import build, camel, dump
from service.bootstrap import build as build_floe
from service.run.redis_server import free_tcp_port
from service.settings import Settings
from service.store.events import events_key
from tests.support.clocks import ManualClock
from tests.support.floe_run import call, floe_run
from tests.support.openapi import (
    HTTP_METHODS,
    Answer,
    CheckedClient,
    OpenApi,
    _pointer,
    documented_operations,
    flask_template,
)
from tests.support.socket_client import Message, Socket
from tests.support.socket_contract import SOCKET_OPERATION, UPGRADE, SocketAwareClient
from tests.support.tournament_exports import build as build_tournament
from tests.support.waiting import PROMPTLY
from tests.support.workers import StartWorker

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "openapi.yaml"
#: Served beside the API (service/api/docs.py), outside ``/v1`` and outside the spec's paths.
DOC_ROUTES = frozenset({"/openapi.yaml", "/openapi.json", "/docs", "/docs/assets/{name}"})
ORGANIZER = "organizer-token-for-the-openapi-tests"
#: A JSON body declared as such (a body without a type is 415).
DECLARED_JSON = {"Content-Type": "application/json"}
#: A tournament as the dead store and the rate limiter see it.
TOURNAMENT = {
    "game": "arktia",
    "format": "round_robin",
    "players": [{"name": "Ada"}, {"name": "Hal", "bot": "random"}],
}
#: 503 has its own test against a dead store; 408 comes from ``floe run``'s server
#: (tests/e2e/test_long_requests.py), before the app sees the request.
NOT_SCRIPTABLE = frozenset({"408", "500", "503"})
#: 429 needs an app with tight limits: tests/e2e/test_rate_limits.py provokes it on every
#: documented operation and checks it with this module's ``CheckedClient``.
SCRIPTED_ELSEWHERE = frozenset({"429"})
#: The socket's 101: a Flask test client cannot complete an upgrade (it has no socket to hand
#: the app), so a real ``floe run`` gives it: test_the_socket_upgrades_and_speaks_as_documented
#: checks it against this document (and tests/e2e/test_socket.py plays whole games after it).
UPGRADED_ON_A_REAL_SERVER = frozenset({"101"})


# ----- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spec() -> OpenApi:
    return OpenApi.load()


@pytest.fixture
def api(redis_url: str, spec: OpenApi) -> CheckedClient:
    """The real app on the test session's private Redis, every answer checked (the socket
    route's refusals too)."""
    settings = Settings(redis_url=redis_url, organizer_token=ORGANIZER)
    return SocketAwareClient(create_app(settings), spec)


def create_game(api: CheckedClient, **extra: Any) -> tuple[str, list[str]]:
    body = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}], **extra}
    created = api.post("/v1/games", json_body=body, expect=201).body
    assert api.call("GET", f"/v1/games/{created['id']}", expect=200).body["version"] == 1
    return created["id"], [seat["token"] for seat in created["seats"]]


def post_action(
    api: CheckedClient,
    game_id: str,
    token: str,
    action: Any,
    version: int,
    command_id: str,
    *,
    wait: int | None = None,
) -> Answer:
    body = {"action": action, "expected_version": version, "command_id": command_id}
    query = "" if wait is None else f"?wait={wait}"
    return api.post(f"/v1/games/{game_id}/actions{query}", token=token, json_body=body)


def await_draw(redis_client: redis.Redis, game_id: str, after: int) -> None:
    """Block on the game's stream (never a sleep) until the worker appended past ``after``."""
    entries = redis_client.xread({events_key(game_id): f"0-{after}"}, block=10_000)
    assert entries, f"no worker recorded the draw of {game_id} after version {after}"


# ----- the document --------------------------------------------------------------------------


def streamed(data: str) -> dict[str, Any]:
    """A live stream's event as a page shows it: without the service's receipt, which only the
    stream carries (tests/e2e/test_receipts.py checks what it signs)."""
    event: dict[str, Any] = json.loads(data)
    assert set(event.pop("receipt")) == {"version", "mark", "signature"}
    return event


def test_every_route_of_the_app_is_documented_and_nothing_else(
    redis_url: str, spec: OpenApi
) -> None:
    app = create_app(Settings(redis_url=redis_url, bench_routes=True))
    routes: set[tuple[str, str]] = set()
    docs: set[tuple[str, str]] = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static" or rule.rule.startswith("/bench/"):
            continue
        if rule.endpoint.startswith("pages."):
            continue  # the web pages (service/api/pages.py), not API routes
        methods = {m.lower() for m in (rule.methods or set()) - {"HEAD", "OPTIONS"}}
        found = docs if rule.endpoint.startswith("docs.") else routes
        found |= {(method, flask_template(rule.rule)) for method in methods}
    # the game routes (13, the socket's among them), the tables' (5), /v1/replays, /v1/keys and
    # the tournaments' (10)
    assert len(routes) == 30
    assert SOCKET_OPERATION in routes
    # the documentation routes (docs/reference/http-api.md) are the API's manual, not the API
    assert docs == {("get", path) for path in DOC_ROUTES}
    documented = documented_operations(spec)
    assert routes - documented == set(), "routes missing from openapi.yaml"
    assert documented - routes == set(), "openapi.yaml documents routes the app lacks"
    assert not any(path.startswith("/bench") for path in spec.doc["paths"])


def _walk(node: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    yield pointer, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, pointer + _pointer(str(key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, pointer + _pointer(str(index)))


def test_the_document_is_sound_openapi_3_1(spec: OpenApi) -> None:
    doc = spec.doc
    assert doc["openapi"] == "3.1.0"
    assert isinstance(doc["info"]["title"], str) and isinstance(doc["info"]["version"], str)
    schemes = doc["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {**schemes["bearerAuth"], "type": "http", "scheme": "bearer"}

    refs = 0
    for pointer, node in _walk(doc):
        if isinstance(node, dict) and "$ref" in node:
            refs += 1
            ref = node["$ref"]
            assert isinstance(ref, str) and ref.startswith("#/"), f"{pointer}: $ref {ref!r}"
            try:
                spec.at(ref[1:])
            except (KeyError, IndexError, ValueError):
                pytest.fail(f"{pointer}: $ref {ref} resolves to nothing")
    assert refs > 50

    for name, schema in doc["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema)
        assert "description" in schema or "type" in schema, name

    operation_ids: list[str] = []
    for path, item in doc["paths"].items():
        assert path.startswith("/v1/"), path
        path_params = {p for p in re.findall(r"{([^}]+)}", path)}
        shared = [spec.deref(p, "")[0] for p in item.get("parameters", [])]
        for method in (m for m in item if m in HTTP_METHODS):
            op = item[method]
            where = f"{method.upper()} {path}"
            operation_ids.append(op["operationId"])
            assert op.get("summary") and op.get("description"), f"{where}: summary, description"
            assert op.get("responses"), f"{where}: no responses"
            for status, raw in op["responses"].items():
                assert isinstance(status, str) and re.fullmatch(r"[1-5][0-9]{2}", status), (
                    f"{where}: response key {status!r} (quote status codes in YAML)"
                )
                response, _ = spec.deref(raw, "")
                assert response.get("description"), f"{where} {status}: no description"
                if int(status) >= 400:
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Error"}, f"{where} {status}"
            for status in ("500", "503"):
                assert status in op["responses"], f"{where}: {status} is not documented"
            params = shared + [spec.deref(p, "")[0] for p in op.get("parameters", [])]
            declared = {p["name"] for p in params if p["in"] == "path"}
            assert declared == path_params, f"{where}: path parameters {declared}"
            assert all(p["required"] for p in params if p["in"] == "path"), where
            for requirement in op.get("security", doc.get("security", [])):
                assert set(requirement) <= set(schemes), f"{where}: unknown security scheme"
    assert len(operation_ids) == len(set(operation_ids)), "operationIds must be unique"


def test_every_example_fits_its_schema(spec: OpenApi) -> None:
    checked = 0
    for pointer, node in _walk(spec.doc):
        if not (isinstance(node, dict) and "schema" in node):
            continue
        schema = node["schema"]
        if "example" in node and isinstance(schema, dict) and schema.get("type") != "string":
            spec.assert_valid(pointer + "/schema", node["example"], pointer)
            checked += 1
        for name, example in node.get("examples", {}).items():
            spec.assert_valid(pointer + "/schema", example["value"], f"{pointer} {name}")
            checked += 1
    for name, schema in spec.doc["components"]["schemas"].items():
        if "example" in schema:
            pointer = _pointer("components", "schemas", name)
            spec.assert_valid(pointer, schema["example"], pointer)
            checked += 1
    assert checked >= 15


#: The calls that refuse with a code: the code is the first argument, or the second after
#: a status.
CODE_FIRST = frozenset(
    {
        "IllegalAction",
        "MalformedAction",
        "NotAllowed",
        "InvalidSetup",
        "InvalidRequest",
        "Unauthenticated",
        "Forbidden",
        "NotFound",
        "Conflict",
        "DecisionError",  # a director's decision the domain refuses (400 or 409)
        "bad_request",
        "__init__",  # super().__init__(code, message) in ServiceError's subclasses
    }
)
CODE_SECOND = frozenset({"HttpError", "error_response", "_HTTP_CODES.get"})


def codes_raised(paths: list[Path]) -> dict[str, set[Path]]:
    """Every error code the code at ``paths`` can refuse with, and where: a literal code of a
    refusing call, or of an ``"code": ...`` entry (a response built by hand), or a value of a
    table of codes (``{404: "not_found"}``)."""
    found: dict[str, set[Path]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            codes: list[ast.expr] = []
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                owner = getattr(getattr(node.func, "value", None), "id", None)
                name = f"{owner}.{name}" if owner == "_HTTP_CODES" else name
                if name in CODE_FIRST and node.args:
                    codes.append(node.args[0])
                elif name in CODE_SECOND and len(node.args) > 1:
                    codes.append(node.args[1])
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and (
                        key.value == "code" or (type(key.value) is int and 400 <= key.value < 600)
                    ):
                        codes.append(value)
            for code in codes:
                literal = code.value if isinstance(code, ast.Constant) else None
                if isinstance(literal, str) and re.fullmatch(r"[a-z][a-z0-9_]*", literal):
                    found.setdefault(literal, set()).add(path)
    return found


def source(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def test_every_error_code_in_the_code_is_documented(spec: OpenApi) -> None:
    """The enum is built from tables (errors.yaml and each game's contract): this holds the
    tables to the code, both ways: no code the server gives is missing, none listed is dead."""
    raised = codes_raised(source("service", "domain"))
    assert {"store_unavailable", "internal_error", "not_your_turn", "no_such_tile"} <= set(raised)
    assert {"rate_limited", "game_not_found", "missing_token", "request_timeout"} <= set(raised)
    enum = spec.at("/components/schemas/ErrorCode")["enum"]
    missing = sorted(set(raised) - set(enum))
    assert missing == [], "codes the server gives that ErrorCode lacks (errors.yaml, contracts)"
    unused = sorted(set(enum) - set(raised) - {"version_conflict"})  # VersionConflict's own
    assert unused == [], "ErrorCode lists codes nothing gives"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_games_contract_lists_exactly_the_refusals_of_its_rules(name: str) -> None:
    game = GAMES[name]
    package = ROOT / "domain" / "games" / game.rules.__module__.split(".")[2]
    illegal: set[str] = set()
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "IllegalAction"
                and isinstance(node.args[0], ast.Constant)
            ):
                illegal.add(str(node.args[0].value))
    assert illegal == set(game.contract.errors)


def test_the_committed_spec_is_what_its_sources_build() -> None:
    """``make spec`` writes both copies; a source changed without it fails here."""
    built = dump(build(GAMES))
    assert packaged_text() == built, "service/api/spec/openapi.yaml is stale: run `make spec`"
    assert SPEC_PATH.read_text(encoding="utf-8") == built, "openapi.yaml is stale: `make spec`"


def test_a_plugin_game_joins_a_spec_built_with_it() -> None:
    """A game is its package: registered, its schemas appear; the committed spec has none."""
    from tests.support.pig import GAME as PIG

    document = build({**GAMES, PIG.name: PIG})
    schemas = document["components"]["schemas"]
    assert {"PigState", "PigRoll", "PigHold", "PigAction", "PigOptions", "PigView"} <= set(schemas)
    assert (
        "pig" in schemas["GameName"]["enum"] and "nothing_to_hold" in schemas["ErrorCode"]["enum"]
    )
    assert schemas["GameView"]["discriminator"]["mapping"]["pig"].endswith("/PigView")
    validate(document)
    assert "Pig" not in SPEC_PATH.read_text(encoding="utf-8")


def test_every_game_offers_resign_and_the_organizer_may_decide(spec: OpenApi) -> None:
    """``resign`` is the engine's action, in every game's union (a plugin game's too), never
    a game's own schema; ``POST .../decisions`` takes a ``Decision``, answers like an action
    and is documented with every code it gives; ``timeout`` and ``decision`` are events."""
    from tests.support.pig import GAME as PIG

    resign = "#/components/schemas/Resign"
    for games in (GAMES, {**GAMES, PIG.name: PIG}):
        schemas = build(games)["components"]["schemas"]
        for name in games:
            union = schemas[camel(games[name].info.title) + "Action"]
            assert union["discriminator"]["mapping"]["resign"] == resign, name
            assert {"$ref": resign} in union["oneOf"], name
        assert "resign" in schemas["ActionEvent"]["properties"]["type"]["enum"]
    assert spec.errors("/components/schemas/Resign", {"type": "resign"}) == []
    assert spec.errors("/components/schemas/Resign", {"type": "resign", "seat": 0})
    body = {"action": {"type": "resign"}, "expected_version": 3, "command_id": "r"}
    assert spec.request_errors("post", "/v1/games/{game_id}/actions", body) == []

    op, _ = spec.operation("post", "/v1/games/{game_id}/decisions")
    assert op["operationId"] == "postDecision" and op["security"] == [{"bearerAuth": []}]
    decision = _pointer("components", "schemas", "Decision")
    forfeit = {"decision": "forfeit", "seat": 1, "reason": "gone"}
    result = {"decision": "result", "winners": [0, 2], "reason": "adjudicated"}
    for good in (forfeit, result, {**result, "winners": []}):
        assert spec.request_errors("post", "/v1/games/{game_id}/decisions", good) == []
        assert spec.errors(decision, good) == []
    for bad in (
        {"decision": "draw", "reason": "r"},
        {**forfeit, "winners": [0]},
        {"decision": "forfeit", "seat": 1},
        {**forfeit, "reason": " \t "},
        {**forfeit, "reason": "x" * 501},
        {**result, "winners": [0, 0]},
        {**forfeit, "seat": True},
    ):
        assert spec.errors(decision, bad), bad
    accepted = spec.deref(op["responses"]["201"], "")[0]["content"]["application/json"]
    assert accepted["schema"] == {"$ref": "#/components/schemas/ActionAccepted"}
    docs = op["description"] + "".join(
        spec.deref(op["responses"][status], "")[0]["description"]
        for status in ("400", "401", "403", "404", "409", "422")
    )
    for code in (
        "invalid_body",
        "unknown_decision",
        "unexpected_field",
        "missing_field",
        "invalid_field",
        "missing_token",
        "organizer_only",
        "game_over",
        "awaiting_random",
        "game_not_found",
        "version_conflict",
        "unknown_seat",
        "already_left",
    ):
        assert f"`{code}`" in docs, code

    event = _pointer("components", "schemas", "Event")
    system: dict[str, Any] = {"game_id": "g", "actor": "system", "at": "2026-11-22T12:00:00Z"}
    system["command_id"] = None
    timeout = {**system, "version": 5, "type": "timeout", "data": {"seat": 1}}
    decided = {**system, "version": 6, "type": "decision", "data": result}
    resigned = {**system, "version": 7, "type": "resign", "actor": 0, "command_id": "r"}
    resigned["data"] = {"action": {"type": "resign"}}
    for line in (timeout, decided, resigned):
        assert spec.errors(event, line) == [], line
    assert spec.errors(event, {**decided, "data": {**result, "extra": 1}})
    posted, _ = spec.operation("post", "/v1/games/{game_id}/actions")
    for code in ("out_of_time", "seat_left"):
        assert f"`{code}`" in posted["description"], code


def test_the_error_schema_is_the_one_the_app_gives(spec: OpenApi) -> None:
    error_pointer = _pointer("components", "schemas", "Error")
    assert spec.errors(error_pointer, {"error": {"code": "not_found", "message": "m"}}) == []
    assert spec.errors(error_pointer, {"error": {"code": "no_such_code", "message": "m"}})
    assert spec.errors(error_pointer, {"error": {"code": "not_found"}})
    assert spec.errors(error_pointer, {"error": {"code": "not_found", "message": "m"}, "x": 1})


def test_openapi_spec_validator_accepts_the_document() -> None:
    """What ``openapi-spec-validator openapi.yaml`` checks (the OpenAPI 3.1 meta-schema)."""
    document, _ = read_from_filename(str(SPEC_PATH))
    validate(document)


def test_the_spec_says_how_to_run_floe_and_cites_only_itself(spec: OpenApi) -> None:
    """The served document stands alone: no development server, no files a client lacks."""
    text = SPEC_PATH.read_text(encoding="utf-8")
    assert "floe serve" not in text, "`floe serve` is the development server"
    [server] = spec.doc["servers"]
    assert server["url"] == "/"
    assert "make run" in server["description"] and "floe run" in server["description"]
    # No file outside the repository (the product team's spec folder, this machine's paths).
    for elsewhere in ("DESIGN.md", "shared/", "/work/"):
        assert elsewhere not in text, f"the spec refers to {elsewhere!r}: write the facts in"


def test_command_id_reused_is_documented_where_actions_are(spec: OpenApi) -> None:
    op, _ = spec.operation("post", "/v1/games/{game_id}/actions")
    unprocessable, _ = spec.deref(op["responses"]["422"], "")
    assert "`command_id_reused`" in op["description"]
    assert "`command_id_reused`" in unprocessable["description"]
    assert "`command_id_reused`" in spec.doc["info"]["description"]


def test_the_docs_are_served_by_floe_itself() -> None:
    """``/openapi.yaml``, ``/openapi.json``, ``/docs`` (assets included) and ``/``: outside
    ``/v1``, so never rate limited, and up even while the store is down."""
    settings = Settings(
        redis_url=f"redis://127.0.0.1:{free_tcp_port()}/0",  # no Redis there
        rate_limit_per_address=1,
        rate_limit_per_token=1,
    )
    client = create_app(settings).test_client()
    for _ in range(3):  # more than the limit allows, were these /v1 routes
        raw = client.get("/openapi.yaml")
        assert raw.status_code == 200 and raw.mimetype == "application/yaml"
        assert raw.get_data() == SPEC_PATH.read_bytes()
    as_json = client.get("/openapi.json")
    assert as_json.status_code == 200 and as_json.mimetype == "application/json"
    assert as_json.get_json() == yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))

    page = client.get("/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "SwaggerUIBundle(" in html and 'url: "/openapi.json"' in html
    linked = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert not [url for url in linked if "//" in url], "the page loads nothing from elsewhere"
    assets = {url for url in linked if url.startswith("/docs/assets/")}
    needed = {"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"}
    assert {url.rsplit("/", 1)[1] for url in assets} >= needed
    kinds = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}
    for url in sorted(assets):
        asset = client.get(url)
        assert asset.status_code == 200 and asset.get_data(), url
        assert asset.mimetype == kinds[url[url.rindex(".") :]], (url, asset.mimetype)
    for missing in ("/docs/assets/LICENSE", "/docs/assets/..%2f__init__.py", "/docs/"):
        answer = client.get(missing)
        assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "not_found"
    # Swagger UI renders OpenAPI 3.1 from version 5 on; flask-swagger-ui follows its versions
    assert int(importlib.metadata.version("flask-swagger-ui").split(".")[0]) >= 5

    root = client.get("/")  # the lobby (service/api/pages.py), a static page
    assert root.status_code == 200 and root.mimetype == "text/html"
    assert client.get("/v1/games").status_code == 503, "the API itself does need the store"


# ----- a whole game --------------------------------------------------------------------------


def play_game(api: CheckedClient, seed: int) -> set[str]:
    """Play one 2-player Arktia game from ``legal-actions`` only; return the pending kinds."""
    choose = random.Random(seed)  # picks the actions: the game depends on nothing else
    rng = random.Random(-seed)  # picks viewers and versions to look at
    game_id, tokens = create_game(api)
    base = f"/v1/games/{game_id}"
    pending_kinds: set[str] = set()
    moves = 0
    while True:
        viewer = rng.choice([None, 0, 1])
        view = api.get(base, token=None if viewer is None else tokens[viewer], expect=200).body
        assert view["viewer"] == viewer
        if view["pending"] is not None:
            pending_kinds.add(view["pending"]["type"])
        if view["status"] == "over":
            break
        [seat] = view["to_act"]
        other = 1 - seat
        legal = api.get(f"{base}/legal-actions", token=tokens[seat], expect=200).body
        idle = api.get(f"{base}/legal-actions", token=tokens[other], expect=200).body
        assert legal["version"] == view["version"] and legal["actions"] and not idle["actions"]
        action = choose.choice(legal["actions"])
        accepted = post_action(
            api, game_id, tokens[seat], action, legal["version"], f"{seed}-{moves}"
        )
        assert accepted.status == 201, accepted.body
        assert accepted.body["events"][0]["data"] == {"action": action}
        if accepted.body["events"][-1]["type"] != "seed_revealed":
            assert all("hash" not in e for e in accepted.body["events"])
        moves += 1
        if moves % 7 == 0:
            version = rng.randint(1, accepted.body["version"])
            old = api.get(f"{base}/state?version={version}", token=tokens[seat], expect=200)
            assert old.body["version"] == version
            page = api.get(f"{base}/events?after={version - 1}&limit=5", expect=200).body
            assert page["events"][0]["version"] == version
            api.get("/v1/games?limit=3", expect=200)
    assert moves > 10

    final = view["version"]
    assert view["outcome"] is not None and view["seed"] is not None
    assert hashlib.sha256(bytes.fromhex(view["seed"])).hexdigest() == view["seed_commitment"]
    for version in (1, final - 2, final - 1, final):
        api.get(f"{base}/state?version={version}", expect=200)
        api.get(f"{base}/board.svg?version={version}", expect=200)
    for token in tokens:
        assert api.get(f"{base}/legal-actions", token=token, expect=200).body["actions"] == []
    api.get(base, token=ORGANIZER, expect=200)

    events = api.get(f"{base}/events", expect=200).body["events"]
    assert [e["version"] for e in events] == list(range(1, final + 1))
    assert all("hash" in e and "prev_hash" in e for e in events)
    lines = api.get(f"{base}/export", expect=200).body
    assert lines == events
    messages = api.get(f"{base}/events/stream", expect=200).body
    assert [streamed(m.data) for m in messages] == events
    resumed = api.get(
        f"{base}/events/stream", headers={"Last-Event-ID": str(final - 3)}, expect=200
    ).body
    assert [m.id for m in resumed] == [str(v) for v in range(final - 2, final + 1)]
    after = api.get(f"{base}/events/stream?after={final - 1}", token=tokens[0], expect=200)
    assert [m.event for m in after.body] == ["seed_revealed"]
    return pending_kinds


def test_a_whole_game_answers_as_documented(api: CheckedClient) -> None:
    api.get("/v1/health", expect=200)
    assert api.get("/v1/games", expect=200).body["games"] == []
    pending_kinds: set[str] = set()
    games = 0
    for seed in range(4, 14):  # seed 4 reaches both a tie and a melt
        pending_kinds |= play_game(api, seed)
        games += 1
        if pending_kinds == {"keep_group", "melt"}:
            break
    assert pending_kinds == {"keep_group", "melt"}, "no game reached both pending decisions"
    listed = api.get("/v1/games", expect=200).body
    assert len(listed["games"]) == games and {g["status"] for g in listed["games"]} == {"over"}


def play_iceberg(api: CheckedClient, seed: int, players: int) -> set[str]:
    """Play one Iceberg game from ``legal-actions`` only, draws by the worker; pending kinds.

    The game's draws depend on its (random) id, so only the choices are seeded: ``choose``
    picks among the legal actions, ``rng`` picks viewers and versions to look at.
    """
    choose = random.Random(seed)
    rng = random.Random(-seed)
    create = {"game": "iceberg", "players": [{"name": f"p{i}"} for i in range(players)]}
    created = api.post("/v1/games?wait=10", json_body=create, expect=201).body
    assert (created["version"], created["status"]) == (2, "active"), "the worker dealt"
    game_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    base = f"/v1/games/{game_id}"
    for token in (None, ORGANIZER, rng.choice(tokens)):
        [tiles] = api.get(f"{base}/events?after=1&limit=1", token=token, expect=200).body["events"]
        assert tiles["type"] == "random" and tiles["data"]["label"] == "tiles"
        assert tiles["data"]["outcome"] is None, "the layout is secret until the end"
    pending_kinds: set[str] = set()
    rolled: list[int] = []
    moves = 0
    while True:
        viewer = rng.choice([None, *range(players)])
        view = api.get(base, token=None if viewer is None else tokens[viewer], expect=200).body
        assert view["viewer"] == viewer
        if view["pending"] is not None:
            pending_kinds.add(view["pending"]["type"])
            assert view["pending"] == view["state"]["pending"]
        if view["status"] == "over":
            break
        assert view["status"] == "active", "with ?wait=10 every draw is in before the answer"
        [seat] = view["to_act"]
        legal = api.get(f"{base}/legal-actions", token=tokens[seat], expect=200).body
        other = rng.choice([s for s in range(players) if s != seat])
        idle = api.get(f"{base}/legal-actions", token=tokens[other], expect=200).body
        assert legal["version"] == view["version"] and legal["actions"] and not idle["actions"]
        weights = [10.0 if a["type"] in ("roll", "flip") else 1.0 for a in legal["actions"]]
        action = choose.choices(legal["actions"], weights)[0]
        accepted = post_action(
            api, game_id, tokens[seat], action, legal["version"], f"{seed}-{moves}", wait=10
        )
        assert accepted.status == 201, accepted.body
        events = accepted.body["events"]
        assert events[0]["data"] == {"action": action}
        versions = list(range(legal["version"] + 1, accepted.body["version"] + 1))
        assert [e["version"] for e in events] == versions
        if events[-1]["type"] == "seed_revealed":  # the action, or the die it drew, ended it
            assert events[-2]["type"] == "game_over" and "hash" in events[-1]
        else:
            assert all("hash" not in e for e in events)
        if action["type"] == "roll":
            rolled.append(events[0]["version"])
            assert events[1]["type"] == "random" and events[1]["data"]["label"] == "die"
            assert isinstance(events[1]["data"]["outcome"], int), "a die is public at once"
        moves += 1
        if moves == 3:  # a live stream: the layout masked there too
            live = api.stream(f"{base}/events/stream", 4, token=rng.choice(tokens))
            assert [m.event for m in live[:2]] == ["game_created", "random"]
            assert json.loads(live[1].data)["data"]["outcome"] is None
            full = api.get(f"{base}/export", token=ORGANIZER, expect=200).body
            assert full[1]["data"]["outcome"] is not None, "the organizer's export is unmasked"
        if moves % 7 == 0:
            version = rng.randint(1, accepted.body["version"])
            old = api.get(f"{base}/state?version={version}", token=tokens[seat], expect=200)
            assert old.body["version"] == version
            page = api.get(f"{base}/events?after={version - 1}&limit=5", expect=200).body
            assert page["events"][0]["version"] == version
            api.get("/v1/games?limit=3", expect=200)
    assert moves > 5 and rolled, "the game had rolls"

    final = view["version"]
    assert view["outcome"] is not None and view["seed"] is not None
    assert hashlib.sha256(bytes.fromhex(view["seed"])).hexdigest() == view["seed_commitment"]
    dealing = api.get(f"{base}/state?version=1", expect=200).body
    assert (dealing["status"], dealing["state"]["phase"], dealing["to_act"]) == (
        "awaiting_random",
        "deal",
        [],
    )
    rolling = api.get(f"{base}/state?version={rng.choice(rolled)}", expect=200).body
    assert rolling["status"] == "awaiting_random" and rolling["to_act"] == []
    assert rolling["state"]["awaiting_die"] is True
    for version in (2, final - 1, final):
        api.get(f"{base}/state?version={version}", token=rng.choice(tokens), expect=200)
    for token in tokens:
        assert api.get(f"{base}/legal-actions", token=token, expect=200).body["actions"] == []

    events = api.get(f"{base}/events", expect=200).body["events"]
    assert [e["version"] for e in events] == list(range(1, final + 1))
    assert all("hash" in e and "prev_hash" in e for e in events)
    assert events[1]["data"]["outcome"] is not None, "after the end everything is public"
    assert api.get(f"{base}/export", expect=200).body == events
    messages = api.get(f"{base}/events/stream", token=tokens[0], expect=200).body
    assert [streamed(m.data) for m in messages] == events
    return pending_kinds


def test_whole_iceberg_games_answer_as_documented(
    api: CheckedClient, worker: subprocess.Popen[bytes]
) -> None:
    pending_kinds: set[str] = set()
    games = 0
    for seed in range(40):  # about 2 in 5 four-player games reach a keep_group choice
        pending_kinds |= play_iceberg(api, seed, players=(2, 3, 4, 4)[min(seed, 3)])
        games += 1
        if games >= 3 and pending_kinds == {"remove_tile", "keep_group"}:
            break
    assert pending_kinds == {"remove_tile", "keep_group"}, "no game reached both choices"
    listed = api.get("/v1/games", expect=200).body
    assert len(listed["games"]) == games and {g["status"] for g in listed["games"]} == {"over"}
    assert {g["game"] for g in listed["games"]} == {"iceberg"}


# ----- Ice Breakers --------------------------------------------------------------------------

IB_SETUP_LABELS = ["pieces", "ships", "reports_upper", "reports_lower", "deck"]
IB_SECRET = frozenset({"reports_upper", "reports_lower"})
#: How much each action type is preferred (before the turn's length makes ``end_turn`` likelier).
IB_WEIGHTS = {
    "move_ship": 8.0,
    "clear": 5.0,
    "give": 5.0,
    "play_power": 4.0,
    "boost": 2.0,
    "cash_ab2": 2.0,
    "end_turn": 1.0,
    "pass": 0.2,
}


@dataclass
class IceBreakersRun:
    """What one played Ice Breakers game went through."""

    pending_kinds: set[str] = field(default_factory=set)
    ab2_draws: int = 0
    several_to_act: bool = False
    deliveries: int = 0
    refused_give: bool = False


def ib_check_setup_draws(api: CheckedClient, base: str, tokens: list[str]) -> None:
    """The five setup draws, in order; the Ice Report order is secret to every viewer."""
    for token in (None, ORGANIZER, tokens[-1]):
        draws = api.get(f"{base}/events?after=1&limit=5", token=token, expect=200).body["events"]
        assert [e["data"]["label"] for e in draws] == IB_SETUP_LABELS
        for draw in draws:
            secret = draw["data"]["label"] in IB_SECRET
            assert (draw["data"]["outcome"] is None) == secret, draw
    exported = api.get(f"{base}/export", token=ORGANIZER, expect=200).body
    assert all(line["data"]["outcome"] is not None for line in exported[1:6])
    for version, phase in enumerate(IB_SETUP_LABELS, 1):
        early = api.get(f"{base}/state?version={version}", token=tokens[0], expect=200).body
        assert (early["status"], early["to_act"], early["state"]["phase"]) == (
            "awaiting_random",
            [],
            phase,
        )
        assert early["state"]["forecast"] is None and "report_stack" not in early["state"]


def ib_choose(
    choose: random.Random, offers: list[tuple[int, Any]], state: Any, steps_this_turn: int
) -> tuple[int, Any]:
    """Pick a type by ``IB_WEIGHTS``, then one of its actions; deliveries are favoured."""
    types = sorted({action["type"] for _, action in offers})
    weights = [IB_WEIGHTS[t] + (0.5 * steps_this_turn if t == "end_turn" else 0.0) for t in types]
    kind = choose.choices(types, weights)[0]
    picks = [(seat, action) for seat, action in offers if action["type"] == kind]
    if kind == "move_ship":
        harbors = {d["destination"]: d["harbor"] for d in state["destinations"]}
        home = [p for p in picks if p[1]["path"][-1] == harbors[p[1]["ship"]]]
        if home and choose.random() < 0.8:
            picks = home
        elif choose.random() < 0.8:  # towards the ship's harbor
            best = min(_distance(p[1]["path"][-1], harbors[p[1]["ship"]]) for p in picks)
            picks = [p for p in picks if _distance(p[1]["path"][-1], harbors[p[1]["ship"]]) == best]
    if kind == "clear":  # open water next to the ships, on their way home
        harbors = {d["destination"]: d["harbor"] for d in state["destinations"]}
        ships = [(s["cell"], harbors[s["ship"]]) for s in state["ships"] if s["cell"]]
        near = [
            p
            for p in picks
            if any(
                _distance(p[1]["cell"], at) == 1
                and _distance(p[1]["cell"], home) < _distance(at, home)
                for at, home in ships
            )
        ]
        if near and choose.random() < 0.9:
            picks = near
    return choose.choice(picks)


def _distance(a: list[int], b: list[int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def ib_refuse_give(api: CheckedClient, game_id: str, token: str, view: Any, tag: str) -> None:
    """While cards wait, everything but a right ``give`` is refused (and nothing written)."""
    version = view["version"]
    waiting = {card["id"] for card in view["pending"]["cards"]}
    other = next(f"c{i:02d}" for i in range(1, 33) if f"c{i:02d}" not in waiting)
    card = sorted(waiting)[0]
    refusals: list[tuple[Any, str]] = [
        ({"type": "end_turn"}, "give_pending"),
        ({"type": "give", "card": other, "to": 0}, "card_not_waiting"),
        ({"type": "give", "card": card, "to": 7}, "no_such_seat"),
    ]
    for action, code in refusals:
        answer = post_action(api, game_id, token, action, version, f"{tag}-{code}")
        assert (answer.status, answer.code) == (422, code), answer.body


def play_ice_breakers(
    api: CheckedClient, seed: int, players: int, *, intro: bool = False
) -> IceBreakersRun:
    """Play one Ice Breakers game from ``legal-actions`` only, draws by the worker.

    Several seats may be in ``to_act`` at once: ``choose`` picks among all their legal
    actions (by ``IB_WEIGHTS``, so the game moves ships rather than passing); ``rng`` picks
    viewers and versions to look at.
    """
    choose = random.Random(seed)
    rng = random.Random(-seed)
    create: dict[str, Any] = {
        "game": "ice-breakers",
        "players": [{"name": f"p{i}"} for i in range(players)],
    }
    if intro:
        create["options"] = {"intro": True}
    created = api.post("/v1/games?wait=10", json_body=create, expect=201).body
    assert (created["game"], created["version"], created["status"]) == (
        "ice-breakers",
        6,
        "active",
    ), "the worker made the five setup draws"
    game_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    base = f"/v1/games/{game_id}"
    ib_check_setup_draws(api, base, tokens)

    run = IceBreakersRun()
    moves = 0
    steps_this_turn = 0
    turns_seen = 0
    while True:
        viewer = rng.choice([None, *range(players)])
        view = api.get(base, token=None if viewer is None else tokens[viewer], expect=200).body
        assert view["viewer"] == viewer
        state = view["state"]
        if view["pending"] is not None:
            run.pending_kinds.add(view["pending"]["type"])
            assert view["pending"] == state["pending"]
        if view["status"] == "over":
            break
        assert view["status"] == "active", "with ?wait=10 every draw is in before the answer"
        assert "report_stack" not in state and state["forecast"] is not None
        if state["turns"] != turns_seen:
            turns_seen, steps_this_turn = state["turns"], 0
        to_act = view["to_act"]
        assert to_act and (state["current"] in to_act or view["pending"] is not None)
        run.several_to_act |= len(to_act) > 1
        offers: list[tuple[int, Any]] = []
        for seat in range(players):
            legal = api.get(f"{base}/legal-actions", token=tokens[seat], expect=200).body
            assert legal["version"] == view["version"]
            assert bool(legal["actions"]) == (seat in to_act), (seat, to_act)
            offers += [(seat, action) for action in legal["actions"]]
        pending = view["pending"]
        if pending is not None and pending["type"] == "give" and not run.refused_give:
            ib_refuse_give(api, game_id, tokens[pending["seat"]], view, f"{seed}-{moves}")
            run.refused_give = True
        seat, action = ib_choose(choose, offers, state, steps_this_turn)
        accepted = post_action(
            api, game_id, tokens[seat], action, view["version"], f"{seed}-{moves}", wait=10
        )
        assert accepted.status == 201, accepted.body
        events = accepted.body["events"]
        assert events[0]["data"] == {"action": action} and events[0]["actor"] == seat
        versions = list(range(view["version"] + 1, accepted.body["version"] + 1))
        assert [e["version"] for e in events] == versions
        if events[-1]["type"] == "seed_revealed":
            assert events[-2]["type"] == "game_over" and "hash" in events[-1]
        else:
            assert all("hash" not in e for e in events)
        draws = [e for e in events if e["type"] == "random"]
        if action["type"] == "cash_ab2":
            assert len(draws) == min(2, len(state["discard"])), "one draw per card, up to 2"
        else:
            assert draws == [], "only an AB2 makes a draw during play"
        for draw in draws:
            assert (draw["data"]["label"], draw["data"]["kind"]) == ("ab2", "uniform")
            assert isinstance(draw["data"]["outcome"], int), "an AB2 draw is public at once"
        run.ab2_draws += len(draws)
        if action["type"] == "move_ship":
            harbors = {d["destination"]: d["harbor"] for d in state["destinations"]}
            run.deliveries += action["path"][-1] == harbors[action["ship"]]
        moves += 1
        steps_this_turn += 1
        if moves % 11 == 0:
            version = rng.randint(1, accepted.body["version"])
            old = api.get(f"{base}/state?version={version}", token=tokens[seat], expect=200)
            assert old.body["version"] == version
            api.get(f"{base}/events?after={version - 1}&limit=5", expect=200)
        assert moves < 3000, "the game should have ended"
    assert moves > 10

    final = view["version"]
    outcome, state = view["outcome"], view["state"]
    ships = 6 if intro else 12
    assert (outcome["in_play"], outcome["scores"]) == (ships, {})
    assert outcome["delivered"] == len(state["delivered"]) == run.deliveries
    success = outcome["delivered"] == ships
    assert outcome["winners"] == (list(range(players)) if success else [])
    assert outcome["turns"] == state["turns"] + (1 if success else 0)
    assert len(state["report_stack"]) == 20 and state["report_stack"][-1] == [1, 2, 3, 4]
    assert view["seed"] is not None
    assert hashlib.sha256(bytes.fromhex(view["seed"])).hexdigest() == view["seed_commitment"]
    for version in (3, final - 1, final):
        api.get(f"{base}/state?version={version}", token=rng.choice(tokens), expect=200)
    for token in tokens:
        assert api.get(f"{base}/legal-actions", token=token, expect=200).body["actions"] == []

    events = api.get(f"{base}/events", expect=200).body["events"]
    assert [e["version"] for e in events] == list(range(1, final + 1))
    assert all("hash" in e and "prev_hash" in e for e in events)
    assert all(e["data"]["outcome"] is not None for e in events if e["type"] == "random")
    assert events[-2]["data"] == outcome
    assert api.get(f"{base}/export", expect=200).body == events
    messages = api.get(f"{base}/events/stream", token=tokens[0], expect=200).body
    assert [streamed(m.data) for m in messages] == events
    return run


def check_ice_breakers_refusals(api: CheckedClient) -> None:
    """Ice Breakers' setup refusals, and 400/403/409/422 refusals at the start of play."""
    ib = {"game": "ice-breakers", "players": [{"name": "Ada"}, {"name": "Bo"}]}
    api.post("/v1/games", json_body={**ib, "players": [{"name": "Ada"}]}, code="player_count")
    api.post("/v1/games", json_body={**ib, "options": {"hands": True}}, code="unknown_option")
    for options in (
        {"open_hands": False},
        {"intro": "yes"},
        {"map": "big"},
        {"ice_reports": "custom"},
    ):
        api.post("/v1/games", json_body={**ib, "options": options}, code="invalid_option")
    created = api.post("/v1/games?wait=10", json_body=ib, expect=201).body
    assert created["version"] == 6
    game_id, (t0, t1) = created["id"], [seat["token"] for seat in created["seats"]]
    base = f"/v1/games/{game_id}"

    def refuse(token: str, action: Any, version: int, status: int, code: str) -> None:
        body = {"action": action, "expected_version": version, "command_id": f"bad-{code}"}
        api.post(f"{base}/actions", token=token, json_body=body, expect=status, code=code)

    malformed: list[tuple[Any, str]] = [
        ({"type": "dig"}, "unknown_action_type"),
        ({"type": "pass", "card": "c01"}, "unexpected_field"),
        ({"type": "give", "card": "c01"}, "missing_field"),
        ({"type": "play_power", "card": ""}, "invalid_field"),
        ({"type": "boost", "card": "c" * 17}, "invalid_field"),
        ({"type": "clear", "cell": [0]}, "invalid_field"),
        ({"type": "clear", "cell": [0, 1001]}, "invalid_field"),
        ({"type": "move_ship", "ship": 1, "path": []}, "invalid_field"),
        ({"type": "move_ship", "ship": "1", "path": [[0, 0]]}, "invalid_field"),
        ({"type": "give", "card": "c01", "to": True}, "invalid_field"),
    ]
    for action, code in malformed:
        refuse(t0, action, 6, 400, code)
    view = api.get(base, expect=200).body
    assert (view["to_act"], view["state"]["current"], view["state"]["phase"]) == ([0], 0, "play")
    refuse(t1, {"type": "pass"}, 6, 403, "not_your_turn")
    before_power: list[tuple[Any, str]] = [
        ({"type": "play_power", "card": "c99"}, "not_in_hand"),
        ({"type": "play_power", "card": "c02"}, "not_in_hand"),  # seat 1's Power 5
        ({"type": "cash_ab2", "card": "c01"}, "not_an_ab2"),
        ({"type": "boost", "card": "c01"}, "no_power_played"),
        ({"type": "clear", "cell": [0, 0]}, "no_power_played"),
        ({"type": "end_turn"}, "no_power_played"),
        ({"type": "give", "card": "c01", "to": 1}, "nothing_to_give"),
    ]
    for action, code in before_power:
        refuse(t0, action, 6, 422, code)
    power = post_action(api, game_id, t0, {"type": "play_power", "card": "c01"}, 6, "p", wait=10)
    assert power.status == 201 and power.body["version"] == 7
    view = api.get(base, token=t1, expect=200).body
    state = view["state"]
    assert state["turn"]["power"] == {"id": "c01", "kind": "power", "value": 5}
    assert state["turn"]["left"] == 5 and state["discard"][-1]["id"] == "c01"
    refuse(t0, {"type": "play_power", "card": "c09"}, 7, 422, "power_already_played")
    refuse(t0, {"type": "pass"}, 7, 422, "power_already_played")
    refuse(t0, {"type": "boost", "card": "c09"}, 7, 422, "not_a_boost_card")
    refuse(t0, {"type": "boost", "card": "c01"}, 7, 422, "not_in_hand")  # discarded
    refuse(t0, {"type": "clear", "cell": [6, 1]}, 7, 422, "not_a_channel")  # land
    refuse(t0, {"type": "clear", "cell": [1, 0]}, 7, 422, "not_a_channel")  # harbor 1
    refuse(t0, {"type": "move_ship", "ship": 13, "path": [[0, 0]]}, 7, 422, "unknown_ship")
    if 1 in view["to_act"]:  # seat 1 may add a card, but not clear
        refuse(t1, {"type": "clear", "cell": [0, 0]}, 7, 422, "not_active_player")
    else:
        refuse(t1, {"type": "clear", "cell": [0, 0]}, 7, 403, "not_your_turn")
    # spend 2 of the 5 points, then ice the 3 left cannot pay for (a 4)
    channels = {tuple(c["cell"]): c["value"] for c in state["channels"]}
    cheap = next(cell for cell, value in channels.items() if value == 2)
    post_action(api, game_id, t0, {"type": "clear", "cell": list(cheap)}, 7, "c", wait=10)
    dear = next(cell for cell, value in channels.items() if value == 4)
    refuse(t0, {"type": "clear", "cell": list(dear)}, 8, 422, "not_enough_points")
    refuse(t0, {"type": "clear", "cell": list(cheap)}, 8, 422, "already_water")
    ship = state["ships"][0]
    x, y = ship["cell"]
    refuse(
        t0,
        {"type": "move_ship", "ship": ship["ship"], "path": [[x + 2, y]]},
        8,
        422,
        "not_adjacent",
    )
    ice = [
        c
        for c in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
        if channels.get(c) and c != cheap
    ]
    if ice:
        refuse(
            t0,
            {"type": "move_ship", "ship": ship["ship"], "path": [list(ice[0])]},
            8,
            422,
            "blocked_by_ice",
        )
    refuse(t0, {"type": "end_turn"}, 7, 409, "version_conflict")
    ended = post_action(api, game_id, t0, {"type": "end_turn"}, 8, "e", wait=10)
    assert ended.status == 201 and [e["type"] for e in ended.body["events"]] == ["end_turn"]
    view = api.get(base, expect=200).body
    assert (view["to_act"], view["state"]["turns"], view["state"]["turn"]["power"]) == (
        [1],
        1,
        None,
    )


def test_whole_ice_breakers_games_answer_as_documented(
    api: CheckedClient, worker: subprocess.Popen[bytes]
) -> None:
    check_ice_breakers_refusals(api)
    # A full game and an intro game at least; more only until another seat's boost was open
    # and cards waited to be given (both usual, but a game's draws come from a fresh seed and
    # id each run, so some games lack one: up to 18 games make a miss vanishingly rare).
    setups = [(2, False), (3, True), (4, False), (2, True), (3, False), (4, True)] * 3
    runs: list[IceBreakersRun] = []
    for seed, (players, intro) in enumerate(setups):
        runs.append(play_ice_breakers(api, seed, players, intro=intro))
        kinds = set().union(*(run.pending_kinds for run in runs))
        if len(runs) >= 2 and "give" in kinds and any(run.several_to_act for run in runs):
            break
    assert any(run.several_to_act for run in runs), "no other seat could ever add a card"
    assert "give" in set().union(*(run.pending_kinds for run in runs)), "no card was given"
    assert any(run.refused_give for run in runs)
    listed = api.get("/v1/games", expect=200).body
    assert {g["game"] for g in listed["games"]} == {"ice-breakers"}
    statuses = sorted(g["status"] for g in listed["games"])  # the refusals' game goes on
    assert (len(listed["games"]), statuses) == (len(runs) + 1, ["active"] + ["over"] * len(runs))


# ----- every documented refusal --------------------------------------------------------------


def test_every_documented_status_is_given_and_fits(
    api: CheckedClient,
    spec: OpenApi,
    start_worker: StartWorker,
    redis_client: redis.Redis,
    redis_url: str,
) -> None:
    game_id, (t0, t1) = create_game(api)
    base = f"/v1/games/{game_id}"
    actions = f"{base}/actions"
    _, (other_token, _) = create_game(api)

    # POST /v1/games
    create = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
    seed = bytes(range(32)).hex()
    api.post("/v1/games", data="{", headers=DECLARED_JSON, expect=400, code="malformed_json")
    api.post("/v1/games", json_body=[create], expect=400, code="invalid_body")
    api.post("/v1/games", json_body={**create, "colour": "red"}, expect=400, code="invalid_body")
    api.post("/v1/games", json_body={**create, "game": "chess"}, expect=400, code="invalid_body")
    solo = {**create, "players": [{"name": "Ada"}]}
    api.post("/v1/games", json_body=solo, expect=400, code="player_count")
    bot = {**create, "players": [{"name": "Ada", "bot": "strong"}, {"name": "Bo"}]}
    api.post("/v1/games", json_body=bot, expect=400, code="invalid_body")
    unknown_option = {**create, "options": {"dice": 2}}
    api.post("/v1/games", json_body=unknown_option, expect=400, code="unknown_option")
    bad_limit = {**create, "options": {"turn_limit": 0}}
    api.post("/v1/games", json_body=bad_limit, expect=400, code="invalid_option")
    api.post("/v1/games", json_body={**create, "seed": seed}, expect=401, code="missing_token")
    api.post("/v1/games", token="nope", json_body=create, expect=401, code="unknown_token")
    api.post(
        "/v1/games", json_body={**create, "seed": seed}, token=t0, expect=403, code="organizer_only"
    )
    api.post("/v1/games", data="x" * 70_000, expect=413, code="body_too_large")
    plain = {"Content-Type": "text/plain"}
    api.post("/v1/games", data="{}", headers=plain, expect=415, code="unsupported_media_type")
    seeded = api.post(
        "/v1/games", json_body={**create, "seed": seed}, token=ORGANIZER, expect=201
    ).body
    assert seeded["seed_commitment"] == hashlib.sha256(bytes(range(32))).hexdigest()
    assert api.get(f"/v1/games/{seeded['id']}", expect=200).body["seed"] is None

    # GET /v1/games
    api.get("/v1/games?limit=0", expect=400, code="invalid_query")
    api.get("/v1/games?offset=1", expect=400, code="invalid_query")  # no offsets: a cursor
    first = api.get("/v1/games?limit=1", expect=200).body
    assert len(first["games"]) == 1 and first["cursor"] is not None
    then = api.get(f"/v1/games?limit=1&cursor={first['cursor']}", expect=200).body
    assert len(then["games"]) == 1 and then["games"] != first["games"]

    # GET /v1/games/{game_id}
    api.get(base, headers={"Authorization": "Basic abc"}, expect=401, code="invalid_authorization")
    api.get(base, token=f"{game_id}.0.forged", expect=401, code="unknown_token")
    api.get("/v1/games/0123456789abcdef", expect=404, code="game_not_found")
    api.get(f"{base}?verbose=1", expect=400, code="invalid_query")  # never ignored
    api.get(base, token=other_token, expect=403, code="not_a_seat")

    # GET /v1/games/{game_id}/state
    api.get(f"{base}/state", expect=400, code="invalid_query")
    api.get(f"{base}/state?version=0", expect=400, code="invalid_query")
    api.get(f"{base}/state?version=1", token="nope", expect=401, code="unknown_token")
    api.get("/v1/games/nope/state?version=1", expect=404, code="game_not_found")
    api.get(f"{base}/state?version=1", token=other_token, expect=403, code="not_a_seat")
    api.get(f"{base}/state?version=2", expect=404, code="version_not_found")
    api.get(f"{base}/state?version=1", token=t1, expect=200)

    # GET /v1/games/{game_id}/board.svg
    api.get(f"{base}/board.svg?version=0", expect=400, code="invalid_query")
    api.get(f"{base}/board.svg", token="nope", expect=401, code="unknown_token")
    api.get("/v1/games/nope/board.svg", expect=404, code="game_not_found")
    api.get(f"{base}/board.svg", token=other_token, expect=403, code="not_a_seat")
    api.get(f"{base}/board.svg?version=2", expect=404, code="version_not_found")
    api.get(f"{base}/board.svg", token=t1, expect=200)

    # GET /v1/games/{game_id}/legal-actions
    api.get(f"{base}/legal-actions", expect=401, code="missing_token")
    api.get(f"{base}/legal-actions", token="nope", expect=401, code="unknown_token")
    api.get("/v1/games/nope/legal-actions", token=t0, expect=404, code="game_not_found")
    api.get(f"{base}/legal-actions?all=1", token=t0, expect=400, code="invalid_query")
    api.get(f"{base}/legal-actions", token=ORGANIZER, expect=403, code="not_a_seat")
    api.get(f"{base}/legal-actions", token=other_token, expect=403, code="not_a_seat")
    legal = api.get(f"{base}/legal-actions", token=t0, expect=200).body
    first = legal["actions"][0]

    # POST /v1/games/{game_id}/actions, in the order of the checks
    good = {"action": first, "expected_version": 1, "command_id": "one"}
    api.post(actions, json_body=good, expect=401, code="missing_token")
    api.post(actions, token="nope", json_body=good, expect=401, code="unknown_token")
    api.post("/v1/games/nope/actions", token=t0, json_body=good, expect=404, code="game_not_found")
    api.post(actions, data="{", expect=401, code="missing_token")  # 401 before 400
    api.post("/v1/games/nope/actions", data="{", expect=401, code="missing_token")
    api.post("/v1/games/nope/actions", token=t0, data="{", expect=404, code="game_not_found")
    api.post(actions, token=t0, data="x" * 70_000, expect=413, code="body_too_large")
    api.post(actions, token=t0, data="{}", headers=plain, expect=415, code="unsupported_media_type")
    api.post(actions, token=t0, data="", expect=400, code="malformed_json")
    api.post(actions, token=t0, data="{", headers=DECLARED_JSON, expect=400, code="malformed_json")
    refusals: list[tuple[Any, str]] = [
        ([good], "invalid_body"),
        ({k: v for k, v in good.items() if k != "expected_version"}, "invalid_body"),
        ({**good, "expected_version": "1"}, "invalid_body"),
        ({**good, "expected_version": True}, "invalid_body"),
        ({**good, "command_id": ""}, "invalid_body"),
        ({**good, "extra": 1}, "invalid_body"),
        ({**good, "action": {"size": "G", "tile": [0, 0]}}, "invalid_body"),
        ({**good, "action": {"type": "fly"}}, "unknown_action_type"),
        ({**good, "action": {**first, "colour": 0}}, "unexpected_field"),
        ({**good, "action": {"type": "place", "size": "G"}}, "missing_field"),
        ({**good, "action": {**first, "size": "X"}}, "invalid_field"),
        ({**good, "action": {**first, "tile": [0, 0, 0]}}, "invalid_field"),
        (
            {**good, "action": {"type": "move", "from": [0, 0], "unit": "up", "to": [1, 0]}},
            "invalid_field",
        ),
        (
            {**good, "action": {"type": "keep_group", "colour": "red", "tile": [0, 0]}},
            "invalid_field",
        ),
    ]
    for body, code in refusals:
        api.post(actions, token=t0, json_body=body, expect=400, code=code)
    api.post(
        actions,
        token=t0,
        json_body={**good, "expected_version": 2},
        expect=409,
        code="version_conflict",
    )
    api.post(actions, token=t1, json_body=good, expect=403, code="not_your_turn")
    api.post(actions, token=ORGANIZER, json_body=good, expect=403, code="not_a_seat")
    api.post(actions, token=other_token, json_body=good, expect=403, code="not_a_seat")
    far = {**good, "action": {"type": "place", "size": "G", "tile": [50, 50]}}
    api.post(actions, token=t0, json_body=far, expect=422, code="no_such_tile")
    early = {**good, "action": {"type": "retire"}}
    api.post(actions, token=t0, json_body=early, expect=422, code="opening")
    melt = {**good, "action": {"type": "melt", "tile": [0, 0]}}
    api.post(actions, token=t0, json_body=melt, expect=422, code="no_pending_decision")
    accepted = api.post(actions, token=t0, json_body=good, expect=201).body
    again = api.post(actions, token=t0, json_body=good, expect=201)
    assert again.body == accepted, "a repeated command_id returns the first answer"
    for other in ({**good, "expected_version": 9}, {**good, "action": {"type": "retire"}}):
        api.post(actions, token=t0, json_body=other, expect=422, code="command_id_reused")
    api.post(
        actions,
        token=t0,
        json_body={**good, "command_id": "two"},
        expect=409,
        code="version_conflict",
    )

    # GET /v1/games/{game_id}/events
    api.get(f"{base}/events?after=x", expect=400, code="invalid_query")
    api.get(f"{base}/events?limit=10001", expect=400, code="invalid_query")
    api.get(f"{base}/events", token="nope", expect=401, code="unknown_token")
    api.get("/v1/games/nope/events", expect=404, code="game_not_found")
    api.get(f"{base}/events", token=other_token, expect=403, code="not_a_seat")
    page = api.get(f"{base}/events?after=1", token=t1, expect=200).body
    assert [e["version"] for e in page["events"]] == [2] and "hash" not in page["events"][0]

    # a game that ends at once (turn_limit 1): its stream and export are open to all
    done_id, (d0, _) = create_game(api, options={"turn_limit": 1})
    done = f"/v1/games/{done_id}"
    legal = api.get(f"{done}/legal-actions", token=d0, expect=200).body
    post_action(api, done_id, d0, legal["actions"][0], 1, "only")
    over = post_action(api, done_id, d0, legal["actions"][0], 4, "later")
    assert (over.status, over.code) == (403, "game_over")

    # GET /v1/games/{game_id}/events/stream
    api.get(f"{done}/events/stream", token="nope", expect=401, code="unknown_token")
    api.get("/v1/games/nope/events/stream", expect=404, code="game_not_found")
    api.get(f"{done}/events/stream", token=other_token, expect=403, code="not_a_seat")
    api.get(f"{done}/events/stream?after=-1", expect=400, code="invalid_query")
    streamed = api.get(f"{done}/events/stream", expect=200).body
    assert [m.event for m in streamed] == ["game_created", "place", "game_over", "seed_revealed"]

    # GET /v1/games/{game_id}/export
    api.get(f"{base}/export", expect=401, code="missing_token")
    api.get(f"{base}/export", token="nope", expect=401, code="unknown_token")
    api.get(f"{base}/export", token=t0, expect=403, code="organizer_only")
    api.get("/v1/games/nope/export", token=ORGANIZER, expect=404, code="game_not_found")
    api.get(f"{base}/export?x=1", expect=400, code="invalid_query")  # 400 before 401
    unmasked = api.get(f"{base}/export", token=ORGANIZER, expect=200).body
    assert [line["version"] for line in unmasked] == [1, 2] and "hash" in unmasked[1]
    assert len(api.get(f"{done}/export", token=other_token, expect=200).body) == 4

    # before any worker runs: a game awaiting its draw stays so
    check_clocks_resigning_and_decisions(api, redis_url)
    check_iceberg_refusals_and_the_202(api, start_worker, redis_client)
    check_tables(api, t0)
    check_tournaments(api, t0, redis_client)
    check_clocked_tables_and_tournaments(api)
    check_replays(api, done)

    check_socket_refusals(api, base, t0)

    api.get("/v1/health", expect=200)
    api.get("/v1/health?x=1", expect=400, code="invalid_query")
    api.get("/v1/keys", expect=200)
    api.get("/v1/keys?x=1", expect=400, code="invalid_query")

    # every documented status but 500 and 503 (and the socket's 101) was seen, and nothing else
    expected = {
        (method, path, int(status))
        for method, path in documented_operations(spec)
        for status in spec.doc["paths"][path][method]["responses"]
        if status not in NOT_SCRIPTABLE | SCRIPTED_ELSEWHERE | UPGRADED_ON_A_REAL_SERVER
    }
    assert expected - api.seen == set(), "documented statuses this test never provoked"
    assert api.seen - expected == set()


#: A clock, and clocks the service cannot run (400 ``invalid_clock``).
PER_MOVE = {"kind": "per_move", "move_s": 30}
BAD_CLOCKS: list[Any] = [
    {"kind": "fischer", "initial_s": 0, "increment_s": 5},
    {"kind": "sundial", "move_s": 5},
    {"kind": "per_move", "move_s": 30, "increment_s": 1},
    {"kind": "per_move"},
]


def check_clocks_resigning_and_decisions(api: CheckedClient, redis_url: str) -> None:
    """Clocks, ``resign`` and ``POST .../decisions``: every status of the decisions' route,
    in the order of its checks, the clocks' 409s on a service clock the test moves by hand,
    and the views and events they leave, all checked against the spec. (No worker runs yet:
    an Iceberg game stays awaiting its draw.)"""
    clock = ManualClock()
    settings = Settings(redis_url=redis_url, organizer_token=ORGANIZER)
    timed = CheckedClient(create_app(floe=build_floe(settings, clock=clock)), api.spec)
    arktia = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
    for clock_given in BAD_CLOCKS:
        body = {**arktia, "clock": clock_given}
        api.post("/v1/games", json_body=body, expect=400, code="invalid_clock")

    def start(players: int = 2, **extra: Any) -> tuple[str, list[str]]:
        body = {**arktia, "players": [{"name": f"p{i}"} for i in range(players)], **extra}
        created = timed.post("/v1/games", json_body=body, expect=201).body
        return created["id"], [seat["token"] for seat in created["seats"]]

    def act(game_id: str, token: str, action: Any, version: int, tag: str, **want: Any) -> Answer:
        body = {"action": action, "expected_version": version, "command_id": tag}
        return timed.post(f"/v1/games/{game_id}/actions", token=token, json_body=body, **want)

    # a clock runs out: the seat's own late action is out_of_time, anyone else's a conflict
    game_id, (t0, t1) = start(clock=PER_MOVE)
    base = f"/v1/games/{game_id}"
    view = timed.get(base, expect=200).body
    assert view["clock"]["0"]["deadline"] is not None and view["clock"]["1"]["deadline"] is None
    assert view["left"] == []
    [move] = timed.get(f"{base}/legal-actions", token=t0, expect=200).body["actions"][:1]
    clock.advance(31)
    late = act(game_id, t0, move, 1, "late")
    assert (late.status, late.code) == (409, "out_of_time")
    view = timed.get(base, expect=200).body
    assert (view["status"], view["left"], view["outcome"]["winners"]) == ("over", [0], [1])
    events = timed.get(f"{base}/events", expect=200).body["events"]
    assert [e["type"] for e in events[1:]] == ["timeout", "game_over", "seed_revealed"]
    assert events[1]["data"] == {"seat": 0} and events[1]["command_id"] is None
    timed.get(f"{base}/export", expect=200)
    game_id, (t0, t1) = start(clock=PER_MOVE)
    clock.advance(31)
    act(game_id, t1, {"type": "resign"}, 1, "other", expect=409, code="version_conflict")

    # POST /v1/games/{game_id}/decisions, in the order of the checks
    game_id, (t0, t1) = start(clock=PER_MOVE)
    decide = f"/v1/games/{game_id}/decisions"
    forfeit = {"decision": "forfeit", "seat": 1, "reason": "Left the venue."}
    plain = {"Content-Type": "text/plain"}
    timed.post(decide, json_body=forfeit, expect=401, code="missing_token")
    timed.post(decide, token="nope", json_body=forfeit, expect=401, code="unknown_token")
    timed.post(decide, data="{", expect=401, code="missing_token")  # 401 before 400
    nowhere = "/v1/games/0123456789abcdef/decisions"
    timed.post(nowhere, token=ORGANIZER, json_body=forfeit, expect=404, code="game_not_found")
    timed.post(f"{decide}?x=1", token=ORGANIZER, json_body=forfeit, code="invalid_query")
    timed.post(decide, token=t0, json_body=forfeit, expect=403, code="organizer_only")
    timed.post(decide, token=ORGANIZER, data="x" * 70_000, code="body_too_large")
    timed.post(decide, token=ORGANIZER, data="{}", headers=plain, code="unsupported_media_type")
    timed.post(
        decide, token=ORGANIZER, data="{", headers=DECLARED_JSON, expect=400, code="malformed_json"
    )
    refused: list[tuple[Any, str]] = [
        ([forfeit], "invalid_body"),
        ({**forfeit, "decision": "draw"}, "unknown_decision"),
        ({"seat": 1, "reason": "r"}, "unknown_decision"),
        ({**forfeit, "winners": [0]}, "unexpected_field"),
        ({"decision": "forfeit", "seat": 1}, "missing_field"),
        ({**forfeit, "reason": "  "}, "invalid_field"),
        ({**forfeit, "reason": "x" * 501}, "invalid_field"),
        ({**forfeit, "seat": -1}, "invalid_field"),
        ({**forfeit, "seat": True}, "invalid_field"),
        ({"decision": "result", "winners": [0, 0], "reason": "r"}, "invalid_field"),
        ({"decision": "result", "winners": 0, "reason": "r"}, "invalid_field"),
    ]
    for body, code in refused:
        timed.post(decide, token=ORGANIZER, json_body=body, expect=400, code=code)
    unknown = {**forfeit, "seat": 2}
    timed.post(decide, token=ORGANIZER, json_body=unknown, expect=422, code="unknown_seat")
    clock.advance(31)  # seat 0's time runs out before the organizer decides
    conflict = timed.post(decide, token=ORGANIZER, json_body=forfeit, expect=409)
    assert conflict.code == "version_conflict"
    assert timed.get(f"/v1/games/{game_id}", expect=200).body["left"] == [0]
    timed.post(decide, token=ORGANIZER, json_body=forfeit, expect=403, code="game_over")

    # three seats: a forfeit, a left seat's resign, another's resign out of turn ends it
    game_id, tokens = start(players=3)
    base = f"/v1/games/{game_id}"
    decided = timed.post(f"{base}/decisions", token=ORGANIZER, json_body=forfeit, expect=201)
    [event] = decided.body["events"]
    assert (event["type"], event["actor"], event["data"]) == ("decision", "system", forfeit)
    again = timed.post(f"{base}/decisions", token=ORGANIZER, json_body=forfeit, expect=422)
    assert again.code == "already_left"
    view = timed.get(base, expect=200).body
    assert (view["to_act"], view["left"], view["clock"]) == ([0], [1], None)
    for token in tokens:
        legal = timed.get(f"{base}/legal-actions", token=token, expect=200).body["actions"]
        assert {"type": "resign"} not in legal
    resign: Any = {"type": "resign"}
    act(game_id, tokens[1], resign, 2, "gone", expect=403, code="seat_left")
    act(game_id, tokens[2], {**resign, "now": True}, 2, "x", expect=400, code="unexpected_field")
    ended = act(game_id, tokens[2], resign, 2, "out-of-turn", expect=201).body["events"]
    assert [e["type"] for e in ended] == ["resign", "game_over", "seed_revealed"]
    assert ended[1]["data"]["winners"] == [0], "the last seat in wins"
    assert timed.get(base, expect=200).body["left"] == [1, 2]

    # a result with no winner: the view's outcome is the organizer's, whatever the game's
    game_id, _ = start()
    nobody = {"decision": "result", "winners": [], "reason": "Both disqualified."}
    timed.post(f"/v1/games/{game_id}/decisions", token=ORGANIZER, json_body=nobody, expect=201)
    view = timed.get(f"/v1/games/{game_id}", expect=200).body
    assert (view["status"], view["outcome"]) == ("over", {"winners": [], "scores": {}})
    lines = timed.get(f"/v1/games/{game_id}/export", expect=200).body
    assert [line["type"] for line in lines[1:]] == ["decision", "game_over", "seed_revealed"]

    # a game awaiting its draw may be neither decided nor resigned
    iceberg = {"game": "iceberg", "players": [{"name": "Ada"}, {"name": "Bo"}]}
    waiting = timed.post("/v1/games", json_body=iceberg, expect=201).body
    assert waiting["status"] == "awaiting_random"
    on_hold = f"/v1/games/{waiting['id']}/decisions"
    timed.post(on_hold, token=ORGANIZER, json_body=forfeit, expect=403, code="awaiting_random")
    token = waiting["seats"][0]["token"]
    act(waiting["id"], token, resign, 1, "hold", expect=403, code="awaiting_random")
    api.seen.update(timed.seen)


def check_clocked_tables_and_tournaments(api: CheckedClient) -> None:
    """A table's and a tournament's ``clock``: refused when the service cannot run it, shown
    when it can, and in the tournament's export manifest (absent without one)."""
    fischer = {"kind": "fischer", "initial_s": 3600, "increment_s": 5}
    table = {"game": "arktia", "seats": [{"name": "Ada"}, {"open": True}]}
    for clock_given in BAD_CLOCKS:
        body = {**table, "clock": clock_given}
        api.post("/v1/tables", json_body=body, expect=400, code="invalid_clock")
    opened = api.post("/v1/tables", json_body={**table, "clock": fischer}, expect=201).body
    assert opened["clock"] == fischer
    assert api.get(f"/v1/tables/{opened['id']}", expect=200).body["clock"] == fischer
    cup = {
        "game": "arktia",
        "format": "round_robin",
        "players": [{"name": "Ada"}, {"name": "Hal", "bot": "random"}],
    }
    for clock_given in BAD_CLOCKS:
        body = {**cup, "clock": clock_given}
        api.post("/v1/tournaments", token=ORGANIZER, json_body=body, code="invalid_clock")
    created = api.post(
        "/v1/tournaments", token=ORGANIZER, json_body={**cup, "clock": fischer}, expect=201
    ).body
    assert created["clock"] == fischer
    here = f"/v1/tournaments/{created['id']}"
    assert api.get(here, expect=200).body["clock"] == fischer
    manifest = api.get(f"{here}/export", token=ORGANIZER, expect=200).body[0]
    assert manifest["tournament"]["clock"] == fischer
    plain = api.post("/v1/tournaments", token=ORGANIZER, json_body=cup, expect=201).body
    assert plain["clock"] is None
    header = api.get(f"/v1/tournaments/{plain['id']}/export", token=ORGANIZER).body[0]
    assert "clock" not in header["tournament"]


def check_iceberg_refusals_and_the_202(
    api: CheckedClient, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    """Iceberg's setup draw, its refusals, and a roll answered 202 before the worker drew."""
    ice = {"game": "iceberg", "players": [{"name": "Ada"}, {"name": "Bo"}]}
    api.post("/v1/games?wait=31", json_body=ice, expect=400, code="invalid_query")
    api.post("/v1/games?wait=x", json_body=ice, expect=400, code="invalid_query")
    five = {**ice, "players": [{"name": f"p{i}"} for i in range(5)]}
    api.post("/v1/games", json_body=five, expect=400, code="player_count")
    typo = {**ice, "options": {"idle_limit": 5}}
    api.post("/v1/games", json_body=typo, expect=400, code="unknown_option")
    for limit in (-1, 1_000_001, True, "5"):
        bad = {**ice, "options": {"idle_turn_limit": limit}}
        api.post("/v1/games", json_body=bad, expect=400, code="invalid_option")

    # No worker yet: the game waits for its tiles, and every action is refused meanwhile.
    created = api.post("/v1/games", json_body=ice, expect=201).body
    assert (created["version"], created["status"]) == (1, "awaiting_random")
    game_id, (t0, t1) = created["id"], [seat["token"] for seat in created["seats"]]
    base = f"/v1/games/{game_id}"
    actions = f"{base}/actions"
    view = api.get(base, token=t0, expect=200).body
    assert (view["status"], view["to_act"], view["state"]["phase"]) == (
        "awaiting_random",
        [],
        "deal",
    )
    assert api.get(f"{base}/legal-actions", token=t0, expect=200).body["actions"] == []
    start = {"action": {"type": "place_start", "square": [3, 3]}, "expected_version": 1}
    api.post(
        actions,
        token=t0,
        json_body={**start, "command_id": "s"},
        expect=403,
        code="awaiting_random",
    )
    start_worker()
    await_draw(redis_client, game_id, 1)
    view = api.get(base, expect=200).body
    assert (view["version"], view["status"], view["to_act"]) == (2, "active", [0])
    for token in (None, t1, ORGANIZER):
        [tiles] = api.get(f"{base}/events?after=1", token=token, expect=200).body["events"]
        assert tiles["data"]["label"] == "tiles" and tiles["data"]["outcome"] is None
    assert api.get(f"{base}/export", token=ORGANIZER, expect=200).body[1]["data"]["outcome"]
    waited = api.post("/v1/games?wait=10", json_body=ice, expect=201).body
    assert (waited["version"], waited["status"]) == (2, "active")

    def refuse(token: str, action: Any, version: int, status: int, code: str) -> None:
        body = {"action": action, "expected_version": version, "command_id": f"bad-{code}"}
        api.post(actions, token=token, json_body=body, expect=status, code=code)

    # the starting coins (version 2: seat 0, then seat 1)
    refuse(t0, {"type": "roll"}, 2, 422, "start_pending")
    refuse(t0, {"type": "place_start", "square": [0, 0]}, 2, 422, "not_a_start_square")
    refuse(t1, {"type": "place_start", "square": [6, 6]}, 2, 403, "not_your_turn")
    post_action(api, game_id, t0, {"type": "place_start", "square": [3, 3]}, 2, "s0", wait=10)
    refuse(t1, {"type": "place_start", "square": [3, 3]}, 3, 422, "occupied")
    post_action(api, game_id, t1, {"type": "place_start", "square": [6, 3]}, 3, "s1", wait=10)

    # regular turns (version 4, seat 0; no tile is face-up yet)
    malformed: list[tuple[Any, str]] = [
        ({"type": "roll", "tile": [0, 0]}, "unexpected_field"),
        ({"type": "flip"}, "missing_field"),
        ({"type": "flip", "tile": [0, 1001]}, "invalid_field"),
        ({"type": "flip", "tile": [True, 0]}, "invalid_field"),
        ({"type": "remove_tile", "tile": [0, 0, 0]}, "invalid_field"),
        ({"type": "play", "to": [0, 0]}, "invalid_field"),
        ({"type": "play", "to": {"square": [0, 0], "tile": [0, 0]}}, "invalid_field"),
        ({"type": "play", "to": {"hex": [0, 0]}}, "invalid_field"),
        ({"type": "place_start", "square": "3,3"}, "invalid_field"),
        ({"type": "dig"}, "unknown_action_type"),
    ]
    for action, code in malformed:
        refuse(t0, action, 4, 400, code)
    body = {"action": {"type": "roll"}, "expected_version": 4, "command_id": "w"}
    api.post(f"{actions}?wait=31", token=t0, json_body=body, expect=400, code="invalid_query")
    api.post(f"{actions}?wait=-1", token=t0, json_body=body, expect=400, code="invalid_query")
    illegal: list[tuple[Any, str]] = [
        ({"type": "place_start", "square": [6, 6]}, "setup_over"),
        ({"type": "flip", "tile": [2, 2]}, "off_board"),
        ({"type": "play", "to": {"square": [10, 0]}}, "off_board"),
        ({"type": "flip", "tile": [1, 1]}, "no_open_side"),
        ({"type": "play", "to": {"square": [6, 3]}}, "occupied"),
        ({"type": "play", "to": {"tile": [0, 0]}}, "tile_face_down"),
        ({"type": "move", "from": {"square": [0, 0]}, "to": {"square": [1, 0]}}, "no_coin_there"),
        ({"type": "move", "from": {"square": [6, 3]}, "to": {"square": [7, 3]}}, "not_your_coin"),
        ({"type": "move", "from": {"square": [3, 3]}, "to": {"square": [5, 3]}}, "not_adjacent"),
        ({"type": "remove_tile", "tile": [0, 0]}, "no_pending_decision"),
        ({"type": "keep_group", "tile": [0, 0]}, "no_pending_decision"),
    ]
    for action, code in illegal:
        refuse(t0, action, 4, 422, code)

    # a roll without waiting: 202 before any worker could draw, and again for its repeat
    roll = {"action": {"type": "roll"}, "expected_version": 4, "command_id": "roll"}
    pending = api.post(f"{actions}?wait=0", token=t0, json_body=roll, expect=202).body
    assert pending["version"] == 5 and [e["type"] for e in pending["events"]] == ["roll"]
    again = api.post(actions, token=t0, json_body=roll, expect=202).body
    assert again == pending, "a repeated command_id answers as the first time"
    await_draw(redis_client, game_id, 5)
    after = api.post(actions, token=t0, json_body=roll, expect=202)
    assert after.body == pending, "the repeat of a 202 command stays 202 after the draw"
    rolled = api.get(f"{base}/state?version=5", token=t1, expect=200).body
    assert (rolled["status"], rolled["to_act"], rolled["state"]["awaiting_die"]) == (
        "awaiting_random",
        [],
        True,
    )
    [die] = api.get(f"{base}/events?after=5", expect=200).body["events"]
    assert die["data"]["label"] == "die" and isinstance(die["data"]["outcome"], int)

    # No tile was face-up, so the die matched nothing and it is seat 1's turn: flip a corner.
    view = api.get(base, expect=200).body
    assert (view["version"], view["to_act"]) == (6, [1])
    flip = post_action(api, game_id, t1, {"type": "flip", "tile": [0, 0]}, 6, "flip", wait=10)
    assert flip.status == 201 and [e["type"] for e in flip.body["events"]] == ["flip"]
    refuse(t0, {"type": "flip", "tile": [0, 0]}, 7, 422, "already_face_up")
    refuse(t0, {"type": "play", "to": {"square": [0, 0]}}, 7, 422, "tile_face_up")
    refuse(t0, {"type": "play", "to": {"square": [3, 3]}}, 6, 409, "version_conflict")


def check_tables(api: CheckedClient, seat_token: str) -> None:
    """Every documented status of the tables' routes, in the order of their checks."""
    body = {"game": "arktia", "seats": [{"name": "Ada"}, {"open": True}]}
    plain = {"Content-Type": "text/plain"}
    # POST /v1/tables
    api.post("/v1/tables", token="nope", json_body=body, expect=401, code="unknown_token")
    api.post("/v1/tables", data="x" * 70_000, expect=413, code="body_too_large")
    api.post("/v1/tables", data="{}", headers=plain, expect=415, code="unsupported_media_type")
    api.post("/v1/tables", data="{", headers=DECLARED_JSON, expect=400, code="malformed_json")
    api.post("/v1/tables", json_body={**body, "seats": []}, expect=400, code="invalid_body")
    solo = {**body, "seats": [{"open": True}]}
    api.post("/v1/tables", json_body=solo, expect=400, code="player_count")
    opened = api.post("/v1/tables", json_body=body, expect=201).body
    table = f"/v1/tables/{opened['id']}"
    # GET /v1/tables, GET /v1/tables/{table_id}
    api.get("/v1/tables?status=gone", expect=400, code="invalid_query")
    assert opened["id"] in [t["id"] for t in api.get("/v1/tables", expect=200).body["tables"]]
    api.get(table, token="nope", expect=401, code="unknown_token")
    api.get("/v1/tables/0123456789abcdef", expect=404, code="table_not_found")
    assert api.get(table, expect=200).body["status"] == "open"
    api.get(f"{table}?x=1", expect=400, code="invalid_query")
    # POST /v1/tables/{table_id}/join
    join = f"{table}/join"
    api.post(join, token="nope", json_body={"name": "Bo"}, expect=401, code="unknown_token")
    api.post("/v1/tables/nope/join", json_body={"name": "Bo"}, expect=404, code="table_not_found")
    api.post(join, data="x" * 70_000, expect=413, code="body_too_large")
    api.post(join, data="{}", headers=plain, expect=415, code="unsupported_media_type")
    api.post(join, json_body={"name": ""}, expect=400, code="invalid_body")
    api.post(join, json_body={"name": "a\u0085"}, expect=400, code="invalid_body")  # C1
    api.post(f"{join}?x=1", json_body={"name": "Bo"}, expect=400, code="invalid_query")
    assert api.post(join, json_body={"name": "Bo"}, expect=201).body["table"]["game_id"]
    api.post(join, json_body={"name": "Cy"}, expect=409, code="table_not_open")
    # DELETE /v1/tables/{table_id}
    other = api.post("/v1/tables", json_body=body, expect=201).body
    mine = f"/v1/tables/{other['id']}"
    api.call("DELETE", "/v1/tables/nope", token="x", expect=404, code="table_not_found")
    api.call("DELETE", mine, expect=401, code="missing_token")
    api.call("DELETE", f"{mine}?x=1", expect=401, code="missing_token")
    api.call("DELETE", f"{mine}?x=1", token=seat_token, expect=400, code="invalid_query")
    api.call("DELETE", mine, token=seat_token, expect=403, code="not_the_host")
    api.call("DELETE", mine, token=other["host_token"], expect=200)
    api.call("DELETE", mine, token=other["host_token"], expect=409, code="table_not_open")
    full = api.post("/v1/tables", json_body={**body, "seats": [{"open": True}] * 2}, expect=201)
    full_join = f"/v1/tables/{full.body['id']}/join"
    api.post(full_join, json_body={"name": "Di"}, expect=201)
    api.post(full_join, json_body={"name": "Ed"}, expect=201)
    api.post(full_join, json_body={"name": "Flo"}, expect=409, code="table_not_open")


def check_tournaments(api: CheckedClient, seat_token: str, redis_client: redis.Redis) -> None:
    """Every documented status of the tournaments' routes, in the order of their checks;
    a refused create writes nothing. Bots play one tournament to its end (a worker runs)."""
    new = "/v1/tournaments"
    plain = {"Content-Type": "text/plain"}
    people = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Hal", "bot": "random"}]
    swiss = {"game": "arktia", "format": "swiss", "rounds": 2, "players": people}
    # POST /v1/tournaments
    api.post(new, token="nope", json_body=swiss, expect=401, code="unknown_token")
    basic = {"Authorization": "Basic abc"}
    api.post(new, headers=basic, json_body=swiss, expect=401, code="invalid_authorization")
    api.post(new, token=ORGANIZER, data="x" * 70_000, expect=413, code="body_too_large")
    api.post(
        new, token=ORGANIZER, data="{}", headers=plain, expect=415, code="unsupported_media_type"
    )
    api.post(
        new, token=ORGANIZER, data="{", headers=DECLARED_JSON, expect=400, code="malformed_json"
    )
    schema_refusals: list[Any] = [
        [swiss],
        {**swiss, "extra": 1},
        {**swiss, "game": "chess"},
        {**swiss, "format": "knockout"},
        {**swiss, "table_size": 5},
        {**swiss, "table_size": 1},
        {**swiss, "table_size": True},
        {**swiss, "rounds": 0},
        {**swiss, "rounds": 100},
        {**swiss, "rounds": "2"},
        {**swiss, "players": people[:1]},
        {**swiss, "players": [{"name": f"p{i}"} for i in range(100)]},
        {**swiss, "players": [{"name": ""}, *people[1:]]},
        {**swiss, "players": [{"name": "Ada", "bot": "strong"}, *people[1:]]},
        {**swiss, "options": []},
        {k: v for k, v in swiss.items() if k != "format"},
    ]
    for body in schema_refusals:
        api.post(new, token=ORGANIZER, json_body=body, expect=400, code="invalid_body")
    api.post(new, json_body=swiss, expect=401, code="missing_token")
    api.post(new, token=seat_token, json_body=swiss, expect=403, code="organizer_only")
    cannot_run: list[Any] = [
        {**swiss, "game": "ice-breakers"},  # co-operative: nobody is ranked
        {**swiss, "rounds": None},  # a swiss needs its rounds
        {**swiss, "format": "round_robin", "rounds": 2},  # three players: three rounds
        {**swiss, "format": "round_robin", "rounds": None, "table_size": 3},
        {**swiss, "table_size": 4},  # more seats than players
        {**swiss, "rounds": 4},  # four byes for three players
        {**swiss, "players": [{"name": "Ada"}, {"name": "Ada"}]},
        {
            **swiss,
            "format": "round_robin",
            "rounds": None,
            "players": [{"name": f"p{i}"} for i in range(65)],
        },  # 65 rounds of 32 games: over 2048
    ]
    for body in cannot_run:
        api.post(new, token=ORGANIZER, json_body=body, expect=400, code="invalid_tournament")
    api.post(
        new,
        token=ORGANIZER,
        json_body={**swiss, "options": {"dice": 2}},
        expect=400,
        code="unknown_option",
    )
    bad_limit = {**swiss, "options": {"turn_limit": 0}}
    api.post(new, token=ORGANIZER, json_body=bad_limit, expect=400, code="invalid_option")
    assert redis_client.keys("floe:tournament*") == [], "a refused create wrote a tournament"
    created = api.post(new, token=ORGANIZER, json_body=swiss, expect=201)
    running = created.body
    assert created.headers["Location"] == f"{new}/{running['id']}"
    ada = running["players"][0]["token"]
    assert ada.startswith(f"{running['id']}.0.") and running["players"][2]["token"] is None
    [game] = running["rounds"][0]["games"]
    assert (running["rounds"][0]["byes"], game["players"]) == ([2], [0, 1])
    # a tournament's game, through the games' routes, with the person's tournament token
    assert api.get(f"/v1/games/{game['game_id']}", token=ada, expect=200).body["viewer"] == 0
    first = api.get(f"/v1/games/{game['game_id']}/events", expect=200).body["events"][0]
    slot = {"id": running["id"], "round": 1, "table": 1}
    assert first["data"]["tournament"] == slot
    api.get(f"/v1/games/{game['game_id']}/legal-actions", token=ada, expect=200)

    # GET /v1/tournaments/{tournament_id}
    here = f"{new}/{running['id']}"
    api.get(here, token="nope", expect=401, code="unknown_token")
    api.get(here, headers=basic, expect=401, code="invalid_authorization")
    api.get(f"{new}/0123456789abcdef", expect=404, code="tournament_not_found")
    api.get(f"{new}/nope", expect=404, code="tournament_not_found")
    shown = api.get(here, expect=200).body
    api.get(f"{here}?x=1", expect=400, code="invalid_query")
    untokened = [{k: v for k, v in p.items() if k != "token"} for p in running["players"]]
    assert shown == {**running, "players": untokened}, "the same, without the tokens"
    for token in (ada, ORGANIZER):
        assert api.get(here, token=token, expect=200).body == shown

    # GET /v1/tournaments/{tournament_id}/stream
    stream = f"{here}/stream"
    api.get(stream, token="nope", expect=401, code="unknown_token")
    api.get(f"{new}/0123456789abcdef/stream", expect=404, code="tournament_not_found")
    for last in ("x", "-1", "9" * 16):
        api.get(stream, headers={"Last-Event-ID": last}, expect=400, code="invalid_query")
    [message] = api.stream(stream, 1)
    assert json.loads(message.data) == shown and message.event == "tournament"

    # GET /v1/tournaments/{tournament_id}/export, before the end
    export = f"{here}/export"
    api.get(export, token="nope", expect=401, code="unknown_token")
    api.get(
        f"{new}/0123456789abcdef/export", token=ORGANIZER, expect=404, code="tournament_not_found"
    )
    api.get(f"{export}?x=1", expect=400, code="invalid_query")  # 400 before 401
    api.get(export, expect=401, code="missing_token")
    api.get(export, token=ada, expect=403, code="organizer_only")
    lines = api.get(export, token=ORGANIZER, expect=200).body
    assert lines[0]["tournament"]["id"] == running["id"]
    assert {line["game_id"] for line in lines[1:]} == {game["game_id"]}

    # two bots, one game ended by its turn limit: the stream follows it to its end
    bots = [{"name": "Rex", "bot": "random"}, {"name": "Max", "bot": "random"}]
    quick = {
        "game": "arktia",
        "format": "round_robin",
        "players": bots,
        "options": {"turn_limit": 1},
    }
    done = api.post(new, token=ORGANIZER, json_body=quick, expect=201).body
    assert [p["token"] for p in done["players"]] == [None, None]
    followed = api.get(f"{new}/{done['id']}/stream", expect=200).body
    final = json.loads(followed[-1].data)
    assert final["status"] == "finished" and final["rounds"][0]["games"][0]["status"] == "over"
    assert final == api.get(f"{new}/{done['id']}", expect=200).body
    seen = {"Last-Event-ID": followed[-1].id or ""}
    assert api.get(f"{new}/{done['id']}/stream", headers=seen, expect=200).body == []
    exported = api.get(f"{new}/{done['id']}/export", expect=200).body
    assert exported[0]["tournament"]["standings"] == final["standings"]
    assert [line["type"] for line in exported[1:]][-2:] == ["game_over", "seed_revealed"]
    check_tournament_director(api, swiss, running, done["id"])


def check_tournament_director(
    api: CheckedClient, swiss: dict[str, Any], running: dict[str, Any], finished: str
) -> None:
    """Every documented status of the list, a player's view, the CSV and the director's
    routes (a round started, a decision, a token reissued), in the order of their checks."""
    new = "/v1/tournaments"
    here = f"{new}/{running['id']}"
    nowhere = f"{new}/0123456789abcdef"
    ada = running["players"][0]["token"]
    [game] = running["rounds"][0]["games"]

    # GET /v1/tournaments
    listed = api.get(new, expect=200).body
    assert {running["id"], finished} <= {t["id"] for t in listed["tournaments"]}
    only = api.get(f"{new}?status=finished&limit=500", expect=200).body
    assert finished in {t["id"] for t in only["tournaments"]}
    assert all(t["status"] == "finished" for t in only["tournaments"])
    api.get(f"{new}?status=paused", expect=400, code="invalid_query")

    # GET /v1/tournaments/{tournament_id}/me
    me = f"{here}/me"
    api.get(me, token="nope", expect=401, code="unknown_token")
    api.get(f"{nowhere}/me", token=ada, expect=404, code="tournament_not_found")
    api.get(f"{me}?x=1", token=ada, expect=400, code="invalid_query")
    api.get(me, expect=401, code="missing_token")
    api.get(me, token=ORGANIZER, expect=403, code="not_a_player")
    mine = api.get(me, token=ada, expect=200).body
    assert mine["player"] == 0 and mine["current"]["game_id"] == game["game_id"]

    # GET /v1/tournaments/{tournament_id}/standings.csv
    table = f"{here}/standings.csv"
    api.get(table, token="nope", expect=401, code="unknown_token")
    api.get(f"{nowhere}/standings.csv", expect=404, code="tournament_not_found")
    api.get(f"{table}?x=1", expect=400, code="invalid_query")
    rows = api.get(table, expect=200).body
    assert [int(row[1]) for row in rows[1:]] == [s["player"] for s in running["standings"]]

    # POST /v1/tournaments/{tournament_id}/players/{player}/token
    reissue = f"{here}/players/0/token"
    api.post(reissue, token="nope", expect=401, code="unknown_token")
    api.post(reissue, expect=401, code="missing_token")
    api.post(f"{nowhere}/players/0/token", token=ORGANIZER, expect=404, code="tournament_not_found")
    api.post(f"{here}/players/7/token", token=ORGANIZER, expect=404, code="player_not_found")
    api.post(f"{reissue}?x=1", token=ORGANIZER, expect=400, code="invalid_query")
    api.post(reissue, token=ada, expect=403, code="organizer_only")
    api.post(f"{here}/players/2/token", token=ORGANIZER, expect=409, code="player_is_bot")
    issued = api.post(reissue, token=ORGANIZER, expect=201).body
    api.get(me, token=ada, expect=401, code="unknown_token")
    ada = issued["token"]
    assert api.get(me, token=ada, expect=200).body == mine

    # POST /v1/tournaments/{tournament_id}/rounds
    manual = api.post(
        new,
        token=ORGANIZER,
        json_body={**swiss, "round_start": "manual", "max_players": 4},
        expect=201,
    )
    assert manual.body["status"] == "open" and manual.body["rounds"] == []
    rounds = f"{new}/{manual.body['id']}/rounds"
    api.post(rounds, token="nope", expect=401, code="unknown_token")
    api.post(rounds, expect=401, code="missing_token")
    api.post(f"{nowhere}/rounds", token=ORGANIZER, expect=404, code="tournament_not_found")
    api.post(f"{rounds}?x=1", token=ORGANIZER, expect=400, code="invalid_query")
    api.post(rounds, token=ada, expect=403, code="organizer_only")
    api.post(f"{here}/rounds", token=ORGANIZER, expect=409, code="not_manual")
    started = api.post(rounds, token=ORGANIZER, expect=201).body
    assert started["status"] == "running" and len(started["rounds"]) == 1
    api.post(rounds, token=ORGANIZER, expect=409, code="round_not_over")

    # POST /v1/tournaments/{tournament_id}/decisions
    decisions = f"{new}/{manual.body['id']}/decisions"
    pause = {"decision": "pause", "reason": "Lunch."}
    api.post(decisions, token="nope", json_body=pause, expect=401, code="unknown_token")
    api.post(decisions, json_body=pause, expect=401, code="missing_token")
    api.post(
        f"{nowhere}/decisions",
        token=ORGANIZER,
        json_body=pause,
        expect=404,
        code="tournament_not_found",
    )
    api.post(f"{decisions}?x=1", token=ORGANIZER, json_body=pause, expect=400, code="invalid_query")
    api.post(decisions, token=ada, json_body=pause, expect=403, code="organizer_only")
    api.post(decisions, token=ORGANIZER, data="x" * 70_000, expect=413, code="body_too_large")
    plain = {"Content-Type": "text/plain"}
    api.post(
        decisions,
        token=ORGANIZER,
        data="{}",
        headers=plain,
        expect=415,
        code="unsupported_media_type",
    )
    api.post(
        decisions,
        token=ORGANIZER,
        data="{",
        headers=DECLARED_JSON,
        expect=400,
        code="malformed_json",
    )
    malformed: list[tuple[Any, str]] = [
        ([pause], "invalid_body"),
        ({"decision": "withdraw", "player": "1", "reason": "Gone."}, "invalid_field"),
        ({"decision": "enter", "reason": "Late."}, "missing_field"),
        ({"decision": "correct", "game_id": "x", "winners": [], "reason": "r"}, "invalid_field"),
        ({"decision": "nap", "reason": "Gone."}, "unknown_decision"),
        ({"reason": "Gone."}, "unknown_decision"),
        ({"decision": "pause", "reason": "r", "until": 3}, "unexpected_field"),
        ({"decision": "pause"}, "missing_field"),
        ({"decision": "pause", "reason": " "}, "invalid_field"),
        ({"decision": "pause", "reason": "r" * 501}, "invalid_field"),
    ]
    for body, code in malformed:
        api.post(decisions, token=ORGANIZER, json_body=body, expect=400, code=code)
    paused = api.post(decisions, token=ORGANIZER, json_body=pause, expect=201).body
    assert paused["paused"] is True and paused["decisions"][0]["seq"] == 1
    api.post(decisions, token=ORGANIZER, json_body=pause, expect=409, code="already_paused")
    api.post(rounds, token=ORGANIZER, expect=409, code="tournament_paused")
    resume = {"decision": "resume", "reason": "Back."}
    api.post(decisions, token=ORGANIZER, json_body=resume, expect=201)
    api.post(decisions, token=ORGANIZER, json_body=resume, expect=409, code="not_paused")
    first_game = started["rounds"][0]["games"][0]["game_id"]
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"decision": "withdraw", "player": 7, "reason": "r"}, "unknown_player"),
        ({"decision": "enter", "name": "Ada", "reason": "r"}, "name_taken"),
        (
            {"decision": "correct", "game_id": "0" * 16, "winners": [], "reason": "r"},
            "no_such_game",
        ),
        (
            {"decision": "correct", "game_id": first_game, "winners": [], "reason": "r"},
            "game_in_play",
        ),
        (
            {"decision": "correct", "game_id": first_game, "winners": [5], "reason": "r"},
            "unknown_winner",
        ),
    ]
    for body, code in refusals:
        api.post(decisions, token=ORGANIZER, json_body=body, expect=409, code=code)
    late = {"decision": "enter", "name": "Eve", "reason": "Late."}
    entered = api.post(decisions, token=ORGANIZER, json_body=late, expect=201).body
    assert entered["entered"]["player"] == 3 and entered["entered"]["token"]
    full = {**late, "name": "Fay"}
    api.post(decisions, token=ORGANIZER, json_body=full, expect=409, code="tournament_full")
    gone = {"decision": "withdraw", "player": 1, "reason": "Gone."}
    withdrawn = api.post(decisions, token=ORGANIZER, json_body=gone, expect=201).body
    assert withdrawn["players"][1]["withdrawn"] is True and withdrawn["entered"] is None
    assert withdrawn["rounds"][0]["games"][0]["status"] == "over"  # forfeited for Bo
    ruling = {"decision": "correct", "game_id": first_game, "winners": [], "reason": "Ruling."}
    ruled = api.post(decisions, token=ORGANIZER, json_body=ruling, expect=201).body
    assert ruled["rounds"][0]["games"][0]["correction"] == {"winners": [], "decision": 5}
    cancel = {"decision": "cancel", "reason": "Closed."}
    cancelled = api.post(decisions, token=ORGANIZER, json_body=cancel, expect=201).body
    assert cancelled["status"] == "cancelled"
    assert all(g["status"] == "over" for g in cancelled["rounds"][0]["games"])
    api.post(decisions, token=ORGANIZER, json_body=pause, expect=409, code="tournament_cancelled")
    api.post(rounds, token=ORGANIZER, expect=409, code="tournament_cancelled")
    done = f"{new}/{finished}/decisions"
    api.post(done, token=ORGANIZER, json_body=pause, expect=409, code="tournament_finished")
    header = api.get(f"{new}/{manual.body['id']}/export", expect=200).body[0]["tournament"]
    assert header["round_start"] == "manual"
    kinds = [d["decision"] for d in header["decisions"]]
    assert kinds == ["pause", "resume", "enter", "withdraw", "correct", "cancel"]


def check_socket_refusals(api: CheckedClient, base: str, token: str) -> None:
    """``GET …/socket``'s answers before the upgrade, in their order: the game first (404,
    even to a token in the URL), then the URL (400). Its 101 needs a real server
    (``UPGRADED_ON_A_REAL_SERVER``)."""
    socket = f"{base}/socket"
    api.get(socket, expect=400, code="http_error")  # not a WebSocket handshake
    api.get(socket, token=token, expect=400, code="http_error")
    nowhere = "/v1/games/0123456789abcdef/socket"
    api.get(nowhere, headers=UPGRADE, expect=404, code="game_not_found")
    api.get(f"{nowhere}?token={token}", headers=UPGRADE, expect=404, code="game_not_found")
    api.get(f"{socket}?token={token}", headers=UPGRADE, expect=400, code="token_in_url")
    api.get(f"{socket}?token={token}&x=1", headers=UPGRADE, expect=400, code="token_in_url")
    api.get(f"{socket}?after=1", headers=UPGRADE, expect=400, code="invalid_query")


def check_replays(api: CheckedClient, finished: str) -> None:
    """``POST /v1/replays``: an export's verdict and its steps, then each refusal."""
    export = api.client.get(f"{finished}/export").get_data()
    ndjson = {"Content-Type": "application/x-ndjson"}
    judged = api.post("/v1/replays?count=2", data=export, headers=ndjson, expect=200).body
    assert judged["verdict"]["status"] == "ok" and judged["last"] == len(export.splitlines())
    assert judged["kind"] == "game" and [b["version"] for b in judged["boards"]] == [1, 2]
    tournament = build_tournament("iceberg", "swiss", ["Ada", "Bo", ("Cy", "random")], rounds=2)
    whole = "".join(line + "\n" for line in tournament.lines()).encode()
    judged = api.post("/v1/replays", data=whole, headers=ndjson, expect=200).body
    assert (judged["kind"], judged["verdict"]["status"]) == ("tournament", "ok")
    forged = b"".join(whole.splitlines(keepends=True)[:-3])
    judged = api.post("/v1/replays", data=forged, headers=ndjson, expect=200).body
    assert judged["kind"] == "tournament" and judged["verdict"]["status"] != "ok"
    for hostile in (b'{"tournament": 5}\n', b'{"tournament": {}}\n{"x": [1]}\n'):
        judged = api.post("/v1/replays", data=hostile, headers=ndjson, expect=200).body
        assert (judged["kind"], judged["verdict"]["status"]) == ("tournament", "failed")
    cut = b"".join(export.splitlines(keepends=True)[:2])
    assert (
        api.post("/v1/replays", data=cut, headers=ndjson, expect=200).body["verdict"]["status"]
        == "incomplete"
    )
    assert (
        api.post("/v1/replays", data=b"{", headers=ndjson, expect=200).body["verdict"]["status"]
        == "failed"
    )
    api.post("/v1/replays?count=101", data=export, expect=400, code="invalid_query")
    api.post("/v1/replays?from=0", data=export, expect=400, code="invalid_query")
    api.post("/v1/replays?x=1", data=export, expect=400, code="invalid_query")
    api.post("/v1/replays", data=b"", headers=ndjson, expect=400, code="empty_body")
    assert (
        api.post("/v1/replays", data=b"\n", headers=ndjson, expect=200).body["verdict"]["status"]
        == "failed"
    )
    plain = {"Content-Type": "text/plain"}
    api.post("/v1/replays", data=export, headers=plain, expect=415, code="unsupported_media_type")
    huge = b"x" * (2 * 1024 * 1024 + 1)
    api.post("/v1/replays", data=huge, headers=ndjson, expect=413, code="body_too_large")


def test_a_tournament_stream_beyond_the_address_cap_is_429_as_documented(
    redis_url: str, spec: OpenApi
) -> None:
    """The stream takes one of the address's long-request slots: the next one is 429
    ``too_many_streams`` (test_rate_limits.py provokes ``rate_limited``)."""
    settings = Settings(redis_url=redis_url, organizer_token=ORGANIZER, long_requests_per_address=1)
    app = create_app(settings)
    api = CheckedClient(app, spec)
    created = api.post("/v1/tournaments", token=ORGANIZER, json_body=TOURNAMENT, expect=201)
    stream = f"/v1/tournaments/{created.body['id']}/stream"
    held = app.test_client().get(stream, buffered=False)  # Ada never moves: it stays open
    try:
        assert held.status_code == 200
        refused = api.get(stream, expect=429, code="too_many_streams")
        assert refused.headers["Retry-After"] == "5"
    finally:
        held.close()
    [message] = api.stream(stream, 1)  # the slot was given back
    assert json.loads(message.data)["id"] == created.body["id"]


#: A decision any live game of two seats or more takes.
DECISION = {"decision": "forfeit", "seat": 1, "reason": "Left the venue."}


def test_a_dead_store_is_503_on_every_route(spec: OpenApi) -> None:
    dead = create_app(Settings(redis_url=f"redis://127.0.0.1:{free_tcp_port()}/0"))
    api = SocketAwareClient(dead, spec)
    forged = "0123456789abcdef.0.secret"
    base = "/v1/games/0123456789abcdef"
    body = {"action": {"type": "retire"}, "expected_version": 1, "command_id": "c"}
    game = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "/v1/games", {"json_body": game}),
        ("GET", "/v1/games", {}),
        ("GET", base, {}),
        ("GET", f"{base}/state?version=1", {}),
        ("GET", f"{base}/board.svg", {}),
        ("GET", f"{base}/legal-actions", {"token": forged}),
        ("POST", f"{base}/actions", {"token": forged, "json_body": body}),
        ("POST", f"{base}/decisions", {"token": forged, "json_body": DECISION}),
        ("GET", f"{base}/events", {}),
        ("GET", f"{base}/events/stream", {}),
        ("GET", f"{base}/export", {}),
        ("GET", f"{base}/socket", {"headers": UPGRADE}),
        ("GET", "/v1/health", {}),
        ("GET", "/v1/keys", {}),
        ("POST", "/v1/replays", {"data": "", "headers": {"Content-Type": "application/x-ndjson"}}),
        ("POST", "/v1/tables", {"json_body": {"game": "arktia", "seats": [{"open": True}] * 2}}),
        ("GET", "/v1/tables", {}),
        ("GET", "/v1/tables/0123456789abcdef", {}),
        ("POST", "/v1/tables/0123456789abcdef/join", {"json_body": {"name": "Bo"}}),
        ("DELETE", "/v1/tables/0123456789abcdef", {"token": "x"}),
        ("POST", "/v1/tournaments", {"token": ORGANIZER, "json_body": TOURNAMENT}),
        ("GET", "/v1/tournaments/0123456789abcdef", {}),
        ("GET", "/v1/tournaments/0123456789abcdef/stream", {}),
        ("GET", "/v1/tournaments/0123456789abcdef/export", {"token": ORGANIZER}),
        ("GET", "/v1/tournaments", {}),
        ("GET", "/v1/tournaments/0123456789abcdef/me", {}),
        ("GET", "/v1/tournaments/0123456789abcdef/standings.csv", {}),
        ("POST", "/v1/tournaments/0123456789abcdef/rounds", {"token": ORGANIZER}),
        (
            "POST",
            "/v1/tournaments/0123456789abcdef/decisions",
            {"token": ORGANIZER, "json_body": {"decision": "pause", "reason": "r"}},
        ),
        ("POST", "/v1/tournaments/0123456789abcdef/players/0/token", {"token": ORGANIZER}),
    ]
    for method, path, kwargs in calls:
        answer = api.call(method, path, expect=503, code="store_unavailable", **kwargs)
        assert answer.headers["Retry-After"].isdigit()
    assert {(m, p) for m, p, _ in api.seen} == documented_operations(spec)


#: The ``Sec-WebSocket-Accept`` RFC 6455 derives from ``UPGRADE``'s key (its section 1.3).
ACCEPT_OF_THE_KEY = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


@pytest.mark.processes
def test_the_socket_upgrades_and_speaks_as_documented(spec: OpenApi, tmp_path: Path) -> None:
    """What a Flask test client cannot do, on a real ``floe run``: the handshake's 101 as the
    document says it (no body, the accept key), then a whole game over two seats' sockets and a
    spectator's, every message each way fitting the operation's ``x-websocket`` schemas, and
    each refusal's code one the document lists."""
    method, template = SOCKET_OPERATION
    _, pointer = spec.operation(method, template)
    client_schema = pointer + "/x-websocket/client"
    server_schema = pointer + "/x-websocket/server"
    codes = set(spec.doc["components"]["schemas"]["ErrorCode"]["enum"])
    with floe_run(tmp_path, {}) as served:
        players = [{"name": "a"}, {"name": "b"}]
        body = {"game": "arktia", "players": players, "options": {"turn_limit": 4}}
        status, created, _ = call(
            served.port, "POST", "/v1/games?wait=30", body, timeout=30 + PROMPTLY
        )
        assert status == 201, created
        game_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]

        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=PROMPTLY)
        try:
            connection.request("GET", f"/v1/games/{game_id}/socket", headers=UPGRADE)
            response = connection.getresponse()
            headers = dict(response.getheaders())
            spec.check_response(method, template, response.status, headers, response.read())
            assert response.status == 101
            assert headers["Upgrade"].lower() == "websocket"
            assert headers["Sec-WebSocket-Accept"] == ACCEPT_OF_THE_KEY
        finally:
            connection.close()

        sent: list[Message] = []

        def send(socket: Socket, message: Message) -> None:
            sent.append(message)
            socket.send(message)

        inbox: queue.Queue[tuple[int, Message | None]] = queue.Queue()
        seats = [Socket(served.port, game_id, sink=inbox, tag=seat) for seat in (0, 1)]
        spectator = Socket(served.port, game_id)
        for seat, socket in enumerate(seats):
            send(socket, {"type": "hello", "token": tokens[seat]})
        send(spectator, {"type": "hello", "after": 0})
        rng = random.Random(0)
        over: set[int] = set()
        stale_sent = False
        while len(over) < 2:
            seat, message = inbox.get(timeout=PROMPTLY)
            if message is None:  # the server closes a socket once the game is over
                assert seat in over, f"seat {seat}'s socket closed: {seats[seat].seen[-3:]}"
                continue
            if message["type"] == "event" and message["event"]["type"] == "game_over":
                over.add(seat)
            elif message["type"] == "legal_actions" and message["actions"]:
                version = message["version"]
                if not stale_sent and version > 1:  # a refusal (409): on the version before
                    stale = rng.choice(message["actions"])
                    send(seats[seat], _action(stale, version - 1, "stale"))
                    stale_sent = True
                action = _action(rng.choice(message["actions"]), version, f"{seat}-{version}")
                send(seats[seat], action)
        spectator.until(lambda m: m["type"] == "event" and m["event"]["type"] == "game_over")
        for socket in [*seats, spectator]:
            socket.close()

    for message in sent:
        spec.assert_valid(client_schema, message, f"client message {message}")
    received = [m for socket in [*seats, spectator] for m in socket.seen]
    for message in received:
        spec.assert_valid(server_schema, message, f"server message {message['type']}")
        if message["type"] == "refused":
            assert message["error"]["code"] in codes, message
    stale = [m for m in received if m["type"] == "refused" and m["command_id"] == "stale"]
    assert [(m["status"], m["error"]["code"]) for m in stale] == [(409, "version_conflict")]
    kinds = {m["type"] for m in received}
    assert kinds == {"welcome", "event", "legal_actions", "accepted", "refused"}, kinds
    assert not any(m["type"] == "legal_actions" for m in spectator.seen)


def _action(action: Any, version: int, command_id: str) -> Message:
    """A ``SocketAction``, kept as sent so that the test checks it against the document."""
    return {
        "type": "action",
        "action": action,
        "expected_version": version,
        "command_id": command_id,
    }
