"""A mover that SIGKILLs itself after one named step, for the crash tests.

``python -m tests.support.killed_mover STEP ID [game|tournament]`` builds Floe from the
environment (``REDIS_URL``, ``FLOE_ARCHIVE_URL``, as a worker is built), and moves the game
(or, with ``tournament``, the settled tournament) ``ID`` with a ``Mover`` whose ``on_step``
hook kills the process with SIGKILL right after ``STEP`` (``service.archive.moving.STEPS``):
no cleanup, no flush, as a power cut or the kernel's OOM killer would. Production movers
have no such hook: the test injects it here.
"""

from __future__ import annotations

import os
import signal
import sys

from service.archive.moving import STEPS, Mover
from service.bootstrap import build
from service.settings import Settings

KINDS = ("game", "tournament")


def main(step: str, moving_id: str, kind: str = "game") -> int:
    if step not in STEPS:
        raise SystemExit(f"step must be one of {', '.join(STEPS)}: {step!r}")
    if kind not in KINDS:
        raise SystemExit(f"what moves is one of {', '.join(KINDS)}: {kind!r}")
    floe = build(Settings.from_env())
    assert floe.archive is not None, "FLOE_ARCHIVE_URL names no archive"

    def kill_after(done: str, moving: str) -> None:
        if (done, moving) == (step, moving_id):
            os.kill(os.getpid(), signal.SIGKILL)

    mover = Mover(
        floe.store,
        floe.archive,
        floe.tournaments.store,
        floe.repository.clock,
        after_s=0,
        on_step=kill_after,
    )
    if kind == "tournament":
        mover.move_tournament(moving_id)
    else:
        mover.move(moving_id)
    return 0  # the step was never reached: the test sees exit status 0, not a kill


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
