"""The bots' fair lanes on a real Redis: one line per creator, served in turn; the organizer's
line first; a line over its thinking budget passed over while another waits.

Most tests drive a drain in this process (as ``test_drain.py`` does) on a fair backlog, with
what each item does and what it costs chosen by the test: the drain charges each bot the
seconds it took on the drain's own clock, here one the items advance, so a "big-board mcts"
move costs what the test says, exactly, however busy the machine. The last test starts a real
``floe worker`` on real games made by two creators and the organizer, and reads the order of
their moves from the store's own append signals.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis

from service.bootstrap import Floe, build
from service.games.access import Viewer
from service.games.commands import CreateGame, NewPlayer
from service.jobs.backlog import PRIORITY_LINE, Backlog, Fairness, Lane
from service.jobs.drains import Drains, DrainSettings
from service.jobs.lines import CreatorLines, creator_line, game_line
from service.jobs.queue import BATCHES, QUEUE_NAMES, RqJobQueue, alive_key, job_id
from service.jobs.sweeper import Sweeper
from service.settings import Settings
from service.store.appends import CHANNEL
from service.store.events import events_key
from tests.support.waiting import PROMPTLY, wait_for
from tests.support.workers import StartWorker

DRAWS = QUEUE_NAMES["draw"]
BOTS = QUEUE_NAMES["bot"]
WORKER = "lanes-worker"
FLOODER, OTHER = "creator-f1", "creator-b2"
#: What one "big-board mcts" move costs on the drain's clock, and a random bot's.
MCTS_SECONDS, RANDOM_SECONDS = 5.0, 0.01


@dataclass
class Clock:
    """The drain's monotonic clock, advanced by the items as they "think"."""

    now: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self) -> float:
        with self.lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.now += seconds


def fair_backlog(client: redis.Redis, budget: float = 0.0) -> Backlog:
    client.set(alive_key(WORKER), 1)
    backlog = Backlog(client, Fairness(frozenset({BOTS}), budget, 60.0))
    backlog.listen(WORKER, [DRAWS, BOTS])
    return backlog


def drain(
    backlog: Backlog,
    run_item: Callable[[str, Callable[[], None]], object],
    clock: Clock,
    *,
    thinkers: int = 1,
) -> int:
    """Run one drain over what is pending until the queues are empty; how many items ran.
    One bot thinks at a time unless told otherwise, so the order the lines are served in
    is exact; what two thinking at once adds is tested on its own."""
    lanes = [Lane(DRAWS, BATCHES[DRAWS]), Lane(BOTS, BATCHES[BOTS], thinks=True)]
    drains = Drains(
        backlog,
        run_item,
        lambda queue, name: None,
        WORKER,
        lanes,
        threading.Event(),
        settings=DrainSettings(idle_seconds=0.0, life_seconds=1e9, threads=4, thinkers=thinkers),
        monotonic=clock,
    )
    [name] = backlog.drains(BOTS)  # the drain the first add named, as a worker would run it
    return drains.run(BOTS, name)


@dataclass
class Played:
    """The bot moves a drain made, in the order each began to think."""

    clock: Clock = field(default_factory=Clock)
    #: What each item costs on the clock (default: a random bot's).
    costs: dict[str, float] = field(default_factory=dict)
    #: Run as an item thinks: a game adding its next move, say.
    then: Callable[[str], None] = lambda item: None
    order: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, item: str, thought: Callable[[], None]) -> None:
        with self.lock:
            self.order.append(item)
        self.clock.advance(self.costs.get(item, RANDOM_SECONDS))
        self.then(item)
        thought()


def bots(prefix: str, count: int) -> list[str]:
    return [job_id("bot", f"{prefix}{n}", 1) for n in range(count)]


def test_one_creators_flood_of_mcts_moves_waits_its_turn_behind_another_creators_bot(
    redis_client: redis.Redis,
) -> None:
    backlog = fair_backlog(redis_client)
    flood, other = bots("f", 16), bots("b", 1)
    for item in flood:
        backlog.add(BOTS, item, FLOODER)
    backlog.add(BOTS, other[0], OTHER)  # queued behind all sixteen
    assert backlog.rotation(BOTS) == [FLOODER, OTHER], "one place per creator, not per item"
    played = Played(costs=dict.fromkeys(flood, MCTS_SECONDS))
    assert drain(backlog, played, played.clock) == 17
    assert played.order[:2] == [flood[0], other[0]], "the other creator's turn comes second"
    assert played.order == [flood[0], other[0], *flood[1:]], "the flood then, in its order"
    assert backlog.pending(BOTS) == [] and backlog.lines(BOTS) == [] and backlog.claims() == {}
    assert backlog.rotation(BOTS) == [], "no line waits: none in the rotation"


