"""How much a Floe process logs: ``FLOE_LOG_LEVEL``, set once at its start.

Every process (``floe worker``, ``floe serve``, each gunicorn worker) logs through Python's
``logging`` to stderr at the one level the setting names. RQ is the exception worth a rule:
it writes a few lines for every job it runs, which for a drain is noise a busy worker prints
several times a second, so at ``info`` its loggers say only warnings and errors; ``debug``
lets them speak.
"""

from __future__ import annotations

import logging
import sys

#: The words ``FLOE_LOG_LEVEL`` takes, as ``logging`` levels.
LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
#: RQ's loggers: its worker's lines for every job it starts and ends, and its jobs'.
RQ_LOGGERS = ("rq.worker", "rq.job")
FORMAT = "[%(asctime)s] [%(process)d] [%(levelname)s] %(name)s: %(message)s"


def configure_logging(level: str) -> None:
    """Send this process's logs to stderr at ``level`` (a word of ``LEVELS``), with RQ's
    per-job lines only at ``debug``."""
    number = LEVELS[level]
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(handler)
    root.setLevel(number)
    quieter = number if number == logging.DEBUG else max(number, logging.WARNING)
    for name in RQ_LOGGERS:
        logging.getLogger(name).setLevel(quieter)
