"""A mover SIGKILLed after any step of a move loses nothing, and the next move finishes it.

Each test plays a game to its end through the API, takes its reads, then runs a real mover
process (``tests.support.killed_mover``) that kills itself with SIGKILL right after one step
(read, put, check, delete). The game must then read exactly as before, from whichever place
holds it, and a mover run again must move it out (or find it moved) with one archived copy.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest
import redis

from service.archive.moving import STEPS, Mover
from service.settings import Settings
from tests.support import archives
from tests.support.archived_games import answer, api, game_reads, play_out, redis_keys

archive_url = archives.archive_url
settings = archives.archive_settings


def killed_mover(settings: Settings, step: str, game_id: str) -> int:
    """Run the mover in its own process, killed after ``step``; its exit status."""
    assert settings.redis_url is not None and settings.archive_url is not None
    env = {**os.environ, "REDIS_URL": settings.redis_url, "FLOE_ARCHIVE_URL": settings.archive_url}
    run = subprocess.run(
        [sys.executable, "-m", "tests.support.killed_mover", step, game_id],
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == -signal.SIGKILL, run.stderr.decode()
    return run.returncode


@pytest.mark.parametrize("step", STEPS)
def test_a_mover_killed_after_any_step_loses_nothing(
    settings: Settings, redis_client: redis.Redis, step: str
) -> None:
    floe, client = api(settings)
    played = play_out(client, "arktia", 2, {"turn_limit": 2})
    version = played.view()["version"]
    before = game_reads(client, played.id, version, played.tokens)
    assert floe.archive is not None

    killed_mover(settings, step, played.id)
    in_redis = bool(redis_keys(redis_client, played.id))
    assert in_redis == (step != "delete")
    assert floe.archive.has(played.id) == (step != "read")
    _, fresh = api(settings)
    assert game_reads(fresh, played.id, version, played.tokens) == before

    assert floe.mover is not None and floe.mover.move(played.id) is None
    assert redis_keys(redis_client, played.id) == []
    assert redis_client.zscore("floe:games", played.id) is None
    assert redis_client.zscore("floe:ended", played.id) is None
    found = floe.archive.search(player="p0", limit=100).games
    assert [g.game_id for g in found].count(played.id) == 1
    _, fresh = api(settings)
    assert game_reads(fresh, played.id, version, played.tokens) == before


def test_movers_racing_over_the_same_games_move_each_once(
    settings: Settings, redis_client: redis.Redis
) -> None:
    floe, client = api(settings)
    games = [play_out(client, "arktia", 2, {"turn_limit": 2}).id for _ in range(8)]
    before = {g: answer(client, f"/v1/games/{g}/export") for g in games}
    movers = [mover for mover in (api(settings)[0].mover for _ in range(3)) if mover is not None]
    start = threading.Barrier(len(movers))
    moved: list[list[str]] = []

    def race(mover: Mover) -> None:
        start.wait()
        moved.append(mover.move_due().moved)

    threads = [threading.Thread(target=race, args=(mover,)) for mover in movers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(moved) == 3, "a mover raised"
    assert sorted({g for done in moved for g in done}) == sorted(games)
    assert all(redis_keys(redis_client, game_id) == [] for game_id in games)
    assert floe.archive is not None
    assert sorted(g.game_id for g in floe.archive.search(limit=100).games) == sorted(games)
    assert {g: answer(client, f"/v1/games/{g}/export") for g in games} == before