def test_a_creators_games_take_turns_within_its_line(redis_client: redis.Redis) -> None:
    """A game's next move is added only once its last one is decided, so it joins the back
    of its creator's line: four games of one creator alternate, move by move."""
    backlog = fair_backlog(redis_client)
    games = [f"g{n}" for n in range(4)]
    for game in games:
        backlog.add(BOTS, job_id("bot", game, 1), FLOODER)

    def next_move(item: str) -> None:
        _, game, version = item.split("-")
        if int(version) < 3:
            backlog.add(BOTS, job_id("bot", game, int(version) + 1), FLOODER)

    played = Played(then=next_move)
    assert drain(backlog, played, played.clock) == 12
    assert played.order == [job_id("bot", g, v) for v in (1, 2, 3) for g in games]


def test_the_organizers_games_are_served_before_anonymous_floods(
    redis_client: redis.Redis,
) -> None:
    backlog = fair_backlog(redis_client)
    flood, other = bots("f", 16), bots("b", 4)
    for item in flood:
        backlog.add(BOTS, item, FLOODER)
    for item in other:
        backlog.add(BOTS, item, OTHER)
    [tournament] = bots("t", 1)
    backlog.add(BOTS, tournament, PRIORITY_LINE)  # queued last of all
    late = job_id("bot", "t-late", 1)

    def tournament_move_comes(item: str) -> None:
        if item == flood[1]:  # a tournament game's move comes while the floods are served
            backlog.add(BOTS, late, PRIORITY_LINE)

    played = Played(costs=dict.fromkeys(flood, MCTS_SECONDS), then=tournament_move_comes)
    assert drain(backlog, played, played.clock) == 22
    assert played.order[0] == tournament, "queued last, served first"
    after = played.order.index(flood[1])
    assert played.order[after + 1] == late, "the next one taken, whatever waits in the lines"
    rest = [item for item in played.order if item not in (tournament, late)]
    assert rest[:6] == [flood[0], other[0], flood[1], other[1], flood[2], other[2]]
    assert Counter(played.order) == Counter([*flood, *other, tournament, late])


def test_a_creator_over_its_thinking_budget_is_passed_over_while_another_waits(
    redis_client: redis.Redis,
) -> None:
    """Each flood move costs 5 s of thinking, each of the other creator's 10 ms, against a
    budget of 1 s: after one move the flood's line is over it, so the other creator's moves
    go first, all of them; alone then, the flood's line is served all the same."""
    backlog = fair_backlog(redis_client, budget=1.0)
    flood, other = bots("f", 4), bots("b", 4)
    for item in flood:
        backlog.add(BOTS, item, FLOODER)
    for item in other:
        backlog.add(BOTS, item, OTHER)
    played = Played(costs=dict.fromkeys(flood, MCTS_SECONDS))
    assert drain(backlog, played, played.clock) == 8
    assert played.order == [flood[0], *other, *flood[1:]]
    spent = backlog.spent(BOTS)
    # Counted by what the moves took, not by how many there were (decayed a little since).
    assert spent[FLOODER] == pytest.approx(4 * MCTS_SECONDS, rel=0.05)
    assert spent[OTHER] == pytest.approx(4 * RANDOM_SECONDS, rel=0.05)


def test_another_creators_bot_moves_while_a_long_search_thinks(
    redis_client: redis.Redis,
) -> None:
    """A search already running is never cut short, so a drain lets two bots think, for two
    lines: while the flood's first move is still thinking (held here until the other
    creator's three moves are done), the other creator's moves are claimed and made, one
    after another, and no second flood move starts beside the first."""
    backlog = fair_backlog(redis_client)
    flood, other = bots("f", 3), bots("b", 3)
    for item in flood:
        backlog.add(BOTS, item, FLOODER)
    for item in other:
        backlog.add(BOTS, item, OTHER)
    others_done = threading.Event()
    events: list[str] = []
    lock = threading.Lock()

    def run_item(item: str, thought: Callable[[], None]) -> None:
        with lock:
            events.append(f"start {item}")
        if item == flood[0]:
            assert others_done.wait(timeout=PROMPTLY), "the other creator's moves never came"
        with lock:
            events.append(f"end {item}")
            if all(f"end {o}" in events for o in other):
                others_done.set()
        thought()

    assert drain(backlog, run_item, Clock(), thinkers=2) == 6
    first_end = events.index(f"end {flood[0]}")
    assert all(events.index(f"end {o}") < first_end for o in other)
    assert all(events.index(f"start {f}") > first_end for f in flood[1:]), (
        "a line has one move thought about at a time"
    )


