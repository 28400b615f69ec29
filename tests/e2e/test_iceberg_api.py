"""Iceberg over HTTP with real RQ workers: dice from the seed, hidden tiles, lost jobs.

Every draw here is made by a real ``floe worker`` process on the test Redis; the tests wait
on the stream (``?wait=``, XREAD BLOCK), never on a clock.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import re
import signal
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.api.app import create_app
from service.bootstrap import build
from service.settings import Settings
from service.store.events import events_key
from tests.support.api import ORGANIZER, Game, bearer
from tests.support.iceberg import roll_without_waiting, start_and_roll
from tests.support.waiting import PROMPTLY
from tests.support.workers import StartWorker

#: A blocking read's bound on the worker's next event (it comes at once when all is well).
WITHIN_MS = int(PROMPTLY * 1000)

NewGame = Callable[..., Game]


def design_draw(seed: bytes, game_id: str, version: int, kind: str, label: str, n: int) -> Any:
    """docs/reference/format.md's derivation written out again from the text, independent of our code."""

    def words() -> Any:
        counter = 0
        while True:
            message = f"{game_id}/{version}/{label}/{counter}".encode()
            block = hmac.new(seed, message, hashlib.sha256).digest()
            for i in range(0, 32, 4):
                yield int.from_bytes(block[i : i + 4], "big")
            counter += 1

    stream = words()

    def uniform(k: int) -> int:
        limit = (2**32 // k) * k
        word: int = next(w for w in stream if w < limit)
        return word % k

    def shuffle(k: int) -> list[int]:
        items = list(range(k))
        for i in range(k - 1, 0, -1):
            j = uniform(i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    if kind == "uniform":
        return uniform(n)
    if kind == "shuffle":
        return shuffle(n)
    while True:
        order = shuffle(n)
        if all(order[i] != i for i in range(n)):
            return order


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (3, 3), (3, 4), (4, 5), (4, 6)])
def test_a_game_is_played_to_the_end_with_dice_from_the_worker(
    worker: subprocess.Popen[bytes], new_game: NewGame, app: Flask, players: int, seed: int
) -> None:
    """The generic playthrough, over HTTP, with a real worker process drawing the dice."""
    game = new_game(players, "iceberg")
    assert game.view()["status"] == "active", "the setup draw came from the worker"
    rng = random.Random(seed)
    for seat in (0, 1):  # the starting coins, then a roll first so the dice path is always used
        start = game.legal(seat)
        assert game.post(seat, rng.choice(start["actions"]), start["version"]).status_code == 201
    for seat in range(2, players):
        start = game.legal(seat)
        assert game.post(seat, rng.choice(start["actions"]), start["version"]).status_code == 201
    first_roll = game.post(0, {"type": "roll"}, game.view()["version"])
    assert first_roll.status_code == 201
    assert [e["type"] for e in first_roll.get_json()["events"]][:2] == ["roll", "random"]
    rolls = 1
    while (view := game.view())["status"] != "over":
        seat = rng.choice(view["to_act"])
        legal = game.legal(seat)
        actions = legal["actions"]
        weights = [4.0 if a["type"] in ("roll", "flip") else 1.0 for a in actions]
        action = rng.choices(actions, weights)[0]
        response = game.post(seat, action, legal["version"])
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        if action["type"] == "roll":
            rolls += 1
            assert body["events"][1]["type"] == "random"
            assert body["events"][1]["data"]["label"] == "die"
    assert rolls > 0
    assert all(game.legal(s)["actions"] == [] for s in range(players))
    lines = game.get("/export").get_data(as_text=True).splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events[-2:]] == ["game_over", "seed_revealed"]
    refolded = create_app(app.config["FLOE_SETTINGS"]).test_client()  # an empty cache
    assert refolded.get(f"/v1/games/{game.id}").get_json() == game.view()
    revealed = bytes.fromhex(events[-1]["data"]["seed"])
    assert hashlib.sha256(revealed).hexdigest() == events[0]["data"]["seed_commitment"]
    draws = [e for e in events if e["type"] == "random"]
    assert draws[0]["data"]["label"] == "tiles" and draws[0]["version"] == 2
    for event in draws:
        data = event["data"]
        expected = design_draw(
            revealed, game.id, event["version"], data["kind"], data["label"], data["n"]
        )
        assert data["outcome"] == expected


