"""Clocks, resignation and organizers' decisions over HTTP, on a real Redis.

Most tests run the service in-process with a clock the test moves by hand
(``tests.support.clocks.ManualClock``), so "the deadline has passed" is a step of the test,
never a sleep; the draws a game waits for are made in-process by the same code a worker runs.
The tests at the end run real ``floe worker`` processes on real time: a one-second clock
runs out and a worker's timer records the timeout, also after the worker holding it is
SIGKILLed and after the queue Redis is SIGKILLed and started again, empty; and three workers
racing for the timers of many games time each out once.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from domain.engine.clock import epoch_seconds, iso
from domain.engine.log import event_hash
from replay.verify import verify
from service.api.app import create_app
from service.bootstrap import Floe
from service.jobs.timers import TIMERS_KEY
from service.run.redis_server import QUEUE_CONFIG, RedisServer
from service.settings import Settings
from tests.support.api import ORGANIZER, Game, bearer
from tests.support.clocks import ManualClock
from tests.support.paused_worker import announced
from tests.support.redis_binary import redis_server_binary
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_for
from tests.support.workers import StartWorker

GAMES = ["iceberg", "arktia", "ice-breakers"]
PER_MOVE = {"kind": "per_move", "move_s": 30}
FISCHER = {"kind": "fischer", "initial_s": 30, "increment_s": 10}
CLOCKS = {"per_move": PER_MOVE, "fischer": FISCHER}


Start = Callable[..., Game]


@pytest.fixture
def start(hand_client: FlaskClient, hand_floe: Floe) -> Start:
    """A game of ``seats`` people with ``clock``, its setup draws made."""

    def make(game: str, clock: dict[str, Any] | None = PER_MOVE, seats: int = 2) -> Game:
        body: dict[str, Any] = {"game": game, "players": [{"name": f"p{i}"} for i in range(seats)]}
        if clock is not None:
            body["clock"] = clock
        response = hand_client.post("/v1/games", json=body)
        assert response.status_code == 201, response.get_json()
        created = response.get_json()
        settle(hand_floe, created["id"])
        return Game(hand_client, created["id"], [s["token"] for s in created["seats"]])

    return make


def settle(floe: Floe, game_id: str) -> None:
    """Make the draws the game waits for, as a worker would (with the service's clock)."""
    while (view := view_of(floe, game_id))["status"] == "awaiting_random":
        floe.automation.resolve_draw(game_id, view["version"])


def view_of(floe: Floe, game_id: str) -> dict[str, Any]:
    meta = floe.repository.meta(game_id)
    return floe.queries.view(meta, floe.viewer(None))


def log_of(game: Game) -> list[dict[str, Any]]:
    response = game.get("/export", ORGANIZER)
    assert response.status_code == 200
    return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]


def first_move(game: Game, seat: int) -> dict[str, Any]:
    actions: list[dict[str, Any]] = game.legal(seat)["actions"]
    return next(a for a in actions if a["type"] != "retire")


def post(game: Game, seat: int, action: dict[str, Any], version: int) -> Any:
    body = {"action": action, "expected_version": version, "command_id": f"c-{version}-{seat}"}
    return game.client.post(
        f"/v1/games/{game.id}/actions", json=body, headers=bearer(game.tokens[seat])
    )


def decide(game: Game, body: Any, token: str | None = ORGANIZER) -> Any:
    headers = bearer(token) if token else {}
    return game.client.post(f"/v1/games/{game.id}/decisions", json=body, headers=headers)


