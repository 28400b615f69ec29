"""Races: many writers post on the same version at once, through a served API.

Each writer is a thread with its own HTTP connection to gunicorn; a barrier releases them
together. Exactly one command may win each version; every other gets 409 version_conflict;
the stream keeps one event per version, no gaps, and any state the API serves is the state
refolded from the stream.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from typing import Any

import redis

from service.games.state_cache import SNAPSHOT_EVERY
from tests.support.served import (
    Http,
    Played,
    Reply,
    ServeApi,
    acknowledged,
    audit,
    create_game,
    finish,
    prefer_moves,
    public_view,
    refold,
    served_view,
    stored,
    stored_log,
)
from tests.support.waiting import AT_LENGTH

WRITERS = 16
GAMES_UNDER_LOAD = 20
WRITERS_PER_GAME = 3
ACTIONS_PER_GAME = 12


def _act(http: Http, game: Played, rng: random.Random) -> tuple[int, Reply]:
    """One move by the seat to act, chosen from its legal actions; (version, answer)."""
    view = http.get(f"/v1/games/{game.id}").body
    seat = view["to_act"][0]
    legal = http.get(f"/v1/games/{game.id}/legal-actions", token=game.tokens[seat]).body
    action = rng.choice(prefer_moves(legal["actions"]))
    body = {
        "action": action,
        "expected_version": legal["version"],
        "command_id": f"solo-{legal['version']}",
    }
    reply = http.post(f"/v1/games/{game.id}/actions", body, token=game.tokens[seat])
    return legal["version"], reply


def test_sixteen_writers_on_one_version_one_wins_the_rest_get_409(
    serve_api: ServeApi, redis_url: str, redis_client: redis.Redis
) -> None:
    # One process with a thread per writer, so every racer shares the winner's state cache
    # (the cross-process race is the many-games test below).
    api = serve_api(redis_url, workers=1)
    http = api.http()
    game = create_game(http, options={"turn_limit": 10_000})
    rng = random.Random(7)
    start = SNAPSHOT_EVERY - 8  # race across the cache's snapshot version
    while (version := http.get(f"/v1/games/{game.id}").body["version"]) < start:
        assert _act(http, game, rng)[1].status == 201

    rounds = 20
    barrier = threading.Barrier(WRITERS + 1)
    spec: dict[str, Any] = {}
    answers: list[list[Reply]] = [[] for _ in range(rounds)]
    errors: list[BaseException] = []

    def writer(index: int) -> None:
        mine = api.http()
        try:
            for number in range(rounds):
                barrier.wait(timeout=60)
                actions = spec["actions"]
                body = {
                    "action": actions[index % len(actions)],
                    "expected_version": spec["version"],
                    "command_id": f"w{index}-v{spec['version']}",
                }
                path = f"/v1/games/{game.id}/actions"
                answers[number].append(mine.post(path, body, token=spec["token"]))
                barrier.wait(timeout=60)
        except BaseException as error:  # surfaced by the main thread
            errors.append(error)
            barrier.abort()
        finally:
            mine.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    winners: list[dict[str, Any]] = []
    for number in range(rounds):
        view = http.get(f"/v1/games/{game.id}").body
        assert view["status"] == "active", "the game lasts through every round"
        seat = view["to_act"][0]
        token = game.tokens[seat]
        legal = http.get(f"/v1/games/{game.id}/legal-actions", token=token).body
        spec.update(version=legal["version"], token=token, actions=prefer_moves(legal["actions"]))
        barrier.wait(timeout=60)  # release the writers together
        barrier.wait(timeout=60)  # ... and wait for all their answers
        statuses = Counter(reply.status for reply in answers[number])
        assert statuses == {201: 1, 409: WRITERS - 1}, (number, statuses)
        [won] = [reply for reply in answers[number] if reply.status == 201]
        assert won.body["events"][0]["version"] == legal["version"] + 1
        winners.append(won.body["events"][0])
        for lost in (reply for reply in answers[number] if reply.status == 409):
            assert lost.code == "version_conflict", lost.body
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert version < SNAPSHOT_EVERY <= version + rounds

    events = stored_log(redis_client, game.id)
    by_version = {e.version: e for e in events}
    for event in winners:  # each version holds the winner's command, and only it
        assert stored(by_version[event["version"]]) == acknowledged(event)
    finish(http, game)
    events = stored_log(redis_client, game.id)
    assert audit(events).status == "ok"
    # Any version the API serves equals the refold of the stream, wherever the racers'
    # decided states were cached (losers decided too, against the same version).
    states = refold("arktia", events)
    for state in states:
        path = f"/v1/games/{game.id}/state?version={state.version}"
        assert served_view(http.get(path)) == public_view("arktia", state), state.version
    assert served_view(http.get(f"/v1/games/{game.id}")) == public_view("arktia", states[-1])
    print(
        f"\nFAULTS race: {WRITERS} writers x {rounds} versions ({version}..{version + rounds}): "
        f"{rounds} accepted, {rounds * (WRITERS - 1)} answered 409, {len(states)} states refolded"
    )
    http.close()


def test_twenty_games_with_three_writers_each_keep_their_invariants(
    serve_api: ServeApi, redis_url: str, redis_client: redis.Redis
) -> None:
    api = serve_api(redis_url, workers=2)
    http = api.http()
    games = [create_game(http) for _ in range(GAMES_UNDER_LOAD)]
    statuses: Counter[int] = Counter()
    codes: Counter[str | None] = Counter()
    lock = threading.Lock()
    errors: list[BaseException] = []

    def writer(game: Played, index: int) -> None:
        mine = api.http()
        rng = random.Random(index)
        try:
            while True:
                view = mine.get(f"/v1/games/{game.id}").body
                with lock:
                    if view["status"] == "over" or len(game.accepted) >= ACTIONS_PER_GAME:
                        return
                seat = view["to_act"][0]
                token = game.tokens[seat]
                legal = mine.get(f"/v1/games/{game.id}/legal-actions", token=token).body
                if not legal["actions"]:  # another writer moved in between: look again
                    continue
                body = {
                    "action": rng.choice(prefer_moves(legal["actions"])),
                    "expected_version": legal["version"],
                    "command_id": f"w{index}-v{legal['version']}",
                }
                reply = mine.post(f"/v1/games/{game.id}/actions", body, token=token)
                with lock:
                    statuses[reply.status] += 1
                    codes[reply.code] += 1
                    if reply.status == 201:
                        game.accepted.extend(reply.body["events"])
        except BaseException as error:
            errors.append(error)
        finally:
            mine.close()

    threads = [
        threading.Thread(target=writer, args=(game, n * WRITERS_PER_GAME + w))
        for n, game in enumerate(games)
        for w in range(WRITERS_PER_GAME)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=AT_LENGTH)
    assert not errors, errors
    assert set(statuses) <= {201, 409}, statuses
    assert set(codes) <= {None, "version_conflict"}, codes
    assert statuses[201] >= GAMES_UNDER_LOAD * ACTIONS_PER_GAME // 2
    assert statuses[409] > 0, "writers of one game raced"

    for game in games:
        events = stored_log(redis_client, game.id)
        assert audit(events).status in ("ok", "incomplete"), audit(events)
        # Every stored action was answered 201 exactly once, and every 201 was stored.
        written = sorted(stored(e) for e in events if e.version > 1)
        assert written == sorted(acknowledged(e) for e in game.accepted)
        states = refold("arktia", events)
        assert served_view(http.get(f"/v1/games/{game.id}")) == public_view("arktia", states[-1])
        for state in states:
            path = f"/v1/games/{game.id}/state?version={state.version}"
            assert served_view(http.get(path)) == public_view("arktia", state)
    print(
        f"\nFAULTS load: {GAMES_UNDER_LOAD} games x {WRITERS_PER_GAME} writers: "
        f"{statuses[201]} accepted, {statuses[409]} answered 409, 0 gaps or duplicates"
    )
    http.close()
