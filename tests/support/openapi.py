"""``openapi.yaml`` as a checker: the document with its schemas resolvable by pointer
(``OpenApi``), and a Flask test client whose every answer (status, headers, JSON body, export
line, SSE ``data:``, CSV rows) and every request body is checked against it (``CheckedClient``).

The contract tests (``tests/e2e/test_openapi.py``) hold the checks themselves; the tests that
provoke answers the contract tests cannot (a full store, rate limits) check them here too.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit
from xml.etree import ElementTree

import yaml
from flask import Flask
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012
from werkzeug.routing import MapAdapter

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"
BASE_URI = "https://floe.invalid/openapi.yaml"
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
#: 400 codes that mean "the body fails its schema": the documented schema must refuse it too.
SCHEMA_REFUSALS = frozenset(
    {
        "invalid_body",
        "unknown_action_type",
        "unexpected_field",
        "missing_field",
        "invalid_field",
        "player_count",
        "unknown_option",
    }
)
#: Statuses whose request body passed every schema check on the server.
BODY_ACCEPTED = frozenset({200, 201, 202, 403, 409, 422})


def _pointer(*parts: str) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def flask_template(rule: str) -> str:
    """``/v1/games/<game_id>`` -> ``/v1/games/{game_id}`` (converters dropped)."""
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


class OpenApi:
    """The document, with its schemas resolvable by JSON pointer."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.registry: Registry[Any] = Registry().with_resource(
            BASE_URI, DRAFT202012.create_resource(doc)
        )
        self._validators: dict[str, Draft202012Validator] = {}

    @classmethod
    def load(cls, path: Path = SPEC_PATH) -> OpenApi:
        return cls(yaml.safe_load(path.read_text(encoding="utf-8")))

    # -- lookups --

    def at(self, pointer: str) -> Any:
        node: Any = self.doc
        for raw in pointer.split("/")[1:]:
            key = raw.replace("~1", "/").replace("~0", "~")
            node = node[int(key)] if isinstance(node, list) else node[key]
        return node

    def deref(self, node: Any, pointer: str) -> tuple[Any, str]:
        """Follow local ``$ref`` objects (responses, headers, parameters) to their target."""
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            assert ref.startswith("#/"), f"non-local $ref {ref!r} at {pointer}"
            pointer = ref[1:]
            node = self.at(pointer)
        return node, pointer

    def operation(self, method: str, template: str) -> tuple[dict[str, Any], str]:
        paths = self.doc["paths"]
        assert template in paths, f"path {template} is not documented"
        assert method.lower() in paths[template], f"{method} {template} is not documented"
        pointer = _pointer("paths", template, method.lower())
        return paths[template][method.lower()], pointer

    def validator(self, pointer: str) -> Draft202012Validator:
        """A validator for the schema at ``pointer``, its ``$ref``s resolved in the document."""
        if pointer not in self._validators:
            ref = BASE_URI + "#" + quote(pointer, safe="/~")
            self._validators[pointer] = Draft202012Validator({"$ref": ref}, registry=self.registry)
        return self._validators[pointer]

    def errors(self, pointer: str, instance: Any) -> list[str]:
        found = sorted(self.validator(pointer).iter_errors(instance), key=lambda e: e.path)
        return [f"at {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in found]

    def assert_valid(self, pointer: str, instance: Any, what: str) -> None:
        errors = self.errors(pointer, instance)
        assert not errors, f"{what} does not fit {pointer}:\n  " + "\n  ".join(errors[:10])

    # -- requests and responses --

    def request_errors(self, method: str, template: str, body: Any) -> list[str]:
        op, op_pointer = self.operation(method, template)
        assert "requestBody" in op, f"{method} {template} documents no request body"
        _, body_pointer = self.deref(op["requestBody"], op_pointer + "/requestBody")
        return self.errors(body_pointer + _pointer("content", "application/json", "schema"), body)

    def check_response(
        self,
        method: str,
        template: str,
        status: int,
        headers: Mapping[str, str],
        body: bytes,
    ) -> Any:
        """Assert the response is documented and fits; return the parsed body (JSON) if any."""
        what = f"{method} {template} -> {status}"
        op, op_pointer = self.operation(method, template)
        assert str(status) in op["responses"], f"{what}: status {status} is not documented"
        response, pointer = self.deref(
            op["responses"][str(status)], op_pointer + _pointer("responses", str(status))
        )
        for name, raw_header in response.get("headers", {}).items():
            header, header_pointer = self.deref(raw_header, pointer + _pointer("headers", name))
            value = headers.get(name)
            if header.get("required"):
                assert value is not None, f"{what}: required header {name} is missing"
            if value is not None:
                self.assert_valid(header_pointer + "/schema", value, f"{what}: header {name}")
        content = response.get("content")
        if not content:
            assert not body, f"{what}: documented without content but has a body"
            return None
        media_type = headers.get("Content-Type", "").split(";")[0].strip()
        assert media_type in content, f"{what}: content type {media_type!r} is not documented"
        media_pointer = pointer + _pointer("content", media_type)
        text = body.decode("utf-8")
        if media_type == "application/json":
            parsed = json.loads(text)
            self.assert_valid(media_pointer + "/schema", parsed, what)
            if status >= 400:
                self._assert_code_documented(op, response, parsed["error"]["code"], what)
            return parsed
        if media_type == "application/x-ndjson":
            assert "x-ndjson-item-schema" in content[media_type], f"{what}: no line schema"
            assert text.endswith("\n"), f"{what}: the last line must end with a newline"
            lines = [json.loads(line) for line in text.splitlines()]
            # a file with a header line of its own (a tournament's) says so
            first = "x-ndjson-first-line-schema" in content[media_type]
            for number, line in enumerate(lines, 1):
                kind = "first-line" if first and number == 1 else "item"
                self.assert_valid(
                    media_pointer + f"/x-ndjson-{kind}-schema", line, f"{what} line {number}"
                )
            return lines
        if media_type == "text/event-stream":
            assert "x-sse-data-schema" in content[media_type], f"{what}: no data schema"
            messages = parse_sse(text)
            # a stream of one kind of message (a tournament's) names it; ids then only grow
            event = content[media_type].get("x-sse-event")
            ids: list[int] = []
            for message in messages:
                data = json.loads(message.data)
                self.assert_valid(media_pointer + "/x-sse-data-schema", data, f"{what} SSE")
                if event is None:  # a game's events: the id is the version, the event the type
                    assert message.id == str(data["version"]), f"{what}: id is not the version"
                    assert message.event == data["type"], f"{what}: event is not the type"
                    continue
                assert message.event == event, f"{what}: event {message.event!r}, not {event!r}"
                assert message.id is not None and message.id.isdigit(), f"{what}: id {message.id}"
                ids.append(int(message.id))
            assert ids == sorted(set(ids)), f"{what}: ids {ids} do not grow"
            return messages
        if media_type == "text/csv":
            # RFC 4180: CRLF line ends, every row as wide as the header (the standings')
            assert text.endswith("\r\n"), f"{what}: a CSV's lines end in CRLF"
            rows = list(csv.reader(io.StringIO(text)))
            assert rows and rows[0][:4] == ["place", "player", "name", "points"], f"{what}: {rows}"
            assert all(len(row) == len(rows[0]) for row in rows), f"{what}: ragged rows"
            return rows
        if media_type == "image/svg+xml":
            root = ElementTree.fromstring(text)  # well-formed XML ...
            assert root.tag.endswith("svg"), f"{what}: not an SVG document"  # ... and an SVG
            return text
        raise AssertionError(f"{what}: no checker for {media_type}")

    def _assert_code_documented(
        self, op: Mapping[str, Any], response: Mapping[str, Any], code: str, what: str
    ) -> None:
        docs = op.get("description", "") + response.get("description", "")
        assert f"`{code}`" in docs, f"{what}: error code {code!r} is not documented"


@dataclass
class SseMessage:
    id: str | None
    event: str | None
    data: str


def parse_sse(text: str) -> list[SseMessage]:
    """The messages of an event stream; comments and ``retry:`` blocks are not messages."""
    assert text.startswith("retry: "), "the stream should open with a retry hint"
    messages: list[SseMessage] = []
    for block in text.split("\n\n"):
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))
        assert set(fields) <= {"id", "event", "data", "retry"}, f"unknown SSE fields {fields}"
        if "data" in fields:
            messages.append(
                SseMessage(
                    id=fields.get("id", [None])[-1],
                    event=fields.get("event", [None])[-1],
                    data="\n".join(fields["data"]),
                )
            )
    return messages


