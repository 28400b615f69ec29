"""A ``floe worker`` whose ``greedy`` bot never checks its budget, so its move gets stuck.

``python -m tests.support.stuck_worker [--no-retry-failed]`` builds the worker as ``floe
worker`` does, but with a ``greedy`` policy that spins for ever in pure Python (as a search
that forgot its budget would) and every item's deadline ``DEADLINE_SECONDS``: its bot move
is found stuck, and the worker ends itself (``service.jobs.deadlines``).
"""

from __future__ import annotations

import sys

from domain.ai import POLICIES, Decision, Policy
from domain.engine.rules import Action
from service.bootstrap import build, build_worker
from service.settings import Settings

#: Every item's deadline in this worker: long enough for a draw on a busy machine.
DEADLINE_SECONDS = 2.0


class NeverChecks(Policy):
    """A policy that never looks at its budget: only its item's deadline can end it."""

    name = "never-checks"

    def decide(self, decision: Decision) -> Action:
        spins = 0
        while True:  # pure Python, holding the GIL but for the interpreter's switches
            spins += 1


def main(argv: list[str]) -> int:
    floe = build(Settings.from_env(), policies={**POLICIES, "greedy": NeverChecks()})
    worker = build_worker(
        floe,
        retry_failed="--no-retry-failed" not in argv,
        deadline_of=lambda item: DEADLINE_SECONDS,
    )
    worker.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
