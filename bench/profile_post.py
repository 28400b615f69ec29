"""Where a move's CPU goes: ``POST /actions``, a bot's ``GET legal-actions`` + ``POST``, and
``POST /bench/xadd``, in process.

``python -m bench.profile_post`` drives the Flask app through its test client against a
private durable Redis (no gunicorn, no network client), measures CPU per request (thread
time, so waiting on Redis or fsync does not count), then runs cProfile with a thread-time
clock and groups own time by package. Categories survive refactors of the service, unlike
per-function numbers; ``--top`` adds the most expensive functions.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench import policy
from service.api.app import create_app
from service.run.redis_server import DURABLE_CONFIG, RedisServer
from service.settings import Settings

CATEGORIES: tuple[tuple[str, str], ...] = (
    ("/domain/", "domain (decide, evolve)"),
    ("/marshmallow/", "marshmallow"),
    ("/redis/", "redis-py"),
    ("/flask/", "flask + werkzeug"),
    ("/werkzeug/", "flask + werkzeug"),
    ("/service/", "service (own code)"),
    ("/json/", "json"),
)


GENERIC = ("other builtins (C)", "stdlib / other")


def _category(filename: str, function: str) -> str:
    if filename == "~":
        return "socket I/O (C)" if "socket" in function else "other builtins (C)"
    for marker, name in CATEGORIES:
        if marker in filename:
            return name
    return "stdlib / other"


def _by_category(profile: cProfile.Profile) -> dict[str, float]:
    """Own time per package; builtins and stdlib helpers are charged to their callers'
    packages (in proportion to the time each caller spent in them), so ``isinstance`` under
    marshmallow counts as marshmallow and ``dataclasses.replace`` under the rules as domain.
    """
    stats: dict[Any, Any] = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    memo: dict[Any, dict[str, float]] = {}

    def mix(func: Any, seen: frozenset[Any]) -> dict[str, float]:
        if func in memo:
            return memo[func]
        own = _category(func[0], func[2])
        callers = stats.get(func, (0, 0, 0.0, 0.0, {}))[4]
        total = sum(timing[2] for timing in callers.values())
        if own not in GENERIC or not callers or total <= 0 or func in seen:
            return {own: 1.0}
        out: dict[str, float] = {}
        for caller, timing in callers.items():
            for key, share in mix(caller, seen | {func}).items():
                out[key] = out.get(key, 0.0) + share * timing[2] / total
        memo[func] = out
        return out

    totals: dict[str, float] = {}
    for func, (_cc, _nc, own_time, _cum, _callers) in stats.items():
        for key, share in mix(func, frozenset()).items():
            totals[key] = totals.get(key, 0.0) + own_time * share
    return totals


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_post", description=__doc__)
    parser.add_argument("--requests", type=int, default=500, help="measured requests per route")
    parser.add_argument("--top", type=int, default=0, help="also print the N costliest functions")
    args = parser.parse_args(argv)
    n = int(args.requests)
    script = policy.script(7, 5 * n + 200)
    tmp = Path(tempfile.mkdtemp(prefix="floe-prof-"))
    try:
        cpu, profiles = _measure(tmp, n, script)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _print(cpu, profiles, args.top)
    return 0


def _measure(
    tmp: Path, n: int, script: Sequence[policy.Step]
) -> tuple[dict[str, float], dict[str, cProfile.Profile]]:
    """CPU per request of both routes, unprofiled, then one cProfile run of each."""
    with RedisServer(tmp / "redis", unix_socket=tmp / "redis.sock", config=DURABLE_CONFIG) as r:
        settings = Settings(
            redis_url=r.url,
            bench_routes=True,
            rate_limit_per_token=10**9,  # counted (part of the cost), never throttling
            rate_limit_per_address=10**9,
        )
        app = create_app(settings)
        client = app.test_client()
        created = client.post(
            "/v1/games",
            json={
                "game": "arktia",
                "players": [{"name": "a"}, {"name": "b"}],
                "options": policy.OPTIONS,
            },
        ).get_json()
        game_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
        version = 1

        def post_move() -> None:
            nonlocal version
            step = script[version - 1]
            body = {"action": step.action, "expected_version": version, "command_id": f"c{version}"}
            response = client.post(
                f"/v1/games/{game_id}/actions",
                data=json.dumps(body),
                headers={
                    "Authorization": f"Bearer {tokens[step.seat]}",
                    "Content-Type": "application/json",
                },
            )
            if response.status_code != 201:
                raise RuntimeError(f"POST answered {response.status_code}: {response.get_data()!r}")
            version += 1

        bare_body = json.dumps(
            {"action": script[0].action, "expected_version": 1, "command_id": "x"}
        )

        def post_bare() -> None:
            client.post(
                "/bench/xadd",
                data=bare_body,
                headers={"Authorization": "Bearer x.0.y", "Content-Type": "application/json"},
            )

        def cpu_per_request(op: Callable[[], None]) -> float:
            started = time.thread_time()
            for _ in range(n):
                op()
            return (time.thread_time() - started) / n * 1e6

        def profiled(op: Callable[[], None]) -> cProfile.Profile:
            profile = cProfile.Profile(time.thread_time)
            profile.enable()
            for _ in range(n):
                op()
            profile.disable()
            return profile

        def bot_move() -> None:
            """A naive bot's turn: list the legal actions, then post the scripted one."""
            step = script[version - 1]
            response = client.get(
                f"/v1/games/{game_id}/legal-actions",
                headers={"Authorization": f"Bearer {tokens[step.seat]}"},
            )
            if response.status_code != 200 or step.action not in response.get_json()["actions"]:
                raise RuntimeError(f"GET answered {response.status_code}: {response.get_data()!r}")
            post_move()

        ops = {"actions": post_move, "bot loop": bot_move, "bare": post_bare}
        for _ in range(50):  # warm caches, imports and connections
            for op in ops.values():
                op()
        cpu = {name: cpu_per_request(op) for name, op in ops.items()}
        profiles = {name: profiled(op) for name, op in ops.items()}
    return cpu, profiles


def _print(cpu: dict[str, float], profiles: dict[str, cProfile.Profile], top: int) -> None:
    groups = {name: _by_category(p) for name, p in profiles.items()}
    print("CPU per request, unprofiled (thread time, test client included):")
    for name, value in cpu.items():
        print(f"  {name:8s} {value:7.0f} us")
    print("\nown time by package under cProfile, scaled to the unprofiled CPU per request (us):")
    names = list(groups)
    keys = sorted(set().union(*groups.values()), key=lambda k: -groups["actions"].get(k, 0))
    print(f"  {'package':28s}" + "".join(f"{name:>10s}" for name in names))
    for key in keys:
        cells = []
        for name in names:
            total = sum(groups[name].values()) or 1.0
            cells.append(groups[name].get(key, 0.0) / total * cpu[name])
        print(f"  {key:28s}" + "".join(f"{cell:10.0f}" for cell in cells))
    if top:
        print()
        stats = pstats.Stats(profiles["actions"], stream=sys.stdout)
        stats.sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    sys.exit(main())
