"""Receipts over HTTP: every answer to an action (201 and 202) or a decision, and every
streamed event, carries the service's receipt for each event it shows, signed by the key
``GET /v1/keys`` lists, marking the very hash the export reveals at the end; a rotation keeps
old receipts checkable; ``floe run`` gives every part one key, kept in its data directory."""

from __future__ import annotations

import json
import random
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.engine.signing import receipt_mark, receipt_message
from replay.cli import main as replay
from replay.ed25519 import signature_is_valid
from service.api.app import create_app
from service.keys.service_key import load, rotate
from service.settings import Settings
from service.store.events import RedisEventStore, events_key
from tests.support.api import ORGANIZER, Game, bearer
from tests.support.floe_run import call, floe_run
from tests.support.iceberg import start_and_roll
from tests.support.waiting import PROMPTLY
from tests.support.workers import StartWorker

NewGame = Callable[..., Game]
Receipt = dict[str, Any]


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    return tmp_path / "keys" / "service.key"


@pytest.fixture
def app(redis_url: str, key_file: Path) -> Flask:
    """The API signing with the key in ``key_file`` (made by the first app built on it)."""
    return create_app(Settings(redis_url=redis_url, organizer_token=ORGANIZER, **keyed(key_file)))


def keyed(key_file: Path) -> dict[str, Any]:
    return {"service_key_file": key_file}


def listed_keys(client: FlaskClient) -> list[dict[str, Any]]:
    response = client.get("/v1/keys")
    assert response.status_code == 200
    keys: list[dict[str, Any]] = response.get_json()["keys"]
    return keys


def current_key(client: FlaskClient) -> str:
    [current] = [str(k["public_key"]) for k in listed_keys(client) if k["current"]]
    return current


def signed_by(key: str, game_id: str, receipt: Receipt) -> bool:
    message = receipt_message(game_id, receipt["version"], receipt["mark"])
    return signature_is_valid(key, message, receipt["signature"])


def answered(answer: dict[str, Any]) -> list[Receipt]:
    """An accepted answer's receipts, one per event it shows, in its order."""
    receipts: list[Receipt] = answer["receipts"]
    assert [r["version"] for r in receipts] == [e["version"] for e in answer["events"]]
    assert all(set(r) == {"version", "mark", "signature"} for r in receipts)
    return receipts


def streamed(client: FlaskClient, url: str) -> list[dict[str, Any]]:
    """The events of a Server-Sent Events answer (its ``data``), in order."""
    response = client.get(url)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    return [
        json.loads(line.removeprefix("data: "))
        for line in response.get_data(as_text=True).splitlines()
        if line.startswith("data: ")
    ]


def play_out(game: Game, rng: random.Random) -> list[dict[str, Any]]:
    """Every answer of a game played from legal actions to its end (all 201)."""
    answers = []
    while (view := game.view())["status"] != "over":
        seat = rng.choice(view["to_act"])
        legal = game.legal(seat)
        weights = [0.1 if a["type"] == "retire" else 1.0 for a in legal["actions"]]
        response = game.post(seat, rng.choices(legal["actions"], weights)[0], legal["version"])
        assert response.status_code == 201, response.get_json()
        answers.append(response.get_json())
    return answers


