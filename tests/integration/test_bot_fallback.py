"""A bot that fails never has another move played for it: it fails loudly instead.

Its policy raising (a bug), answering an action the rules refuse, running out of its time
budget, or getting stuck past its item's deadline (code that never checks its budget: the
worker records it, then ends; tests/faults/test_stuck_item.py runs that in a real worker):
each time nothing is appended, no random move is played, the failure is logged at ERROR,
counted, and shown in the game's view, the sweeper leaves the game alone, and a retry (what
every worker does when it starts) resumes it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import pytest
import redis
from rq.job import Job
from rq.serializers import JSONSerializer

from domain.ai import POLICIES, Decision, Policy
from domain.engine import play
from domain.engine.rng import DrawStream
from domain.engine.rules import Action
from service.bootstrap import Floe, build
from service.games.access import Viewer
from service.games.commands import CreateGame, NewPlayer
from service.games.follow_ups import JobKind
from service.jobs.drains import IDLE_SECONDS, LIFE_SECONDS
from service.jobs.handlers import Automation
from service.jobs.queue import QUEUE_NAMES, RqJobQueue, drain_timeout, item_deadline, job_id
from service.settings import Settings
from service.store.events import RedisEventStore


class BrokenPolicy(Policy):
    """Crashes, or answers an action the rules refuse; "stuck" answers nothing: its item
    is found past its deadline (the worker then records the failure, ``item_stuck``)."""

    def __init__(self, how: str) -> None:
        self.name = f"broken-{how}"
        self.how = how

    def decide(self, decision: Decision) -> Action:
        if self.how == "crash":
            raise RuntimeError("a bug in the bot")
        if self.how == "stuck":
            raise AssertionError("a stuck bot never answers: its worker records it")
        # not legal in Arktia's opening
        return decision.game.rules.parse_action({"type": "retire"})


class RecordingQueue:
    """A job queue that only records: the test runs the bot's job itself."""

    def __init__(self) -> None:
        self.jobs: list[tuple[JobKind, str, int]] = []

    def enqueue(self, kind: JobKind, game_id: str, version: int, *, due: int | None = None) -> None:
        self.jobs.append((kind, game_id, version))


