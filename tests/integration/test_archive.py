"""The archive's back ends (service/archive), each for real: an SQLite file in tmp_path and a
database on the session's private PostgreSQL (tests/support/postgres.py). Every test runs
against both, through ``open_archive`` as the service will."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from service.archive import sql
from service.archive.opening import open_archive
from service.archive.protocol import (
    Archive,
    ArchiveConflict,
    ArchivedGame,
    ArchivedSummary,
    ArchiveError,
    BadCursor,
)
from service.run.redis_server import free_tcp_port
from tests.support import archives
from tests.support.waiting import PROMPTLY, wait_until

OpenArchive = Callable[[], Archive]
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def at(minutes: int) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def make_game(
    n: int,
    *,
    ended: int = 0,
    names: tuple[str, ...] = ("ann", "bo"),
    game: str = "ice",
    tournament: str | None = None,
    export: bytes | None = None,
) -> ArchivedGame:
    """Game number ``n``: an export of distinct lines, repetitive enough to compress."""
    lines = [
        f'{{"game_id":"g{n:03d}","seq":{v},"type":"placed","by":"Zoë","at":"{at(ended)}"}}'
        for v in range(40)
    ]
    return ArchivedGame(
        game_id=f"g{n:03d}",
        game=game,
        names=names,
        tournament=tournament,
        created_at=at(ended - 30),
        ended_at=at(ended),
        outcome={"winners": [0], "scores": {"0": 3, "1": 1}},
        version=40,
        last_hash=f"{n:064x}",
        record={"game": game, "seats": '[{"name":"ann"}]', "status": "over", "version": "40"},
        export=export if export is not None else ("\n".join(lines) + "\n").encode(),
    )


def order(games: list[ArchivedGame]) -> list[str]:
    """The ids in search order: ended_at, then game_id, both descending."""
    return [g.game_id for g in sorted(games, key=lambda g: (g.ended_at, g.game_id), reverse=True)]


def raw(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run ``query`` on the archive's database directly (committed), behind its back."""
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url[len("sqlite:///") :]) as conn:
            return conn.execute(query, params).fetchall()
    with psycopg.connect(url, autocommit=True) as pg:
        cursor = pg.execute(query.replace("?", "%s"), params)
        return cursor.fetchall() if cursor.description else []


#: An empty archive's URL: an SQLite file, or a new PostgreSQL database (each test, both).
archive_url = archives.archive_url


@pytest.fixture
def opened(archive_url: str) -> Iterator[OpenArchive]:
    """Open the archive (again: each call is another process's object); all closed after."""
    archives: list[Archive] = []

    def opener() -> Archive:
        archives.append(open_archive(archive_url))
        return archives[-1]

    yield opener
    for archive in archives:
        archive.close()


@pytest.fixture
def archive(opened: OpenArchive) -> Archive:
    return opened()


def page_through(archive: Archive, limit: int, **filters: Any) -> list[list[str]]:
    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        page = archive.search(limit=limit, cursor=cursor, **filters)
        pages.append([g.game_id for g in page.games])
        if page.cursor is None:
            return pages
        cursor = page.cursor


def test_put_then_get_gives_the_game_back_byte_for_byte(archive: Archive, archive_url: str) -> None:
    game = make_game(1, ended=5, names=("Zoë", "bot:greedy"), tournament="t1")
    assert not archive.has(game.game_id)
    assert archive.get(game.game_id) is None and archive.summary(game.game_id) is None
    archive.put(game)
    got = archive.get(game.game_id)
    assert got == game
    assert got is not None and got.export == game.export and type(got.export) is bytes
    assert archive.summary(game.game_id) == game.summary
    assert archive.has(game.game_id) and not archive.has("g999")
    # Kept compressed: one zstandard frame, much smaller than the export.
    ((frame,),) = raw(
        archive_url, "SELECT export_zst FROM archived_games WHERE game_id = ?", ("g001",)
    )
    assert bytes(frame).startswith(ZSTD_MAGIC) and len(frame) < len(game.export) / 3


def test_putting_the_same_game_again_changes_nothing(archive: Archive, archive_url: str) -> None:
    game = make_game(1)
    archive.put(game)
    archive.put(game)
    archive.put(make_game(1))  # an equal copy, as a mover resumed after a crash builds it
    assert archive.get("g001") == game
    assert raw(archive_url, "SELECT count(*) FROM archived_games") == [(1,)]
    assert raw(archive_url, "SELECT count(*) FROM archived_players") == [(2,)]


def test_a_different_export_under_an_archived_id_is_refused(archive: Archive) -> None:
    game = make_game(1)
    archive.put(game)
    with pytest.raises(ArchiveConflict, match="g001"):
        archive.put(make_game(1, export=game.export + b'{"seq":40}\n'))
    assert archive.get("g001") == game