# ----- clocks, in-process ------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(CLOCKS))
@pytest.mark.parametrize("name", GAMES)
def test_an_action_after_the_deadline_is_out_of_time_and_the_timeout_is_recorded(
    name: str, kind: str, start: Start, manual_clock: ManualClock, hand_floe: Floe
) -> None:
    game = start(name, CLOCKS[kind])
    view = game.view()
    [seat] = view["to_act"]
    deadline = view["clock"][str(seat)]["deadline"]
    assert deadline == iso(epoch_seconds(manual_clock()) + 30)
    action = first_move(game, seat)
    manual_clock.advance(31)
    refused = post(game, seat, action, view["version"])
    assert refused.status_code == 409
    assert refused.get_json()["error"]["code"] == "out_of_time"
    settle(hand_floe, game.id)
    log = log_of(game)
    timeout = log[view["version"]]  # the first event after the version the seat stood at
    assert (timeout["type"], timeout["actor"], timeout["data"]) == (
        "timeout",
        "system",
        {"seat": seat},
    )
    assert timeout["command_id"] is None
    assert epoch_seconds(timeout["at"]) == epoch_seconds(deadline) + 1
    after = game.view()
    assert after["left"] == [seat]
    if name != "ice-breakers":  # two seats, competitive: the other seat wins at once
        assert after["status"] == "over"
        assert after["outcome"] == {"winners": [1 - seat], "scores": {}}
        assert verify(log_of(game)).status == "ok"
    else:  # the team plays on, the timed-out seat's turns passing
        assert after["status"] == "active" and seat not in after["to_act"]
        assert verify(log_of(game)).status == "incomplete"


@pytest.mark.parametrize("name", GAMES)
def test_an_action_on_time_is_taken_and_the_view_shows_every_clock(
    name: str, start: Start, manual_clock: ManualClock
) -> None:
    game = start(name, FISCHER)
    view = game.view()
    [seat] = view["to_act"]
    assert set(view["clock"]) == {"0", "1"}
    assert view["clock"][str(1 - seat)] == {"remaining_s": 30, "deadline": None}
    manual_clock.advance(30)  # the deadline's own second is still on time
    accepted = post(game, seat, first_move(game, seat), view["version"])
    assert accepted.status_code in (201, 202), accepted.get_json()
    if name == "iceberg":
        return  # its first move may roll: the clock pauses for the die (unit-tested)
    mine = game.view()["clock"][str(seat)]
    assert mine["remaining_s"] == 10 or mine["deadline"] is not None  # 30 - 30 + 10


def test_a_seat_posting_while_another_owes_a_timeout_finds_the_game_moved_on(
    start: Start, manual_clock: ManualClock
) -> None:
    game = start("arktia", PER_MOVE)
    view = game.view()
    [seat] = view["to_act"]
    manual_clock.advance(31)
    refused = post(game, 1 - seat, {"type": "resign"}, view["version"])
    assert refused.status_code == 409
    assert refused.get_json()["error"]["code"] == "version_conflict"
    assert [e["type"] for e in log_of(game)][view["version"] :] == [
        "timeout",
        "game_over",
        "seed_revealed",
    ]
    assert game.view()["outcome"]["winners"] == [1 - seat]


def test_timers_racing_for_one_deadline_append_one_timeout(
    start: Start, manual_clock: ManualClock, hand_floe: Floe
) -> None:
    game = start("arktia", PER_MOVE, seats=3)
    version = game.view()["version"]
    manual_clock.advance(31)
    barrier = threading.Barrier(6)
    made: list[bool] = []

    def fire() -> None:
        barrier.wait()
        made.append(hand_floe.automation.time_out(game.id, version))

    threads = [threading.Thread(target=fire) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert made.count(True) == 1
    assert [e["type"] for e in log_of(game)].count("timeout") == 1


def test_a_game_without_a_clock_never_owes_a_timeout(
    start: Start, manual_clock: ManualClock, hand_floe: Floe
) -> None:
    game = start("arktia", None)
    view = game.view()
    assert view["clock"] is None
    assert "clock" not in log_of(game)[0]["data"]
    manual_clock.advance(10**7)
    assert not hand_floe.automation.time_out(game.id, view["version"])
    assert (
        post(
            game, view["to_act"][0], first_move(game, view["to_act"][0]), view["version"]
        ).status_code
        == 201
    )


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ({"kind": "fischer", "initial_s": 0, "increment_s": 5}, "invalid_clock"),
        ({"kind": "hourglass", "move_s": 5}, "invalid_clock"),
        ({"kind": "per_move", "move_s": "30"}, "invalid_clock"),
        ("per_move", "invalid_body"),
    ],
)
def test_a_clock_the_service_cannot_run_is_refused_and_nothing_is_stored(
    hand_client: FlaskClient, redis_client: redis.Redis, given: Any, code: str
) -> None:
    body = {"game": "arktia", "players": [{"name": "a"}, {"name": "b"}], "clock": given}
    response = hand_client.post("/v1/games", json=body)
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == code
    assert hand_client.get("/v1/games").get_json()["games"] == []


