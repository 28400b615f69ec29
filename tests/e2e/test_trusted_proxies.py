"""Behind a trusted reverse proxy every limit counts the client the proxy names; from anyone
else ``X-Forwarded-For`` is ignored.

The real app on the test Redis (Flask's test client: the peer is whatever ``REMOTE_ADDR`` the
test sends), then a real ``floe run`` on loopback with ``FLOE_TRUSTED_PROXIES=127.0.0.1``:
requests from 127.0.0.1 play the proxy, requests from 127.0.0.2 a client that writes the
header itself. The quota on live games (one each) shows who is counted as whom, with no
window to straddle; the rate limit shows the same with the test's own clock; the uploads in
flight per address show it for ``floe run``'s edge, which admits an upload before the app
sees its request (``service/run/web.py``).
"""

from __future__ import annotations

import http.client
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.support.floe_run import call, connect, floe_run
from tests.support.limited_app import limited_app
from tests.support.waiting import PROMPTLY, wait_until

PEOPLE = {"game": "arktia", "players": [{"name": "Ada"}, {"name": "Bo"}]}
PROXY = {"REMOTE_ADDR": "10.1.0.5"}
STRANGER = {"REMOTE_ADDR": "198.51.100.7"}
ANN, BO, CY = "203.0.113.1", "203.0.113.2", "203.0.113.3"


def create(client: FlaskClient, peer: dict[str, str], forwarded_for: str | None) -> int:
    """Create a game from ``peer`` with ``forwarded_for`` in ``X-Forwarded-For``: the status."""
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    response = client.post("/v1/games", json=PEOPLE, headers=headers, environ_base=peer)
    return response.status_code


@pytest.fixture
def behind_proxy(redis_url: str) -> FlaskClient:
    """The app trusting 10.0.0.0/8 as its proxies, one live game per client."""
    app = limited_app(redis_url, trusted_proxies=("10.0.0.0/8",), live_games_per_creator=1)
    return app.test_client()


def test_two_clients_of_one_proxy_are_counted_apart_and_each_with_itself(
    behind_proxy: FlaskClient,
) -> None:
    assert create(behind_proxy, PROXY, ANN) == 201
    assert create(behind_proxy, PROXY, BO) == 201, "Bo is not Ann, though both come by the proxy"
    assert create(behind_proxy, PROXY, ANN) == 429, "Ann's second game is Ann's"
    other_proxy = {"REMOTE_ADDR": "10.9.9.9"}
    assert create(behind_proxy, other_proxy, BO) == 429, "Bo by another trusted proxy is Bo"
    assert create(behind_proxy, PROXY, None) == 201, "the proxy's own request is its own"


def test_an_untrusted_peers_header_is_ignored(behind_proxy: FlaskClient) -> None:
    assert create(behind_proxy, STRANGER, ANN) == 201
    assert create(behind_proxy, STRANGER, BO) == 429, "a new header is not a new client"
    assert create(behind_proxy, PROXY, ANN) == 201, "the stranger's claim cost Ann nothing"


def test_a_client_cannot_hide_behind_hops_it_wrote_itself(behind_proxy: FlaskClient) -> None:
    """The proxy appends the peer it saw; what the client put before it is the client's."""
    assert create(behind_proxy, PROXY, f"{BO}, {ANN}") == 201
    assert create(behind_proxy, PROXY, f"{CY}, {ANN}") == 429, "still Ann, whatever she wrote"


def test_without_trusted_proxies_the_header_counts_for_nothing(redis_url: str) -> None:
    client = limited_app(redis_url, live_games_per_creator=1).test_client()
    assert create(client, PROXY, ANN) == 201
    assert create(client, PROXY, BO) == 429, "every client of an untrusted proxy is the proxy"


def test_the_rate_limit_counts_each_forwarded_client(redis_url: str) -> None:
    app = limited_app(redis_url, trusted_proxies=("10.0.0.0/8",), rate_limit_per_address=2)
    client = app.test_client()

    def health(forwarded_for: str, peer: dict[str, str] = PROXY) -> int:
        headers = {"X-Forwarded-For": forwarded_for}
        return client.get("/v1/health", headers=headers, environ_base=peer).status_code

    assert [health(ANN), health(ANN), health(ANN)] == [200, 200, 429]
    assert [health(BO), health(BO)] == [200, 200], "Bo has his own window"
    assert [health(ANN, STRANGER), health(BO, STRANGER)] == [200, 200]
    assert health(CY, STRANGER) == 429, "the stranger is counted as itself, whatever it says"


# ----- a real floe run on loopback -----------------------------------------------------------


