"""Enough open files for the connections an API process serves.

Every connection is a file descriptor, and so are the process's Redis connections, pipes and
logs. Many systems start processes with a soft limit of 1024 open files, far below
``FLOE_WEB_CONNECTIONS``: the process would then fail to accept (``EMFILE``) long before the
limits meant to share its connections out apply. The soft limit may be raised, by anyone,
up to the hard limit; that is done here, and a hard limit too low is said once in the log.
"""

from __future__ import annotations

import logging
import resource

log = logging.getLogger(__name__)

#: Descriptors a process needs besides its clients' connections (Redis, pipes, logs, files).
OVERHEAD = 512


def raise_open_files(connections: int) -> int:
    """Raise the soft open-files limit to fit ``connections`` clients (never lower it);
    the limit now in force."""
    needed = connections + OVERHEAD
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        if target > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    if soft != resource.RLIM_INFINITY and soft < needed:
        log.warning(
            "the open-files limit is %d, below the %d that FLOE_WEB_CONNECTIONS=%d needs: "
            "raise the hard limit (ulimit -Hn, or the service manager's LimitNOFILE) or "
            "lower FLOE_WEB_CONNECTIONS",
            soft,
            needed,
            connections,
        )
    return int(soft)
