"""``POST /v1/replays`` on a tournament export: one verdict for the set, the tournament
audit's (bots not replayed), never a single game's ``failed`` ("extra: tournament")."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from flask.testing import FlaskClient

from replay.tournament import audit_tournament
from tests.support.replay_cli import rechain
from tests.support.tournament_exports import Export, build


@cache
def swiss() -> Export:
    """Iceberg, 3 players (a bye each round) and a bot, 2 rounds."""
    return build("iceberg", "swiss", ["Ada", "Bo", ("Cy", "random")], rounds=2, seed=3)


def upload(client: FlaskClient, lines: list[str], query: str = "") -> Any:
    body = "".join(line + "\n" for line in lines)
    answer = client.post(f"/v1/replays{query}", data=body, content_type="application/x-ndjson")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return answer.get_json()


def test_a_genuine_tournament_export_is_ok_as_a_set(client: FlaskClient) -> None:
    lines = swiss().lines()
    answer = upload(client, lines, "?from=1&count=5")
    assert set(answer) == {"kind", "verdict"} and answer["kind"] == "tournament"
    expected = audit_tournament(lines, bot_replay=False).to_json()
    del expected["file"]
    assert answer["verdict"] == expected
    assert answer["verdict"]["status"] == "ok"
    assert len(answer["verdict"]["games"]) == len(swiss().games)


def test_a_tampered_tournament_export_fails_saying_where(client: FlaskClient) -> None:
    export = swiss().copy()
    index = export.index(1, 1)
    log = export.games[index]
    over = next(e for e in log if e["type"] == "game_over")
    over["data"]["winners"] = [1] if over["data"]["winners"] == [0] else [0]
    export.games[index] = rechain(log)
    answer = upload(client, export.lines())
    verdict = answer["verdict"]
    assert (answer["kind"], verdict["status"]) == ("tournament", "failed")
    game = verdict["games"][0]
    assert (game["round"], game["table"], game["status"]) == (1, 1, "failed")
    assert game["reason"].startswith("the rules call for game_over with {")


def test_a_single_games_answer_says_it_is_one(client: FlaskClient) -> None:
    lines = [json.dumps(e) for e in swiss().log(1, 1)]
    answer = upload(client, lines, "?count=1")
    assert answer["kind"] == "game" and answer["verdict"]["status"] == "ok"
    assert answer["last"] == len(lines) and len(answer["boards"]) == 1
