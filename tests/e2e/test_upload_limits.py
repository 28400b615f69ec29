"""``POST /v1/replays`` under pressure: junk refused early, the pool's and the address's
limits, deadlines, children replaced, the answer's size bounded, health served meanwhile.

The app runs on the suite's Redis with its real upload pool (child processes); jobs are held
in their child by the test gate (``tests.support.uploads.Gate``), never by sleeping.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.games.arktia.setup import MAX_BOARD_TILES
from service.api.app import create_app
from service.api.replays import MAX_REPLAY_BYTES
from service.limits.rate_limits import BYTES_PER_UNIT, body_units
from service.settings import Settings
from service.uploads.answer import MAX_BOARD_BYTES, MAX_LINES
from service.uploads.pool import UploadPool
from tests.support.api import ORGANIZER
from tests.support.boards import hexagonish
from tests.support.floe_run import floe_run
from tests.support.uploads import GATE_ENV, NDJSON, Gate, fit, long_export
from tests.support.waiting import PROMPTLY, wait_until

MakeApp = Callable[..., Flask]
JUNK_LINE = b"0\n"


@pytest.fixture
def make_app(redis_url: str) -> Iterator[MakeApp]:
    apps: list[Flask] = []

    def make(**settings: Any) -> Flask:
        app = create_app(Settings(redis_url=redis_url, organizer_token=ORGANIZER, **settings))
        apps.append(app)
        return app

    yield make
    for app in apps:
        pool = app.extensions.get("floe_uploads")
        if isinstance(pool, UploadPool):
            pool.close()


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """Every upload child started while this is set holds each job at the gate."""
    held = Gate(tmp_path / "gate")
    monkeypatch.setenv(GATE_ENV, str(held.path))
    yield held
    held.release_all()


def upload(client: FlaskClient, body: bytes, address: str = "127.0.0.1", query: str = "") -> Any:
    return client.post(
        f"/v1/replays{query}", data=body, headers=NDJSON, environ_base={"REMOTE_ADDR": address}
    )


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.get_data()[:300])
    error: dict[str, Any] = response.get_json()["error"]
    assert error["code"] == code, error
    return error


def pool_of(app: Flask) -> UploadPool:
    pool = app.extensions["floe_uploads"]
    assert isinstance(pool, UploadPool)
    return pool


def test_a_junk_file_is_judged_at_its_first_line_and_one_over_the_line_cap_refused(
    make_app: MakeApp,
) -> None:
    """The review's file (2 MiB of ``0`` lines) is 413 ``too_many_lines`` before any line is
    parsed; the same junk under the cap gets the verdict the audit always gave it."""
    client = make_app().test_client()
    review = JUNK_LINE * 1048568
    error = refused(upload(client, review), 413, "too_many_lines")
    assert str(MAX_LINES) in error["message"]
    under = upload(client, JUNK_LINE * (MAX_LINES - 1))
    assert under.status_code == 200
    verdict = under.get_json()["verdict"]
    assert (verdict["status"], verdict["version"]) == ("failed", 1)
    assert verdict["reason"] == "not a stored event but a JSON number"
    assert verdict["events"] == MAX_LINES - 1  # every line counted, as the full read did
    refused(upload(client, b"\n" * (MAX_LINES + 1)), 413, "too_many_lines")  # blank ones too
    assert upload(client, b"\n" * MAX_LINES).get_json()["verdict"]["status"] == "failed"


def test_an_upload_costs_the_rate_limit_by_its_size(make_app: MakeApp) -> None:
    """One request plus one unit per 64 KiB: two uploads of 1 MiB fit 40 a window, the
    third does not, though three requests would."""
    assert body_units(0) == 1 and body_units(BYTES_PER_UNIT) == 2
    client = make_app(rate_limit_per_address=40, rate_limit_per_token=0).test_client()
    body = JUNK_LINE + b" " * (1024 * 1024 - len(JUNK_LINE))
    assert body_units(len(body)) == 17
    for _ in range(2):
        assert upload(client, body).status_code == 200
    refused(upload(client, body), 429, "rate_limited")
    other = upload(client, body, address="127.0.0.2")  # another address has its own window
    assert other.status_code == 200


def test_a_second_upload_from_one_address_is_429_while_the_first_is_audited(
    make_app: MakeApp, gate: Gate
) -> None:
    app = make_app()
    body = long_export(40)
    with ThreadPoolExecutor(2) as threads:
        first = threads.submit(upload, app.test_client(), body, "127.0.0.7")
        with gate.hold():
            again = upload(app.test_client(), body, "127.0.0.7")
            error = refused(again, 429, "upload_in_flight")
            assert "FLOE_UPLOADS_PER_ADDRESS" in error["message"]
            assert int(again.headers["Retry-After"]) >= 1
            assert not first.done()
        answer = first.result(timeout=PROMPTLY)
    assert answer.status_code == 200 and answer.get_json()["verdict"]["status"] == "incomplete"


def _released(gate: Gate, futures: list[Future[Any]]) -> bool:
    gate.release_all()
    return all(future.done() for future in futures)


def test_a_full_pool_and_queue_is_503_with_retry_after(make_app: MakeApp, gate: Gate) -> None:
    """One child (``FLOE_UPLOAD_WORKERS=1``) and two waiting: the fourth upload is refused
    at once; once the held one is released, every waiting one is answered."""
    app = make_app(upload_workers=1)
    body = long_export(20)
    with ThreadPoolExecutor(3) as threads:
        running = threads.submit(upload, app.test_client(), body, "127.0.1.1")
        with gate.hold():
            waiting = [
                threads.submit(upload, app.test_client(), body, f"127.0.1.{n}") for n in (2, 3)
            ]
            wait_until(lambda: pool_of(app).load() == (1, 2), PROMPTLY, "two uploads waiting")
            busy = upload(app.test_client(), body, "127.0.1.4")
            error = refused(busy, 503, "uploads_busy")
            assert int(busy.headers["Retry-After"]) >= 1 and "1 at once" in error["message"]
        every = [running, *waiting]
        wait_until(lambda: _released(gate, every), PROMPTLY, "the queued uploads answered")
    assert [future.result().status_code for future in every] == [200, 200, 200]


def test_a_job_past_its_deadline_is_503_and_its_child_replaced(
    make_app: MakeApp, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(upload_seconds=2.0)
    client = app.test_client()
    slow = upload(client, long_export(20))  # held at the gate past its two seconds
    refused(slow, 503, "upload_too_slow")
    assert pool_of(app).pids() == []  # killed, and reaped
    monkeypatch.delenv(GATE_ENV)  # the replacement holds nothing
    assert upload(client, long_export(20)).status_code == 200
    assert len(pool_of(app).pids()) == 1


def test_a_killed_child_is_replaced_and_the_next_upload_answers(
    make_app: MakeApp, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    body = long_export(20)
    with ThreadPoolExecutor(1) as threads:
        held = threads.submit(upload, app.test_client(), body)
        with gate.hold():
            [pid] = pool_of(app).pids()
            os.kill(pid, signal.SIGKILL)  # mid-job
            refused(held.result(timeout=PROMPTLY), 503, "upload_interrupted")
    monkeypatch.delenv(GATE_ENV)
    client = app.test_client()
    assert upload(client, body).status_code == 200
    [idle] = pool_of(app).pids()
    assert idle != pid
    os.kill(idle, signal.SIGKILL)  # idle: found dead at the next job
    wait_until(lambda: pool_of(app).pids() == [], PROMPTLY, "the idle child to die")
    assert upload(client, body).status_code == 200
    assert pool_of(app).pids() not in ([], [idle])


def test_the_answer_of_a_hostile_valid_export_stays_within_its_bound(make_app: MakeApp) -> None:
    """A real game on the biggest board, 100 boards asked for: the boards stop at their
    byte budget and say where; the rest of the answer is the file's own size, twice at most.
    Asking from ``next_board`` gets the boards left out."""
    client = make_app().test_client()
    export = fit(long_export(1500, {"board": hexagonish(MAX_BOARD_TILES)}), MAX_REPLAY_BYTES)
    answer = upload(client, export, query="?count=100")
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["verdict"]["status"] == "incomplete" and body["last"] > 100
    svg = sum(len(board["svg"].encode()) for board in body["boards"])
    first_svg = len(body["boards"][0]["svg"].encode())
    assert svg <= MAX_BOARD_BYTES + first_svg
    assert len(body["boards"]) < 100 and body["next_board"] == 1 + len(body["boards"])
    assert len(answer.get_data()) <= 2 * len(export) + MAX_BOARD_BYTES + first_svg
    more = upload(client, export, query=f"?from={body['next_board']}&count=1").get_json()
    assert [board["version"] for board in more["boards"]] == [body["next_board"]]
    assert more["next_board"] is None


def _post_upload(port: int, body: bytes) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PROMPTLY)
    try:
        connection.request("POST", "/v1/replays", body, NDJSON)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


@pytest.mark.processes
def test_health_answers_while_an_upload_is_audited_on_floe_run(tmp_path: Path) -> None:
    """One gunicorn worker, its upload held in the child: health is answered by that same
    worker while the upload has not been (its event loop was never blocked by it)."""
    gate = Gate(tmp_path / "gate")
    env = {GATE_ENV: str(gate.path), "FLOE_WEB_WORKERS": "1"}
    data = tmp_path / "data"
    data.mkdir()
    with floe_run(data, env) as run:
        answered: list[tuple[int, Any]] = []
        uploading = threading.Thread(
            target=lambda: answered.append(_post_upload(run.port, long_export(200)))
        )
        uploading.start()
        try:
            with gate.hold():
                for _ in range(3):
                    assert run.healthy()
                assert uploading.is_alive() and answered == []
        finally:
            gate.release_all()
            uploading.join(PROMPTLY)
        [(status, body)] = answered
        assert status == 200 and body["verdict"]["status"] == "incomplete"