# ----- resigning and deciding --------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_resign_in_every_game(name: str, start: Start) -> None:
    game = start(name, None)
    view = game.view()
    seat = 1 - view["to_act"][0]  # out of turn
    assert all(a["type"] != "resign" for a in game.legal(view["to_act"][0])["actions"])
    accepted = post(game, seat, {"type": "resign"}, view["version"])
    assert accepted.status_code == 201, accepted.get_json()
    events = accepted.get_json()["events"]
    assert [(e["type"], e["actor"]) for e in events][:2] == [
        ("resign", seat),
        ("game_over", "system"),
    ]
    expected = {"winners": [1 - seat], "scores": {}} if name != "ice-breakers" else None
    outcome = game.view()["outcome"]
    if expected is not None:
        assert outcome == expected
    else:  # a resignation ends the co-operative game as a failure
        assert outcome["winners"] == [] and {"delivered", "in_play", "turns"} <= set(outcome)
    again = post(game, seat, {"type": "resign"}, game.view()["version"])
    assert again.status_code == 403
    assert again.get_json()["error"]["code"] == "game_over"
    assert verify(log_of(game)).status == "ok"


@pytest.mark.parametrize("name", GAMES)
def test_an_organizer_forfeits_a_seat_in_every_game(name: str, start: Start) -> None:
    game = start(name, PER_MOVE, seats=3)
    body = {"decision": "forfeit", "seat": 2, "reason": "did not show up"}
    accepted = decide(game, body)
    assert accepted.status_code == 201, accepted.get_json()
    event = accepted.get_json()["events"][0]
    assert (event["type"], event["actor"], event["data"]) == ("decision", "system", body)
    view = game.view()
    assert view["left"] == [2]
    if name == "ice-breakers":  # a forfeit counts as resigning: the team has failed
        assert view["status"] == "over" and view["outcome"]["winners"] == []
    else:
        assert view["status"] == "active" and 2 not in view["to_act"]
        again = decide(game, body)
        assert again.status_code == 422
        assert again.get_json()["error"]["code"] == "already_left"


@pytest.mark.parametrize("name", GAMES)
def test_an_organizer_decides_the_result_of_a_live_game_in_every_game(
    name: str, start: Start
) -> None:
    game = start(name, None)
    body = {"decision": "result", "winners": [1], "reason": "adjudicated"}
    accepted = decide(game, body)
    assert accepted.status_code == 201, accepted.get_json()
    assert [e["type"] for e in accepted.get_json()["events"]] == [
        "decision",
        "game_over",
        "seed_revealed",
    ]
    assert game.view()["outcome"] == {"winners": [1], "scores": {}}
    assert verify(log_of(game)).status == "ok"
    late = decide(game, body)
    assert late.status_code == 403
    assert late.get_json()["error"]["code"] == "game_over"


