"""An upload child: ``python -m service.uploads.child``, started by the API's upload pool.

Once it has imported what it needs it says so (a header ``{"ready": true}``); then it reads
frames (``service.uploads.frames``) from its stdin: a header ``{"from", "count",
"length"}`` and the uploaded file; it answers each on the pipe its stdout was at start with a
header ``{"length"}`` (or ``{"error"}``) and the answer's JSON (``service.uploads.answer``).
Anything else that writes to stdout (a stray print) goes to stderr instead, so it can never
corrupt a frame.

It never outlives the API process that started it: it exits when its stdin reaches end of
file (the API closed the pipe, or died: the kernel closes it then), and a watchdog thread
exits it when its parent changes (the API died while it was busy with a file).

``UPLOADS_TEST_GATE`` (tests only; not a setting): the path of a FIFO that each job opens
and reads to its end before it starts, so a test can hold a job for as long as it needs and
release it by closing its writing end.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import traceback

from service.uploads.answer import answer
from service.uploads.frames import read_frame, write_frame

#: Seconds between the watchdog's looks at the parent process.
PARENT_CHECK_SECONDS = 0.5
TEST_GATE = "UPLOADS_TEST_GATE"


def main() -> None:
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print goes to stderr, never into a frame
    requests = os.fdopen(0, "rb")
    _watch_parent(os.getppid())
    gate = os.environ.get(TEST_GATE)
    write_frame(replies, {"ready": True})  # imported: the jobs' deadlines start from here
    while True:
        frame = read_frame(requests)
        if frame is None:
            return
        header, body = frame
        if gate:
            with open(gate, "rb") as held:
                held.read()
        try:
            payload = answer(body, int(header["from"]), int(header["count"]))
        except Exception:  # a bug, not the file's fault: the API answers 500 and logs it
            write_frame(replies, {"error": traceback.format_exc(limit=20)})
            continue
        write_frame(replies, {}, payload)


def _watch_parent(parent: int) -> None:
    """Exit at once if the process that started this one is gone."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        main()
    sys.exit(0)