def test_with_no_budget_lines_simply_take_turns(redis_client: redis.Redis) -> None:
    backlog = fair_backlog(redis_client, budget=0.0)
    flood, other = bots("f", 3), bots("b", 3)
    for item in flood:
        backlog.add(BOTS, item, FLOODER)
    for item in other:
        backlog.add(BOTS, item, OTHER)
    played = Played(costs=dict.fromkeys(flood, MCTS_SECONDS))
    assert drain(backlog, played, played.clock) == 6
    assert played.order == [x for pair in zip(flood, other, strict=True) for x in pair]


def test_an_item_is_pending_once_in_its_line_and_comes_back_from_a_dead_worker(
    redis_client: redis.Redis,
) -> None:
    backlog = fair_backlog(redis_client)
    item = job_id("bot", "g", 1)
    assert backlog.add(BOTS, item, FLOODER).added
    assert backlog.add(BOTS, item, FLOODER).added is False, "pending already"
    assert backlog.lines(BOTS) == [(FLOODER, item)] and backlog.rotation(BOTS) == [FLOODER]

    redis_client.set(alive_key("w1"), 1)
    claimed = backlog.take("w1", [Lane(BOTS, 1, thinks=True)], [])
    assert (claimed.queue, claimed.items, claimed.lines) == (BOTS, [item], [FLOODER])
    assert backlog.add(BOTS, item, FLOODER).added is False, "held by a live worker"
    assert backlog.lines(BOTS) == [] and backlog.pending(BOTS) == []

    redis_client.delete(alive_key("w1"))  # w1 died with it in hand
    assert backlog.add(BOTS, item, FLOODER).added, "found again, added again"
    assert backlog.lines(BOTS) == [(FLOODER, item)] and backlog.rotation(BOTS) == [FLOODER]
    redis_client.set(alive_key("w2"), 1)
    assert backlog.take("w2", [Lane(BOTS, 1, thinks=True)], []).items == [item]
    assert backlog.claims() == {item: "w2"}
    assert backlog.take("w2", [Lane(BOTS, 1, thinks=True)], [item]).items == []
    assert backlog.claims() == {} and backlog.pending(BOTS) == []


def test_an_item_whose_pending_entry_was_lost_is_served_once(redis_client: redis.Redis) -> None:
    """A member of a line whose item is no longer pending (taken by a claim that found it
    first in line) is dropped, never claimed twice."""
    backlog = fair_backlog(redis_client)
    first, second = job_id("bot", "g", 1), job_id("bot", "h", 1)
    backlog.add(BOTS, first, FLOODER)
    backlog.add(BOTS, second, OTHER)
    redis_client.zrem(f"{BOTS}:pending", first)  # as if lost with the queue's state
    redis_client.set(alive_key("w"), 1)
    lane = [Lane(BOTS, 1, thinks=True)]
    assert backlog.take("w", lane, []).items == [second]
    assert backlog.take("w", lane, []).items == []
    assert backlog.lines(BOTS) == [] and backlog.rotation(BOTS) == []


@pytest.fixture
def built(redis_url: str, redis_client: redis.Redis) -> Floe:
    return build(Settings(redis_url=redis_url), redis_client=redis_client)


def queue_of(floe: Floe) -> RqJobQueue:
    assert isinstance(floe.jobs, RqJobQueue)
    return floe.jobs


def mcts_game(floe: Floe, creator: str) -> str:
    players = tuple(NewPlayer(f"m{n}", bot="mcts") for n in range(4))
    return floe.commands.create(CreateGame("arktia", players, creator=creator), Viewer()).id


def random_against_a_person(floe: Floe, viewer: Viewer, creator: str | None = None) -> str:
    """A game whose one bot moves first, then waits for the person: one bot move to make."""
    players = (NewPlayer("r", bot="random"), NewPlayer("p"))
    return floe.commands.create(CreateGame("arktia", players, creator=creator), viewer).id