def test_a_decision_is_the_organizers_alone_and_must_be_well_formed(start: Start) -> None:
    game = start("arktia", None)
    forfeit = {"decision": "forfeit", "seat": 0, "reason": "x"}
    assert decide(game, forfeit, token=None).status_code == 401
    for body in (forfeit, ["not", "a", "decision"]):  # a seat is refused before its body
        seat = decide(game, body, token=game.tokens[0])
        assert seat.status_code == 403
        assert seat.get_json()["error"]["code"] == "organizer_only"
    for body, status, code in [
        ({"decision": "forfeit", "seat": 0}, 400, "missing_field"),
        ({"decision": "banish", "seat": 0, "reason": "x"}, 400, "unknown_decision"),
        ({"decision": "forfeit", "seat": 7, "reason": "x"}, 422, "unknown_seat"),
    ]:
        refused = decide(game, body)
        assert (refused.status_code, refused.get_json()["error"]["code"]) == (status, code)
    missing = game.client.post(
        "/v1/games/0000000000000000/decisions", json=forfeit, headers=bearer(ORGANIZER)
    )
    assert missing.status_code == 404
    assert len(log_of(game)) == 1


# ----- the audit of clocks -----------------------------------------------------------------


def rechained(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with their hash chain made again, as a host rewriting a log would."""
    prev = "0" * 64
    out = []
    for event in events:
        event = {**event, "prev_hash": prev}
        event.pop("hash", None)
        event["hash"] = prev = event_hash(event)
        out.append(event)
    return out


def timed_out_log(start: Start, manual_clock: ManualClock) -> list[dict[str, Any]]:
    """Arktia: seat 0 moves after 10 s; seat 1 lets its 30 s run out and times out."""
    game = start("arktia", PER_MOVE)
    view = game.view()
    manual_clock.advance(10)
    assert post(game, 0, first_move(game, 0), view["version"]).status_code == 201
    manual_clock.advance(31)
    assert post(game, 1, first_move(game, 1), view["version"] + 1).status_code == 409
    log = log_of(game)
    assert [e["type"] for e in log][-3:] == ["timeout", "game_over", "seed_revealed"]
    assert verify(log).status == "ok"
    return log


def test_a_timeout_moved_before_its_deadline_fails_the_audit(
    start: Start, manual_clock: ManualClock
) -> None:
    log = timed_out_log(start, manual_clock)
    for event in log[-3:]:
        event["at"] = iso(epoch_seconds(event["at"]) - 1)  # the deadline's own second
    verdict = verify(rechained(log))
    assert verdict.status == "failed" and verdict.version == len(log) - 2
    assert "not due" in (verdict.reason or "")


def test_an_action_moved_past_its_deadline_fails_the_audit(
    start: Start, manual_clock: ManualClock
) -> None:
    log = timed_out_log(start, manual_clock)
    move = len(log) - 4  # seat 0's move, 10 s into its 30
    log[move]["at"] = iso(epoch_seconds(log[move]["at"]) + 21)
    verdict = verify(rechained(log))
    assert verdict.status == "failed" and verdict.version == move + 1
    assert "after its time ran out" in (verdict.reason or "")


def test_a_timeout_removed_from_the_log_fails_the_audit(
    start: Start, manual_clock: ManualClock
) -> None:
    log = timed_out_log(start, manual_clock)
    seat_1_moved = {**log[-3], "type": "resign", "actor": 1, "data": {"action": {"type": "resign"}}}
    seat_1_moved["command_id"] = "late"
    forged = rechained([*log[:-3], seat_1_moved])
    for event, version in zip(forged, range(1, len(forged) + 1), strict=True):
        assert event["version"] == version
    verdict = verify(forged)
    assert verdict.status == "failed" and verdict.version == len(forged)
    assert "after its time ran out" in (verdict.reason or "")


#: What a host could write where seat 0's timeout belongs: events of others than seat 0.
IN_THE_TIMEOUTS_PLACE: dict[str, dict[str, Any]] = {
    "seat 1 resigns": {
        "type": "resign",
        "actor": 1,
        "data": {"action": {"type": "resign"}},
        "command_id": "forged",
    },
    "the organizer forfeits seat 2": {
        "type": "decision",
        "actor": "system",
        "data": {"decision": "forfeit", "seat": 2, "reason": "did not show up"},
        "command_id": None,
    },
}


@pytest.mark.parametrize("forged", sorted(IN_THE_TIMEOUTS_PLACE))
def test_another_event_in_the_place_of_a_timeout_fails_the_audit_as_missing(
    forged: str, start: Start, manual_clock: ManualClock
) -> None:
    """Three seats, so the event put where seat 0's timeout was is not seat 0's own: the
    audit must name the missing timeout, not a late action (two seats cannot tell them
    apart: the test above)."""
    game = start("arktia", PER_MOVE, seats=3)
    view = game.view()
    assert view["to_act"] == [0]
    deadline = epoch_seconds(view["clock"]["0"]["deadline"])
    manual_clock.advance(31)
    assert post(game, 1, {"type": "resign"}, view["version"]).status_code == 409  # timeout first
    log = log_of(game)
    [timeout] = log[view["version"] :]
    assert (timeout["type"], timeout["data"], timeout["at"]) == (
        "timeout",
        {"seat": 0},
        iso(deadline + 1),
    )
    assert verify(log).status == "incomplete"  # two seats play on
    in_its_place = {**timeout, **IN_THE_TIMEOUTS_PLACE[forged]}
    verdict = verify(rechained([*log[:-1], in_its_place]))
    assert (verdict.status, verdict.version) == ("failed", timeout["version"])
    assert verdict.reason == (
        f"the timeout of seat 0 is missing before this event (its deadline: {iso(deadline)})"
    )
    # The same event in the deadline's own second is one the game takes: only its time is wrong.
    on_time = verify(rechained([*log[:-1], {**in_its_place, "at": iso(deadline)}]))
    assert on_time.status == "incomplete", on_time


def test_a_decision_that_is_not_the_organizers_body_fails_the_audit(start: Start) -> None:
    game = start("arktia", None, seats=3)
    assert decide(game, {"decision": "forfeit", "seat": 2, "reason": "x"}).status_code == 201
    log = log_of(game)
    log[-1]["data"] = {**log[-1]["data"], "by": "director"}
    verdict = verify(rechained(log))
    assert verdict.status == "failed" and verdict.version == len(log)


# ----- real workers on real time -----------------------------------------------------------

SHORT = {
    "per_move": {"kind": "per_move", "move_s": 1},
    "fischer": {"kind": "fischer", "initial_s": 1, "increment_s": 1},
}


@pytest.fixture
def live(redis_url: str) -> FlaskClient:
    """The service on the real clock."""
    settings = Settings(redis_url=redis_url, organizer_token=ORGANIZER)
    return create_app(settings).test_client()


def create(live: FlaskClient, name: str, clock: dict[str, Any]) -> Game:
    body = {"game": name, "players": [{"name": "a"}, {"name": "b"}], "clock": clock}
    response = live.post("/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    return Game(live, created["id"], [s["token"] for s in created["seats"]])


def first_timeout(game: Game) -> dict[str, Any]:
    """The game's first ``timeout`` event, waited for."""

    def timeouts() -> list[dict[str, Any]]:
        return [e for e in log_of(game) if e["type"] == "timeout"]

    return wait_for(timeouts, bool, PROMPTLY, f"a timeout in game {game.id}")[0]


def check_timed_out(game: Game) -> None:
    """Every timeout in the log came after its deadline, once, and the log audits clean."""
    wait_for(game.view, lambda v: v["status"] == "over", AT_LENGTH, "the game to end")
    log = log_of(game)
    assert verify(log).status == "ok"
    keys = [(e["version"], e["data"]["seat"]) for e in log if e["type"] == "timeout"]
    assert keys and len({seat for _, seat in keys}) == len(keys)


@pytest.mark.parametrize("kind", sorted(SHORT))
@pytest.mark.parametrize("name", GAMES)
def test_a_clock_left_to_run_out_times_out_on_a_worker(
    name: str, kind: str, live: FlaskClient, worker: Any
) -> None:
    game = create(live, name, SHORT[kind])
    first_timeout(game)
    check_timed_out(game)  # Ice Breakers: both seats time out, the team fails


@pytest.mark.parametrize("kind", sorted(SHORT))
@pytest.mark.parametrize("name", GAMES)
def test_a_worker_killed_holding_a_due_timer_delays_the_timeout_never_loses_it(
    name: str, kind: str, live: FlaskClient, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    paused = start_worker("before_timeout")
    game = create(live, name, SHORT[kind])  # the paused worker makes the setup draws
    pid = announced(redis_client, [game.id], PROMPTLY)
    assert pid == paused.pid
    paused.send_signal(signal.SIGKILL)
    paused.wait()
    assert not [e for e in log_of(game) if e["type"] == "timeout"]
    start_worker()  # its sweeper arms the lost timer again
    first_timeout(game)
    check_timed_out(game)


#: Games whose timers three workers race for (each ticks every quarter second, and sweeps
#: every 0.2 s here).
RACED = 36


def test_three_workers_racing_for_the_timers_of_many_games_time_each_out_once(
    live: FlaskClient, start_worker: StartWorker
) -> None:
    """Three ``floe worker`` processes, as ``floe run`` starts them (the first works only
    draws, where timeouts run; all three take them), serve games whose one-second clocks
    run out within a few seconds of each other. Each worker's ticker takes due timers, and
    each sweep arms every clocked game's timer again from the store until its timeout is
    stored, so a timeout job may run again, on any of the three, once another has written
    it. Each game still holds exactly one timeout, and audits clean."""
    for number in range(3):
        start_worker(worker_args=("--draws-only",) if number == 0 else ())
    kinds = [(name, clock) for name in ("arktia", "iceberg") for clock in SHORT.values()]
    games = [create(live, *kinds[n % len(kinds)]) for n in range(RACED)]
    for game in games:
        check_timed_out(game)
        assert [e["type"] for e in log_of(game)].count("timeout") == 1, game.id


@pytest.fixture
def queue_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A job queues' Redis of its own, in memory, as ``floe run`` starts one."""
    binary = redis_server_binary()
    with RedisServer(tmp_path / "queue", config=QUEUE_CONFIG, executable=binary) as server:
        yield server


def test_timers_lost_with_the_queue_redis_are_armed_again_from_the_store(
    redis_url: str, queue_redis: RedisServer, start_worker: StartWorker, redis_client: redis.Redis
) -> None:
    """The queue Redis SIGKILLed and started again, empty, with a clock running: no worker
    runs meanwhile (``floe run`` stops every part when its queue Redis dies), and the first
    worker started after it arms the timer again from the store."""
    settings = Settings(redis_url=redis_url, queue_url=queue_redis.url, organizer_token=ORGANIZER)
    live = create_app(settings).test_client()
    game = create(live, "arktia", SHORT["fischer"])  # no draws: no worker needed yet
    with queue_redis.client() as queue:
        assert queue.zcard(TIMERS_KEY) == 1
    assert not redis_client.exists(TIMERS_KEY)  # the store holds no timer
    queue_redis.kill()
    queue_redis.start()  # same port, nothing on disk: every timer is gone
    with queue_redis.client() as queue:
        assert queue.dbsize() == 0
    start_worker(FLOE_QUEUE_URL=queue_redis.url)
    first_timeout(game)
    check_timed_out(game)
    assert [e["type"] for e in log_of(game)].count("timeout") == 1


def test_a_clocked_log_whose_times_run_backwards_or_are_malformed_fails_the_audit(
    start: Start, manual_clock: ManualClock
) -> None:
    log = timed_out_log(start, manual_clock)
    move = len(log) - 4
    backwards = [dict(e) for e in log]
    backwards[move]["at"] = iso(epoch_seconds(log[0]["at"]) - 1)
    verdict = verify(rechained(backwards))
    assert verdict.status == "failed" and verdict.version == move + 1
    assert "earlier than the event before it" in (verdict.reason or "")
    malformed = [dict(e) for e in log]
    malformed[move]["at"] = log[move]["at"].replace("Z", "+00:00")
    verdict = verify(rechained(malformed))
    assert verdict.status == "failed" and verdict.version == move + 1
    assert "is not a time" in (verdict.reason or "")