class CountingClock:
    """A fake monotonic clock: each read is one second later than the one before."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return float(self.reads)


def floe_with(
    redis_client: redis.Redis, queue: RecordingQueue, policies: Mapping[str, Policy]
) -> Floe:
    return build(Settings(), redis_client=redis_client, jobs=queue, policies=policies)


def bot_game(floe: Floe, strength: str) -> str:
    players = (NewPlayer("bot", strength), NewPlayer("ann"))
    return floe.commands.create(CreateGame("arktia", players), Viewer()).id


def failure_logs(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == "service.jobs.handlers" and record.levelno == logging.ERROR
    ]


@pytest.mark.parametrize(
    ("how", "reason", "message"),
    [
        ("crash", "error", "greedy failed (RuntimeError)"),
        ("illegal", "error", "greedy failed (IllegalAction)"),
        ("stuck", "timeout", "greedy was stopped by the job timeout"),
    ],
)
def test_a_failing_bot_fails_loudly_and_plays_nothing(
    redis_client: redis.Redis,
    how: str,
    reason: str,
    message: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    queue = RecordingQueue()
    floe = floe_with(redis_client, queue, {**POLICIES, "greedy": BrokenPolicy(how)})
    game_id = bot_game(floe, "greedy")
    assert queue.jobs == [("bot", game_id, 1)], "the bot's first move was enqueued"
    meta = floe.repository.meta(game_id)
    assert floe.queries.view(meta, Viewer())["bot_failure"] is None

    if how == "stuck":  # the worker found its item past its deadline, and records it
        floe.automation.item_stuck(job_id("bot", game_id, 1))
    else:
        assert floe.automation.play_bot(game_id, 1) is False
    # nothing appended: no random move, no move at all
    assert RedisEventStore(redis_client).read(game_id, after=1) == []
    assert floe.repository.latest(meta).version == 1
    # counted, and shown in the game's view (the organizer's and a spectator's alike)
    assert floe.store.bot_failures() == 1
    for viewer in (Viewer(), Viewer(organizer=True)):
        view = floe.queries.view(meta, viewer)
        failure = view["bot_failure"]
        assert failure == {**failure, "seat": 0, "version": 1, "strength": "greedy"}
        assert (failure["reason"], failure["message"]) == (reason, message)
        assert (view["version"], view["status"], view["to_act"]) == (1, "active", [0])
    assert floe.queries.view(meta, Viewer(), 1)["bot_failure"] is not None, "v1 is the latest"
    # logged at ERROR with the game, seat, version, strength and reason
    [logged] = failure_logs(caplog)
    for part in (game_id, "seat 0", "version 1", "strength greedy", f"reason {reason}"):
        assert part in logged
    # the sweeper leaves it alone; a retry (a worker starting) enqueues it again
    assert [job for job in floe.automation.waiting_jobs() if job[1] == game_id] == []
    assert list(floe.automation.failed_bot_moves()) == [(game_id, 1)]
    assert floe.automation.retry_failed() == [(game_id, 1)]
    assert queue.jobs[-1] == ("bot", game_id, 1)

    # Failing again records it again (and counts it) ...
    if how == "stuck":
        floe.automation.item_stuck(job_id("bot", game_id, 1))
    else:
        assert floe.automation.play_bot(game_id, 1) is False
    assert floe.store.bot_failures() == 2
    # ... and a working bot, retried, moves as if nothing had happened.
    fixed = floe_with(redis_client, RecordingQueue(), POLICIES)
    assert fixed.automation.play_bot(game_id, 1) is True
    (stored,) = RedisEventStore(redis_client).read(game_id, after=1)
    before = fixed.repository.state_at(meta, 1)
    seed = fixed.repository.seed(game_id)
    expected = POLICIES["greedy"].choose(
        meta.bundle, before, 0, DrawStream(seed, game_id, 2, "bot-0")
    )
    assert (stored.actor, stored.command_id) == (0, "bot-1")
    assert meta.rules.parse_action(stored.data["action"]) == expected
    assert fixed.queries.view(meta, Viewer())["bot_failure"] is None
    assert list(fixed.automation.failed_bot_moves()) == []
    assert fixed.queries.view(meta, Viewer(), 1)["bot_failure"] is None, "an old version"


def test_a_bot_out_of_time_fails_with_reason_timeout(
    redis_client: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    queue = RecordingQueue()
    floe = floe_with(redis_client, queue, POLICIES)
    game_id = bot_game(floe, "mcts")
    clock = CountingClock()  # read once to start, then once per iteration: 4 run, then 5 s
    slow = Automation(
        floe.repository, floe.store, queue, POLICIES, bot_move_seconds=5.0, monotonic=clock
    )
    assert slow.play_bot(game_id, 1) is False
    assert clock.reads == 6, "the budget stopped the search at once, not after 4,000 iterations"
    assert RedisEventStore(redis_client).read(game_id, after=1) == []
    meta = floe.repository.meta(game_id)
    failure = floe.queries.view(meta, Viewer())["bot_failure"]
    assert failure == {
        **failure,
        "seat": 0,
        "version": 1,
        "strength": "mcts",
        "reason": "timeout",
        "message": "mcts did not decide within 5 s",
    }
    [logged] = failure_logs(caplog)
    assert f"game {game_id} seat 0 version 1 strength mcts reason timeout" in logged
    assert floe.store.bot_failures() == 1
    assert [job for job in floe.automation.waiting_jobs() if job[1] == game_id] == []

    # The same move within the bound (the default 60 s) is the unbounded search's move.
    assert floe.automation.play_bot(game_id, 1) is True
    (stored,) = RedisEventStore(redis_client).read(game_id, after=1)
    state = floe.repository.state_at(meta, 1)
    stream = DrawStream(floe.repository.seed(game_id), game_id, 2, "bot-0")
    assert meta.rules.parse_action(stored.data["action"]) == POLICIES["mcts"].choose(
        meta.bundle, state, 0, stream
    )
    assert floe.queries.view(meta, Viewer())["bot_failure"] is None


def test_a_game_without_bots_never_asks_for_a_failure(redis_client: redis.Redis) -> None:
    floe = floe_with(redis_client, RecordingQueue(), POLICIES)
    players = (NewPlayer("ann"), NewPlayer("bo"))
    game_id = floe.commands.create(CreateGame("arktia", players), Viewer()).id
    meta = floe.repository.meta(game_id)
    assert floe.queries.view(meta, Viewer())["bot_failure"] is None
    assert play.status(meta.rules, floe.repository.latest(meta)) == "active"
    assert floe.automation.retry_failed() == []


def test_the_bound_is_a_setting_and_the_deadlines_stay_well_above_it(
    redis_client: redis.Redis,
) -> None:
    assert Settings.from_env({}).bot_move_seconds == 60.0
    assert Settings.from_env({"FLOE_BOT_MOVE_SECONDS": "0.5"}).bot_move_seconds == 0.5
    for bad in ("soon", "0", "-1"):
        with pytest.raises(ValueError, match="FLOE_BOT_MOVE_SECONDS"):
            Settings.from_env({"FLOE_BOT_MOVE_SECONDS": bad})
    for game, (seconds, deadline) in enumerate(((60.0, 120), (0.001, 61), (600.5, 661))):
        redis_client.flushdb()
        queue = RqJobQueue(redis_client, bot_move_seconds=seconds)
        assert queue.deadline_of(job_id("bot", f"g{game}", 3)) == deadline
        assert item_deadline("bot", seconds) == deadline
        # The drain job's own RQ timeout covers its life, an idle wait and its longest item.
        assert queue.enqueue("bot", f"g{game}", 3) is True
        [drain] = queue.backlog.drains(QUEUE_NAMES["bot"])
        job = Job.fetch(drain, connection=redis_client, serializer=JSONSerializer)
        assert job.timeout == drain_timeout(seconds) > LIFE_SECONDS + IDLE_SECONDS + deadline
    queue = RqJobQueue(redis_client, bot_move_seconds=0.001)
    assert queue.deadline_of(job_id("draw", "g", 1)) == 180, "draws: RQ's default timeout"
    assert queue.deadline_of(job_id("tournament", "g", 1)) == 180


def test_a_stuck_item_of_a_game_that_moved_on_records_nothing(
    redis_client: redis.Redis,
) -> None:
    queue = RecordingQueue()
    floe = floe_with(redis_client, queue, POLICIES)
    game_id = bot_game(floe, "greedy")
    assert floe.automation.play_bot(game_id, 1) is True
    floe.automation.item_stuck(job_id("bot", game_id, 1))  # found stuck, but it had moved
    floe.automation.item_stuck(job_id("draw", game_id, 2))  # a draw: nothing to record
    assert floe.store.bot_failures() == 0
    assert floe.queries.view(floe.repository.meta(game_id), Viewer())["bot_failure"] is None