def test_search_filters_by_player_game_tournament_and_end(archive: Archive) -> None:
    games = [
        make_game(1, ended=1, names=("ann", "bo")),
        make_game(2, ended=2, names=("cy", "ann"), game="pig", tournament="t1"),
        make_game(3, ended=3, names=("bo", "cy"), tournament="t1"),
        make_game(4, ended=4, names=("dee", "dee"), game="pig"),  # one player in two seats
        make_game(5, ended=5, names=("ann", "dee"), tournament="t2"),
    ]
    for game in games:
        archive.put(game)

    def ids(**filters: Any) -> list[str]:
        page = archive.search(limit=100, **filters)
        assert page.cursor is None
        return [g.game_id for g in page.games]

    assert ids() == ["g005", "g004", "g003", "g002", "g001"]
    assert ids(player="ann") == ["g005", "g002", "g001"]
    assert ids(player="dee") == ["g005", "g004"]
    assert ids(player="nobody") == []
    assert ids(game="pig") == ["g004", "g002"]
    assert ids(tournament="t1") == ["g003", "g002"]
    assert ids(player="cy", tournament="t1", game="ice") == ["g003"]
    assert ids(before=at(3)) == ["g002", "g001"]  # strictly before
    assert ids(after=at(3)) == ["g005", "g004"]  # strictly after
    assert ids(after=at(1), before=at(5), player="ann") == ["g002"]
    assert archive.search(limit=100, player="dee").games[1] == games[3].summary


@pytest.mark.parametrize("limit", [1, 10, 19, 56, 57, 58])
def test_paging_is_exact_over_ties(archive: Archive, limit: int) -> None:
    games = [make_game(n, ended=n % 7, names=("ann", f"p{n % 3}")) for n in range(57)]
    for game in games:
        archive.put(game)
    pages = page_through(archive, limit)
    assert [g for page in pages for g in page] == order(games)
    assert [len(page) for page in pages] == [limit] * (57 // limit) + (
        [57 % limit] if 57 % limit else []
    )
    by_player = page_through(archive, limit, player="p1")
    assert [g for page in by_player for g in page] == order([g for g in games if "p1" in g.names])


def test_games_archived_while_paging_never_shift_a_page(archive: Archive) -> None:
    first = [make_game(n, ended=n % 5) for n in range(30)]
    for game in first:
        archive.put(game)
    page = archive.search(limit=8)
    seen = [g.game_id for g in page.games]
    assert seen == order(first)[:8]
    newer = [make_game(n, ended=100) for n in range(100, 105)]  # ahead of the cursor
    tied = [make_game(n, ended=4) for n in range(300, 303)]  # the cursor's time, ids ahead
    older = [make_game(n, ended=n % 5 - 10) for n in range(200, 205)]  # behind it
    for game in newer + tied + older:
        archive.put(game)
    cursor = page.cursor
    while cursor is not None:
        page = archive.search(limit=8, cursor=cursor)
        assert len(page.games) == 8 or page.cursor is None
        seen += [g.game_id for g in page.games]
        cursor = page.cursor
    # The rest is exactly what sorts behind the first page's last row, at the time it is read.
    last = next(g for g in first if g.game_id == seen[7])
    behind = [g for g in first + older if (g.ended_at, g.game_id) < (last.ended_at, last.game_id)]
    assert seen[8:] == order(behind)
    assert len(seen) == len(set(seen)) == 35
    assert {g.game_id for g in first + older} == set(seen)


def test_games_since_gives_every_game_oldest_first_in_batches(
    archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql, "BATCH", 7)  # 57 games: eight full batches and a short one
    games = [make_game(n, ended=n % 9) for n in range(57)]
    for game in games:
        archive.put(game)
    everything = list(archive.games_since())
    assert [g.game_id for g in everything] == order(games)[::-1]
    assert everything == sorted(games, key=lambda g: (g.ended_at, g.game_id))
    since = [g.game_id for g in archive.games_since(at(4))]  # from 4 on, ties included
    assert since == [g for g in order(games)[::-1] if int(g[1:]) % 9 >= 4]
    assert list(archive.games_since(at(9))) == []


def test_two_archives_on_one_url_see_each_others_writes(opened: OpenArchive) -> None:
    api, worker = opened(), opened()
    worker.put(make_game(1))
    assert api.get("g001") == make_game(1)
    api.put(make_game(2, ended=1))
    assert [g.game_id for g in worker.search(limit=10).games] == ["g002", "g001"]
    # The same game put by both at once (two movers): one row, no error either side.
    errors: list[BaseException] = []

    def put(archive: Archive) -> None:
        try:
            for n in range(10, 30):
                archive.put(make_game(n, ended=2))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=put, args=(a,)) for a in (api, worker)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(page_through(api, 100)[0]) == 22


