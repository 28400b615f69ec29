"""The ``floe`` console script: ``serve``, ``worker``, ``run``, ``keys``, ``archive`` and
``replay``.

Each command reads the settings once and builds what it needs through ``service.bootstrap``;
``replay`` gets the event store handed in, so the replay tools never import the service.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from domain.engine.log import EventReader
from service.log_level import configure_logging
from service.settings import Settings

if TYPE_CHECKING:
    import redis


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="floe", description="Floe game service")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the HTTP API (Flask development server)")
    serve.add_argument("--host", default=None, help="default: $FLOE_HOST, else 127.0.0.1")
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
    keys = commands.add_parser(
        "keys",
        help="the service key that signs receipts: show its public keys, or rotate it",
        description="The service key: FLOE_SERVICE_KEY_FILE, else keys/service.key in "
        "FLOE_DATA_DIR (.floe-data when unset), the file floe run uses with the same "
        "environment. show prints what GET /v1/keys answers; rotate makes a new key and "
        "lists the old one as retired (restart the API processes to sign with the new one).",
    )
    keys.add_argument("action", choices=("show", "rotate"))
    keys.add_argument("--file", type=Path, help="the key file (default: as above)")
    archive = commands.add_parser(
        "archive",
        help="the finished games moved out of Redis (FLOE_ARCHIVE_URL)",
        description="The archive FLOE_ARCHIVE_URL names (else archive.sqlite3 in "
        "FLOE_DATA_DIR, where floe run keeps it).",
    )
    archived = archive.add_subparsers(dest="archive_command", required=True)
    dump = archived.add_parser(
        "dump",
        help="write archived games to one .ndjson.zst file that floe replay verify audits",
        description="Write every archived game that ended at or after --since, oldest first: "
        "each game's export lines, one zstandard-compressed stream. The file is written "
        "beside its name and renamed into place at the end; what was written goes to stderr.",
    )
    dump.add_argument(
        "--since",
        type=_since,
        metavar="DATE",
        help="a date (2026-11-01: from its midnight UTC) or a time (2026-11-01T00:00:00Z); "
        "default: every game",
    )
    dump.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the file to write, - for stdout (default: floe-games-<UTC date>.ndjson.zst)",
    )
    commands.add_parser("replay", help="export and verify games (floe replay --help)")
    if argv[:1] == ["run"]:
        from service.run.supervisor import run

        return run(argv[1:])  # reads the settings itself: its flags override them
    try:
        settings = Settings.from_env()
    except ValueError as error:
        print(f"floe: error: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    from service.bootstrap import load_games

    load_games(settings.game_modules)
    if argv[:1] == ["replay"]:
        from replay.cli import main as replay

        return replay(argv[1:], open_store=functools.cache(lambda: _store(settings)))
    args = parser.parse_args(argv)
    if args.command == "keys":
        return _keys(args.action, args.file or _key_file(settings))
    if args.command == "archive":
        return _archive_dump(settings.archive_url, args.since, args.output)
    if args.command == "serve":
        from service.api.app import create_app

        port = settings.port if args.port is None else args.port
        app = create_app(settings)
        if not _store_is_safe(app.extensions["floe"].redis, settings):
            return 1
        app.run(host=args.host or settings.host, port=port, threaded=True)
        return 0
    from service.bootstrap import build, build_worker

    floe = build(settings)
    if not _store_is_safe(floe.redis, settings):
        return 1
    job_worker = build_worker(
        floe,
        burst=args.burst,
        draws_only=args.draws_only,
        retry_failed=args.retry_failed,
    )
    from service.run.collector import tune_for_server

    tune_for_server()  # as a web worker's: bots fold many states, the collector walked them
    job_worker.run()
    return 0


def _store_is_safe(client: redis.Redis, settings: Settings) -> bool:
    """Whether this process may start on the event store: False (having said why on stderr)
    for one that may lose games, unless FLOE_STORE_RISKS_ACCEPTED=1."""
    from service.redis.durability import StoreRisksRefused, check_at_start

    try:
        check_at_start(client, settings, logging.getLogger("floe").warning)
    except StoreRisksRefused as refused:
        print(f"floe: error: {refused}", file=sys.stderr)
        return False
    return True


def _key_file(settings: Settings) -> Path:
    """The service key ``floe run`` would use with these settings."""
    from service.keys.service_key import default_file

    return settings.service_key_file or default_file(settings.data_dir)


def _keys(action: str, path: Path) -> int:
    """``floe keys show`` (the answer of ``GET /v1/keys``, to save) or ``rotate``."""
    from service.clock import utc_now
    from service.keys.service_key import ServiceKeyError, load, rotate

    try:
        if action == "rotate":
            old, new = rotate(path, at=utc_now())
            print(f"retired {old}; receipts are signed with {new} once every API process")
            print("has restarted (until then each signs, and lists, the key it started with)")
            return 0
        if not path.exists():
            raise ServiceKeyError(f"no service key at {path} yet (a first start makes one)")
        print(json.dumps({"keys": load(path).listed()}, indent=2))
    except ServiceKeyError as error:
        print(f"floe keys: error: {error}", file=sys.stderr)
        return 1
    return 0


def _since(text: str) -> str:
    """``--since`` for argparse: a bad one is a usage error (exit 2) saying what is taken."""
    from service.archive.dump import since_time

    try:
        return since_time(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _archive_dump(url: str | None, since: str | None, output: str | None) -> int:
    """``floe archive dump``: 0 written, 1 the archive or the file failed, 2 nothing to read
    (no archive configured) or nowhere sensible to write (stdout a terminal)."""
    import sqlite3

    import psycopg

    from service.archive.dump import default_name, dump, dump_to_file
    from service.archive.opening import open_archive
    from service.archive.protocol import ArchiveError
    from service.clock import utc_now

    def fail(message: str, code: int) -> int:
        print(f"floe archive dump: error: {message}", file=sys.stderr)
        return code

    if url is None:
        return fail(
            "no archive to dump: set FLOE_ARCHIVE_URL (sqlite:///PATH or postgresql://...), "
            "or FLOE_DATA_DIR to the data directory of floe run (.floe-data by default)",
            2,
        )
    to_stdout = output == "-"
    if to_stdout and sys.stdout.isatty():
        return fail("will not write compressed bytes to a terminal: redirect stdout", 2)
    target = Path(output or default_name(utc_now()))
    try:
        archive = open_archive(url)
        try:
            if to_stdout:
                done = dump(archive, since, sys.stdout.buffer)
            else:
                done = dump_to_file(archive, since, target)
        finally:
            archive.close()
    except BrokenPipeError:  # whoever read stdout stopped: quietly, as a shell expects
        _silence_stdout()
        return 141
    except KeyboardInterrupt:
        return fail("interrupted" + ("" if to_stdout else f": nothing written to {target}"), 130)
    except (ArchiveError, sqlite3.Error, psycopg.Error, OSError) as error:
        return fail(str(error) + ("" if to_stdout else f" (nothing written to {target})"), 1)
    where = "stdout" if to_stdout else str(target)
    print(f"floe archive dump: wrote {done} to {where}", file=sys.stderr)
    return 0


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush cannot complain either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _store(settings: Settings) -> EventReader:
    """The event store replay reads games from by id (needs ``REDIS_URL``)."""
    from service.redis.connect import connect
    from service.store.events import RedisEventStore

    if settings.redis_url is None:
        raise SystemExit("naming a game by id needs REDIS_URL (or pass an export file)")
    return RedisEventStore(connect(settings))


if __name__ == "__main__":
    sys.exit(main())
