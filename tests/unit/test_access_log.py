"""The cheap access logger writes exactly gunicorn's line for the combined log format."""

from __future__ import annotations

import base64
from types import SimpleNamespace
from typing import Any

import pytest
from freezegun import freeze_time
from gunicorn.config import Config
from gunicorn.glogging import Logger, SafeAtoms

from service.run.access_log import AccessLogger

REQUESTS: list[dict[str, Any]] = [
    {"REQUEST_METHOD": "POST", "RAW_URI": "/v1/games/g1/actions?wait=10"},
    {
        "REQUEST_METHOD": "GET",
        "RAW_URI": '/v1/games/"quoted"',
        "HTTP_REFERER": "http://x/",
        "HTTP_USER_AGENT": 'agent "7"',
        "HTTP_AUTHORIZATION": "Basic " + base64.b64encode(b"ada:secret").decode(),
    },
    {"REQUEST_METHOD": "GET", "RAW_URI": "/", "HTTP_AUTHORIZATION": "Bearer g1.0.abc"},
]


def line(logger: Logger, environ: dict[str, Any], status: Any, sent: int | None) -> str:
    resp = SimpleNamespace(status=status, sent=sent, headers=[("Content-Type", "x")])
    req = SimpleNamespace(headers=[("HOST", "localhost")])
    took = SimpleNamespace(seconds=0, microseconds=1234)
    atoms = logger.atoms(resp, req, environ, took)
    return str(logger.cfg.access_log_format % SafeAtoms(atoms))


@pytest.mark.parametrize("request_environ", REQUESTS)
@pytest.mark.parametrize(("status", "sent"), [("201 CREATED", 321), (404, None), ("500", 0)])
@freeze_time("2026-11-24 06:30:00")
def test_the_line_is_gunicorns(
    request_environ: dict[str, Any], status: Any, sent: int | None
) -> None:
    environ = {"REMOTE_ADDR": "127.0.0.9", "SERVER_PROTOCOL": "HTTP/1.1", **request_environ}
    ours, theirs = AccessLogger(Config()), Logger(Config())
    assert line(ours, environ, status, sent) == line(theirs, environ, status, sent)
    assert line(ours, environ, status, sent).startswith("127.0.0.9 - ")


def test_another_format_gets_gunicorns_own_atoms() -> None:
    config = Config()
    config.set("access_log_format", "%(h)s %({content-type}o)s %(D)s")
    environ = {"REMOTE_ADDR": "127.0.0.9", "SERVER_PROTOCOL": "HTTP/1.1", **REQUESTS[0]}
    assert line(AccessLogger(config), environ, "200 OK", 5) == "127.0.0.9 x 1234"
