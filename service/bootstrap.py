"""The composition root: the one place Floe's parts are built and wired together.

The API (``service.api.app.create_app``), the worker (``floe worker``: ``build_worker``), the
CLI and the benchmarks all call ``build``; tests call it too, passing their own Redis, clock,
queue or fault hooks. Nothing connects at import time: a connection is made here, when asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import redis

from domain.ai import policies as bot_policies
from domain.ai.policy import Policy
from domain.games import load_game_module
from replay.ed25519 import signature_is_valid
from service.archive.moving import Mover
from service.archive.opening import open_archive
from service.archive.protocol import Archive
from service.archive.reads import ArchiveBackedStore
from service.clock import Clock, utc_now
from service.games.access import Viewer, resolve
from service.games.commands import GameCommands
from service.games.follow_ups import JobQueue
from service.games.queries import GameQueries
from service.games.repository import GameRepository
from service.jobs.handlers import Automation, JobHooks
from service.jobs.lines import CreatorLines
from service.jobs.queue import RqJobQueue
from service.jobs.worker import Worker
from service.keys import service_key
from service.keys.receipts import Receipts
from service.limits.long_requests import LongRequestSlots, streams_per_process
from service.limits.quotas import CreatorQuotas, QuotaLimits
from service.limits.rate_limits import Limits, RateLimiter
from service.limits.storage import StorageBudget
from service.redis.connect import connect, connect_queue
from service.settings import Settings
from service.store import codec
from service.store.appends import AppendSignals
from service.store.durability import ReplicaAcks
from service.store.events import EventStore, RedisEventStore
from service.tables.seating import TableLimits, Tables
from service.tables.store import TableStore
from service.tournaments.running import Tournaments
from service.tournaments.store import TournamentStore


@dataclass(frozen=True, slots=True)
class Floe:
    """Every part of a running Floe, built once per process."""

    settings: Settings
    #: The Redis of the job queues (the backlog of draws and bot moves, RQ's drain jobs), the
    #: workers' liveness keys and the sweeper's lock: ``FLOE_QUEUE_URL`` (``floe run`` starts
    #: one in memory), else the event store's. Nothing in it is durable state: the sweeper
    #: rebuilds the backlog from the event store.
    queue_redis: redis.Redis
    redis: redis.Redis
    #: The event store: games' logs, records, seeds and command records.
    store: EventStore
    repository: GameRepository
    commands: GameCommands
    queries: GameQueries
    automation: Automation
    jobs: JobQueue
    tables: Tables
    tournaments: Tournaments
    #: The process's one subscription to appends (and tournaments' changes).
    signals: AppendSignals
    rate_limiter: RateLimiter
    long_requests: LongRequestSlots
    #: Signs a receipt for every event shown (the service key: ``FLOE_SERVICE_KEY_FILE``, or
    #: one held in memory when the settings name no file).
    receipts: Receipts
    #: Where finished games move (``FLOE_ARCHIVE_URL``); None: they stay in Redis.
    archive: Archive | None = None
    #: The workers' mover of finished games into ``archive`` (None without one).
    mover: Mover | None = None

    def viewer(self, authorization: str | None) -> Viewer:
        """Who an ``Authorization`` header names: a seat, a tournament player, the organizer
        or a spectator."""
        return resolve(
            authorization,
            self.repository.catalog,
            self.settings.organizer_token,
            self.tournaments,
        )


def load_games(modules: Iterable[str]) -> None:
    """Register the extra game packages named in the settings (each exports ``GAME``)."""
    for name in modules:
        load_game_module(name)


def build(
    settings: Settings | None = None,
    *,
    redis_client: redis.Redis | None = None,
    clock: Clock = utc_now,
    jobs: JobQueue | None = None,
    policies: Mapping[str, Policy] | None = None,
    hooks: JobHooks | None = None,
    archive: Archive | None = None,
) -> Floe:
    """Build Floe from ``settings`` (default: the environment) and what tests pass in
    (``archive``: one already open, instead of ``FLOE_ARCHIVE_URL``'s)."""
    settings = settings or Settings.from_env()
    load_games(settings.game_modules)
    client = redis_client or connect(settings)
    queue_client = connect_queue(settings, client)
    signals = AppendSignals(client)
    acks = ReplicaAcks(client, settings.replica_acks, settings.replica_ack_timeout_ms)
    archive = archive or (open_archive(settings.archive_url) if settings.archive_url else None)
    store: RedisEventStore = (
        RedisEventStore(client, signals, acks)
        if archive is None
        else ArchiveBackedStore(client, signals, acks, archive=archive)
    )
    repository = GameRepository(store, clock, cache_bytes=settings.cache_bytes)
    queue = jobs or RqJobQueue(
        queue_client,
        bot_move_seconds=settings.bot_move_seconds,
        bot_seconds_per_creator=settings.bot_seconds_per_creator,
        line_of=CreatorLines(repository.catalog).line_of,
    )
    limits = Limits(
        per_token=settings.rate_limit_per_token,
        per_address=settings.rate_limit_per_address,
        window_seconds=settings.rate_limit_window_seconds,
    )
    quotas = CreatorQuotas(
        client,
        QuotaLimits(
            bot_games=settings.bot_games_per_creator, live_games=settings.live_games_per_creator
        ),
        clock,
        store,
        storage=StorageBudget(
            client,
            store,
            settings.stored_bytes_per_creator,
            archive_after_s=None if archive is None else settings.archive_after_s,
        ),
    )
    commands = GameCommands(
        repository, queue, signature_is_valid, quotas, events_per_game=settings.events_per_game
    )
    table_limits = TableLimits(
        ttl_seconds=settings.table_ttl_seconds,
        open_per_creator=settings.open_tables_per_creator,
    )
    tournament_store = TournamentStore(client, acks, archive=archive, clock=clock)
    tournaments = Tournaments(tournament_store, commands, repository, store, clock, jobs=queue)
    mover = (
        None
        if archive is None
        else Mover(store, archive, tournament_store, clock, after_s=settings.archive_after_s)
    )
    return Floe(
        settings=settings,
        redis=client,
        queue_redis=queue_client,
        store=store,
        repository=repository,
        commands=commands,
        tables=Tables(TableStore(client, acks), commands, quotas, clock, table_limits),
        queries=GameQueries(repository, store, signals=signals),
        tournaments=tournaments,
        signals=signals,
        automation=Automation(
            repository,
            store,
            queue,
            bot_policies(codec.canonical_bytes) if policies is None else policies,
            hooks,
            bot_move_seconds=settings.bot_move_seconds,
            events_per_game=settings.events_per_game,
            tournaments=tournaments,
        ),
        jobs=queue,
        rate_limiter=RateLimiter(client, limits, clock, cluster=settings.redis_cluster),
        long_requests=LongRequestSlots(
            client,
            settings.long_requests_per_address,
            clock,
            per_process=streams_per_process(settings.web_connections),
        ),
        receipts=Receipts(service_key.for_file(settings.service_key_file), store.seed),
        archive=archive,
        mover=mover,
    )


def build_worker(
    floe: Floe,
    *,
    draws_only: bool = False,
    burst: bool = False,
    retry_failed: bool = True,
    deadline_of: Callable[[str], float] | None = None,
) -> Worker:
    """The job worker (``floe worker``) on ``floe``'s parts (``service.jobs.worker.Worker``
    says what the flags do; ``deadline_of`` is for tests: each item's deadline, seconds)."""
    settings = floe.settings
    queue = floe.jobs
    if not isinstance(queue, RqJobQueue):  # a test handed Floe another kind: the real one
        queue = RqJobQueue(
            floe.queue_redis,
            bot_move_seconds=settings.bot_move_seconds,
            bot_seconds_per_creator=settings.bot_seconds_per_creator,
            line_of=CreatorLines(floe.repository.catalog).line_of,
        )
    return Worker(
        floe.automation,
        queue,
        floe.queue_redis,
        sweep_seconds=settings.sweep_seconds,
        threads=settings.worker_threads,
        draws_only=draws_only,
        burst=burst,
        retry_failed=retry_failed,
        deadline_of=deadline_of,
        mover=floe.mover,
    )