def test_the_schema_is_made_once_and_kept(opened: OpenArchive, archive_url: str) -> None:
    first = opened()
    first.put(make_game(1))
    first.close()
    again = opened()
    assert again.get("g001") == make_game(1)
    assert raw(archive_url, "SELECT key, value FROM archive_meta") == [("schema", "1")]
    again.close()
    raw(archive_url, "UPDATE archive_meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(ArchiveError, match="version 99"):
        opened()


def test_searches_refuse_what_they_cannot_mean(archive: Archive) -> None:
    archive.put(make_game(1))
    with pytest.raises(BadCursor):
        archive.search(limit=5, cursor="a1.bm9wZQ")
    with pytest.raises(BadCursor):
        archive.search(limit=5, cursor="not a cursor")
    with pytest.raises(ValueError, match="before"):
        archive.search(limit=5, before="2026-11-22")
    with pytest.raises(ValueError, match="limit"):
        archive.search(limit=0)
    with pytest.raises(ValueError, match="ended_at"):
        ArchivedSummary("g", "ice", (), None, at(0), "yesterday", {}, 1, "h")


@pytest.mark.parametrize("url", ["", "sqlite:///", "sqlite://relative.db", "mysql://h/db", "x.db"])
def test_an_archive_url_of_another_kind_is_refused(url: str) -> None:
    with pytest.raises(ArchiveError, match=r"sqlite:///PATH or postgresql://"):
        open_archive(url)


@pytest.mark.parametrize("password", ["s3cret", "s3cr%zzet"])  # libpq repeats a malformed one
def test_an_archive_server_that_does_not_answer_is_refused_by_name_without_its_password(
    password: str,
) -> None:
    unused_port = free_tcp_port()  # nothing listens there: the connection is refused
    url = f"postgresql://floe:{password}@127.0.0.1:{unused_port}/floe"
    with pytest.raises(ArchiveError, match="could not open the archive") as refused:
        open_archive(url)
    assert "s3cr" not in str(refused.value)
    assert f"127.0.0.1:{unused_port}" in str(refused.value)


@pytest.mark.processes
def test_a_postgres_archive_connects_again_after_the_server_drops_it(postgres_url: str) -> None:
    archive = open_archive(postgres_url)
    try:
        archive.put(make_game(1))
        (pid,) = raw(
            postgres_url,
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )[0]
        assert raw(postgres_url, "SELECT pg_terminate_backend(?)", (pid,)) == [(True,)]
        wait_until(
            lambda: not raw(postgres_url, "SELECT 1 FROM pg_stat_activity WHERE pid = ?", (pid,)),
            PROMPTLY,
            "the archive's backend to end",
        )
        with pytest.raises(psycopg.OperationalError):
            archive.get("g001")
        assert archive.get("g001") == make_game(1)
    finally:
        archive.close()


TOURNAMENT = {
    "spec": '{"game":"ice","players":[{"name":"Zoë"}]}',
    "status": "finished",
    "rounds": "[]",
    "writes": "7",
}


def test_a_tournament_is_kept_as_put_and_put_again_changes_nothing(
    opened: OpenArchive, archive_url: str
) -> None:
    archive, other = opened(), opened()
    assert archive.tournament("t1") is None
    archive.put_tournament("t1", at(5), TOURNAMENT)
    assert other.tournament("t1") == TOURNAMENT
    # A mover resumed after a crash puts the same record again, even with another time.
    other.put_tournament("t1", at(5), dict(TOURNAMENT))
    archive.put_tournament("t1", at(9), TOURNAMENT)
    assert raw(archive_url, "SELECT tournament_id, settled_at FROM archived_tournaments") == [
        ("t1", at(5))
    ]
    assert archive.tournament("t1") == TOURNAMENT and archive.tournament("t2") is None
    assert not archive.has("t1"), "a tournament is not a game"


def test_a_different_record_under_an_archived_tournament_is_refused(archive: Archive) -> None:
    archive.put_tournament("t1", at(5), TOURNAMENT)
    with pytest.raises(ArchiveConflict, match="t1"):
        archive.put_tournament("t1", at(5), {**TOURNAMENT, "writes": "8"})
    with pytest.raises(ArchiveConflict, match="t1"):
        archive.put_tournament("t1", at(5), {k: v for k, v in TOURNAMENT.items() if k != "rounds"})
    assert archive.tournament("t1") == TOURNAMENT
    with pytest.raises(ValueError, match="settled_at"):
        archive.put_tournament("t2", "yesterday", TOURNAMENT)
    assert archive.tournament("t2") is None


def test_an_archive_made_before_the_tournaments_table_gains_it_on_opening(
    opened: OpenArchive, archive_url: str
) -> None:
    first = opened()
    first.put(make_game(1))
    first.close()
    raw(archive_url, "DROP TABLE archived_tournaments")
    again = opened()
    again.put_tournament("t1", at(5), TOURNAMENT)
    assert again.tournament("t1") == TOURNAMENT and again.get("g001") == make_game(1)
    assert raw(archive_url, "SELECT key, value FROM archive_meta") == [("schema", "1")]