def post_game(port: int, source: str, forwarded_for: str) -> tuple[int, Any]:
    """``POST /v1/games`` from ``source`` (a loopback address) with ``X-Forwarded-For``."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=2 * PROMPTLY, source_address=(source, 0)
    )
    headers = {"Content-Type": "application/json", "X-Forwarded-For": forwarded_for}
    try:
        connection.request("POST", "/v1/games", json.dumps(PEOPLE), headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


@pytest.mark.processes
def test_floe_run_counts_the_client_a_trusted_proxy_names_and_logs_it(tmp_path: Path) -> None:
    env = {"FLOE_TRUSTED_PROXIES": "127.0.0.1", "FLOE_LIVE_GAMES_PER_CREATOR": "1"}
    with floe_run(tmp_path, env) as run:
        proxy, stranger = "127.0.0.1", "127.0.0.2"
        assert post_game(run.port, proxy, ANN)[0] == 201
        assert post_game(run.port, proxy, BO)[0] == 201
        status, body = post_game(run.port, proxy, ANN)
        assert (status, body["error"]["code"]) == (429, "live_game_quota")
        assert post_game(run.port, stranger, CY)[0] == 201
        status, body = post_game(run.port, stranger, "203.0.113.4")
        assert (status, body["error"]["code"]) == (429, "live_game_quota"), "header ignored"
        # gunicorn's access log names the client the proxy forwarded, and the stranger.
        wait_until(
            lambda: f"\n{BO} - - [" in run.log() and f"\n{stranger} - - [" in run.log(),
            PROMPTLY,
            "the access log's lines",
        )
        assert f"\n{CY} - - [" not in run.log(), "the stranger's claim is not logged as fact"


#: Over the 64 KiB of an ordinary body, so ``floe run``'s edge admits it as an upload.
UPLOAD = b"not an export, but large enough to be taken as an upload\n" * 2000


def post_upload(port: int, source: str, forwarded_for: str) -> tuple[int, Any]:
    """``POST /v1/replays`` of ``UPLOAD``, whole, from ``source`` with ``X-Forwarded-For``."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=2 * PROMPTLY, source_address=(source, 0)
    )
    headers = {"Content-Type": "application/x-ndjson", "X-Forwarded-For": forwarded_for}
    try:
        connection.request("POST", "/v1/replays", UPLOAD, headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def start_upload(port: int, source: str, forwarded_for: str) -> socket.socket:
    """An upload of 2 MiB of which one byte is sent: it holds its place until closed."""
    sock = connect(port, source)
    head = (
        "POST /v1/replays HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n"
        f"X-Forwarded-For: {forwarded_for}\r\nContent-Length: {2 * 1024 * 1024}\r\n\r\n"
    )
    sock.sendall(head.encode() + b"{")
    return sock


def holds_its_upload(port: int, source: str, forwarded_for: str) -> bool:
    """Whether a second upload from ``source`` claiming ``forwarded_for`` is refused as that
    client's second (the first is admitted once the server has begun on it: until then this
    one may be, and is judged, so the wait is on the refusal)."""
    status, body = post_upload(port, source, forwarded_for)
    return status == 429 and body["error"]["code"] == "upload_in_flight"


@pytest.mark.processes
def test_floe_run_admits_uploads_per_forwarded_client(tmp_path: Path) -> None:
    """With one upload per address, two clients of one trusted proxy upload at once; a
    stranger's header is still ignored, so its second upload is its second, whatever it says."""
    env = {
        "FLOE_TRUSTED_PROXIES": "127.0.0.1",
        "FLOE_UPLOADS_PER_ADDRESS": "1",
        "FLOE_WEB_WORKERS": "1",  # uploads are admitted per process: one makes it exact
        "FLOE_BODY_TIMEOUT_SECONDS": "600",  # a held upload is never cut during the test
    }
    with floe_run(tmp_path, env) as run:
        proxy, stranger = "127.0.0.1", "127.0.0.2"
        anns = start_upload(run.port, proxy, ANN)
        try:
            wait_until(lambda: holds_its_upload(run.port, proxy, ANN), PROMPTLY, "Ann's upload")
            status, body = post_upload(run.port, proxy, BO)
            assert (status, "verdict" in body) == (200, True), body  # read and judged
        finally:
            anns.close()
        strangers = start_upload(run.port, stranger, CY)
        try:
            wait_until(
                lambda: holds_its_upload(run.port, stranger, "203.0.113.4"),
                PROMPTLY,
                "the stranger's second upload refused, whoever it claims to be",
            )
            assert post_upload(run.port, proxy, CY)[0] == 200, "Cy was never counted"
        finally:
            strangers.close()
        assert call(run.port, "GET", "/v1/health", source=proxy)[0] == 200
