"""The search's table of logarithms holds the same values however it was filled: searches in
threads racing to fill it must not leave one process's ``mcts`` moves different from the
same moves anywhere else (bot replay makes them again in another process)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from decimal import Context, Decimal

import pytest

from domain.ai import mcts


@pytest.fixture
def empty_table() -> Iterator[None]:
    """The table as a fresh process has it, and a thread switch every microsecond."""
    saved, interval = dict(mcts._LOGS), sys.getswitchinterval()
    mcts._LOGS.clear()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)
    mcts._LOGS.clear()
    mcts._LOGS.update(saved)


@pytest.mark.usefixtures("empty_table")
def test_threads_racing_to_fill_the_table_store_every_logarithm_right() -> None:
    top = 2000

    def fill() -> None:
        for n in range(1, top):
            mcts.natural_log(n)

    threads = [threading.Thread(target=fill) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    exact = Context(prec=40)
    wrong = [
        n for n in range(1, top) if mcts.natural_log(n) != float(exact.ln(Decimal(n)))
    ]  # a table filled by position held ln 5 at 6, and so on, in every run of this test
    assert wrong == []


def test_the_logarithms_are_decimals_rounded_once() -> None:
    assert mcts.natural_log(0) == mcts.natural_log(1) == 0.0
    assert mcts.natural_log(2) == 0.6931471805599453
    assert mcts.natural_log(4000) == float(Context(prec=40).ln(Decimal(4000)))
