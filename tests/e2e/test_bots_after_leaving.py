"""Bots play on after the person beside them leaves: a three-seat game of two bots and a
person, who moves once and then resigns (out of turn, while a bot may be thinking); a real
``floe worker`` plays the bots to the end, and the export verifies ``ok`` with every bot
move made again, the moves after the resignation included."""

from __future__ import annotations

import json
import random
import subprocess
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from replay.bots import BotReplay, BotSeat
from replay.verify import verify
from tests.support.api import ORGANIZER, Game, until_over
from tests.support.bots import moves_by_seat
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_for

#: The person sits between the bots, so the turn passes over the seat that left.
PERSON = 1
BOTS = {0: "greedy", 2: "random"}
#: Each game kept short by its options.
CASES = [("arktia", {"turn_limit": 16}), ("iceberg", {"idle_turn_limit": 4})]


def export(client: FlaskClient, game_id: str) -> list[dict[str, Any]]:
    answer = client.get(
        f"/v1/games/{game_id}/export", headers={"Authorization": f"Bearer {ORGANIZER}"}
    )
    assert answer.status_code == 200
    return [json.loads(line) for line in answer.get_data(as_text=True).splitlines()]


def resign(game: Game) -> int:
    """Post the person's resignation at the game's version now; its status (a bot's move or
    a draw may come first: 409, or 403 while a draw is awaited, and it is posted again)."""
    answer = game.post(PERSON, {"type": "resign"}, command_id=f"resign-{game.view()['version']}")
    status: int = answer.status_code
    assert status in (201, 403, 409), answer.get_json()
    return status


@pytest.mark.parametrize(("name", "options"), CASES, ids=[name for name, _ in CASES])
def test_two_bots_play_to_the_end_after_the_person_resigns(
    name: str,
    options: dict[str, Any],
    worker: subprocess.Popen[bytes],
    client: FlaskClient,
    redis_client: redis.Redis,
) -> None:
    players = [
        {"name": "Ann"} if seat == PERSON else {"name": f"bot{seat}", "bot": BOTS[seat]}
        for seat in range(3)
    ]
    created = client.post("/v1/games", json={"game": name, "players": players, "options": options})
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    game = Game(client, body["id"], [seat.get("token") or "" for seat in body["seats"]])
    # The person's turn (after the bots' and the setup draws), and one move of theirs.
    wait_for(game.view, lambda v: PERSON in v["to_act"], AT_LENGTH, "the person's turn")
    legal = game.legal(PERSON)
    move = random.Random(7).choice([a for a in legal["actions"] if a["type"] != "retire"])
    assert game.post(PERSON, move, legal["version"]).status_code in (201, 202)
    wait_for(lambda: resign(game), lambda status: status == 201, PROMPTLY, "the resignation")

    view = until_over(client, redis_client, game.id)
    assert view["left"] == [PERSON]
    assert PERSON not in view["outcome"]["winners"]
    events = export(client, game.id)
    [resigned] = [e for e in events if e["type"] == "resign"]
    assert resigned["actor"] == PERSON
    # The bots, and only they, played on (a bot whose own game ended first, by retiring say,
    # has no move left to make).
    after = moves_by_seat(events[resigned["version"] :])
    assert after and set(after) <= set(BOTS), f"moves after the resignation: {after}"
    verdict = verify(events)  # with bot replay: every bot move is made again
    assert verdict.status == "ok", verdict
    moved = moves_by_seat(events)
    assert moved[PERSON] == 2  # its move and its resignation
    seats = tuple(BotSeat(seat, kind, moved.get(seat, 0)) for seat, kind in BOTS.items())
    assert verdict.bots == BotReplay("replayed", seats)
