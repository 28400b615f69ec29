"""``floe replay verify`` on a dump: every game in it audited exactly as a single game's
export file is, each with its own verdict, in the dump's order, as the dump is read.

A game is named ``FILE#N`` (the dump and the game's place in it, 1 for the first), and its
verdict carries the id its log holds, so a line reads ``dump.ndjson.zst#7 (game g-18): ok``.
Line numbers in a reason count from the game's first line, as in the game's own export.
A dump that cannot be read to its end (corrupt, cut short, not zstandard) ends with one
failed verdict: the game it broke off in, or the file itself when no game had begun.

Games are verified in ``jobs`` processes, a few per process in flight at a time, so however
many games a dump holds, only those few are in memory. A process that dies takes only its
own game's verdict with it: the games it shared the pool with are verified again, each in a
process of its own, and a new pool takes the rest.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace

from replay.dump import DumpError, DumpGame, read_games
from replay.verify import MAX_REASON, Verdict, verify_lines

#: Games in flight per process: enough to keep every process busy, few enough to hold.
IN_FLIGHT = 4
#: Fewer games than this are verified in this process (a pool costs more than it saves).
POOLED_FROM = 4


def game_name(path: str, game: DumpGame) -> str:
    """``FILE#N``: where the game is in the dump."""
    return f"{path}#{game.number}"


def verify_game(
    name: str, game_id: str | None, lines: list[str], bot_replay: bool = True
) -> Verdict:
    """The verdict on one game of a dump, as on its own export file. Never raises."""
    try:
        verdict = verify_lines(lines, bot_replay=bot_replay)
        return replace(verdict, file=name, game_id=verdict.game_id or game_id)
    except Exception as error:  # a bug, not a verdict on the dump: the other games go on
        return _failed(name, game_id, f"the verifier crashed: {type(error).__name__}: {error}")


def audit_dump(
    path: str, *, bot_replay: bool = True, jobs: int = 1
) -> Iterator[tuple[DumpGame | None, Verdict]]:
    """Each game of the dump with its verdict, in order; a dump that breaks off ends with the
    game it broke off in (None: before any game) and the verdict saying so."""
    games = read_games(path)
    first: list[DumpGame] = []
    broken: DumpError | None = None
    try:
        for game in games:
            first.append(game)
            if len(first) == POOLED_FROM:
                break
    except DumpError as error:
        broken = error
    many = broken is None and len(first) == POOLED_FROM
    rest: Iterator[DumpGame] = _chain(first, games) if many else iter(first)
    if many and jobs > 1:
        found = _pooled(path, rest, bot_replay, jobs)
    else:
        found = _alone_each(path, rest, bot_replay)
    try:
        yield from found
    except DumpError as error:
        broken = error
    if broken is not None:
        yield broken.cut, _broken(path, broken)


def _chain(first: list[DumpGame], rest: Iterator[DumpGame]) -> Iterator[DumpGame]:
    yield from first
    yield from rest


def _alone_each(
    path: str, games: Iterator[DumpGame], bot_replay: bool
) -> Iterator[tuple[DumpGame, Verdict]]:
    for game in games:
        yield game, verify_game(game_name(path, game), game.game_id, game.lines, bot_replay)


def _pooled(
    path: str, games: Iterator[DumpGame], bot_replay: bool, jobs: int
) -> Iterator[tuple[DumpGame, Verdict]]:
    """The games verified in a pool of ``jobs`` processes, their verdicts in order."""
    pending: deque[tuple[DumpGame, Future[Verdict] | None]] = deque()
    pool = ProcessPoolExecutor(max_workers=jobs)

    def submit(game: DumpGame) -> Future[Verdict] | None:
        nonlocal pool
        name = game_name(path, game)
        for _ in range(2):  # a broken pool refuses at once: once more in a new one
            try:
                return pool.submit(verify_game, name, game.game_id, game.lines, bot_replay)
            except BrokenProcessPool:
                pool.shutdown(wait=False, cancel_futures=True)
                pool = ProcessPoolExecutor(max_workers=jobs)
        return None

    def settle(game: DumpGame, future: Future[Verdict] | None) -> tuple[DumpGame, Verdict]:
        name = game_name(path, game)
        if future is not None:
            try:
                return game, future.result()
            except BrokenProcessPool:
                pass
            except Exception as error:  # a verdict that could not travel back, say
                return game, _failed(name, game.game_id, f"the verifier crashed: {error!r}")
        return game, _in_own_process(name, game, bot_replay)

    broken: DumpError | None = None
    try:
        try:
            for game in games:
                pending.append((game, submit(game)))
                while len(pending) >= IN_FLIGHT * jobs:
                    yield settle(*pending.popleft())
        except DumpError as error:  # the games read before it still get their verdicts
            broken = error
        while pending:
            yield settle(*pending.popleft())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if broken is not None:
        raise broken


def _in_own_process(name: str, game: DumpGame, bot_replay: bool) -> Verdict:
    """Verify one game in a process of its own, so that if it dies only this game fails."""
    try:
        with ProcessPoolExecutor(max_workers=1) as pool:
            return pool.submit(verify_game, name, game.game_id, game.lines, bot_replay).result()
    except BrokenProcessPool:
        return _failed(name, game.game_id, "the verifier's process died on this game")
    except Exception as error:
        return _failed(name, game.game_id, f"the verifier crashed: {error!r}")


def _broken(path: str, error: DumpError) -> Verdict:
    """The failed verdict of a dump that cannot be read on."""
    game = error.cut
    if game is None:
        return Verdict(None, "failed", 0, None, error.reason[:MAX_REASON], file=path)
    reason = f"the dump breaks off in this game, not verified: {error.reason}"
    events = sum(1 for line in game.lines if line.strip())
    return _failed(game_name(path, game), game.game_id, reason, events)


def _failed(name: str, game_id: str | None, reason: str, events: int = 0) -> Verdict:
    return Verdict(game_id, "failed", events, None, reason[:MAX_REASON], file=name)