def test_a_roll_is_202_until_the_worker_draws_then_the_die_is_public(
    client: FlaskClient, new_game: NewGame, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    start_worker()
    game = new_game(2, "iceberg")
    roll = start_and_roll(game)
    assert [e["type"] for e in roll.get_json()["events"]] == ["roll"]
    again = roll_without_waiting(game)
    assert again.status_code == 202 and again.get_json() == roll.get_json()
    entries = redis_client.xread({events_key(game.id): "0-5"}, block=WITHIN_MS)
    assert entries, "the worker recorded the die"
    die = game.get("/events?after=5").get_json()["events"][0]
    waited = game.post(1, {"type": "roll"}, 6, "r2", wait=30)
    assert waited.status_code == 201
    assert [e["type"] for e in waited.get_json()["events"]] == ["roll", "random"]
    repeated = game.post(1, {"type": "roll"}, 6, "r2", wait=30)
    assert (repeated.status_code, repeated.get_json()) == (201, waited.get_json())
    assert die["type"] == "random" and die["data"]["label"] == "die"
    assert isinstance(die["data"]["outcome"], int)  # dice are public at once


def test_the_tile_layout_reaches_nobody_before_the_end(
    worker: subprocess.Popen[bytes], new_game: NewGame, client: FlaskClient
) -> None:
    game = new_game(2, "iceberg")
    viewers: list[dict[str, str]] = [
        {},
        bearer(game.tokens[0]),
        bearer(game.tokens[1]),
        bearer(ORGANIZER),
    ]
    for headers in viewers:
        events = client.get(f"/v1/games/{game.id}/events", headers=headers).get_json()["events"]
        assert events[1]["type"] == "random" and events[1]["data"]["outcome"] is None
        assert all("hash" not in e for e in events)
        state = client.get(f"/v1/games/{game.id}", headers=headers).get_json()["state"]
        assert all("value" not in t for t in state["tiles"] if t["state"] == "face_down")
    stream = client.get(f"/v1/games/{game.id}/events/stream?after=1")
    chunks = iter(stream.response)
    first, second = next(chunks), next(chunks)  # the retry line, then event 1
    assert b"retry" in first and b'"outcome":null' in second
    stream.close()
    # The organizer's export is the full log; nobody else gets it before the end.
    assert (
        client.get(f"/v1/games/{game.id}/export", headers=bearer(game.tokens[0])).status_code == 403
    )
    full = client.get(f"/v1/games/{game.id}/export", headers=bearer(ORGANIZER)).get_data(
        as_text=True
    )
    assert json.loads(full.splitlines()[1])["data"]["outcome"] is not None


def _normalised(text: str, game_ids: list[str]) -> str:
    for number, game_id in enumerate(game_ids):
        text = text.replace(game_id, f"GAME{number}")
    text = re.sub(r'"at": ?"[^"]+"', '"at": "T"', text)
    text = re.sub(r'"seed_commitment": ?"[0-9a-f]{64}"', '"seed_commitment": "C"', text)
    # A receipt's mark is an HMAC keyed by the secret seed, and its signature signs the mark
    # and the game id: different in every game, telling nothing without the seed.
    text = re.sub(r'"(mark|signature)": ?"[0-9a-f]+"', r'"\1": "R"', text)
    return re.sub(r"GAME\d", "GAME", text)


def test_two_games_whose_seeds_differ_look_identical_until_the_first_flip(
    worker: subprocess.Popen[bytes], new_game: NewGame, client: FlaskClient
) -> None:
    games = [new_game(2, "iceberg", seed="01" * 32), new_game(2, "iceberg", seed="02" * 32)]
    ids = [g.id for g in games]
    script: list[tuple[int, dict[str, Any]]] = [
        (0, {"type": "place_start", "square": [3, 3]}),
        (1, {"type": "place_start", "square": [6, 6]}),
        (0, {"type": "play", "to": {"square": [0, 0]}}),
        (1, {"type": "move", "from": {"square": [6, 6]}, "to": {"square": [7, 6]}}),
        (0, {"type": "play", "to": {"square": [9, 9]}}),
    ]
    seen: list[list[str]] = [[], []]
    for seat, action in script:
        for number, game in enumerate(games):
            answer = game.post(seat, action)
            seen[number].append(_normalised(answer.get_data(as_text=True), ids))
    for number, game in enumerate(games):
        refusal = game.post(0, {"type": "flip", "tile": [2, 2]})  # the hole: an error text
        seen[number].append(_normalised(refusal.get_data(as_text=True), ids))
        for headers in ({}, bearer(game.tokens[0]), bearer(game.tokens[1])):
            for path in ("", "/events", "/state?version=2", "/state?version=4"):
                page = client.get(f"/v1/games/{game.id}{path}", headers=headers)
                seen[number].append(_normalised(page.get_data(as_text=True), ids))
            if headers:
                legal = client.get(f"/v1/games/{game.id}/legal-actions", headers=headers)
                seen[number].append(_normalised(legal.get_data(as_text=True), ids))
    assert seen[0] == seen[1]
    # ... and flips tell them apart: each flipped value is public at once. (Any one tile may
    # match by chance, 1 in 24, since game ids differ too; the layouts as a whole do not.)
    border = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (0, 1), (4, 1), (0, 2), (4, 2)]
    for turn, tile in enumerate(border):
        seat = 1 if turn % 2 == 0 else 0
        for game in games:
            assert game.post(seat, {"type": "flip", "tile": list(tile)}).status_code == 201
        shown = [
            next(t for t in g.view()["state"]["tiles"] if t["tile"] == list(tile)) for g in games
        ]
        assert all(t["state"] == "face_up" and "value" in t for t in shown)
        if shown[0] != shown[1]:
            break
    else:
        pytest.fail("nine flipped tiles matched in two different layouts")


def test_a_worker_killed_mid_draw_leaves_exactly_one_outcome(
    app: Flask, client: FlaskClient, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    doomed = start_worker(pause="before_draw")
    created = client.post(
        "/v1/games", json={"game": "iceberg", "players": [{"name": "a"}, {"name": "b"}]}
    ).get_json()
    game_id = created["id"]
    announced = redis_client.blpop([f"floe:fault:{{{game_id}}}:started"], timeout=PROMPTLY)
    assert announced is not None, "the worker picked the draw up"
    doomed.send_signal(signal.SIGKILL)
    doomed.wait(timeout=10)
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "awaiting_random"
    start_worker()  # a fresh worker; its sweeper finds the lost draw
    entries = redis_client.xread({events_key(game_id): "0-1"}, block=WITHIN_MS)
    assert entries, "the lost draw was made again"
    service = build(Settings(), redis_client=redis_client).automation
    assert service.resolve_draw(game_id, 1) == 0, "the old job, run again, writes nothing"
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    assert [e["type"] for e in events] == ["game_created", "random"]
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "active"