@dataclass
class Answer:
    status: int
    body: Any
    headers: Mapping[str, str]

    @property
    def code(self) -> str | None:
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return str(self.body["error"]["code"])
        return None


_NO_BODY = object()


@dataclass
class CheckedClient:
    """A Flask test client whose every answer is checked against the spec."""

    app: Flask
    spec: OpenApi
    seen: set[tuple[str, str, int]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.client = self.app.test_client()
        self.adapter: MapAdapter = self.app.url_map.bind("localhost")

    def template(self, method: str, path: str) -> str:
        rule, _ = self.adapter.match(urlsplit(path).path, method=method, return_rule=True)
        return flask_template(rule.rule)

    def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json_body: Any = _NO_BODY,
        data: str | bytes | None = None,
        headers: Mapping[str, str] | None = None,
        expect: int | None = None,
        code: str | None = None,
    ) -> Answer:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        kwargs: dict[str, Any] = {"headers": sent}
        if json_body is not _NO_BODY:
            kwargs["json"] = json_body
        elif data is not None:
            kwargs["data"] = data
        response = self.client.open(path, method=method, **kwargs)
        template = self.template(method, path)
        parsed = self.spec.check_response(
            method, template, response.status_code, dict(response.headers), response.get_data()
        )
        answer = Answer(response.status_code, parsed, dict(response.headers))
        self.seen.add((method.lower(), template, response.status_code))
        if json_body is not _NO_BODY:
            self._check_request(method, template, json_body, answer)
        where = f"{method} {path}"
        if expect is not None:
            assert answer.status == expect, f"{where}: {answer.status} {answer.body}"
        if code is not None:
            assert answer.code == code, f"{where}: {answer.status} {answer.body}"
        return answer

    def _check_request(self, method: str, template: str, body: Any, answer: Answer) -> None:
        errors = self.spec.request_errors(method, template, body)
        if answer.status in BODY_ACCEPTED:
            assert not errors, f"the server took a body the spec refuses: {body}: {errors}"
        if answer.status == 400 and answer.code in SCHEMA_REFUSALS:
            assert errors, f"the spec takes a body the server refuses ({answer.code}): {body}"

    def get(self, path: str, **kwargs: Any) -> Answer:
        return self.call("GET", path, **kwargs)

    def stream(self, path: str, messages: int, *, token: str | None = None) -> list[SseMessage]:
        """The first ``messages`` messages of a live event stream, then hang up; checked too.

        Ask only for events that exist: the stream blocks (heartbeats) until more arrive.
        """
        sent = {} if token is None else {"Authorization": f"Bearer {token}"}
        response = self.client.get(path, headers=sent, buffered=False)
        text = ""
        try:
            for chunk in response.iter_encoded():
                text += chunk.decode("utf-8")
                if len(parse_sse(text)) >= messages:
                    break
        finally:
            response.close()
        template = self.template("GET", path)
        parsed = self.spec.check_response(
            "GET", template, response.status_code, dict(response.headers), text.encode("utf-8")
        )
        self.seen.add(("get", template, response.status_code))
        assert response.status_code == 200 and len(parsed) == messages, f"GET {path}: {text}"
        return list(parsed)

    def post(self, path: str, **kwargs: Any) -> Answer:
        return self.call("POST", path, **kwargs)


def documented_operations(spec: OpenApi) -> set[tuple[str, str]]:
    """Every ``(method, path template)`` the document describes."""
    return {
        (method, path)
        for path, item in spec.doc["paths"].items()
        for method in item
        if method in HTTP_METHODS
    }
