"""Item deadlines (``service.jobs.deadlines``): an item past its own is reported once, from
the watching thread; an item that ends in time never is."""

from __future__ import annotations

import threading

from service.jobs.deadlines import Deadlines
from tests.support.waiting import PROMPTLY, wait_until


def test_an_item_past_its_deadline_is_reported_once_and_one_in_time_never() -> None:
    stuck: list[str] = []
    seconds = {"bot-slow-1": 0.05, "draw-quick-1": 60.0}
    deadlines = Deadlines(seconds.__getitem__, stuck.append, check_seconds=0.01)
    release = threading.Event()

    def hang() -> None:
        with deadlines.watch("bot-slow-1"):
            release.wait(PROMPTLY)

    with deadlines.watch("draw-quick-1"):
        pass
    hanging = threading.Thread(target=hang)
    hanging.start()
    try:
        wait_until(lambda: stuck == ["bot-slow-1"], PROMPTLY, "the stuck item to be reported")
    finally:
        release.set()
        hanging.join(PROMPTLY)
    with deadlines.watch("draw-quick-1"):
        pass
    assert stuck == ["bot-slow-1"], "once, and never the item that ended in time"
