"""Bot replay: ``floe replay verify`` makes every bot seat's move again and requires the logged
one; a forged bot move fails naming the seat, its kind, the version and both moves;
``--no-bot-replay`` skips it and says so; a person's seat is never replayed.

The logs are played in process as the service writes them (``tests.support.bots``);
``tests/e2e/test_bot_replay.py`` does the same with games played by real workers.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from domain.engine.canonical import canonical_json
from replay.bots import BotReplay, BotSeat
from replay.tournament import audit_tournament
from replay.verify import verify
from tests.support.bots import forge_move, moves_by_seat, service_log
from tests.support.replay_cli import floe, rechain, write_events
from tests.support.tournament_exports import build

#: Each catalog game with a bot of every kind, kept short by its options.
GAMES: dict[str, tuple[str, list[str | None], dict[str, Any]]] = {
    "arktia": ("arktia", ["random", "greedy", "mcts"], {"turn_limit": 16}),
    "iceberg": ("iceberg", ["random", "greedy", "mcts"], {"idle_turn_limit": 4}),
    "ice-breakers": ("ice-breakers", ["random", "greedy", "mcts"], {"intro": True}),
    "ice-breakers-plan": ("ice-breakers", ["greedy", "mcts"], {"intro": True}),
}


@cache
def log_of(name: str) -> list[dict[str, Any]]:
    game, seats, options = GAMES[name]
    return service_log(game, seats, f"replay-{name}", **options)


def a_bot_move(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    """A move of a ``kind`` bot about halfway through that was not its only choice."""
    kinds = {s["seat"]: s["bot"] for s in events[0]["data"]["seats"]}
    moves = [e for e in events if e["actor"] != "system" and kinds[e["actor"]] == kind]
    return moves[len(moves) // 2]


@pytest.mark.slow  # every bot move of a whole game thought again: 10-20 s for some games
@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_bot_move_is_made_again_and_matches(name: str) -> None:
    events = log_of(name)
    verdict = verify(events)
    assert verdict.status == "ok", verdict
    _, seats, _ = GAMES[name]
    moved = moves_by_seat(events)
    expected = tuple(BotSeat(i, str(kind), moved.get(i, 0)) for i, kind in enumerate(seats))
    assert verdict.bots == BotReplay("replayed", expected)
    assert sum(moved.values()) == verdict.bots.moves > 0
    seats_said = ", ".join(f"seat {i} ({kind})" for i, kind in enumerate(seats))
    assert str(verdict).endswith(f"; {verdict.bots.moves} bot moves re-derived: {seats_said})")


@pytest.mark.slow  # as above, up to the forged move
@pytest.mark.parametrize("kind", ["random", "greedy", "mcts"])
def test_a_forged_bot_move_fails_naming_seat_version_and_both_moves(kind: str) -> None:
    events = log_of("arktia")
    moved = a_bot_move(events, kind)
    version, seat = moved["version"], moved["actor"]
    forged, put_in = forge_move(events, version)
    assert verify(forged, bot_replay=False).status == "ok"  # legal, re-signed, seeded: honest
    verdict = verify(forged)
    assert (verdict.status, verdict.version) == ("failed", version)
    assert verdict.reason == (
        f"the bot of seat {seat} ({kind}) would have played "
        f"{canonical_json(moved['data']['action'])} at version {version}, the log says "
        f"{canonical_json(put_in)}"
    )


@pytest.mark.slow  # a whole game of bots played to make the log
def test_no_bot_replay_passes_the_forgery_and_says_so() -> None:
    events = log_of("iceberg")
    forged, _ = forge_move(events, a_bot_move(events, "greedy")["version"])
    verdict = verify(forged, bot_replay=False)
    assert verdict.status == "ok" and verdict.bots is not None
    assert verdict.bots.status == "skipped" and verdict.bots.moves == 0
    assert [(s.seat, s.kind) for s in verdict.bots.seats] == [
        (0, "random"),
        (1, "greedy"),
        (2, "mcts"),
    ]
    assert str(verdict).endswith(
        "; bot replay skipped (--no-bot-replay): seat 0 (random), seat 1 (greedy), seat 2 (mcts))"
    )


@pytest.mark.processes
def test_the_cli_names_the_forged_move_and_says_when_replay_was_skipped(tmp_path: Path) -> None:
    events = log_of("arktia")
    moved = a_bot_move(events, "greedy")
    forged, _ = forge_move(events, moved["version"])
    path = write_events(tmp_path / "forged.jsonl", forged)
    caught = floe("verify", str(path))
    assert caught.returncode == 1
    first = caught.stdout.splitlines()[0]
    assert (
        f"failed at version {moved['version']}: the bot of seat {moved['actor']} (greedy)" in first
    )
    skipped = floe("verify", "--no-bot-replay", str(path))
    assert skipped.returncode == 0, skipped.stdout
    assert "ok (" in skipped.stdout and "bot replay skipped (--no-bot-replay)" in skipped.stdout
    as_json = json.loads(floe("verify", "--json", "--no-bot-replay", str(path)).stdout)
    assert as_json["status"] == "ok"
    assert as_json["bot_replay"] == {
        "status": "skipped",
        "moves": 0,
        "seats": [
            {"seat": 0, "bot": "random", "moves": 0},
            {"seat": 1, "bot": "greedy", "moves": 0},
            {"seat": 2, "bot": "mcts", "moves": 0},
        ],
    }
    shown = floe("show", "--no-bot-replay", str(path))
    assert shown.returncode == 0 and "!! bot replay skipped" in shown.stdout


def test_a_persons_seat_is_never_replayed() -> None:
    events = service_log("arktia", [None, "greedy"], "person-and-bot", turn_limit=20)
    moved = moves_by_seat(events)
    assert moved[0] > 0 and moved[1] > 0
    verdict = verify(events)  # the person's moves are random: no bot would make them all
    assert verdict.status == "ok", verdict
    assert verdict.bots == BotReplay("replayed", (BotSeat(1, "greedy", moved[1]),))
    # Another of the person's moves, the game played on honestly: nothing can tell.
    person = [e for e in events if e["actor"] == 0]
    forged, _ = forge_move(events, person[len(person) // 2]["version"])
    assert verify(forged).status == "ok"


def test_a_game_of_people_has_nothing_to_replay() -> None:
    verdict = verify(service_log("iceberg", [None, None], "people-only"))
    assert verdict.status == "ok" and verdict.bots == BotReplay("no_bots", ())
    assert str(verdict).endswith(
        " events; seats 0 and 1 unsigned: their moves rest on the host's word)"
    )  # nothing said about bots


def test_a_game_not_over_cannot_be_replayed_yet_and_does_not_fail() -> None:
    events = log_of("arktia")
    cut = events[: len(events) // 2]
    verdict = verify(cut)
    assert verdict.status == "incomplete" and verdict.bots is not None
    assert verdict.bots.status == "no_seed" and verdict.bots.moves == 0
    assert "bot moves not re-derived, no seed revealed: seat 0 (random)" in str(verdict)


def test_a_bot_of_a_kind_floe_does_not_have_fails_where_it_moves() -> None:
    events = [dict(e) for e in log_of("arktia")]
    events[0] = {**events[0], "data": {**events[0]["data"]}}
    seats = [dict(s) for s in events[0]["data"]["seats"]]
    seats[1]["bot"] = "oracle"
    events[0]["data"]["seats"] = seats
    forged = rechain(events)
    first = next(e for e in forged if e["actor"] == 1)
    verdict = verify(forged)
    assert (verdict.status, verdict.version) == ("failed", first["version"])
    assert verdict.reason == (
        "the bot of seat 1 (oracle) is no bot Floe plays (greedy, mcts, random), so it cannot "
        "have moved"
    )


def test_a_tournament_audit_replays_its_bots_unless_told_not_to() -> None:
    export = build("iceberg", "swiss", ["Ada", "Bo", ("Cy", "greedy")], rounds=3, seed=7)
    audited = audit_tournament(export.lines())
    assert audited.status == "ok"
    bots = [g.verdict.bots for g in audited.games if g.verdict.bots is not None]
    assert {b.status for b in bots} == {"replayed", "no_bots"}  # Cy's games, Ada against Bo
    assert sum(b.moves for b in bots) > 0
    skipped = audit_tournament(export.lines(), bot_replay=False)
    assert skipped.status == "ok"
    statuses = {g.verdict.bots.status for g in skipped.games if g.verdict.bots is not None}
    assert statuses == {"skipped", "no_bots"}


@pytest.mark.processes
def test_the_cli_says_a_tournaments_bot_replay_in_json_and_when_skipped(tmp_path: Path) -> None:
    export = build("iceberg", "swiss", ["Ada", "Bo", ("Cy", "greedy")], rounds=3, seed=7)
    path = export.write(tmp_path / "t.ndjson")
    document = json.loads(floe("verify", "--json", str(path)).stdout)
    assert document["status"] == "ok"
    statuses = [g["bot_replay"]["status"] for g in document["games"]]
    with_bots = statuses.count("replayed")  # Cy's games; Ada against Bo has none
    assert with_bots and set(statuses) <= {"replayed", "no_bots"}
    assert document["bot_replay"]["status"] == "replayed"
    assert document["bot_replay"]["games"] == document["bot_replay"]["replayed"] == with_bots
    skipped = floe("verify", "--no-bot-replay", str(path))
    assert skipped.returncode == 0, skipped.stdout
    lines = skipped.stdout.splitlines()
    assert (
        lines[-2] == f"{path} bot replay skipped (--no-bot-replay) in {with_bots} games with bots"
    )
