"""The ``floe`` console script: ``serve``, ``worker``, ``run`` and ``replay``.

Each command reads the settings once and builds what it needs through ``service.bootstrap``;
``replay`` gets the event store handed in, so the replay tools never import the service.
"""

from __future__ import annotations

import argparse
import functools
import sys

from domain.engine.log import EventReader
from service.settings import Settings


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="floe", description="Floe game service")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the HTTP API (Flask development server)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=None, help="default: $PORT, else 8000")
    worker = commands.add_parser("worker", help="run an RQ worker for draws and bots")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.add_argument(
        "--draws-only", action="store_true", help="work only draws (never a bot's move)"
    )
    worker.add_argument(
        "--no-retry-failed",
        dest="retry_failed",
        action="store_false",
        help="leave failed bot moves failed at start (floe run's replacement workers)",
    )
    commands.add_parser("run", help="Redis (unless REDIS_URL is set), a worker and the API")
    commands.add_parser("replay", help="export and verify games (floe replay --help)")
    if argv[:1] == ["run"]:
        from service.run.supervisor import run

        return run(argv[1:])  # reads the settings itself: its flags override them
    try:
        settings = Settings.from_env()
    except ValueError as error:
        print(f"floe: error: {error}", file=sys.stderr)
        return 2
    from service.bootstrap import load_games

    load_games(settings.game_modules)
    if argv[:1] == ["replay"]:
        from replay.cli import main as replay

        return replay(argv[1:], open_store=functools.cache(lambda: _store(settings)))
    args = parser.parse_args(argv)
    if args.command == "serve":
        from service.api.app import create_app

        port = settings.port if args.port is None else args.port
        create_app(settings).run(host=args.host, port=port, threaded=True)
        return 0
    from service.bootstrap import build, build_worker

    job_worker = build_worker(
        build(settings),
        burst=args.burst,
        draws_only=args.draws_only,
        retry_failed=args.retry_failed,
    )
    job_worker.run()
    return 0


def _store(settings: Settings) -> EventReader:
    """The event store replay reads games from by id (needs ``REDIS_URL``)."""
    from service.redis.connect import connect
    from service.store.events import RedisEventStore

    if settings.redis_url is None:
        raise SystemExit("naming a game by id needs REDIS_URL (or pass an export file)")
    return RedisEventStore(connect(settings))


if __name__ == "__main__":
    sys.exit(main())
