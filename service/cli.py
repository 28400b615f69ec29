"""The ``floe`` console script: ``serve``, ``worker``, ``run`` and ``replay``."""

from __future__ import annotations

import argparse
import os
import sys

from service.config import Settings


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="floe", description="Floe game service")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the HTTP API (Flask development server)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    worker = commands.add_parser("worker", help="run an RQ worker for draws and bots")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    commands.add_parser("run", help="Redis (unless REDIS_URL is set), a worker and the API")
    commands.add_parser("replay", help="export and verify games (floe replay --help)")
    if argv[:1] == ["replay"]:
        from replay.cli import main as replay

        return replay(argv[1:])
    if argv[:1] == ["run"]:
        from service.supervisor import run

        return run(argv[1:])
    args = parser.parse_args(argv)
    if args.command == "serve":
        from service.app import create_app

        create_app().run(host=args.host, port=args.port, threaded=True)
        return 0
    from service.jobs import run_worker

    settings = Settings.from_env()
    run_worker(settings, burst=args.burst, sweep_seconds=settings.sweep_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
