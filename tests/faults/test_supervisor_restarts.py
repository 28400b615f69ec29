"""``floe run`` supervises (issue 27): SIGKILL its job workers and its API's gunicorn master
in the middle of a game, and it starts each again, says so in its log, keeps the first worker
for draws only, and the game goes on to its end on the new processes, each event once."""

from __future__ import annotations

import os
import random
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.floe_run import FloeRun, call, floe_run, new_game
from tests.support.served import audit, stored_log
from tests.support.waiting import PROMPTLY, wait_until

View = dict[str, Any]
ANN = 1


def _view(run: FloeRun, game_id: str) -> View:
    status, view, _ = call(run.port, "GET", f"/v1/games/{game_id}")
    assert status == 200, view
    return dict(view)


def _ann_moves(run: FloeRun, game_id: str, token: str, rng: random.Random) -> None:
    """One of Ann's legal actions (rarely her retiring), waiting a little for its draw."""
    _, legal, _ = call(run.port, "GET", f"/v1/games/{game_id}/legal-actions", token=token)
    actions = [a for a in legal["actions"] if a["type"] != "retire"] or legal["actions"]
    body = {
        "action": rng.choice(actions),
        "expected_version": legal["version"],
        "command_id": f"ann-{legal['version']}",
    }
    path = f"/v1/games/{game_id}/actions?wait=10"
    status, answer, _ = call(run.port, "POST", path, body, token=token)
    assert status in (201, 202), answer


def _play(
    run: FloeRun, game_id: str, token: str, rng: random.Random, until: Callable[[View], bool]
) -> View:
    """Ann plays whenever she may; the bot's moves and the draws are the workers'."""
    while not until(view := _view(run, game_id)):
        assert view["status"] != "over", "the game ended before the test was done with it"
        if ANN in view["to_act"]:
            _ann_moves(run, game_id, token, rng)
        else:
            wait_until(
                _moved_on(run, game_id, view["version"]),
                PROMPTLY,
                f"a draw or the bot's move after v{view['version']}",
            )
    return view


def _moved_on(run: FloeRun, game_id: str, version: int) -> Callable[[], bool]:
    return lambda: _view(run, game_id)["version"] != version


def _gone(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie not yet reaped counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return status.rsplit(")", 1)[1].split()[0] == "Z"


def test_killed_workers_and_a_killed_api_are_started_again_and_a_game_in_progress_ends(
    tmp_path: Path,
) -> None:
    env = {"FLOE_JOB_WORKERS": "2", "FLOE_SWEEP_SECONDS": "0.2"}
    with floe_run(tmp_path, env) as run:
        draws, bots = run.current_worker_pids()
        api, api_workers = run.api_pid(), run.api_workers()
        players = [{"name": "bot", "bot": "random"}, {"name": "Ann"}]
        status, created, _ = new_game(run.port, "iceberg", players=players, wait=10)
        assert status == 201, created
        game_id, token = created["id"], created["seats"][ANN]["token"]
        rng = random.Random(27)
        waiting = _play(
            run, game_id, token, rng, lambda view: view["version"] >= 8 and view["to_act"] == [ANN]
        )

        for pid in (draws, bots, api):
            os.kill(pid, signal.SIGKILL)
        wait_until(
            lambda: not {draws, bots} & set(run.current_worker_pids()) and run.api_pid() != api,
            PROMPTLY,
            "floe run to start two workers and an API in the killed ones' places",
        )
        # the killed master's gunicorn workers leave on their own once their parent is gone
        wait_until(lambda: all(map(_gone, api_workers)), PROMPTLY, "the old API workers to go")
        wait_until(run.healthy, PROMPTLY, "the new API to answer /v1/health")

        log = run.log()
        assert f"restarting: api (pid {api}) was killed by SIGKILL" in log
        for pid in (draws, bots):
            assert f"restarting: worker (pid {pid}) was killed by SIGKILL" in log
        new_draws, new_bots = run.current_worker_pids()
        assert f"(pid {new_draws}, draws only; replaces {draws})" in log
        assert f"(pid {new_bots}, draws, then bots; replaces {bots})" in log
        assert f"(pid {run.api_pid()}; replaces {api})" in log

        assert _view(run, game_id)["version"] == waiting["version"], "served as it was left"
        final = _play(run, game_id, token, rng, lambda view: view["status"] == "over")
        assert final["outcome"] is not None
        assert run.process.poll() is None, "floe run runs on"
        for pid in (new_draws, new_bots, run.api_pid()):
            assert not _gone(pid), "the replacements still run"
        events = stored_log(run.redis(), game_id)
        assert [e.version for e in events] == list(range(1, final["version"] + 1))
        assert audit(events).status == "ok"
