"""Hostile load against ``floe run``'s real processes: the availability review's attacks.

Hundreds of idle live streams, request bodies that trickle, ``?wait=`` requests that wait
the whole 30 s, headers that never end, and a flood of anonymous all-bot games. Under the
connection attacks at once, ``/v1/health`` and a move still answer (before gevent, twenty
idle streams held all sixteen request threads and health timed out); under the flood a
person's deal still comes and no job id is ever queued twice. Latencies are measured by
``python -m bench.attacks`` (BENCHMARKS.md), not asserted here: what is asserted is that
every request answers, with what, and what each attacker gets.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from service.limits.long_requests import holds_key
from tests.support.floe_run import (
    FloeRun,
    Reply,
    call,
    connect,
    floe_run,
    new_game,
    open_stream,
    p99,
    play_one_move,
    queued_job_ids,
    read_reply,
    start_slow_body,
    status_of,
    timed,
)
from tests.support.waiting import PROMPTLY, wait_until

#: Source addresses on the loopback network: the caps and quotas are per address.
STREAM_ADDRESSES = [f"127.0.0.{n}" for n in range(2, 6)]  # 4 x 50 = 200 idle streams
SLOW_BODY_ADDRESS = "127.0.0.6"
WAIT_ADDRESS = "127.0.0.7"
CAP_ADDRESS = "127.0.0.8"
FLOOD_ADDRESSES = [f"127.0.1.{n}" for n in range(1, 11)]  # 10 x 15 = 150 bot games
CAP = 64
BOT_GAMES_PER_ADDRESS = 15
BODY_SECONDS = 3
HEADER_SECONDS = 3


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FloeRun]:
    env = {
        "FLOE_BODY_TIMEOUT_SECONDS": str(BODY_SECONDS),
        "FLOE_HEADER_TIMEOUT_SECONDS": str(HEADER_SECONDS),
        "FLOE_LONG_REQUESTS_PER_ADDRESS": str(CAP),
        "FLOE_SSE_HEARTBEAT_SECONDS": "1",
        "FLOE_BOT_GAMES_PER_CREATOR": str(BOT_GAMES_PER_ADDRESS),
    }
    with floe_run(tmp_path_factory.mktemp("floe-run"), env) as run:
        yield run


def test_idle_streams_slow_bodies_and_long_waits_leave_health_and_moves_answering(
    served: FloeRun,
) -> None:
    port = served.port
    status, arktia, _ = new_game(port, "arktia", wait=10)
    assert status == 201
    tokens = [seat["token"] for seat in arktia["seats"]]
    store = served.redis()
    baseline_clients = len(store.client_list())

    # 1. 200 idle live streams, 50 from each of four addresses.
    streams = []
    for source in STREAM_ADDRESSES:
        for _ in range(50):
            sock, head = open_stream(port, arktia["id"], source)
            assert status_of(head) == 200 and b"text/event-stream" in head, head
            streams.append(sock)
    holds = sum(store.zcard(holds_key(source)) for source in STREAM_ADDRESSES)
    assert holds == 200  # each stream holds one slot of its address
    # Idle streams hold no Redis connection each: one subscription per API process.
    assert len(store.client_list()) < baseline_clients + 20

    # 2. 50 bodies that never finish.
    slow = [start_slow_body(port, SLOW_BODY_ADDRESS) for _ in range(50)]

    # 3. 20 waits that wait: the workers are stopped, so the dice never come.
    workers = served.worker_pids()
    assert workers
    for pid in workers:
        os.kill(pid, signal.SIGSTOP)
    waits: list[Reply] = []
    waiting = [
        threading.Thread(
            target=lambda: waits.append(new_game(port, "iceberg", wait=30, source=WAIT_ADDRESS))
        )
        for _ in range(20)
    ]
    try:
        for thread in waiting:
            thread.start()
        wait_until(
            lambda: store.zcard(holds_key(WAIT_ADDRESS)) == 20, PROMPTLY, "20 waits to be waiting"
        )
        # Under all of it, health and moves answer (each within ANSWER_WITHIN, or it raises).
        health = [timed(lambda: _ok(call(port, "GET", "/v1/health"), 200)) for _ in range(100)]
        for _ in range(10):
            played = play_one_move(port, arktia["id"], tokens)
            assert played is not None and played[0] == 201
        print(f"health under attack: p99 {p99(health) * 1000:.1f} ms")
    finally:
        for pid in workers:
            os.kill(pid, signal.SIGCONT)

    # The waits end as soon as the workers deal: 201, dealt, nothing lost.
    for thread in waiting:
        thread.join(timeout=30 + PROMPTLY)
    assert len(waits) == 20
    assert all(status == 201 and body["status"] == "active" for status, body, _ in waits)

    # The slow bodies were cut at the body deadline with a 408 and a stable code.
    for sock in slow:
        reply = read_reply(sock)
        assert reply.startswith(b"HTTP/1.1 408"), reply[:200]
        assert b'"request_timeout"' in reply
        sock.close()

    # Closed streams give their slots back (the server notices at its next heartbeat).
    for sock in streams:
        sock.close()
    wait_until(
        lambda: sum(store.zcard(holds_key(s)) for s in STREAM_ADDRESSES) == 0,
        PROMPTLY,
        "closed streams to release their slots",
    )


def _ok(reply: Reply, status: int) -> None:
    assert reply[0] == status, reply


def test_one_address_holds_at_most_its_cap_of_streams_and_waits(served: FloeRun) -> None:
    port = served.port
    status, game, _ = new_game(port, "arktia", wait=10)
    assert status == 201
    streams = []
    for _ in range(CAP):
        sock, head = open_stream(port, game["id"], CAP_ADDRESS)
        assert status_of(head) == 200
        streams.append(sock)
    sock, head = open_stream(port, game["id"], CAP_ADDRESS)
    assert status_of(head) == 429
    assert b"too_many_streams" in head + sock.recv(4096)
    assert b"Retry-After" in head
    sock.close()
    # ... and a ?wait= from the same address is refused the same way,
    status, body, _ = new_game(port, "arktia", wait=5, source=CAP_ADDRESS)
    assert (status, body["error"]["code"]) == (429, "too_many_streams")
    # while a request that does not wait, and another address, are served.
    assert new_game(port, "arktia", source=CAP_ADDRESS)[0] == 201
    other, head = open_stream(port, game["id"], "127.0.0.9")
    assert status_of(head) == 200
    other.close()
    # One stream closed: one slot free again.
    streams.pop().close()
    wait_until(
        lambda: status_of(_reopen(port, game["id"], streams)) == 200,
        PROMPTLY,
        "a freed slot to be taken",
    )
    for sock in streams:
        sock.close()


def _reopen(port: int, game_id: str, streams: list[socket.socket]) -> bytes:
    sock, head = open_stream(port, game_id, CAP_ADDRESS)
    if status_of(head) == 200:
        streams.append(sock)
    else:
        sock.close()
    return head


def test_headers_that_never_end_are_cut_at_the_header_deadline(served: FloeRun) -> None:
    sock = connect(served.port, "127.0.0.10")
    sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    assert read_reply(sock) == b""  # closed without an answer (the socket times out at 30 s)
    sock.close()
    assert call(served.port, "GET", "/v1/health")[0] == 200


def test_a_flood_of_bot_games_delays_no_deal_and_queues_no_job_twice(served: FloeRun) -> None:
    """150 anonymous all-mcts games from ten addresses, then people's Iceberg games."""
    port = served.port
    queues = served.queue_redis()
    mcts = [{"name": "m1", "bot": "mcts"}, {"name": "m2", "bot": "mcts"}]
    flood: list[Any] = []
    for source in FLOOD_ADDRESSES:
        for _ in range(BOT_GAMES_PER_ADDRESS):
            status, body, _ = new_game(port, "arktia", source=source, players=mcts)
            assert status == 201, body
            flood.append(body["id"])
        # One more from the same address is over its quota of bot games in play.
        status, body, _ = new_game(port, "arktia", source=source, players=mcts)
        assert (status, body["error"]["code"]) == (429, "bot_game_quota")
    seen_twice: Counter[str] = Counter()
    for _ in range(20):
        # People's deals arrive within their ?wait= (201, dealt) while the bots think.
        status, body, _ = new_game(port, "iceberg", wait=30)
        assert status == 201 and body["status"] == "active", body
        queued = Counter(queued_job_ids(queues))
        seen_twice |= Counter({job: n for job, n in queued.items() if n > 1})
    assert not seen_twice, f"job ids queued twice: {seen_twice}"


def test_a_chunked_body_read_ahead_by_the_server_reaches_the_app_whole(served: FloeRun) -> None:
    """The body deadline reads every body before the app sees it, chunked ones too."""
    sock = connect(served.port, "127.0.0.11")
    game = b'{"game": "arktia", "players": [{"name": "a"}, {"name": "b"}]}'
    sock.sendall(
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + b"%x\r\n%s\r\n0\r\n\r\n"
        % (len(game), game)
    )
    reply = read_reply(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 201"), reply[:300]
    assert b'"game": "arktia"' in reply or b'"game":"arktia"' in reply