def test_every_answer_and_streamed_event_of_a_game_carries_a_receipt_the_export_confirms(
    client: FlaskClient,
    new_game: NewGame,
    key_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = new_game()
    answers = play_out(game, random.Random(25))
    key = current_key(client)
    assert key == load(key_file).public_key
    kept = [r for answer in answers for r in answered(answer)]
    assert len(kept) > 10 and all(signed_by(key, game.id, r) for r in kept)

    text = game.get("/export").get_data(as_text=True)
    export = [json.loads(line) for line in text.splitlines()]
    seed = bytes.fromhex(export[-1]["data"]["seed"])
    for receipt in kept:  # the marks hide the very hashes the export reveals
        assert receipt["mark"] == receipt_mark(seed, export[receipt["version"] - 1]["hash"])
    assert kept[-1]["version"] == len(export) and export[-1]["type"] == "seed_revealed"

    stream = streamed(client, f"/v1/games/{game.id}/events/stream")
    assert [e["version"] for e in stream] == list(range(1, len(export) + 1))
    for event in stream:
        receipt = event["receipt"]
        assert receipt["version"] == event["version"] and signed_by(key, game.id, receipt)
        assert receipt["mark"] == receipt_mark(seed, event["hash"])
    by_version = {r["version"]: r for r in kept}
    assert all(e["receipt"] == by_version[e["version"]] for e in stream[1:]), "deterministic"

    last = answers[-1]["events"][0]  # a repeated command answers with the same receipts
    repeat = game.post(last["actor"], last["data"]["action"], last["version"] - 1)
    assert repeat.status_code == 201 and repeat.get_json() == answers[-1]

    # what a player kept, held against the export by the audit
    files = {
        "game.jsonl": "".join(json.dumps(e) + "\n" for e in export),
        "receipts.jsonl": "".join(json.dumps({"game_id": game.id, **r}) + "\n" for r in kept),
        "keys.json": json.dumps(client.get("/v1/keys").get_json()),
    }
    kept_by_player = tmp_path / "player"
    kept_by_player.mkdir()
    for name, text in files.items():
        (kept_by_player / name).write_text(text, encoding="utf-8")
    audit = ["verify", str(kept_by_player / "game.jsonl"), "--no-progress", "--json"]
    audit += ["--receipts", str(kept_by_player / "receipts.jsonl")]
    assert replay([*audit, "--keys", str(kept_by_player / "keys.json")]) == 0
    verdict, closing = map(json.loads, capsys.readouterr().out.splitlines())
    assert verdict["status"] == "ok"
    [found] = verdict["receipts"]
    assert found["confirmed"] == sorted({r["version"] for r in kept})
    assert found["contradicted"] == [] and found["not_the_services"] == []
    assert closing["receipts"]["other_games"] == [] and closing["receipts"]["unreadable"] == []


def test_a_202_and_the_workers_draw_carry_receipts_of_the_stored_events(
    new_game: NewGame,
    start_worker: StartWorker,
    redis_url: str,
    redis_client: redis.Redis,
    key_file: Path,
    client: FlaskClient,
) -> None:
    start_worker()
    game = new_game(2, "iceberg")
    roll = start_and_roll(game)
    [receipt] = answered(roll.get_json())
    key = current_key(client)
    assert receipt["version"] == 5 and signed_by(key, game.id, receipt)
    assert redis_client.xread({events_key(game.id): "0-5"}, block=int(PROMPTLY * 1000))

    # the worker's draw, streamed (an app whose streams end soon: the game is not over)
    short = Settings(
        redis_url=redis_url,
        sse_max_seconds=0.5,
        sse_heartbeat_seconds=0.1,
        **keyed(key_file),
    )
    stream = streamed(create_app(short).test_client(), f"/v1/games/{game.id}/events/stream")
    assert [e["version"] for e in stream][:6] == [1, 2, 3, 4, 5, 6]
    assert stream[5]["type"] == "random" and "hash" not in stream[5]
    store = RedisEventStore(redis_client)
    seed = bytes.fromhex(store.seed(game.id))
    for event, stored in zip(stream, store.read(game.id), strict=False):
        assert signed_by(key, game.id, event["receipt"])
        assert event["receipt"]["mark"] == receipt_mark(seed, stored.hash)
    assert stream[4]["receipt"] == receipt
    waited = game.post(1, {"type": "roll"}, 6, "r2", wait=30)  # the roll and the worker's die
    assert waited.status_code == 201
    rolled = answered(waited.get_json())
    assert [r["version"] for r in rolled] == [7, 8]
    for kept, stored in zip(rolled, store.read(game.id, after=6), strict=True):
        assert signed_by(key, game.id, kept) and kept["mark"] == receipt_mark(seed, stored.hash)


def test_an_organizers_decision_answers_with_receipts(
    client: FlaskClient, new_game: NewGame
) -> None:
    game = new_game(3)
    body = {"decision": "forfeit", "seat": 2, "reason": "did not show up"}
    response = client.post(f"/v1/games/{game.id}/decisions", json=body, headers=bearer(ORGANIZER))
    assert response.status_code == 201
    receipts = answered(response.get_json())
    assert receipts and all(signed_by(current_key(client), game.id, r) for r in receipts)


def test_after_a_rotation_old_receipts_stay_checkable_under_a_listed_old_key(
    redis_url: str, key_file: Path, new_game: NewGame, client: FlaskClient
) -> None:
    game = new_game()
    mover = game.view()["to_act"][0]
    first = game.legal(mover)
    before = game.post(mover, first["actions"][0], first["version"]).get_json()
    old = current_key(client)
    retired, new = rotate(key_file, at="2026-11-28T12:00:00Z")
    assert retired == old
    assert current_key(client) == old, "a running process keeps its key until restarted"

    restarted = create_app(Settings(redis_url=redis_url, **keyed(key_file))).test_client()
    assert listed_keys(restarted) == [
        {"public_key": new, "current": True},
        {"public_key": old, "current": False},
    ]
    [kept] = answered(before)
    assert signed_by(old, game.id, kept) and not signed_by(new, game.id, kept)
    later = Game(restarted, game.id, game.tokens)
    seat = later.view()["to_act"][0]
    legal = later.legal(seat)
    [fresh] = answered(later.post(seat, legal["actions"][0], legal["version"]).get_json())
    assert signed_by(new, game.id, fresh) and not signed_by(old, game.id, fresh)
    again = later.post(mover, first["actions"][0], first["version"])
    [resigned] = answered(again.get_json())  # the same event, signed again by the new key
    assert resigned["mark"] == kept["mark"] and resigned["signature"] != kept["signature"]
    assert signed_by(new, game.id, resigned)


def test_apps_built_in_code_without_a_key_file_sign_with_a_key_of_their_own(
    redis_url: str,
) -> None:
    one = create_app(Settings(redis_url=redis_url)).test_client()
    two = create_app(Settings(redis_url=redis_url)).test_client()
    assert [k["current"] for k in listed_keys(one)] == [True]
    assert current_key(one) != current_key(two)
    assert one.get("/v1/keys?x=1").status_code == 400


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A data directory with a short path (a unix socket's path is at most ~100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="floe-keys-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.processes
@pytest.mark.slow
def test_floe_run_gives_every_part_the_one_key_in_its_data_directory(short_dir: Path) -> None:
    with floe_run(short_dir, {"FLOE_WEB_WORKERS": "2"}) as run:
        key_file = short_dir / "keys" / "service.key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        public = load(key_file).public_key
        assert f"floe: key     {public}" in run.log()
        for pid in [*run.api_workers(), *run.worker_pids()]:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            assert f"FLOE_SERVICE_KEY_FILE={key_file}".encode() in environ, pid
        for _ in range(4):  # fresh connections, whichever API process answers
            status, body, _ = call(run.port, "GET", "/v1/keys")
            assert (status, body) == (200, {"keys": [{"public_key": public, "current": True}]})