def test_a_games_line_follows_its_creator_and_the_address_is_never_stored(
    built: Floe, redis_url: str, redis_client: redis.Redis
) -> None:
    first, second = mcts_game(built, "10.0.0.1"), mcts_game(built, "10.0.0.1")
    other = random_against_a_person(built, Viewer(), "10.0.0.2")
    organizers = random_against_a_person(built, Viewer(organizer=True))
    # A fresh process (a worker, the sweeper) reads the lines from the games' meta alone.
    fresh = build(Settings(redis_url=redis_url), redis_client=redis_client)
    lines = CreatorLines(fresh.repository.catalog)
    assert lines.line_of(first) == lines.line_of(second) != lines.line_of(other)
    assert lines.line_of(first).startswith("creator-")
    assert lines.line_of(organizers) == PRIORITY_LINE
    assert lines.line_of("no-such-game") == game_line("no-such-game")
    record = built.store.record(first)
    assert record is not None and record.creator is not None
    assert lines.line_of(first) == creator_line(record.creator)
    stored = [value for key in redis_client.scan_iter("*") for value in _strings(redis_client, key)]
    assert not any("10.0.0.1" in value for value in stored), "a digest, never the address"
    queued = {item: line for line, item in queue_of(built).backlog.lines(BOTS)}
    assert queued[job_id("bot", first, 1)] == lines.line_of(first), "added to its line"


def _strings(client: redis.Redis, key: bytes) -> Iterator[str]:
    """The text of a game's meta hash (the values), or nothing for other keys."""
    if key.endswith(b":meta") and client.type(key) == b"hash":
        values: Any = client.hvals(key)
        for value in values:
            yield value.decode()


def test_the_sweeper_adds_a_lost_bot_move_back_to_its_creators_line(
    built: Floe, redis_client: redis.Redis
) -> None:
    game_id = mcts_game(built, "10.0.0.1")
    item = job_id("bot", game_id, 1)
    backlog = queue_of(built).backlog
    [(line, queued)] = backlog.lines(BOTS)
    assert queued == item and line.startswith("creator-")
    redis_client.set(alive_key("w1"), 1)
    assert backlog.take("w1", [Lane(BOTS, 1, thinks=True)], []).items == [item]
    redis_client.delete(alive_key("w1"))  # died with it in hand
    sweeper = Sweeper(built.automation, queue_of(built), redis_client, 60.0)
    assert sweeper.sweep() == [], "seen once: not yet taken for lost"
    assert sweeper.sweep() == [("bot", game_id, 1)], "waited across two sweeps: added again"
    assert backlog.lines(BOTS) == [(line, item)], "back in its creator's line"
    assert backlog.claims() == {}, "the dead worker's claim is gone"


def test_a_real_worker_serves_the_organizer_first_and_another_creator_before_the_flood(
    built: Floe, redis_client: redis.Redis, start_worker: StartWorker
) -> None:
    """Sixteen four-seat all-mcts games from one address, then one random bot's game from
    another, then one of the organizer's: all queued before a worker starts. The order of
    their moves (the store's append signals, in the order Redis made them) shows the
    organizer's bot first, the other creator's second of the anonymous ones, while the
    flood's games still wait for their first moves."""
    flood = [mcts_game(built, "10.0.0.1") for _ in range(16)]
    other = random_against_a_person(built, Viewer(), "10.0.0.2")
    organizers = random_against_a_person(built, Viewer(organizer=True))
    game_of = {events_key(game_id): game_id for game_id in [*flood, other, organizers]}
    appended: list[str] = []
    pubsub = redis_client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
    pubsub.subscribe(CHANNEL)

    def read() -> list[str]:
        while (message := pubsub.get_message(timeout=0.05)) is not None:
            key = message["data"].decode().rsplit(" ", 1)[0]
            if key in game_of:
                appended.append(game_of[key])
        return appended

    try:
        start_worker()
        wait_for(read, lambda seen: other in seen, PROMPTLY, "the other creator's bot move")
    finally:
        pubsub.close()
    first_moves = list(dict.fromkeys(appended))  # each game where its first move came
    assert first_moves[0] == organizers, f"the organizer's first: {first_moves}"
    flood_before = first_moves.index(other) - 1
    assert flood_before <= 2, f"{flood_before} of the flood's 16 games moved first"
